// The refund lifecycle through Stripe, against the Stripe stand-in with Stripe's asynchronous refund test cards:
// 4000000000007726's refund starts pending and succeeds later; 4000000000005126's starts succeeded and fails
// later (expired_or_canceled_card). A pending refund counts at once and is `pending` on the wire until Stripe's
// refund.updated says it succeeded; a refund that fails or is canceled is undone — the order paid again, the
// wallet's part taken back, the benefits it revoked granted again — with refund.updated (valid for both SDKs),
// the owners' email and `till refunds list` saying so; a replayed or later event changes nothing more.
import { and, asc, eq, isNotNull, isNull } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, customerBalanceEntry, customerEmail, outbox, refund as refundTable, stripeEvent } from "../../server/db/schema/index.js";
import { settleProcessorRefund } from "../../server/billing/refunds/service.js";
import { createProduct, publicRequest } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { confirmationToken, STRIPE_KEYS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";
import { tempConfigDir, till } from "../cli/till.js";

/** Stripe's asynchronous refund test cards (docs.stripe.com/testing, "Refunds"). */
const PENDING_REFUND = "4000000000007726";
const REFUND_FAILS = "4000000000005126";

let s: StripeSandbox;
let seller: Seller;
let endpointSecret = "";
let product: Product;
const receiver = new Receiver();

useWebhookSandbox(receiver, "/refunds", ["refund.created", "refund.updated", "order.updated"], (r) => {
  ({ s, seller, endpointSecret } = r);
});

beforeAll(async () => {
  const benefit = await seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "hi" } });
  product = await createProduct(seller, "fixed");
  await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
});

const db = () => s.server.database.db;
let n = 0;

/**
 * A one-time purchase ($25.00) paid with `card`; with `wallet`, that much of it paid from the customer's wallet first.
 */
