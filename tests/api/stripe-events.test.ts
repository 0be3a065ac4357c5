// Stripe's events coming in and what they change: against the Stripe stand-in on loopback
// through the official `stripe` package. Events are recorded with an outbox row and processed by the worker
// (a crash between the two loses nothing; a redelivery is a no-op; a bad signature is a 400 and records
// nothing); a refund made in Stripe's dashboard becomes one refund of the order; a dispute opened and lost
// (order refunded, benefits revoked, the seller's email in the dev mailbox, Polar's Dispute through both SDKs,
// balance.dispute system events), won with its events delivered out of order, and accepted (0.49.0).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, dispute as disputeTable, order as orderTable, outbox, payment as paymentTable, refund as refundTable, stripeEvent } from "../../server/db/schema/index.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { reservePort } from "../helpers/ports.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { STRIPE_EVENT_TYPES } from "../../server/payments/stripe/client.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { confirmationToken, STRIPE_CARDS } from "../helpers/stripe-sandbox.js";
import { PeerCharges } from "../helpers/stripe-peer-charges.js";

const KEY = "sk_live_51TillEventsAaaaaaaaaaaaaaaaaa1234";
const PUBLISHABLE = "pk_live_51TillEventsBbbbbbbbbbbbbbbbbbb";
const OWNER = { account: "acct_1Events", livemode: true };

let peer: StripePeer;
let charges: PeerCharges;
let server: TestServer;
let seller: Seller;
let oneTime: Product;

const db = () => server.database.db;

