// The seller's changes to what a subscription is: product and discount changes, trial, seats and billing
// period; the events each change records, benefit_grant.updated from a benefit change, and their delivery
// checked by validateEvent of both SDKs.
import { and, asc, eq, sql } from "drizzle-orm";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { issues, locs } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { type Hit } from "../helpers/receiver.js";
import { createSeller } from "../helpers/seller.js";
import { lifecycleFixture } from "./subscriptions-lifecycle-fixtures.js";

const fx = lifecycleFixture();

describe("product and discount changes", () => {
  it("changes the product (0.47.1): product, prices, amount and interval; proration recorded; updated only", async () => {
    const sub = await fx.subscribe();
    const changed = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.premium.id, prorationBehavior: "invoice" } });
    expect(changed).toMatchObject({ productId: fx.premium.id, amount: 19_900, recurringInterval: "year", status: "active", currentPeriodEnd: sub.currentPeriodEnd });
    expect(changed.product.id).toBe(fx.premium.id);
    expect(changed.prices.map((p) => p.id)).toEqual([fx.premium.prices[0]!.id]);
    expect((await fx.rowOf(sub.id)).prorationBehavior).toBe("invoice");
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated"]);
    // the new product's benefits replace the old one's: each change recorded as a grant event
    const grants = await fx.grantsOf(sub.id);
    expect(grants.map((g) => ({ benefitId: g.benefitId, granted: g.grantedAt !== null, revoked: g.revokedAt !== null }))).toEqual([
      { benefitId: fx.benefitId, granted: false, revoked: true },
      { benefitId: fx.premiumBenefitId, granted: true, revoked: false },
    ]);
    const grantEvents = await fx.db()
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
    const state = await fx.seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.grantedBenefits.map((g) => g.benefitId)).toEqual([fx.premiumBenefitId]);
    expect(state.activeSubscriptions.map((a) => a.productId)).toEqual([fx.premium.id]);
    // the same product again changes nothing
    expect(await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.premium.id } })).toEqual(changed);
    expect(await fx.changeEvents(sub.id)).toHaveLength(1);
  });

  it("changes the product through 0.49.0 (SubscriptionUpdateBase); the organization's proration behavior applies by default", async () => {
    const sub = await fx.subscribe();
    const changed = await fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.premium.id } });
    expect(changed).toMatchObject({ productId: fx.premium.id, amount: 19_900 });
    expect((await fx.rowOf(sub.id)).prorationBehavior).toBe("prorate");
  });

  it("refuses products it cannot switch to (422, nothing changed)", async () => {
    const sub = await fx.subscribe();
    const archived = await createProduct(fx.seller, "monthly");
    await fx.seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const foreign = await createProduct(fx.other, "monthly");
    const custom = await createProduct(fx.seller, "custom", { recurringInterval: "month" });
    for (const [productId, msg] of [
      [fx.oneTime.id, "Product is not a subscription product."],
      [archived.id, "Product does not exist."],
      [foreign.id, "Product does not exist."],
      [custom.id, "Product has a custom price: the customer chooses its amount at checkout."],
    ] as const) {
      const res = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { product_id: productId });
      expect(res.status, productId).toBe(422);
      expect(issues(res.body)).toEqual([{ loc: ["body", "product_id"], msg, type: "value_error" }]);
    }
    await expect(fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: foreign.id } })).rejects.toBeInstanceOf(HTTPValidationError);
    expect(await fx.seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await fx.changeEvents(sub.id)).toEqual([]);
  });

  it("applies and removes a discount (updated each time); refuses unknown and inapplicable ones", async () => {
    const sub = await fx.subscribe();
    const discount = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "forever", basisPoints: 1000, name: "Ten off" });
    const withDiscount = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId: discount.id } });
    expect(withDiscount).toMatchObject({ discountId: discount.id, amount: sub.amount });
    expect(withDiscount.discount).toMatchObject({ id: discount.id, name: "Ten off" });
    expect((await fx.seller.sdk.discounts.get({ id: discount.id })).redemptionsCount).toBe(1);
    const without = await fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId: null } });
    expect(without).toMatchObject({ discountId: null, discount: null });
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.updated"]);

    const elsewhere = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Premium only", products: [fx.premium.id] });
    const foreign = await fx.other.sdk.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "Foreign" });
    for (const [discountId, msg, code] of [
      [foreign.id, "Discount does not exist.", "discount_unknown"],
      [elsewhere.id, "Discount is not applicable to this product.", "discount_not_applicable"],
    ] as const) {
      const res = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { discount_id: discountId });
      expect(res.status).toBe(422);
      expect(issues(res.body)).toEqual([{ loc: ["body", "discount_id"], msg, type: "value_error", code }]);
    }
    expect(await fx.changeEvents(sub.id)).toHaveLength(2);
  });
});

