// customer.state_changed as the push that keeps a seller's cache of entitlements fresh: every change that alters an
// answer — a grant, a revocation, a cancellation, a subscription going past due and back to active when paid, a
// usage alert crossing (a `balance` alert at 0: the credits exhausted) — reaches a webhook endpoint and the
// `till listen` stream (GET /v1/cli/listen), each carrying the state the worker computed when it sent it. A balance
// alert at 0 fires once per period: not again for later events of that period, again in the next (test clock).
import { Polar } from "@polar-sh/sdk";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDunning } from "../../server/billing/dunning/service.js";
import { orderDunning, outbox, usageAlertCrossing } from "../../server/db/schema/index.js";
import { createPaymentProcessor } from "../../server/payments/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, subscribeThroughCheckout, uniqueBuyer } from "../helpers/checkout.js";
import { uniqueEmail } from "../helpers/client.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
/** The listen streams open: the organization's, and its sandbox's (a sandbox key's objects are its own). */
const streams: Array<{ text: string; close(): Promise<void> }> = [];

type State = {
  id: string;
  active_subscriptions: Array<{ id: string; status: string; cancel_at_period_end: boolean }>;
  granted_benefits: Array<{ benefit_id: string }>;
  active_meters: Array<{ meter_id: string; consumed_units: number; credited_units: number; balance: number }>;
};

/** The stream behind `till listen`, of customer.state_changed only, read for the whole file. */
async function listen(token: string) {
  const ctrl = new AbortController();
  const res = await fetch(`${server.url}/v1/cli/listen?events=customer.state_changed`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal });
  expect(res.status).toBe(200);
  const out = { text: "", close: async () => {} };
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) out.text += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted
    }
  })();
  out.close = async () => {
    ctrl.abort();
    await reading;
  };
  return out;
}

/** The states pushed for a customer so far: by webhook, and on the stream. */
function pushed(customerId: string): { webhook: State[]; stream: State[] } {
  const webhook = receiver
    .at("/state")
    .map((h) => JSON.parse(h.body) as { type: string; data: State })
    .filter((b) => b.type === "customer.state_changed" && b.data.id === customerId)
    .map((b) => b.data);
  const messages = streams
    .flatMap((st) => st.text.split("\n\n"))
    .flatMap((block) => block.split("\n").filter((l) => l.startsWith("data: ")))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; data: State });
  return { webhook, stream: messages.filter((b) => b.type === "customer.state_changed" && b.data.id === customerId).map((b) => b.data) };
}

/**
 * Waits until a state pushed after `seen` (the counts before the change) satisfies `holds`, by webhook and on the
 * stream alike; returns the counts now.
 */
async function expectPush(customerId: string, seen: { webhook: number; stream: number }, holds: (s: State) => boolean) {
  const got = await eventually(async () => {
    const p = pushed(customerId);
    return p.webhook.slice(seen.webhook).some(holds) && p.stream.slice(seen.stream).some(holds) && p;
  }, 20_000);
  return { webhook: got.webhook.length, stream: got.stream.length };
}

const counts = (customerId: string) => {
  const p = pushed(customerId);
  return { webhook: p.webhook.length, stream: p.stream.length };
};

/** customer.state_changed rows recorded for the customer (sent or not). */
async function recorded(customerId: string): Promise<number> {
  const rows = await server.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(outbox)
    .where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${customerId}`));
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "push");
  await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/state`, format: "raw", events: ["customer.state_changed"] });
  streams.push(await listen(seller.token));
}, 120_000);
afterAll(async () => {
  for (const st of streams) await st.close();
  await server?.close();
  await receiver?.stop();
});

