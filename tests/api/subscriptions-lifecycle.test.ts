// The seller's changes to a subscription through @polar-sh/sdk 0.47.1 and 0.49.0: cancel at the period end,
// uncancel, revoke (PATCH and DELETE) with its grants, a row held by another transaction (two revokes at once),
// refusals (already canceled, bad input — nothing changed), scopes and tenancy; the events each change records.
// Product, discount, trial, seat and period changes and the events' delivery: subscriptions-lifecycle-changes.test.ts.
import { and, eq, sql } from "drizzle-orm";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { AlreadyCanceledSubscription } from "@polar-sh/sdk/models/errors/alreadycanceledsubscription.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { AlreadyCanceledSubscription as AlreadyCanceled049 } from "polar-sdk-049/models/errors/alreadycanceledsubscription.js";
import { beforeAll, describe, expect, it } from "vitest";
import { outbox, subscription as subscriptionTable } from "../../server/db/schema/index.js";
import { locs } from "../helpers/api.js";
import { sdkFor } from "../helpers/seller.js";
import { lifecycleFixture } from "./subscriptions-lifecycle-fixtures.js";

const fx = lifecycleFixture();

describe("cancel and uncancel (SDK 0.47.1)", () => {
  it("cancels at the period end: still active, canceled_at, ends_at, reason and comment; updated + canceled", async () => {
    const sub = await fx.subscribe();
    const canceled = await fx.seller.sdk.subscriptions.update({
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
    expect(await fx.seller.sdk.subscriptions.get({ id: sub.id })).toEqual(canceled);
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled"]);
    // access lasts until the period ends
    expect((await fx.grantsOf(sub.id)).every((g) => g.revokedAt === null && g.grantedAt !== null)).toBe(true);
    // through 0.49.0 too
    expect((await fx.seller.sdk049.subscriptions.get({ id: sub.id })).cancelAtPeriodEnd).toBe(true);

    // canceling again is refused and records nothing
    const again = fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await expect(again).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    await expect(again).rejects.toMatchObject({ statusCode: 403 });
    expect(await fx.changeEvents(sub.id)).toHaveLength(2);
    // product and discount changes are refused on a canceled subscription, as Polar does
    await expect(fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.premium.id } })).rejects.toBeInstanceOf(
      AlreadyCanceledSubscription,
    );
  });

  it("uncancels before the end: the cancellation is cleared; updated + uncanceled; uncanceling again changes nothing", async () => {
    const sub = await fx.subscribe();
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "unused" } });
    const back = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    expect(back).toMatchObject({
      status: "active",
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      customerCancellationReason: null,
      customerCancellationComment: null,
    });
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated", "subscription.uncanceled"]);
    const same = await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    expect(same).toEqual(back);
    expect(await fx.changeEvents(sub.id)).toHaveLength(4);
  });

  it("records customer.state_changed for the customer with each change", async () => {
    const sub = await fx.subscribe();
    const before = await fx.db().select().from(outbox).where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const after = await fx.db().select().from(outbox).where(and(eq(outbox.type, "customer.state_changed"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(after.length).toBe(before.length + 1);
  });
});

describe("revoke", () => {
  it("PATCH revoke:true (SDK 0.49.0) ends it now, revokes its grants; updated, canceled, revoked; again → 403", async () => {
    const sub = await fx.subscribe();
    const revoked = await fx.seller.sdk049.subscriptions.update({
      id: sub.id,
      subscriptionUpdate: { revoke: true, customerCancellationReason: "other", customerCancellationComment: "Fraud" },
    });
    expect(revoked).toMatchObject({ status: "canceled", customerCancellationReason: "other", customerCancellationComment: "Fraud" });
    expect(revoked.endedAt).toBeInstanceOf(Date);
    expect(revoked.endsAt).toEqual(revoked.endedAt);
    expect(revoked.canceledAt).toEqual(revoked.endedAt);
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.revoked"]);

    const grants = await fx.grantsOf(sub.id);
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ benefitId: fx.benefitId, grantedAt: null, revokedAt: revoked.endedAt });
    const listed = await fx.seller.sdk.benefitGrants.list({ customerId: sub.customerId });
    expect(listed.result.items.map((g) => ({ isGranted: g.isGranted, isRevoked: g.isRevoked }))).toEqual([{ isGranted: false, isRevoked: true }]);
    const grantEvents = await fx.db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.revoked"), sql`${outbox.payload} ->> 'id' = ${grants[0]!.id}`));
    expect(grantEvents).toHaveLength(1);
    expect(grantEvents[0]!.payload).toMatchObject({ is_revoked: true, is_granted: false, subscription_id: sub.id });
    // the customer's state no longer lists it
    const state = await fx.seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.activeSubscriptions).toEqual([]);
    expect(state.grantedBenefits).toEqual([]);

    await expect(fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { revoke: true } })).rejects.toBeInstanceOf(AlreadyCanceled049);
    await expect(fx.seller.sdk.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(AlreadyCanceledSubscription);
    await expect(fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } })).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(await fx.changeEvents(sub.id)).toHaveLength(3);
  });

  it("DELETE (SDK 0.47.1) revokes a subscription already canceled at the period end: updated + revoked only", async () => {
    const sub = await fx.subscribe();
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "unused" } });
    const revoked = await fx.seller.sdk.subscriptions.revoke({ id: sub.id });
    expect(revoked).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true, customerCancellationReason: "unused" });
    expect(revoked.endedAt).toBeInstanceOf(Date);
    expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled", "subscription.updated", "subscription.revoked"]);
    expect((await fx.grantsOf(sub.id)).every((g) => g.revokedAt !== null)).toBe(true);
    // 0.49.0's revoke reads the answer too
    await expect(fx.seller.sdk049.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(AlreadyCanceled049);
  });

  it("two revokes at once: one succeeds, the other is refused; one revoked event, one grant revocation", async () => {
    const sub = await fx.subscribe();
    const results = await Promise.allSettled([fx.seller.sdk.subscriptions.revoke({ id: sub.id }), fx.seller.sdk.subscriptions.revoke({ id: sub.id })]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected");
    expect(refused?.status === "rejected" && refused.reason).toBeInstanceOf(AlreadyCanceledSubscription);
    expect((await fx.changeEvents(sub.id)).filter((t) => t === "subscription.revoked")).toHaveLength(1);
    const [grant] = await fx.grantsOf(sub.id);
    const revokedEvents = await fx.db().select().from(outbox).where(and(eq(outbox.type, "benefit_grant.revoked"), sql`${outbox.payload} ->> 'id' = ${grant!.id}`));
    expect(revokedEvents).toHaveLength(1);
  });
});