async function until<T>(what: string, read: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A paid order of the one-time product whose payment Stripe knows as a succeeded PaymentIntent and charge. */
async function paidThroughStripe() {
  const checkout = await seller.sdk.checkouts.create({ products: [oneTime.id] });
  // the organization is connected to Stripe: the checkout is paid with a Stripe confirmation token (Stripe.js's)
  const token = await confirmationToken(peer, STRIPE_CARDS.visa, undefined, PUBLISHABLE);
  await pay(server, checkout, { confirmationTokenId: token }, null);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  const made = charges.createPayment(OWNER, { amount: order.totalAmount, currency: order.currency });
  // the Stripe adapter records the PaymentIntent's id as the payment's processor id (this branch pays with the test
  // processor)
  await db().update(paymentTable).set({ processor: "stripe", processorPaymentId: made.paymentIntent.id }).where(eq(paymentTable.orderId, order.id));
  return { order, ...made };
}

const refundsOf = (orderId: string) => db().select().from(refundTable).where(eq(refundTable.orderId, orderId));
const orderRow = async (orderId: string) => (await db().select().from(orderTable).where(eq(orderTable.id, orderId)))[0]!;
const eventRow = async (id: string) => (await db().select().from(stripeEvent).where(eq(stripeEvent.id, id)))[0];
/**
 * The events till's endpoint is registered for (the stand-in also emits charge.dispute.funds_*, which it does not
 * take).
 */
const taken = (events: Array<{ id: string; type: string }>) => events.filter((e) => (STRIPE_EVENT_TYPES as readonly string[]).includes(e.type));
const allProcessed = (events: Array<{ id: string; type: string }>) => Promise.all(taken(events).map((e) => processed(e.id)));

async function processed(id: string) {
  try {
    return await until(`event ${id} processed`, async () => ((await eventRow(id))?.processedAt ? eventRow(id) : null));
  } catch (err) {
    throw new Error(`${String(err)}: ${JSON.stringify((await eventRow(id))?.error ?? "not recorded")}`);
  }
}
const outboxTypesOf = async (orderId: string) =>
  (await db()
    .select({ type: outbox.type, payload: outbox.payload })
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'order_id' = ${orderId} OR ${outbox.payload} ->> 'id' = ${orderId}`)).map((r) => r.type);

function devMails(): Array<{ to: string; subject: string; text: string }> {
  try {
    return readdirSync(server.mailDir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(path.join(server.mailDir, f), "utf8")) as { to: string; subject: string; text: string });
  } catch {
    return [];
  }
}

beforeAll(async () => {
  peer = new StripePeer([{ id: OWNER.account, keys: [{ secret: KEY }, { secret: PUBLISHABLE }] }]);
  charges = new PeerCharges(peer);
  const stripeUrl = await peer.start();
  const { port, release } = await reservePort();
  await release();
  server = await startServer(
    { TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl },
    { port, devMailbox: true },
  );
  charges.deliverToOrigin = server.url;
  seller = await createSeller(server, "stripe-events");
  const connected = await fetch(`${server.url}/v1/stripe/connection`, {
    method: "PUT",
    headers: { authorization: `Bearer ${await seller.createKey()}`, "content-type": "application/json" },
    body: JSON.stringify({ secret_key: KEY, publishable_key: PUBLISHABLE }),
  });
  expect(connected.status, await connected.text()).toBe(200);
  const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "hi" } });
  oneTime = await createProduct(seller, "fixed");
  await seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [benefit.id] } });
});
afterAll(async () => {
  await server?.close();
  await peer?.stop();
});

describe("Stripe events through the outbox", () => {
  it("answers a bad signature with 400 and records nothing", async () => {
    const endpoint = [...peer.endpoints.values()][0]!;
    const [events, rows] = await Promise.all([db().select().from(stripeEvent), db().select().from(outbox).where(eq(outbox.type, "stripe.event"))]);
    const forged = await peer.deliver({ ...endpoint, url: `${server.url}${new URL(endpoint.url).pathname}` }, { type: "charge.refunded" }, { secret: "whsec_notTheRightSecret0000" });
    expect(forged.status).toBe(400);
    expect(await db().select().from(stripeEvent)).toHaveLength(events.length);
    expect(await db().select().from(outbox).where(eq(outbox.type, "stripe.event"))).toHaveLength(rows.length);
  });

  it("loses nothing when the worker is down between recording and processing: the refund made in Stripe is recorded once when it runs", async () => {
    const { order, charge } = await paidThroughStripe();
    const { refund, events } = await charges.refundInDashboard(charge.id);
    expect(charges.deliveries.filter((d) => events.includes(d.event)).map((d) => d.status)).toEqual([200, 200]);
    // recorded with its outbox row, not processed: the worker is not running (as after a crash)
    const recorded = await eventRow(events[0]!.id);
    expect(recorded).toMatchObject({ type: "charge.refunded", objectId: charge.id, processedAt: null });
    const pending = await db().select().from(outbox).where(and(eq(outbox.type, "stripe.event"), sql`${outbox.payload} ->> 'id' = ${events[0]!.id}`));
    expect(pending).toHaveLength(1);
    expect(pending[0]?.processedAt).toBeNull();
    expect(await refundsOf(order.id)).toHaveLength(0);

    await server.worker.start();
    await Promise.all(events.map((e) => processed(e.id)));
    const refunds = await refundsOf(order.id);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ status: "succeeded", amount: order.totalAmount - order.taxAmount, taxAmount: order.taxAmount, processorRefundId: refund.id, reason: "customer_request" });
    expect(await orderRow(order.id)).toMatchObject({ status: "refunded", refundedAmount: order.totalAmount - order.taxAmount });
    // the events a refund made in till has
    expect(await outboxTypesOf(order.id)).toEqual(expect.arrayContaining(["refund.created", "refund.updated", "order.updated", "order.refunded"]));
    const refundsOnWire = await seller.sdk.refunds.list({ orderId: order.id });
    expect(refundsOnWire.result.items).toHaveLength(1);

    // a redelivery is acknowledged and recorded nothing; a later event about the same refund changes nothing
    const again = await peer.deliver(
      { ...[...peer.endpoints.values()][0]!, url: `${server.url}${new URL([...peer.endpoints.values()][0]!.url).pathname}` },
      { id: events[1]!.id, type: events[1]!.type, data: events[1]!.data },
    );
    expect(again.body).toMatchObject({ duplicate: true });
    const [later] = (await charges.refundInDashboard(charge.id, { amount: 0, hold: true })).events;
    later!.type = "refund.updated";
    later!.data = { object: { id: refund.id, object: "refund" } };
    await charges.deliverAll([later!]);
    await processed(later!.id);
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it("a dispute opened and lost: Polar's Dispute through both SDKs, the order refunded, benefits revoked, the seller told, balance events", async () => {
    await server.worker.start();
    const { order, charge } = await paidThroughStripe();
    const grants = () => db().select().from(benefitGrant).where(eq(benefitGrant.orderId, order.id));
    expect((await grants()).every((g) => g.revokedAt === null)).toBe(true);
    const opened = await charges.openDispute(charge.id, { reason: "fraudulent" });
    await allProcessed(opened.events);
    const row = (await db().select().from(disputeTable).where(eq(disputeTable.orderId, order.id)))[0]!;
    expect(row).toMatchObject({ status: "needs_response", processorDisputeId: opened.dispute.id, reason: "fraudulent" });
    expect(row.amount + row.taxAmount).toBe(order.totalAmount);

    const got = await seller.sdk.disputes.get({ id: row.id });
    expect(got).toMatchObject({ id: row.id, status: "needs_response", resolved: false, closed: false, orderId: order.id });
    const got049 = await seller.sdk049.disputes.get({ id: row.id });
    expect(got049).toMatchObject({ id: row.id, status: "needs_response", reason: "fraudulent", pastDue: false });
    expect(got049.customer.email).toBe(order.customer.email);
    expect((await seller.sdk.disputes.list({ orderId: order.id })).result.items.map((d) => d.id)).toEqual([row.id]);
    expect((await seller.sdk049.disputes.list({ status: "needs_response" })).result.items.map((d) => d.id)).toContain(row.id);
    const openedMail = await until("the seller's dispute email", async () => devMails().find((m) => m.to === seller.user.email && /disputed/.test(m.subject)));
    expect(openedMail.text).toContain(row.id);
    expect((await orderRow(order.id)).status).toBe("paid");

    const lost = await charges.setDisputeStatus(opened.dispute.id, "lost");
    await allProcessed(lost.events);
    expect(await seller.sdk.disputes.get({ id: row.id })).toMatchObject({ status: "lost", resolved: true, closed: true });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "refunded", refundedAmount: order.totalAmount - order.taxAmount });
    expect((await grants()).length).toBeGreaterThan(0);
    expect((await grants()).every((g) => g.revokedAt !== null)).toBe(true);
    expect(await outboxTypesOf(order.id)).toEqual(expect.arrayContaining(["order.refunded", "benefit_grant.revoked"]));
    await until("the seller's closing email", async () => devMails().find((m) => m.to === seller.user.email && /Dispute lost/.test(m.subject)));

    for (const sdk of [seller.sdk, seller.sdk049] as const) {
      const events = (await sdk.events.list({ source: "system", limit: 100 })).items.filter((e) => e.name === "balance.dispute");
      const mine = events.find((e) => "metadata" in e && (e.metadata as { dispute_id?: string; disputeId?: string }).disputeId === row.id);
      expect(mine, JSON.stringify(events)).toBeDefined();
      expect(mine?.metadata).toMatchObject({ amount: -row.amount, taxAmount: -row.taxAmount || 0, currency: "usd", fee: 1500, orderId: order.id });
    }
    // a lost dispute is not settled twice: a replayed close changes nothing
    const close = lost.events.find((e) => e.type === "charge.dispute.closed");
    const redo = { ...close!, id: `${close!.id}_again` };
    charges.events.set(redo.id, redo);
    await charges.deliverAll([redo]);
    await processed(redo.id);
    expect((await db().select().from(disputeTable).where(eq(disputeTable.orderId, order.id)))).toHaveLength(1);
    expect((await orderRow(order.id)).refundedAmount).toBe(order.totalAmount - order.taxAmount);
  });

  it("takes events out of order: a dispute's close delivered before its opening ends won, settled once", async () => {
    await server.worker.start();
    const { order, charge } = await paidThroughStripe();
    const opened = await charges.openDispute(charge.id, { hold: true });
    const won = await charges.setDisputeStatus(opened.dispute.id, "won", { hold: true });
    const all = [...opened.events, ...won.events].reverse();
    await charges.deliverAll(all);
    await allProcessed(all);
    const rows = await db().select().from(disputeTable).where(eq(disputeTable.orderId, order.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe("won");
    expect((await orderRow(order.id)).status).toBe("paid");
    const names = (await seller.sdk.events.list({ source: "system", limit: 100 })).items
      .filter((e) => "metadata" in e && (e.metadata as { disputeId?: string }).disputeId === rows[0]!.id)
      .map((e) => e.name)
      .sort();
    expect(names).toEqual(["balance.dispute", "balance.dispute_reversal"]);
  });

  it("accepts an open dispute (SDK 0.49.0): closed at Stripe, lost; a closed one answers 409 DisputeNotOpenError", async () => {
    await server.worker.start();
    const { order, charge } = await paidThroughStripe();
    const opened = await charges.openDispute(charge.id);
    await allProcessed(opened.events);
    const [row] = await db().select().from(disputeTable).where(eq(disputeTable.orderId, order.id));
    const accepted = await seller.sdk049.disputes.accept({ id: row!.id });
    expect(accepted).toMatchObject({ id: row!.id, status: "lost", closed: true });
    expect(peer.requests.some((r) => r.method === "POST" && r.path === `/v1/disputes/${opened.dispute.id}/close`)).toBe(true);
    await expect(seller.sdk049.disputes.accept({ id: row!.id })).rejects.toMatchObject({ statusCode: 409 });
    expect((await orderRow(order.id)).status).toBe("refunded");
  });
});
