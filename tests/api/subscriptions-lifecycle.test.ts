// The seller's changes to a subscription through @polar-sh/sdk 0.47.1 and 0.49.0: cancel at the period end,
// uncancel, revoke (PATCH and DELETE) with its grants, product and discount changes, refusals (already canceled,
// bad input — nothing changed), scopes and tenancy, two revokes at once; the events each change records, and their
// delivery (with benefit_grant.updated from a benefit change) checked by validateEvent of both SDKs.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { AlreadyCanceledSubscription } from "@polar-sh/sdk/models/errors/alreadycanceledsubscription.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { AlreadyCanceledSubscription as AlreadyCanceled049 } from "polar-sdk-049/models/errors/alreadycanceledsubscription.js";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, outbox, subscription as subscriptionTable } from "../../server/db/schema/index.js";
import { issues, locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let receiver: Receiver;
let monthly: Product;
let premium: Product;
let oneTime: Product;
let benefitId: string;
let premiumBenefitId: string;

const db = () => server.database.db;
const raw = (method: string, path: string, body?: unknown, token = seller.token) => rawRequest(server.url, token, method, path, body);

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  seller = await createSeller(server, "lifecycle");
  other = await createSeller(server, "lifecycle-other");
  [monthly, premium, oneTime] = await Promise.all([
    createProduct(seller, "monthly"),
    seller.sdk.products.create({ name: "Premium yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 19_900, priceCurrency: "usd" }] }),
    createProduct(seller, "fixed"),
  ]);
  benefitId = (await seller.sdk.benefits.create({ type: "custom", description: "Plan access", properties: { note: "v1" } })).id;
  premiumBenefitId = (await seller.sdk.benefits.create({ type: "custom", description: "Premium access", properties: {} })).id;
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [benefitId] } });
  await seller.sdk.products.updateBenefits({ id: premium.id, productBenefitsUpdate: { benefits: [premiumBenefitId] } });
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

/** A new customer subscribes to `product` through a paid checkout. */
async function subscribe(s: Seller = seller, product: Product = monthly, extra: { seats?: number } = {}): Promise<Subscription> {
  const checkout = await s.sdk.checkouts.create({ products: [product.id], ...extra });
  await pay(server, checkout);
  const [order] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId) throw new Error("no subscription");
  return s.sdk.subscriptions.get({ id: order.subscriptionId });
}

/** The outbox events about this subscription (data.id), oldest first. */
async function eventsOf(subscriptionId: string): Promise<string[]> {
  const rows = await db()
    .select({ type: outbox.type })
    .from(outbox)
    .where(sql`${outbox.payload} ->> 'id' = ${subscriptionId}`)
    .orderBy(asc(outbox.createdAt));
  return rows.map((r) => r.type);
}

/** Its events after the purchase's (subscription.created, subscription.active). */
const changeEvents = async (id: string) => (await eventsOf(id)).filter((t) => t !== "subscription.created" && t !== "subscription.active");

async function grantsOf(subscriptionId: string) {
  return db().select().from(benefitGrant).where(eq(benefitGrant.subscriptionId, subscriptionId)).orderBy(asc(benefitGrant.createdAt));
}

async function rowOf(id: string) {
  const [row] = await db().select().from(subscriptionTable).where(eq(subscriptionTable.id, id));
  if (!row) throw new Error("no row");
  return row;
}