describe("customer.state_changed, by webhook and on the listen stream", () => {
  it("follows grants and revocations: a subscription, a benefit added to and removed from its product, cancellation, revocation", async () => {
    const perk = await seller.sdk.benefits.create({ type: "custom", description: "Perk", properties: {} });
    const extra = await seller.sdk.benefits.create({ type: "custom", description: "Extra", properties: {} });
    const product = await seller.sdk.products.create({ name: "Push plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 0, priceCurrency: "usd" }] });
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [perk.id] } });
    const customer = await seller.sdk.customers.create({ email: uniqueEmail("push") });
    const has = (s: State, id: string) => s.granted_benefits.some((g) => g.benefit_id === id);

    let seen = counts(customer.id);
    const sub = await seller.sdk.subscriptions.create({ productId: product.id, customerId: customer.id });
    seen = await expectPush(customer.id, seen, (s) => has(s, perk.id) && s.active_subscriptions.some((a) => a.id === sub.id));

    // the product's benefits change: its subscribers are granted and revoked by the worker
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [perk.id, extra.id] } });
    seen = await expectPush(customer.id, seen, (s) => has(s, perk.id) && has(s, extra.id));
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [extra.id] } });
    seen = await expectPush(customer.id, seen, (s) => !has(s, perk.id) && has(s, extra.id));

    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    seen = await expectPush(customer.id, seen, (s) => s.active_subscriptions.some((a) => a.id === sub.id && a.cancel_at_period_end));
    await seller.sdk.subscriptions.revoke({ id: sub.id });
    await expectPush(customer.id, seen, (s) => s.active_subscriptions.length === 0 && s.granted_benefits.length === 0);
  });

  it("follows a subscription going past due on a declined renewal, and back to active when a retry pays it", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    // a card that attaches but whose charges are declined
    await pay(server, checkout, { customerEmail: uniqueBuyer("push") }, "4000 0000 0000 9995");
    const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id, limit: 10 })).result.items;
    if (!sub) throw new Error("no subscription");
    const customerId = sub.customerId;
    let seen = await expectPush(customerId, { webhook: 0, stream: 0 }, (s) => s.active_subscriptions.some((a) => a.id === sub.id));

    const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(renewed.body.status).toBe("past_due");
    // a past-due subscription is not an active one in the state
    seen = await expectPush(customerId, seen, (s) => !s.active_subscriptions.some((a) => a.id === sub.id));

    // the customer adds a working card in the portal; the schedule's retry charges it
    const session = (await seller.sdk.customerSessions.create({ customerId })).token;
    const card = await rawRequest(server.url, session, "POST", "/v1/customer-portal/customers/me/payment-methods/test-card", {
      number: "4242 4242 4242 4242",
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      cvc: "123",
    });
    await new Polar({ serverURL: server.url }).customerPortal.customers.addPaymentMethod(
      { customerSession: session },
      { confirmationTokenId: card.body.confirmation_token_id as string, setDefault: true, returnUrl: "https://example.com/back" },
    );
    const [order] = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"], limit: 1 })).result.items;
    const [dunning] = await server.database.db.select().from(orderDunning).where(eq(orderDunning.orderId, order!.id));
    const due = dunning?.nextAttemptAt ?? new Date();
    expect(await runDunning({ db: server.database.db, processor: createPaymentProcessor(), baseURL: server.url, now: new Date(due.getTime() + 1000) })).toBe(1);
    await expectPush(customerId, seen, (s) => s.active_subscriptions.some((a) => a.id === sub.id && a.status === "active"));
  });

  it("follows a balance alert at 0: once when ingested events exhaust the period's credits, not again that period, again the next", async () => {
    const key = await seller.createSandboxKey();
    const sdk = sdkFor(server, key);
    const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/state`, format: "raw", events: ["customer.state_changed"] });
    streams.push(await listen(key));
    const meter = await sdk.meters.create({
      name: "prompts",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "prompt" }] },
      aggregation: { func: "count" },
    });
    const credit = await sdk.benefits.create({ type: "meter_credit", description: "3 prompts", properties: { meterId: meter.id, units: 3, rollover: false } });
    const product = await sdk.products.create({
      name: "Prompts plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 0, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "5", priceCurrency: "usd" },
      ],
    });
    await sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [credit.id] } });
    // a threshold of 0 is a balance's alone
    expect((await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "units", threshold: 0 })).status).toBe(422);
    expect((await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "balance", threshold: -1 })).status).toBe(422);
    const alert = await raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "balance", threshold: 0 });
    expect(alert.status, JSON.stringify(alert.body)).toBe(201);
    expect(alert.body).toMatchObject({ kind: "balance", threshold: 0 });

    // bought with a card: the renewal bills the usage beyond the credits and is paid
    const sub = await subscribeThroughCheckout(server, sdk, product.id, `prompts-${Date.now()}`);
    const customer = { id: sub.customerId };
    const credited = (s: State) => s.active_meters.some((m) => m.meter_id === meter.id && m.credited_units === 3);
    let seen = await expectPush(customer.id, { webhook: 0, stream: 0 }, credited);
    const prompt = async (n: number) => {
      const events = Array.from({ length: n }, () => ({ name: "prompt", customer_id: customer.id }));
      const res = await raw("POST", "/v1/events/ingest", { events });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const crossings = async () => (await server.database.db.select().from(usageAlertCrossing).where(eq(usageAlertCrossing.alertId, alert.body.id as string))).map((c) => c.measured);

    // 2 of 3: a balance of 1 crosses nothing (the check runs before the ingest answers)
    const before = await recorded(customer.id);
    await prompt(2);
    expect(await crossings()).toEqual([]);
    expect(await recorded(customer.id)).toBe(before);
    // the third exhausts the credits: one crossing, one push with the balance at 0
    await prompt(1);
    expect(await crossings()).toEqual([expect.objectContaining({ value: 0, consumed: 3, credit: 3 })]);
    expect(await recorded(customer.id)).toBe(before + 1);
    seen = await expectPush(customer.id, seen, (s) => s.active_meters.some((m) => m.meter_id === meter.id && m.balance === 0));
    // later events of the period: the balance goes on falling, the alert stays fired
    await prompt(2);
    await prompt(1);
    expect(await crossings()).toHaveLength(1);
    expect(await recorded(customer.id)).toBe(before + 1);

    // the next period (the renewal pushes its own change): credited again, exhausted and fired again
    const end = (await sdk.subscriptions.get({ id: sub.id })).currentPeriodEnd;
    expect((await raw("POST", "/v1/test-clock/advance", { to: new Date(end.getTime() + 60_000).toISOString() })).status).toBe(200);
    await eventually(async () => (await sdk.subscriptions.get({ id: sub.id })).currentPeriodStart.getTime() >= end.getTime(), 20_000);
    seen = await expectPush(customer.id, seen, (s) => s.active_meters.some((m) => m.meter_id === meter.id && m.consumed_units === 0 && m.balance === 3));
    const renewed = await recorded(customer.id);
    await prompt(3);
    expect(await crossings()).toHaveLength(2);
    expect(await recorded(customer.id)).toBe(renewed + 1);
    await expectPush(customer.id, seen, (s) => s.active_meters.some((m) => m.meter_id === meter.id && m.consumed_units === 3 && m.balance === 0));
    await prompt(1);
    expect(await crossings()).toHaveLength(2);
  });
});
