// Hostile input to the seller's subscription changes, renewals and the cascading customer delete: malformed and
// uppercase ids, several subscription variants at once and concurrent changes. Every refusal is a 4xx in
// Polar's shapes, never a 5xx, and changes nothing.
import { randomUUID } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { type RawResponse } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { robustnessFixture, expectRefused, HUGE, NUL, mangledIds } from "./robustness-new-routes-fixtures.js";

const fx = robustnessFixture();

describe("PATCH and DELETE /v1/subscriptions/{id}", () => {
  let sub: Subscription;
  const read = async () => fx.seller.sdk.subscriptions.get({ id: sub.id });
  const patch = (body: unknown, id = sub.id) => () => fx.raw("PATCH", `/v1/subscriptions/${id}`, body);

  beforeAll(async () => {
    sub = await fx.subscribe();
  });

  it("refuses malformed bodies and changes nothing", async () => {
    await fx.refusesAll(
      [
        ["empty object", patch({})],
        ["body null", patch(null)],
        ["body array", patch([{ revoke: true }])],
        ["body string", patch("\"revoke\"")],
        ["empty body", patch("")],
        ["non-JSON", patch("revoke=true")],
        ["revoke false", patch({ revoke: false })],
        ["revoke string", patch({ revoke: "true" })],
        ["revoke null", patch({ revoke: null })],
        ["cancel string", patch({ cancel_at_period_end: "yes" })],
        ["cancel null", patch({ cancel_at_period_end: null })],
        ["cancel reason unknown", patch({ cancel_at_period_end: true, customer_cancellation_reason: "bored" })],
        ["cancel comment NUL", patch({ cancel_at_period_end: true, customer_cancellation_comment: NUL })],
        ["cancel comment enormous", patch({ cancel_at_period_end: true, customer_cancellation_comment: HUGE })],
        ["product_id garbage", patch({ product_id: "p" })],
        ["product_id unknown", patch({ product_id: randomUUID() })],
        ["product_id one-time", patch({ product_id: fx.oneTime.id })],
        ["product_id NUL", patch({ product_id: `${fx.yearly.id}\u0000` })],
        ["proration unknown", patch({ product_id: fx.yearly.id, proration_behavior: "always" })],
        ["discount_id garbage", patch({ discount_id: 5 })],
        ["discount_id unknown", patch({ discount_id: randomUUID() })],
        ["trial_end garbage", patch({ trial_end: "tomorrow" })],
        ["trial_end past", patch({ trial_end: "2001-01-01T00:00:00Z" })],
        ["trial_end year 0", patch({ trial_end: "0000-01-01T00:00:00Z" })],
        ["seats on a fixed price", patch({ seats: 3 })],
        ["seats 1e30", patch({ seats: 1e30 })],
        ["seats negative", patch({ seats: -1 })],
        ["seats float", patch({ seats: 1.5 })],
        ["seats string", patch({ seats: "2" })],
        ["period end garbage", patch({ current_billing_period_end: "soon" })],
        ["period end past", patch({ current_billing_period_end: "2001-01-01T00:00:00Z" })],
        ["period end null", patch({ current_billing_period_end: null })],
        ["period end year 275760", patch({ current_billing_period_end: "+275760-09-13T00:00:00Z" })],
        ["cancel and a product change", patch({ cancel_at_period_end: true, product_id: fx.yearly.id })],
        ["revoke and a product change", patch({ revoke: true, product_id: fx.yearly.id })],
        ["revoke and cancel", patch({ revoke: true, cancel_at_period_end: true })],
        ["seats and a product change", patch({ seats: 2, product_id: fx.yearly.id })],
        ["cancel and a period end", patch({ cancel_at_period_end: true, current_billing_period_end: new Date(Date.now() + 86_400_000 * 40).toISOString() })],
        ["another organization's token", () => fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { revoke: true }, fx.other.token)],
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [`PATCH ${what}`, patch({ revoke: true }, id)]),
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [`DELETE ${what}`, () => fx.raw("DELETE", `/v1/subscriptions/${id}`)]),
        ["DELETE by another organization", () => fx.raw("DELETE", `/v1/subscriptions/${sub.id}`, undefined, fx.other.token)],
      ],
      read,
    );
  });

  it("refuses seats whose amount would not fit the amount column, changing nothing", async () => {
    const unbounded = await fx.seller.sdk.products.create({
      name: "Seats without an upper bound",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: null, pricePerSeat: 1000 }] } }],
    });
    const dearer = await fx.seller.sdk.products.create({
      name: "Dear seats",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: null, pricePerSeat: 3_000_000 }] } }],
    });
    const checkout = await fx.seller.sdk.checkouts.create({ products: [unbounded.id], seats: 1000 });
    await pay(fx.server, checkout);
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const id = o!.subscriptionId!;
    await fx.refusesAll(
      [
        ["seats 2^31 - 1", patch({ seats: 2_147_483_647 }, id)],
        ["seats 3,000,000", patch({ seats: 3_000_000 }, id)],
        ["a product whose price for the seats exceeds the amount column", patch({ product_id: dearer.id }, id)],
      ],
      () => fx.seller.sdk.subscriptions.get({ id }),
    );
  });

  it("takes an uppercase id as the same subscription", async () => {
    const s = await fx.subscribe();
    const res = await fx.raw("PATCH", `/v1/subscriptions/${s.id.toUpperCase()}`, { cancel_at_period_end: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: s.id, cancel_at_period_end: true });
  });

  it("a PATCH and a DELETE at once: one outcome, no 5xx, the events of what happened", async () => {
    for (let i = 0; i < 3; i++) {
      const s = await fx.subscribe();
      const [a, b, c] = await Promise.all([
        fx.raw("PATCH", `/v1/subscriptions/${s.id}`, { product_id: fx.yearly.id }),
        fx.raw("DELETE", `/v1/subscriptions/${s.id}`),
        fx.raw("PATCH", `/v1/subscriptions/${s.id}`, { cancel_at_period_end: true }),
      ]);
      for (const res of [a, b, c]) {
        if (res.status !== 200) expectRefused(res, "concurrent change");
      }
      expect(b.status).toBe(200);
      const after = await fx.seller.sdk.subscriptions.get({ id: s.id });
      expect(after.status).toBe("canceled");
      expect(after.endedAt).not.toBeNull();
    }
  });
});