describe("cancel and uncancel (SDK 0.47.1)", () => {
  it("cancels at the period end: still active, canceled_at, ends_at, reason and comment; updated + canceled", async () => {
    const sub = await subscribe();
    const canceled = await seller.sdk.subscriptions.update({
      id: sub.id,
      subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_expensive", customerCancellationComment: "Pricey" },
    });
    expect(canceled).toMatchObject({
      id: sub.id,
      status: "active",
      cancelAtPeriodEnd: true,
      endsAt: sub.currentPeriodEnd,
      endedAt: null,
      customerCancellationReason: "too_expensive",
      customerCancellationComment: "Pricey",
    });
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    expect(canceled.modifiedAt).toBeInstanceOf(Date);
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toEqual(canceled);
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled"]);
    // access lasts until the period ends
    expect((await grantsOf(sub.id)).every((g) => g.revokedAt === null && g.grantedAt !== null)).toBe(true);
    // through 0.49.0 too
    expect((await seller.sdk049.subscriptions.get({ id: sub.id })).cancelAtPeriodEnd).toBe(true);

    // canceling again is refused and records nothing
    const again = seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await expect(again).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    await expect(again).rejects.toMatchObject({ statusCode: 403 });
    expect(await changeEvents(sub.id)).toHaveLength(2);
    // product and discount changes are refused on a canceled subscription, as Polar does
    await expect(seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id } })).rejects.toBeInstanceOf(
      AlreadyCanceledSubscription,
    );
  });

  it("uncancels before the end: the cancellation is cleared; updated + uncanceled; uncanceling again changes nothing", async () => {
    const sub = await subscribe();
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "unused" } });
    const back = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    expect(back).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      customerCancellationReason: null,
      customerCancellationComment: null,
    });
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated", "subscription.uncanceled"]);
    const same = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    expect(same).toEqual(back);
    expect(await changeEvents(sub.id)).toHaveLength(4);
  });

  it("records customer.state_changed for the customer with each change", async () => {
    const sub = await subscribe();
    const before = await db().select().from(outbox).where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const after = await db().select().from(outbox).where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(after.length).toBe(before.length + 1);
  });
});

describe("revoke", () => {
  it("PATCH revoke:true (SDK 0.49.0) ends it now, revokes its grants; updated, canceled, revoked; again → 403", async () => {
    const sub = await subscribe();
    const revoked = await seller.sdk049.subscriptions.update({
      id: sub.id,
      subscriptionUpdate: { revoke: true, customerCancellationReason: "other", customerCancellationComment: "Fraud" },
    });
    expect(revoked).toMatchObject({ status: "canceled", customerCancellationReason: "other", customerCancellationComment: "Fraud" });
    expect(revoked.endedAt).toBeInstanceOf(Date);
    expect(revoked.endsAt).toEqual(revoked.endedAt);
    expect(revoked.canceledAt).toEqual(revoked.endedAt);
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.revoked"]);

    const grants = await grantsOf(sub.id);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ benefitId, grantedAt: null, revokedAt: revoked.endedAt });
    const listed = await seller.sdk.benefitGrants.list({ customerId: sub.customerId });
    expect(listed.result.items.map((g) => ({ isGranted: g.isGranted, isRevoked: g.isRevoked }))).toEqual([{ isGranted: false, isRevoked: true }]);
    const grantEvents = await db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.revoked"), sql`${outbox.payload} ->> 'id' = ${grants[0]!.id}`));
    expect(grantEvents).toHaveLength(1);
    expect(grantEvents[0]!.payload).toMatchObject({ is_revoked: true, is_granted: false, subscription_id: sub.id });
    // the customer's state no longer lists it
    const state = await seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.activeSubscriptions).toEqual([]);
    expect(state.grantedBenefits).toEqual([]);

    await expect(seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { revoke: true } })).rejects.toBeInstanceOf(AlreadyCanceled049);
    await expect(seller.sdk.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    await expect(seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } })).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(await changeEvents(sub.id)).toHaveLength(3);
  });

  it("DELETE (SDK 0.47.1) revokes a subscription already canceled at the period end: updated + revoked only", async () => {
    const sub = await subscribe();
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "unused" } });
    const revoked = await seller.sdk.subscriptions.revoke({ id: sub.id });
    expect(revoked).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true, customerCancellationReason: "unused" });
    expect(revoked.endedAt).toBeInstanceOf(Date);
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated", "subscription.revoked"]);
    expect((await grantsOf(sub.id)).every((g) => g.revokedAt !== null)).toBe(true);
    // 0.49.0's revoke reads the answer too
    await expect(seller.sdk049.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(AlreadyCanceled049);
  });

  it("two revokes at once: one succeeds, the other is refused; one revoked event, one grant revocation", async () => {
    const sub = await subscribe();
    const results = await Promise.allSettled([seller.sdk.subscriptions.revoke({ id: sub.id }), seller.sdk.subscriptions.revoke({ id: sub.id })]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(AlreadyCanceledSubscription);
    expect((await changeEvents(sub.id)).filter((t) => t === "subscription.revoked")).toHaveLength(1);
    const [grant] = await grantsOf(sub.id);
    const revokedEvents = await db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.revoked"), sql`${outbox.payload} ->> 'id' = ${grant!.id}`));
    expect(revokedEvents).toHaveLength(1);
  });
});

