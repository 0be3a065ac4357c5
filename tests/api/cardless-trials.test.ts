// Trials without a card (polarsource/polar#6969), on the test clock of a sandbox organization: where the
// organization allows it (`plan_settings.trials_without_card`, till's own), a checkout of a product with a trial
// completes without a payment method; at the trial's end, without a card, the subscription ends as the
// organization chose (`trial_end_without_card`: `cancel`, or `past_due` through dunning), and with a card added in
// the portal it renews and is billed. Subscription webhooks are validated by both SDKs. Over three periods: each
// ending, and a card added in the trial renewing twice, every order to the cent.
import type { Polar } from "@polar-sh/sdk";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerEmail } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, publicRequest } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let receiver: Receiver;

interface Sandbox {
  sdk: Polar;
  product: Product;
  raw: (method: string, path: string, body?: unknown, token?: string) => ReturnType<typeof rawRequest>;
}

async function sandbox(name: string, settings: Record<string, unknown>): Promise<Sandbox> {
  const seller = await createSeller(server, name);
  const key = await seller.createSandboxKey();
  const sdk = sdkFor(server, key);
  const raw = (method: string, path: string, body?: unknown, token = key) => rawRequest(server.url, token, method, path, body);
  const organizationId = String((await raw("GET", "/v1/test-clock")).body.organization_id);
  const res = await raw("PATCH", `/v1/organizations/${organizationId}`, { plan_settings: settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const product = await sdk.products.create({
    name: "Trial plan",
    recurringInterval: "month",
    trialInterval: "day",
    trialIntervalCount: 14,
    prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }],
  });
  return { sdk, product, raw };
}