describe("a row held by another transaction", () => {
  it("PostgreSQL: a change waiting more than 5 s answers 409 SubscriptionLocked (nothing changed); PGlite serializes it", async () => {
    const sub = await fx.subscribe();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = fx.db().transaction(async (tx) => {
      await tx.select().from(subscriptionTable).where(eq(subscriptionTable.id, sub.id)).for("update");
      locked();
      await held;
    });
    await isLocked;
    const attempt = fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { cancel_at_period_end: true });
    if (fx.server.database.driver === "postgres") {
      const res = await attempt;
      release();
      await holder;
      expect(res).toEqual({ status: 409, body: { error: "SubscriptionLocked", detail: "This subscription is being updated; try again.", code: "subscription_busy" } });
      expect(await fx.changeEvents(sub.id)).toEqual([]);
      expect((await fx.rowOf(sub.id)).cancelAtPeriodEnd).toBe(false);
    } else {
      // one connection: the change runs once the holder commits
      setTimeout(release, 200);
      await holder;
      expect((await attempt).status).toBe(200);
      expect(await fx.changeEvents(sub.id)).toEqual(["subscription.updated", "subscription.canceled"]);
    }
  }, 20_000);
});

describe("bad input, scopes and tenancy", () => {
  let sub: Subscription;
  beforeAll(async () => {
    sub = await fx.subscribe();
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
      [{ product_id: fx.premium.id, proration_behavior: "sometimes" }, ["body", "proration_behavior"]],
      [{ discount_id: 7 }, ["body", "discount_id"]],
      [{ trial_end: "next week" }, ["body", "trial_end"]],
      [{ trial_end: "now" }, ["body", "trial_end"]],
      [{ seats: 0 }, ["body", "seats"]],
      [{ seats: 2.5 }, ["body", "seats"]],
      [{ current_billing_period_end: null }, ["body", "current_billing_period_end"]],
      [{ cancel_at_period_end: true, customer_cancellation_comment: "a\u0000b" }, ["body", "customer_cancellation_comment"]],
    ];
    for (const [body, loc] of cases) {
      const res = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    expect((await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, "{not json")).status).toBe(422);
    expect((await fx.raw("PATCH", "/v1/subscriptions/not-a-uuid", { revoke: true })).status).toBe(422);
    expect((await fx.raw("DELETE", "/v1/subscriptions/not-a-uuid")).status).toBe(422);
    expect(await fx.seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await fx.changeEvents(sub.id)).toEqual([]);
  });

  it("answers 404 for unknown and other organizations' subscriptions, whatever the change", async () => {
    const unknown = crypto.randomUUID();
    await expect(fx.seller.sdk.subscriptions.revoke({ id: unknown })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(fx.other.sdk.subscriptions.revoke({ id: sub.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(fx.other.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } })).rejects.toBeInstanceOf(ResourceNotFound);
    const key = await fx.other.createKey();
    const res = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { revoke: true }, key);
    expect(res).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Subscription not found" } });
    expect(await fx.seller.sdk.subscriptions.get({ id: sub.id })).toEqual(sub);
    expect(await fx.changeEvents(sub.id)).toEqual([]);
  });

  it("needs subscriptions:write", async () => {
    const readOnly = sdkFor(fx.server, await fx.seller.createKey({ subscriptions: ["read"] }));
    await expect(readOnly.subscriptions.revoke({ id: sub.id })).rejects.toMatchObject({ statusCode: 403 });
    await expect(readOnly.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } })).rejects.toMatchObject({ statusCode: 403 });
    expect(await fx.changeEvents(sub.id)).toEqual([]);
  });
});