describe("a row held by another transaction", () => {
  it("PostgreSQL: a change waiting more than 5 s answers 409 SubscriptionLocked (nothing changed); PGlite serializes it", async () => {
    const sub = await subscribe();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db().transaction(async (tx) => {
      await tx.select().from(subscriptionTable).where(eq(subscriptionTable.id, sub.id)).for("update");
      locked();
      await held;
    });
    await isLocked;
    const attempt = raw("PATCH", `/v1/subscriptions/${sub.id}`, { cancel_at_period_end: true });
    if (server.database.driver === "postgres") {
      const res = await attempt;
      release();
      await holder;
      expect(res).toEqual({ status: 409, body: { error: "SubscriptionLocked", detail: "This subscription is being updated; try again.", code: "subscription_busy" } });
      expect(await changeEvents(sub.id)).toEqual([]);
      expect((await rowOf(sub.id)).cancelAtPeriodEnd).toBe(false);
    } else {
      // one connection: the change runs once the holder commits
      setTimeout(release, 200);
      await holder;
      expect((await attempt).status).toBe(200);
      expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled"]);
    }
  }, 20_000);
});

describe("product and discount changes", () => {
  it("changes the product (0.47.1): product, prices, amount and interval; proration recorded; updated only", async () => {
    const sub = await subscribe();
    const changed = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id, prorationBehavior: "invoice" } });
    expect(changed).toMatchObject({ productId: premium.id, amount: 19_900, recurringInterval: "year", status: "active", currentPeriodEnd: sub.currentPeriodEnd });
    expect(changed.product.id).toBe(premium.id);
    expect(changed.prices.map((p) => p.id)).toEqual([premium.prices[0]!.id]);
    expect((await rowOf(sub.id)).prorationBehavior).toBe("invoice");
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated"]);
    // the new product's benefits replace the old one's: each change recorded as a grant event
    const grants = await grantsOf(sub.id);
    expect(grants.map((g) => ({ benefitId: g.benefitId, granted: g.grantedAt !== null, revoked: g.revokedAt !== null }))).toEqual([
      { benefitId, granted: false, revoked: true },
      { benefitId: premiumBenefitId, granted: true, revoked: false },
    ]);
    const grantEvents = await db()
      .select({ type: outbox.type, id: sql<string>`${outbox.payload} ->> 'id'` })
      .from(outbox)
      .where(sql`${outbox.payload} ->> 'subscription_id' = ${sub.id} AND ${outbox.type} LIKE 'benefit_grant.%'`)
      .orderBy(asc(outbox.createdAt));
    // the purchase's grant first; the change's two in one transaction (their relative order is not a contract)
    expect(grantEvents[0]).toEqual({ type: "benefit_grant.created", id: grants[0]!.id });
    expect(grantEvents.slice(1)).toHaveLength(2);
    expect(grantEvents.slice(1)).toEqual(
      expect.arrayContaining([
        { type: "benefit_grant.revoked", id: grants[0]!.id },
        { type: "benefit_grant.created", id: grants[1]!.id },
      ]),
    );
    const state = await seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.grantedBenefits.map((g) => g.benefitId)).toEqual([premiumBenefitId]);
    expect(state.activeSubscriptions.map((a) => a.productId)).toEqual([premium.id]);
    // the same product again changes nothing
    expect(await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id } })).toEqual(changed);
    expect(await changeEvents(sub.id)).toHaveLength(1);
  });

  it("changes the product through 0.49.0 (SubscriptionUpdateBase); the organization's proration behavior applies by default", async () => {
    const sub = await subscribe();
    const changed = await seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id } });
    expect(changed).toMatchObject({ productId: premium.id, amount: 19_900 });
    expect((await rowOf(sub.id)).prorationBehavior).toBe("prorate");
  });

  it("refuses products it cannot switch to (422, nothing changed)", async () => {
    const sub = await subscribe();
    const archived = await createProduct(seller, "monthly");
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const foreign = await createProduct(other, "monthly");
    const custom = await createProduct(seller, "custom", { recurringInterval: "month" });
    for (const [productId, msg] of [
      [oneTime.id, "Product is not a subscription product."],
      [archived.id, "Product does not exist."],
      [foreign.id, "Product does not exist."],
      [custom.id, "Product has a custom price: the customer chooses its amount at checkout."],
    ] as const) {
      const res = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { product_id: productId });
      expect(res.status, productId).toBe(422);
      expect(issues(res.body)).toEqual([{ loc: ["body", "product_id"], msg, type: "value_error" }]);
    }
    await expect(seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: foreign.id } })).rejects.toBeInstanceOf(HTTPValidationError);
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await changeEvents(sub.id)).toEqual([]);
  });

  it("applies and removes a discount (updated each time); refuses unknown and inapplicable ones", async () => {
    const sub = await subscribe();
    const discount = await seller.sdk.discounts.create({ type: "percentage", duration: "forever", basisPoints: 1000, name: "Ten off" });
    const withDiscount = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId: discount.id } });
    expect(withDiscount).toMatchObject({ discountId: discount.id, amount: sub.amount });
    expect(withDiscount.discount).toMatchObject({ id: discount.id, name: "Ten off" });
    expect((await seller.sdk.discounts.get({ id: discount.id })).redemptionsCount).toBe(1);
    const without = await seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId: null } });
    expect(without).toMatchObject({ discountId: null, discount: null });
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.updated"]);

    const elsewhere = await seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Premium only", products: [premium.id] });
    const foreign = await other.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Foreign" });
    for (const [discountId, msg, code] of [
      [foreign.id, "Discount does not exist.", "discount_unknown"],
      [elsewhere.id, "Discount is not applicable to this product.", "discount_not_applicable"],
    ] as const) {
      const res = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { discount_id: discountId });
      expect(res.status).toBe(422);
      expect(issues(res.body)).toEqual([{ loc: ["body", "discount_id"], msg, type: "value_error", code }]);
    }
    expect(await changeEvents(sub.id)).toHaveLength(2);
  });
});