/** A checkout of the trial product confirmed without a card: the subscription it started. */
async function trialWithoutCard(s: Sandbox, email: string) {
  const checkout = await s.sdk.checkouts.create({ products: [s.product.id] });
  const shown = await publicRequest(server, "GET", `/v1/checkouts/client/${checkout.clientSecret}`);
  expect(shown.body).toMatchObject({ is_payment_required: false, is_payment_setup_required: false, is_payment_form_required: false });
  await pay(server, checkout, { customerEmail: email }, null);
  const [sub] = (await s.sdk.subscriptions.list({ productId: s.product.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
  if (!sub) throw new Error("no subscription");
  expect(sub).toMatchObject({ status: "trialing" });
  return sub;
}

/** The customer adds a card in the portal. */
async function addCard(s: Sandbox, customerId: string) {
  const session = await s.sdk.customerSessions.create({ customerId });
  const card = await s.raw(
    "POST", "/v1/customer-portal/customers/me/payment-methods/test-card",
    { number: "4242 4242 4242 4242", exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123" },
    session.token,
  );
  expect(card.status, JSON.stringify(card.body)).toBe(200);
  const added = await s.raw(
    "POST", "/v1/customer-portal/customers/me/payment-methods",
    { confirmation_token_id: card.body.confirmation_token_id, set_default: true, return_url: "https://example.com/back" },
    session.token,
  );
  expect(added.status, JSON.stringify(added.body)).toBe(201);
}

async function advance(s: Sandbox, by: string) {
  const res = await s.raw("POST", "/v1/test-clock/advance", { by });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Moves the clock an hour past the subscription's current period end (a trial's end, or a renewal). */
async function pastPeriodEnd(s: Sandbox, subscriptionId: string) {
  const current = await s.sdk.subscriptions.get({ id: subscriptionId });
  const res = await s.raw("POST", "/v1/test-clock/advance", { to: new Date(current.currentPeriodEnd.getTime() + 3600_000).toISOString() });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return current;
}

/** The subscription's orders, oldest first, as [billing reason, status, subtotal, tax, total, due]. */
const ordersOf = async (s: Sandbox, subscriptionId: string) =>
  (await s.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 100 })).result.items.map((o) => [o.billingReason, o.status, o.subtotalAmount, o.taxAmount, o.totalAmount]);

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("a trial without a card", () => {
  it("is refused a checkout without a card where the organization does not allow it", async () => {
    const s = await sandbox("cardless-off", { trials_without_card: false });
    const checkout = await s.sdk.checkouts.create({ products: [s.product.id] });
    await expect(pay(server, checkout, {}, null)).rejects.toThrow();
  });

  it("ends at the trial's end (cancel), its webhooks valid for both SDKs; with a card added in the portal it renews", async () => {
    const s = await sandbox("cardless-cancel", { trials_without_card: true, trial_end_without_card: "cancel" });
    const path = "/cardless";
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["subscription.updated", "subscription.revoked"] });
    const ending = await trialWithoutCard(s, "cardless-a@example.com");
    const kept = await trialWithoutCard(s, "cardless-b@example.com");
    // the second customer adds a card in the portal before the trial ends
    await addCard(s, kept.customerId);

    await advance(s, "15d");
    const ended = await s.sdk.subscriptions.get({ id: ending.id });
    expect(ended).toMatchObject({ status: "canceled" });
    expect(ended.endsAt?.getTime()).toBe(ending.trialEnd?.getTime());
    expect(ended.endedAt!.getTime() - ending.trialEnd!.getTime()).toBeGreaterThanOrEqual(0);
    expect((await s.sdk.orders.list({ subscriptionId: ending.id })).result.items.filter((o) => o.billingReason === "subscription_cycle")).toEqual([]);
    const renewed = await s.sdk.subscriptions.get({ id: kept.id });
    expect(renewed).toMatchObject({ status: "active" });
    const orders = (await s.sdk.orders.list({ subscriptionId: kept.id })).result.items;
    expect(orders.find((o) => o.billingReason === "subscription_cycle")).toMatchObject({ status: "paid", totalAmount: 1200 });

    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return mine.some((h) => h.body.includes('"subscription.revoked"')) && mine;
    }, 30_000);
    const events = hits.map((hit) => {
      validateEvent049(hit.body, hit.headers, endpoint.secret);
      return validateEvent(hit.body, hit.headers, endpoint.secret);
    });
    expect(events.filter((e) => e.type === "subscription.revoked").map((e) => e.data.id)).toEqual([ending.id]);
  });

  it("goes past due at the trial's end (past_due), its renewal order pending for dunning", async () => {
    const s = await sandbox("cardless-due", { trials_without_card: true, trial_end_without_card: "past_due" });
    const sub = await trialWithoutCard(s, "cardless-c@example.com");
    await advance(s, "15d");
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "past_due" });
    const cycle = (await s.sdk.orders.list({ subscriptionId: sub.id })).result.items.find((o) => o.billingReason === "subscription_cycle");
    expect(cycle).toMatchObject({ status: "pending", totalAmount: 1200 });
  });

  it("reminds the customer once, within the organization's reminder days before the trial ends; not one with a card", async () => {
    const s = await sandbox("cardless-remind", { trials_without_card: true, trial_reminder_days: 3 });
    const cardless = "cardless-remind-a@example.com";
    const carded = "cardless-remind-b@example.com";
    const sub = await trialWithoutCard(s, cardless);
    const other = await trialWithoutCard(s, carded);
    await addCard(s, other.customerId);
    const reminders = (to: string) => server.database.db.select().from(customerEmail).where(and(eq(customerEmail.type, "trial_ending"), eq(customerEmail.recipient, to)));

    // 14-day trials: 10 days in, the trial ends in 4 days, outside the 3-day window
    await advance(s, "10d");
    expect(await reminders(cardless)).toEqual([]);
    await advance(s, "2d");
    expect(await reminders(cardless)).toHaveLength(1);
    const mail = await server.mailbox.waitFor(cardless, /^Your trial of Trial plan ends on /, 15_000);
    const ends = new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(sub.trialEnd!);
    expect(mail.subject).toBe(`Your trial of Trial plan ends on ${ends}`);
    expect(mail.text).toMatch(/Add a payment method/i);
    expect(mail.links.some((l) => l.includes("/portal?organization="))).toBe(true);

    // once per subscription: a day later, still in the window, no second reminder
    await advance(s, "1d");
    expect(await reminders(cardless)).toHaveLength(1);
    expect(await reminders(carded)).toEqual([]);
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "trialing" });
    expect(server.mailbox.all.filter((m) => m.to.includes(carded) && /trial of/.test(m.subject))).toEqual([]);
  });
});