describe("trial, seats and billing period", () => {
  const inDays = (d: number) => new Date(Date.now() + d * 86_400_000);

  it("gives an active subscription a trial (0.47.1) and extends it (0.49.0): trialing until then; updated each", async () => {
    const sub = await fx.subscribe();
    const trialEnd = inDays(45);
    const trialing = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { trialEnd } });
    expect(trialing).toMatchObject({ status: "trialing", trialEnd, currentPeriodEnd: trialEnd, currentPeriodStart: sub.currentPeriodStart });
    expect(trialing.trialStart).toBeInstanceOf(Date);
    const later = inDays(60);
    const extended = await fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { trialEnd: later } });
    expect(extended).toMatchObject({ status: "trialing", trialEnd: later, trialStart: trialing.trialStart });
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.updated"]);

    const past = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { trial_end: new Date(Date.now() - 60_000).toISOString() });
    expect(past.status).toBe(422);
    expect(issues(past.body)).toEqual([{ loc: ["body", "trial_end"], msg: "Trial end must be in the future.", type: "value_error" }]);
    expect(await fx.changeEvents(sub.id)).toHaveLength(2);
  });

  it("changes the seats of a seat-based subscription: amount from the tiers, proration recorded; bounds are 422", async () => {
    const seatProduct = await createProduct(fx.seller, "seats");
    const sub = await fx.subscribe(fx.seller, seatProduct, { seats: 3 });
    expect(sub).toMatchObject({ seats: 3, amount: 3000 });
    const more = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { seats: 6, prorationBehavior: "prorate" } });
    expect(more).toMatchObject({ seats: 6, amount: 4800 });
    expect((await fx.rowOf(sub.id)).prorationBehavior).toBe("prorate");
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated"]);
    const tooMany = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { seats: 21 });
    expect(tooMany.status).toBe(422);
    expect(issues(tooMany.body)).toEqual([{ loc: ["body", "seats"], msg: "Seats must be between 1 and 20.", type: "value_error", code: "seats_unavailable" }]);
    // a subscription without seats has none to change
    const plain = await fx.subscribe();
    const res = await fx.raw("PATCH", `/v1/subscriptions/${plain.id}`, { seats: 2 });
    expect(issues(res.body)).toEqual([{ loc: ["body", "seats"], msg: "This subscription is not seat-based.", type: "value_error" }]);
    expect(await fx.changeEvents(plain.id)).toEqual([]);
  });

  it("moves the end of the billing period (and the end of a subscription canceled at it)", async () => {
    const sub = await fx.subscribe();
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const end = inDays(40);
    const moved = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { currentBillingPeriodEnd: end } });
    expect(moved).toMatchObject({ currentPeriodEnd: end, endsAt: end, cancelAtPeriodEnd: true, status: "active" });
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated"]);
    const past = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { current_billing_period_end: "2020-01-01T00:00:00Z" });
    expect(past.status).toBe(422);
    expect(locs(past.body)).toEqual([["body", "current_billing_period_end"]]);
  });
});

describe("benefit_grant.updated", () => {
  it("a benefit's new properties refresh its granted grants (previous_properties kept), one event each", async () => {
    const s = await createSeller(fx.server, "grant-update");
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "till-org", repositoryName: "private-repo", permission: "pull" },
    });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const [a, b, gone] = [await fx.subscribe(s, product), await fx.subscribe(s, product), await fx.subscribe(s, product)];
    await s.sdk.subscriptions.revoke({ id: gone.id });
    // describing it again changes no property: no grant event
    await s.sdk.benefits.update({ id: benefit.id, requestBody: { type: "github_repository", description: "Repository access" } });
    const countUpdated = async () => (await fx.db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.updated"), eq(outbox.organizationId, s.organizationId)))).length;
    expect(await countUpdated()).toBe(0);

    await s.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "till-org", repositoryName: "new-repo", permission: "push" } },
    });
    const events = await fx.db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.updated"), eq(outbox.organizationId, s.organizationId)));
    expect(events.map((e) => e.payload.subscription_id).sort()).toEqual([a.id, b.id].sort());
    for (const e of events) {
      expect(e.payload).toMatchObject({
        benefit_id: benefit.id,
        // GitHub is not connected here: the grants wait for their delivery, not granted
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
    const [revoked] = await fx.grantsOf(gone.id);
    expect(revoked).toMatchObject({ properties: {}, previousProperties: null });

    // a second change keeps the properties from before it
    await s.sdk.benefits.update({
      id: benefit.id,
      requestBody: { type: "github_repository", properties: { repositoryOwner: "till-org", repositoryName: "third-repo", permission: "push" } },
    });
    const [grant] = await fx.grantsOf(a.id);
    expect(grant).toMatchObject({
      properties: { repository_name: "third-repo" },
      previousProperties: { repository_owner: "till-org", repository_name: "new-repo", permission: "push" },
    });
    expect(await countUpdated()).toBe(4);
  });
});

describe("delivery", () => {
  it("subscription.updated/canceled/uncanceled/revoked, benefit_grant.updated/revoked and customer.state_changed pass validateEvent of both SDKs", async () => {
    await fx.server.worker.start();
    const s = await createSeller(fx.server, "lifecycle-hooks");
    const path = "/lifecycle";
    const types = [
      "subscription.updated", "subscription.canceled", "subscription.uncanceled", "subscription.revoked",
      "benefit_grant.updated", "benefit_grant.revoked", "customer.state_changed",
    ] as const;
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}${path}`, format: "raw", events: [...types] });
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Hooked access", properties: { note: "v1" } });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const sub = await fx.subscribe(s, product);
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_complex" } });
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    await s.sdk.benefits.update({ id: benefit.id, requestBody: { type: "custom", properties: { note: "v2" } } });
    await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { revoke: true } });

    const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;
    const hits = await fx.receiver.until((all) => {
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