async function buy(card: string, wallet = 0) {
  const email = `refund-${n++}-${Date.now()}@example.com`;
  const customer = await seller.sdk.customers.create({ email, name: "Ada Buyer" });
  let walletId: string | null = null;
  if (wallet > 0) {
    walletId = (await api("POST", "/v1/wallets/", { customer_id: customer.id, currency: "usd" })).id as string;
    await api("POST", `/v1/wallets/${walletId}/adjustments`, { amount: wallet, reason: "goodwill" });
  }
  const checkout = await seller.sdk.checkouts.create({ products: [product.id], customerId: customer.id });
  const res = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
    customer_email: email,
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: await confirmationToken(s.peer, card),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const order = await until(async () => (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items.find((o) => o.status === "paid"), "the order");
  return { order, customer, walletId, email };
}

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The stand-in's refund of till's refund `id` (till sends its id in the metadata). */
function stripeRefundOf(id: string) {
  const found = [...s.peer.payments.refunds.values()].find((r) => (r.metadata as Record<string, string>).refund_id === id);
  if (!found) throw new Error(`no Stripe refund for ${id}`);
  return found;
}

/** The test's control over the stand-in, as a test of Stripe's test mode waits for it: the refund's later answer. */
async function settleInStripe(stripeRefundId: string, status?: "succeeded" | "failed" | "canceled") {
  const res = await fetch(`${s.peer.url}/test-control/refunds/${stripeRefundId}/settle`, {
    method: "POST",
    headers: { authorization: `Bearer ${STRIPE_KEYS.secret}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(status ? { status } : {}),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const refundRow = async (id: string) => (await db().select().from(refundTable).where(eq(refundTable.id, id)))[0]!;
const statusIs = (id: string, status: string) => until(async () => ((await refundRow(id)).status === status ? true : undefined), `refund ${id} ${status}`);
const refundUpdates = (id: string) =>
  receiver.hits.map((h) => ({ h, e: JSON.parse(h.body) as { type: string; data: { id: string; status: string } } })).filter(({ e }) => e.type === "refund.updated" && e.data.id === id);
// in the order they were written (the refund's creation, then Stripe's answer, each in its own transaction)
const outboxOf = async (id: string) =>
  (await db().select({ type: outbox.type, payload: outbox.payload }).from(outbox).orderBy(asc(outbox.createdAt)))
    .filter((r) => (r.payload as { id?: string }).id === id)
    .map((r) => `${r.type}:${String((r.payload as { status?: string }).status)}`);
const liveGrants = async (orderId: string) =>
  (await db().select().from(benefitGrant).where(and(eq(benefitGrant.orderId, orderId), isNotNull(benefitGrant.grantedAt), isNull(benefitGrant.revokedAt)))).length;
/** The buyer's refund emails recorded for `recipient` (customer_email_settings.order_refunded). */
const refundEmailsTo = (recipient: string) => db().select().from(customerEmail).where(and(eq(customerEmail.recipient, recipient), eq(customerEmail.type, "order_refunded")));
const walletBalance = async (walletId: string) => (await api("GET", `/v1/wallets/${walletId}`)).balance as number;

describe("a refund through Stripe", () => {
  it("pending until Stripe says it succeeded: counts at once, refund.updated (succeeded) when it does", async () => {
    const { order, email } = await buy(PENDING_REFUND);
    const refund = await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1000 });
    expect(refund).toMatchObject({ status: "pending", amount: 1000 });
    // the order counts it at once, as Stripe's charge does in amount_refunded
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "partially_refunded", refundedAmount: 1000 });
    expect((await seller.sdk.refunds.list({ orderId: order.id })).result.items.map((r) => r.status)).toEqual(["pending"]);
    // no refund.updated (nor its credit note) while Stripe has not finished
    expect(await outboxOf(refund.id)).toEqual(["refund.created:pending"]);
    // nor the buyer's email: the money has not gone back yet
    expect(await refundEmailsTo(email)).toEqual([]);

    const stripeRefund = stripeRefundOf(refund.id);
    expect(stripeRefund.status).toBe("pending");
    await settleInStripe(stripeRefund.id);
    await statusIs(refund.id, "succeeded");
    const [hit] = await receiver.until(() => (refundUpdates(refund.id).length > 0 ? refundUpdates(refund.id) : undefined));
    const event = validateEvent(hit!.h.body, hit!.h.headers, endpointSecret);
    validateEvent049(hit!.h.body, hit!.h.headers, endpointSecret);
    expect(event).toMatchObject({ type: "refund.updated", data: { id: refund.id, status: "succeeded", amount: 1000 } });
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "partially_refunded", refundedAmount: 1000 });
    expect(await outboxOf(refund.id)).toEqual(["refund.created:pending", "refund.updated:succeeded"]);
    // the buyer is told once Stripe says the money went back, once
    const mail = await s.server.mailbox.waitFor(email, /Your refund/, 10_000);
    expect(mail.subject).toBe(`Your refund of $10.00 from ${mail.fromName}`);
    expect(mail.text).toContain(`refunded $10.00 for ${product.name} (invoice ${order.invoiceNumber}).`);
    expect(mail.text).toContain("It goes back to the payment method you paid with.");
    expect(mail.text).toContain("This was a partial refund: $10.00 of the order's $25.00 has been refunded so far.");
    // Stripe's success told again (a replayed event) asks for no second email
    const row = await refundRow(refund.id);
    expect(await settleProcessorRefund(db(), row.organizationId, { processorRefundId: stripeRefund.id, status: "succeeded", failureReason: null })).toBeNull();
    expect(await refundEmailsTo(email)).toHaveLength(1);
  });

  it("fails after Stripe answered it succeeded: order, wallet and benefits as they were, refund.updated (failed), the owners told, the CLI shows it; replays change nothing", async () => {
    // $25.00: $6.00 from the wallet, $19.00 by the card whose refunds fail
    const { order, walletId, email } = await buy(REFUND_FAILS, 600);
    expect(order).toMatchObject({ totalAmount: 2500, appliedBalanceAmount: -600 });
    expect(await walletBalance(walletId!)).toBe(0);
    expect(await liveGrants(order.id)).toBe(1);

    const refund = await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 2500, revokeBenefits: true });
    // Stripe answers this card's refund succeeded at first
    expect(refund.status).toBe("succeeded");
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "refunded", refundedAmount: 2500 });
    expect(await walletBalance(walletId!)).toBe(600);
    expect(await liveGrants(order.id)).toBe(0);
    // succeeded at once: the buyer is told where each part went
    const told = await s.server.mailbox.waitFor(email, /Your refund/, 10_000);
    expect(told.text).toContain("$19.00 goes back to the payment method you paid with and $6.00 was added to your wallet balance.");
    expect(told.text).not.toContain("partial refund");

    const stripeRefund = stripeRefundOf(refund.id);
    await settleInStripe(stripeRefund.id);
    await statusIs(refund.id, "failed");
    expect(await refundRow(refund.id)).toMatchObject({ status: "failed", failureReason: "expired_or_canceled_card" });
    // everything the refund did is undone
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "paid", refundedAmount: 0, refundedTaxAmount: 0 });
    expect(await walletBalance(walletId!)).toBe(0);
    expect(await liveGrants(order.id)).toBe(1);
    const [listed] = (await seller.sdk.refunds.list({ orderId: order.id })).result.items;
    expect(listed).toMatchObject({ id: refund.id, status: "failed" });

    const updates = await receiver.until(() => {
      const u = refundUpdates(refund.id);
      return u.some(({ e }) => e.data.status === "failed") ? u : undefined;
    });
    const failed = updates.find(({ e }) => e.data.status === "failed")!;
    expect(validateEvent(failed.h.body, failed.h.headers, endpointSecret)).toMatchObject({ type: "refund.updated", data: { id: refund.id, status: "failed" } });
    validateEvent049(failed.h.body, failed.h.headers, endpointSecret);
    const orderPaidAgain = await receiver.until(() =>
      receiver.hits
        .map((h) => JSON.parse(h.body) as { type: string; data: { id: string; status: string } })
        .find((e) => e.type === "order.updated" && e.data.id === order.id && e.data.status === "paid"),
    );
    expect(orderPaidAgain).toBeTruthy();

    const mail = await s.server.mailbox.waitFor(seller.user.email, /Refund failed/, 10_000);
    expect(mail.subject).toBe(`Refund failed: $25.00 for ${product.name} (${order.invoiceNumber})`);
    expect(mail.text).toContain("reason: expired or canceled card");
    expect(mail.text).toContain("the benefits the refund revoked are granted again");

    const cli = await till(["refunds", "list", "--order", order.id], { configDir: tempConfigDir(), env: { TILL_API_KEY: s.key, TILL_SERVER: s.server.url } });
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`${refund.id}\t${order.id}\t$25.00\tcustomer_request\tfailed (expired_or_canceled_card)\t`);

    // Stripe's events again (a replay, and a later refund.failed and refund.updated of the same refund): nothing moves
    const before = {
      outbox: await outboxOf(refund.id),
      entries: (await db().select().from(customerBalanceEntry).where(eq(customerBalanceEntry.orderId, order.id))).length,
      grants: (await db().select().from(benefitGrant).where(eq(benefitGrant.orderId, order.id))).length,
      mails: s.server.mailbox.messages.filter((m) => m.to.includes(seller.user.email) && /Refund failed/.test(m.subject)).length,
    };
    const processedBefore = await processedRefundEvents();
    const auth = s.peer.authOf("acct_1TillPay", false);
    s.peer.emit(auth, "refund.failed", stripeRefund);
    s.peer.emit(auth, "refund.updated", stripeRefund);
    await until(async () => ((await processedRefundEvents()) >= processedBefore + 2 ? true : undefined), "the replayed events processed");
    expect(await outboxOf(refund.id)).toEqual(before.outbox);
    expect((await db().select().from(customerBalanceEntry).where(eq(customerBalanceEntry.orderId, order.id))).length).toBe(before.entries);
    expect((await db().select().from(benefitGrant).where(eq(benefitGrant.orderId, order.id))).length).toBe(before.grants);
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "paid", refundedAmount: 0 });
    expect(await walletBalance(walletId!)).toBe(0);
    expect(s.server.mailbox.messages.filter((m) => m.to.includes(seller.user.email) && /Refund failed/.test(m.subject))).toHaveLength(before.mails);

    // the order can be refunded again (another way), in full
    const again = await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 2500 });
    expect(again.status).toBe("succeeded");
  });

  it("a pending refund Stripe cancels: canceled on the wire, the order paid again", async () => {
    const { order } = await buy(PENDING_REFUND);
    const refund = await seller.sdk.refunds.create({ orderId: order.id, reason: "duplicate", amount: 2500 });
    expect(refund.status).toBe("pending");
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "refunded" });
    await settleInStripe(stripeRefundOf(refund.id).id, "canceled");
    await statusIs(refund.id, "canceled");
    expect(await seller.sdk.orders.get({ id: order.id })).toMatchObject({ status: "paid", refundedAmount: 0 });
    expect((await seller.sdk.refunds.list({ orderId: order.id })).result.items.map((r) => r.status)).toEqual(["canceled"]);
    const canceled = await receiver.until(() => refundUpdates(refund.id).find(({ e }) => e.data.status === "canceled"));
    expect(validateEvent(canceled.h.body, canceled.h.headers, endpointSecret)).toMatchObject({ data: { status: "canceled" } });
    await s.server.mailbox.waitFor(seller.user.email, /Refund canceled/, 10_000);
  });
});

async function processedRefundEvents(): Promise<number> {
  const rows = await db().select({ type: stripeEvent.type }).from(stripeEvent).where(isNotNull(stripeEvent.processedAt));
  return rows.filter((r) => r.type.startsWith("refund.") || r.type.startsWith("charge.refund")).length;
}