describe("a trial without a card over three periods", () => {
  it("cancel: the trial ends canceled and nothing is billed in the periods after", async () => {
    const s = await sandbox("cardless-three-cancel", { trials_without_card: true, trial_end_without_card: "cancel" });
    const sub = await trialWithoutCard(s, "cardless-three-a@example.com");
    const before = await ordersOf(s, sub.id);
    await pastPeriodEnd(s, sub.id);
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "canceled" });
    // two months later: still canceled, no order more than at the trial's start
    await advance(s, "31d");
    await advance(s, "31d");
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "canceled" });
    expect(await ordersOf(s, sub.id)).toEqual(before);
    expect(before.filter((o) => o[0] === "subscription_cycle")).toEqual([]);
  });

  it("past_due: the first renewal's order is pending, retried by dunning (3, 5, 7 days), then the subscription ends; nothing more is billed", async () => {
    const s = await sandbox("cardless-three-due", { trials_without_card: true, trial_end_without_card: "past_due" });
    const sub = await trialWithoutCard(s, "cardless-three-c@example.com");
    const trial = await pastPeriodEnd(s, sub.id);
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "past_due" });
    const cycles = async () => (await ordersOf(s, sub.id)).filter((o) => o[0] === "subscription_cycle");
    const cycleId = (await s.sdk.orders.list({ subscriptionId: sub.id, limit: 100 })).result.items.find((o) => o.billingReason === "subscription_cycle")?.id ?? "";
    /** The charge attempts of the renewal's order and their statuses. */
    const attempts = async () => ((await s.raw("GET", `/v1/payments/?order_id=${cycleId}&limit=100`)).body.items as Array<{ status: string }>).map((p) => p.status);
    // $12.00, no tax in this fixture
    expect(await cycles()).toEqual([["subscription_cycle", "pending", 1200, 0, 1200]]);
    expect(await attempts()).toEqual(["failed"]);
    // the retries 3 and 3+5 days after the trial's end fail (no card): still past due, the same order pending, three
    // attempts
    await advance(s, "8d");
    expect(await s.sdk.subscriptions.get({ id: sub.id })).toMatchObject({ status: "past_due" });
    expect(await cycles()).toEqual([["subscription_cycle", "pending", 1200, 0, 1200]]);
    expect(await attempts()).toEqual(["failed", "failed", "failed"]);
    // the last, 3+5+7 days after: the subscription ends (the default final action, cancel)
    await advance(s, "8d");
    const ended = await s.sdk.subscriptions.get({ id: sub.id });
    expect(ended.status).toBe("canceled");
    expect(ended.endedAt!.getTime()).toBeGreaterThan(trial.currentPeriodEnd.getTime());
    expect(await attempts()).toEqual(["failed", "failed", "failed", "failed"]);
    // the next period bills nothing
    await advance(s, "31d");
    expect(await cycles()).toEqual([["subscription_cycle", "pending", 1200, 0, 1200]]);
  });

  it("a card added in the trial: periods 2 and 3 renew, $12.00 each", async () => {
    const s = await sandbox("cardless-three-card", { trials_without_card: true, trial_end_without_card: "cancel" });
    const sub = await trialWithoutCard(s, "cardless-three-b@example.com");
    await advance(s, "5d");
    await addCard(s, sub.customerId);
    const trial = await pastPeriodEnd(s, sub.id);
    const p2 = await s.sdk.subscriptions.get({ id: sub.id });
    expect(p2).toMatchObject({ status: "active", amount: 1200 });
    expect(p2.currentPeriodStart.getTime()).toBe(trial.currentPeriodEnd.getTime());
    await pastPeriodEnd(s, sub.id);
    const p3 = await s.sdk.subscriptions.get({ id: sub.id });
    expect(p3).toMatchObject({ status: "active" });
    expect(p3.currentPeriodStart.getTime()).toBe(p2.currentPeriodEnd.getTime());
    const cycles = (await ordersOf(s, sub.id)).filter((o) => o[0] === "subscription_cycle");
    expect(cycles).toEqual([
      ["subscription_cycle", "paid", 1200, 0, 1200],
      ["subscription_cycle", "paid", 1200, 0, 1200],
    ]);
  });
});