describe("POST /v1/subscriptions/{id}/renew", () => {
  it("refuses malformed and foreign ids, and a revoked subscription, changing nothing", async () => {
    const sub = await fx.subscribe();
    const read = async () => ({ sub: await fx.seller.sdk.subscriptions.get({ id: sub.id }), orders: (await fx.seller.sdk.orders.list({ customerId: sub.customerId })).result.items.length });
    await fx.refusesAll(
      [
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [what, () => fx.raw("POST", `/v1/subscriptions/${id}/renew`)]),
        ["another organization", () => fx.raw("POST", `/v1/subscriptions/${sub.id}/renew`, undefined, fx.other.token)],
        ["non-JSON body", () => fx.raw("POST", `/v1/subscriptions/${sub.id}/renew`, "{")],
      ],
      read,
    );
    await fx.seller.sdk.subscriptions.revoke({ id: sub.id });
    await fx.refusesAll([["revoked", () => fx.raw("POST", `/v1/subscriptions/${sub.id}/renew`)]], read);
  });

  it("renews through an uppercase id", async () => {
    const sub = await fx.subscribe();
    const res = await fx.raw("POST", `/v1/subscriptions/${sub.id.toUpperCase()}/renew`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(sub.id);
  });
});

describe("DELETE /v1/customers/{id} (cascading)", () => {
  it("refuses malformed ids and query and changes nothing", async () => {
    const sub = await fx.subscribe();
    const read = async () => ({
      customer: await fx.seller.sdk.customers.get({ id: sub.customerId }),
      sub: await fx.seller.sdk.subscriptions.get({ id: sub.id }),
    });
    await fx.refusesAll(
      [
        ...mangledIds(sub.customerId).map(([what, id]): [string, () => Promise<RawResponse>] => [what, () => fx.raw("DELETE", `/v1/customers/${id}`)]),
        ["anonymize garbage", () => fx.raw("DELETE", `/v1/customers/${sub.customerId}?anonymize=1`)],
        ["anonymize repeated", () => fx.raw("DELETE", `/v1/customers/${sub.customerId}?anonymize=true&anonymize=false`)],
        ["another organization", () => fx.raw("DELETE", `/v1/customers/${sub.customerId}`, undefined, fx.other.token)],
        ["external id NUL", () => fx.raw("DELETE", "/v1/customers/external/a%00b")],
        ["external id enormous", () => fx.raw("DELETE", `/v1/customers/external/${"e".repeat(3000)}`)],
      ],
      read,
    );
  });

  it("two deletes at once: one 204, the other 404, the customer deleted once", async () => {
    const sub = await fx.subscribe();
    const [a, b] = await Promise.all([fx.raw("DELETE", `/v1/customers/${sub.customerId}`), fx.raw("DELETE", `/v1/customers/${sub.customerId.toUpperCase()}`)]);
    expect([a.status, b.status].sort()).toEqual([204, 404]);
    const deleted = await fx.db()
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.type, "customer.deleted"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(deleted[0]!.n).toBe(1);
    const revoked = await fx.db()
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.type, "subscription.revoked"), sql`${outbox.payload} ->> 'id' = ${sub.id}`));
    expect(revoked[0]!.n).toBe(1);
  });
});

describe("DELETE /v1/customers/{id} beside subscription changes", () => {
  it("a customer delete, a product change and a renewal at once: no 5xx, the subscription revoked", async () => {
    for (let i = 0; i < 3; i++) {
      const sub = await fx.subscribe();
      const answers = await Promise.all([
        fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { product_id: fx.yearly.id }),
        fx.raw("DELETE", `/v1/customers/${sub.customerId}`),
        fx.raw("POST", `/v1/subscriptions/${sub.id}/renew`),
        fx.raw("DELETE", `/v1/customers/${sub.customerId}`),
      ]);
      for (const res of answers) {
        if (res.status !== 200 && res.status !== 204) expectRefused(res, "concurrent change");
      }
      expect(answers.filter((res) => res.status === 204)).toHaveLength(1);
      const after = await fx.seller.sdk.subscriptions.get({ id: sub.id });
      expect(after.status).toBe("canceled");
    }
  });
});