describe("trial, seats and billing period", () => {
  const inDays = (d: number) => new Date(Date.now() + d * 86_400_000);

  it("gives an active subscription a trial (0.47.1) and extends it (0.49.0): trialing until then; updated each", async () => {
    const sub = await subscribe();
    const trialEnd = inDays(45);
    const trialing = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { trialEnd } });
    expect(trialing).toMatchObject({ status: "trialing", trialEnd, currentPeriodEnd: trialEnd, currentPeriodStart: sub.currentPeriodStart });
    expect(trialing.trialStart).toBeInstanceOf(Date);
    const later = inDays(60);
    const extended = await seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { trialEnd: later } });
    expect(extended).toMatchObject({ status: "trialing", trialEnd: later, trialStart: trialing.trialStart });
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.updated"]);

    const past = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { trial_end: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(422);
    expect(issues(past.body)).toEqual([{ loc: ["body", "trial_end"], msg: "Trial end must be in the future.", type: "value_error" }]);
    expect(await changeEvents(sub.id)).toHaveLength(2);
  });

  it("changes the seats of a seat-based subscription: amount from the tiers, proration recorded; bounds are 422", async () => {
    const seatProduct = await createProduct(seller, "seats");
    const sub = await subscribe(seller, seatProduct, { seats: 3 });
    expect(sub).toMatchObject({ seats: 3, amount: 3000 });
    const more = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { seats: 6, prorationBehavior: "prorate" } });
    expect(more).toMatchObject({ seats: 6, amount: 4800 });
    expect((await rowOf(sub.id)).prorationBehavior).toBe("prorate");
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated"]);
    const tooMany = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { seats: 21 });
    expect(tooMany.status).toBe(422);
    expect(issues(tooMany.body)).toEqual([{ loc: ["body", "seats"], msg: "Seats must be between 1 and 20.", type: "value_error", code: "seats_unavailable" }]);
    // a subscription without seats has none to change
    const plain = await subscribe();
    const res = await raw("PATCH", `/v1/subscriptions/${plain.id}`, { seats: 2 });
    expect(issues(res.body)).toEqual([{ loc: ["body", "seats"], msg: "This subscription is not seat-based.", type: "value_error" }]);
    expect(await changeEvents(plain.id)).toEqual([]);
  });

  it("moves the end of the billing period (and the end of a subscription canceled at it)", async () => {
    const sub = await subscribe();
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const end = inDays(40);
    const moved = await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { currentBillingPeriodEnd: end } });
    expect(moved).toMatchObject({ currentPeriodEnd: end, endsAt: end, cancelAtPeriodEnd: true, status: "active" });
    expect(await changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated"]);
    const past = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { current_billing_period_end: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(422);
    expect(locs(past.body)).toEqual([["body", "current_billing_period_end"]]);
  });
});

describe("bad input, scopes and tenancy", () => {
  let sub: Subscription;
  beforeAll(async () => {
    sub = await subscribe();
  });

  it("answers 422 in Polar's shape and changes nothing", async () => {
    const cases: Array<[unknown, unknown[]]> = [
      [{}, ["body"]],
      [[], ["body"]],
      [{ revoke: false }, ["body", "revoke"]],
      [{ cancel_at_period_end: "soon" }, ["body", "cancel_at_period_end"]],
      [{ cancel_at_period_end: true, customer_cancellation_reason: "bored" }, ["body", "customer_cancellation_reason"]],
      [{ cancel_at_period_end: true, customer_cancellation_comment: 42 }, ["body", "customer_cancellation_comment"]],
      [{ product_id: "nope" }, ["body", "product_id"]],
      [{ product_id: premium.id, proration_behavior: "sometimes" }, ["body", "proration_behavior"]],
      [{ discount_id: 7 }, ["body", "discount_id"]],
      [{ trial_end: "next week" }, ["body", "trial_end"]],
      [{ trial_end: "now" }, ["body", "trial_end"]],
      [{ seats: 0 }, ["body", "seats"]],
      [{ seats: 2.5 }, ["body", "seats"]],
      [{ current_billing_period_end: null }, ["body", "current_billing_period_end"]],
      [{ cancel_at_period_end: true, customer_cancellation_comment: "a\u0000b" }, ["body", "customer_cancellation_comment"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw("PATCH", `/v1/subscriptions/${sub.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    expect((await raw("PATCH", `/v1/subscriptions/${sub.id}`, "{not json")).status).toBe(422);
    expect((await raw("PATCH", "/v1/subscriptions/not-a-uuid", { revoke: true })).status).toBe(422);
    expect((await raw("DELETE", "/v1/subscriptions/not-a-uuid")).status).toBe(422);
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await changeEvents(sub.id)).toEqual([]);
  });

  it("answers 404 for unknown and other organizations' subscriptions, whatever the change", async () => {
    const unknown = crypto.randomUUID();
    await expect(seller.sdk.subscriptions.revoke({ id: unknown })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(other.sdk.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(other.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } })).rejects.toBeInstanceOf(ResourceNotFound);
    const key = await other.createKey();
    const res = await raw("PATCH", `/v1/subscriptions/${sub.id}`, { revoke: true }, key);
    expect(res).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Subscription not found" } });
    expect(await seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await changeEvents(sub.id)).toEqual([]);
  });

  it("needs subscriptions:write", async () => {
    const readOnly = sdkFor(server, await seller.createKey({ subscriptions: ["read"] }));
    await expect(readOnly.subscriptions.revoke({ id: sub.id })).rejects.toMatchObject({ statusCode: 403 });
    await expect(readOnly.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } })).rejects.toMatchObject({ statusCode: 403 });
    expect(await changeEvents(sub.id)).toEqual([]);
  });
});

describe("benefit_grant.updated", () => {
  it("a benefit's new properties refresh its granted grants (previous_properties kept), one event each", async () => {
    const s = await createSeller(server, "grant-update");
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "till-org", repositoryName: "private-repo", permission: "pull" },
    });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const [a, b, gone] = [await subscribe(s, product), await subscribe(s, product), await subscribe(s, product)];
    await s.sdk.subscriptions.revoke({ id: gone.id });
    // describing it again changes no property: no grant event
    await s.sdk.benefits.update({ id: benefit.id, requestBody: { type: "github_repository", description: "Repository access" } });
    const countUpdated = async () => (await db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.updated"), eq(outbox.organizationId, s.organizationId)))).length;
    expect(await countUpdated()).toBe(0);

    await s.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "till-org", repositoryName: "new-repo", permission: "push" } },
    });
    const events = await db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.updated"), eq(outbox.organizationId, s.organizationId)));
    expect(events.map((e) => e.payload.subscription_id).sort()).toEqual([a.id, b.id].sort());
    for (const e of events) {
      expect(e.payload).toMatchObject({
        benefit_id: benefit.id,
        // GitHub is not connected here: the grants wait for their delivery, not granted (issue 25)
        is_granted: false,
        properties: { repository_owner: "till-org", repository_name: "new-repo", permission: "push" },
        previous_properties: {},
        benefit: { properties: { repository_name: "new-repo", permission: "push" } },
      });
    }
    const grants = await s.sdk.benefitGrants.list({ isGranted: false });
    expect(grants.result.items.filter((g) => !g.isRevoked).map((g) => g.properties)).toEqual([
      { repositoryOwner: "till-org", repositoryName: "new-repo", permission: "push" },
      { repositoryOwner: "till-org", repositoryName: "new-repo", permission: "push" },
    ]);
    // the revoked grant was left alone
    const [revoked] = await grantsOf(gone.id);
    expect(revoked).toMatchObject({ properties: {}, previousProperties: null });

    // a second change keeps the properties from before it
    await s.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "till-org", repositoryName: "third-repo", permission: "push" } },
    });
    const [grant] = await grantsOf(a.id);
    expect(grant).toMatchObject({
      properties: { repository_name: "third-repo" },
      previousProperties: { repository_owner: "till-org", repository_name: "new-repo", permission: "push" },
    });
    expect(await countUpdated()).toBe(4);
  });
});

describe("delivery", () => {
  it("subscription.updated/canceled/uncanceled/revoked, benefit_grant.updated/revoked and customer.state_changed pass validateEvent of both SDKs", async () => {
    await server.worker.start();
    const s = await createSeller(server, "lifecycle-hooks");
    const path = "/lifecycle";
    const types = [
      "subscription.updated", "subscription.canceled", "subscription.uncanceled", "subscription.revoked",
      "benefit_grant.updated", "benefit_grant.revoked", "customer.state_changed",
    ] as const;
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: [...types] });
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Hooked access", properties: { note: "v1" } });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const sub = await subscribe(s, product);
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_complex" } });
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    await s.sdk.benefits.update({ id: benefit.id, requestBody: { type: "custom", properties: { note: "v2" } } });
    await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { revoke: true } });

    const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return types.every((t) => mine.some((h) => typeOf(h) === t)) && mine.filter((h) => typeOf(h) === "subscription.revoked").length > 0 && mine;
    });
    for (const hit of hits) {
      validateEvent049(hit.body, hit.headers, endpoint.secret);
    }
    const parsed = hits.map((h) => validateEvent(h.body, h.headers, endpoint.secret));
    const byType = (t: string) => parsed.filter((e) => e.type === t);
    expect(byType("subscription.canceled")[0]).toMatchObject({ data: { id: sub.id, cancelAtPeriodEnd: true, customerCancellationReason: "too_complex" } });
    expect(byType("subscription.uncanceled")[0]).toMatchObject({ data: { id: sub.id, cancelAtPeriodEnd: false, canceledAt: null } });
    expect(byType("subscription.revoked")[0]).toMatchObject({ data: { id: sub.id, status: "canceled" } });
    expect(byType("benefit_grant.updated")[0]).toMatchObject({ data: { benefitId: benefit.id, subscriptionId: sub.id, isGranted: true } });
    expect(byType("benefit_grant.revoked")[0]).toMatchObject({ data: { benefitId: benefit.id, subscriptionId: sub.id, isRevoked: true, isGranted: false } });
    expect(byType("subscription.updated").length).toBeGreaterThanOrEqual(3);
    expect(byType("customer.state_changed").length).toBeGreaterThanOrEqual(1);
  });
});
