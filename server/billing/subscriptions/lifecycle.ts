// What the seller changes on a subscription (PATCH and DELETE /v1/subscriptions/{id}), as Polar does: cancel at
// the period end and uncancel, revoke now (its benefit grants revoked), product, discount, trial, seats and
// billing-period changes. Each change
// is one transaction holding the row FOR UPDATE; its webhook events are recorded in the outbox in that transaction.
import type { Db, Tx } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent, type OutboxEventType } from "../../jobs/outbox.js";
import { regrantSubscription, revokeGrantsOfSubscription } from "../benefits/service.js";
import { discountRefusal, isMetered, isStatic, priceCurrency, seatAmount, seatBounds } from "../checkouts/pricing.js";
import { findCustomerRow } from "../customers/service.js";
import { countActive as countActiveSeats } from "../customer-seats/repository.js";
import { getDiscount, redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid, notFound } from "../http.js";
import { getOrganization } from "../organizations/service.js";
import { loadPrices, loadProducts, type PriceWire, type ProductWire } from "../products/service.js";
import { toWires } from "./load.js";
import { applyProration, prorationLines, type ProrationPlan } from "./proration.js";
import * as repo from "./repository.js";
import type { SubscriptionRow, SubscriptionWire } from "./wire.js";
import { orgNow } from "../test-clock/clock.js";

export const CANCELLATION_REASONS = [
  "customer_service", "low_quality", "missing_features", "switched_service", "too_complex", "too_expensive", "unused", "other",
] as const;
export const PRORATION_BEHAVIORS = ["invoice", "prorate", "next_period", "reset"] as const;
type CancellationReason = (typeof CANCELLATION_REASONS)[number];
type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

interface Cancellation {
  reason?: CancellationReason | null | undefined;
  comment?: string | null | undefined;
}

/** The `SubscriptionUpdate` variants (0.47.1's separate ones and 0.49.0's `SubscriptionUpdateBase`), parsed. */
export type SubscriptionUpdate =
  | ({ kind: "revoke" } & Cancellation)
  | ({ kind: "cancel"; cancelAtPeriodEnd: boolean } & Cancellation)
  | {
      kind: "change";
      /** undefined or null: the product stays. */
      productId?: string | null | undefined;
      prorationBehavior?: ProrationBehavior | null | undefined;
      /** undefined: the discount stays; null: it is removed. */
      discountId?: string | null | undefined;
      /** undefined or null: the trial stays as it is; a date: trialing until then. */
      trialEnd?: Date | null | undefined;
    }
  | { kind: "seats"; seats: number; prorationBehavior?: ProrationBehavior | null | undefined }
  | { kind: "billing_period"; periodEnd: Date };

const NOT_FOUND = "Subscription not found";
/** The largest amount the amount column holds (PostgreSQL integer); seats that would cost more are refused. */
const MAX_AMOUNT = 2_147_483_647;
/** Lock waits longer than this answer 409 SubscriptionLocked rather than holding the request. */
const LOCK_TIMEOUT = "5s";
const PG_LOCK_NOT_AVAILABLE = "55P03";

const alreadyCanceled = () =>
  new ApiError(403, { error: "AlreadyCanceledSubscription", detail: "This subscription is already canceled or will be at the end of the period." });
const locked = () => new ApiError(409, { error: "SubscriptionLocked", detail: "This subscription is being updated; try again." });

/** Ended for good (revoked, or canceled at a period end that has passed): nothing can change it any more. */
const isEnded = (row: SubscriptionRow) => row.endedAt !== null || row.status === "canceled" || row.status === "incomplete_expired";
/** Polar's "canceled": ended, or set to end at the period end. */
const isCanceled = (row: SubscriptionRow) => isEnded(row) || row.cancelAtPeriodEnd;

type Patch = Parameters<typeof repo.updateSubscription>[3];

/** What a change decided: the columns to write and the subscription events after `subscription.updated`. */
interface Change {
  patch: Omit<Patch, "modifiedAt">;
  events: OutboxEventType[];
  /** The customer email the change asks for on its `subscription.updated` (a plan change's). */
  mail?: OutboxEvent["mail"];
  /** Runs after the row is written, in the transaction (grant revocation). */
  after?: (tx: Tx, now: Date) => Promise<void>;
  /** The change's proration (product and seat changes of an active subscription), applied after `after`. */
  proration?: ProrationPlan;
}

function lockError(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === PG_LOCK_NOT_AVAILABLE) return true;
  }
  return false;
}

/**
 * Runs `decide` on the locked row and applies what it returns: the row written, `subscription.updated` then the
 * change's own events (each with the subscription as it is after the change), then `customer.state_changed`.
 * `decide` returning null changes nothing and records nothing (e.g. uncanceling a subscription that is not canceled).
 */
async function change(
  db: Db,
  organizationId: string,
  id: string,
  baseURL: string,
  decide: (tx: Tx, row: SubscriptionRow, now: Date) => Promise<Change | null>,
): Promise<SubscriptionWire> {
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      const current = await repo.lockSubscription(tx, organizationId, id);
      if (!current) throw notFound(NOT_FOUND);
      const now = await orgNow(tx, organizationId);
      const decided = await decide(tx, current, now);
      let row = decided ? await repo.updateSubscription(tx, organizationId, id, { ...decided.patch, modifiedAt: now }) : current;
      // billed before the wire is read: a declined charge makes the subscription past_due
      const billed = decided?.proration ? await applyProration(tx, row, decided.proration, now) : null;
      if (billed) row = billed.row;
      const [wire] = await toWires(tx, organizationId, [row], baseURL);
      if (!wire) throw notFound(NOT_FOUND);
      if (decided) {
        const data = { ...wire };
        const events: OutboxEvent[] = ["subscription.updated" as const, ...decided.events].map((type) => ({ type, organizationId, data }));
        if (decided.mail) events[0] = { ...events[0]!, mail: decided.mail };
        if (billed?.declinedOrderId) {
          // loaded when needed: dunning → orders → customers → here is a cycle at import time
          const { startDunning } = await import("../dunning/service.js");
          events.push(...(await startDunning(tx, organizationId, data, billed.declinedOrderId, now)));
        }
        await enqueue(tx, events);
        await decided.after?.(tx, now);
        await enqueue(tx, customerStateChanged(organizationId, row.customerId));
      }
      return wire;
    });
  } catch (err) {
    if (lockError(err)) throw locked();
    throw err;
  }
}

const cancellation = (c: Cancellation) => ({
  // as Polar: a reason or comment left out keeps the one recorded
  ...(c.reason !== undefined && c.reason !== null ? { customerCancellationReason: c.reason } : {}),
  ...(c.comment !== undefined && c.comment !== null ? { customerCancellationComment: c.comment } : {}),
});

/** Ends the subscription now: canceled, ended, its benefit grants revoked. */
function revoke(organizationId: string, row: SubscriptionRow, now: Date, c: Cancellation): Change {
  if (isEnded(row)) throw alreadyCanceled();
  return {
    patch: { status: "canceled", canceledAt: row.canceledAt ?? now, endsAt: now, endedAt: now, ...cancellation(c) },
    events: [...(isCanceled(row) ? [] : ["subscription.canceled" as const]), "subscription.revoked"],
    after: async (tx, at) => {
      await revokeGrantsOfSubscription(tx, organizationId, row.id, at);
    },
  };
}

/** Cancels at the end of the current period (the subscription stays active until then), or takes that back. */
function cancelAtPeriodEnd(row: SubscriptionRow, now: Date, u: { cancelAtPeriodEnd: boolean } & Cancellation): Change | null {
  if (isEnded(row)) throw alreadyCanceled();
  if (u.cancelAtPeriodEnd) {
    if (row.cancelAtPeriodEnd) throw alreadyCanceled();
    return {
      patch: { cancelAtPeriodEnd: true, canceledAt: now, endsAt: row.currentPeriodEnd, ...cancellation(u) },
      events: ["subscription.canceled"],
    };
  }
  if (!row.cancelAtPeriodEnd) return null;
  return {
    patch: { cancelAtPeriodEnd: false, canceledAt: null, endsAt: null, customerCancellationReason: null, customerCancellationComment: null },
    events: ["subscription.uncanceled"],
  };
}

/** The price billed on `product` for this subscription's currency (and seats), and its amount; or the 422 why not. */
function terms(row: SubscriptionRow, product: ProductWire): { prices: PriceWire[]; amount: number } {
  const bad = (msg: string) => invalid(["body", "product_id"], msg);
  if (product.is_archived) throw bad("Product does not exist.");
  if (!product.is_recurring || !product.recurring_interval) throw bad("Product is not a subscription product.");
  const price = product.prices.find((p) => !p.is_archived && isStatic(p) && priceCurrency(p) === row.currency);
  if (!price) throw bad(`Product has no price in ${row.currency}.`);
  const metered = product.prices.filter((p) => !p.is_archived && isMetered(p) && priceCurrency(p) === row.currency);
  switch (price.amount_type) {
    case "fixed":
      return { prices: [price, ...metered], amount: typeof price.price_amount === "number" ? price.price_amount : 0 };
    case "free":
      return { prices: [price, ...metered], amount: 0 };
    case "seat_based": {
      const seats = row.seats === null ? null : seatAmount(price, row.seats);
      if (!seats) throw bad("A seat-based product needs a subscription with seats within its tiers.");
      if (seats.amount > MAX_AMOUNT) throw bad(`The amount for ${row.seats} seats exceeds the maximum amount.`);
      return { prices: [price, ...metered], amount: seats.amount };
    }
    default:
      // a custom (pay what you want) amount is chosen by the customer at checkout
      throw bad("Product has a custom price: the customer chooses its amount at checkout.");
  }
}

/**
 * Product and discount changes (either or both). The new product's price applies from now; the proration
 * behavior (the request's, else the organization's) is recorded on the row (`proration_behavior`) and decides
 * what the rest of the period costs (proration.ts: billed now, carried to the renewal, or nothing). The new
 * product's benefits replace the old one's grants.
 */
async function changeTerms(
  tx: Tx,
  organizationId: string,
  row: SubscriptionRow,
  now: Date,
  u: Extract<SubscriptionUpdate, { kind: "change" }>,
  baseURL: string,
): Promise<Change | null> {
  if (isCanceled(row)) throw alreadyCanceled();
  const patch: Change["patch"] = {};
  let proration: ProrationPlan | undefined;
  const productId = u.productId ?? row.productId;
  let product: ProductWire | undefined;
  if (productId !== row.productId) {
    product = (await loadProducts(tx, organizationId, [productId], baseURL)).get(productId);
    if (!product) throw invalid(["body", "product_id"], "Product does not exist.");
    const t = terms(row, product);
    const behavior = u.prorationBehavior ?? (await getOrganization(tx, organizationId)).subscription_settings.proration_behavior;
    // proration within the current period: only between prices of the same interval, on a paid (not trialing) period
    if (row.status === "active" && product.recurring_interval === row.recurringInterval && (product.recurring_interval_count ?? 1) === row.recurringIntervalCount) {
      const old = (await loadProducts(tx, organizationId, [row.productId], baseURL)).get(row.productId);
      proration = {
        behavior,
        lines: prorationLines({
          oldAmount: row.amount,
          newAmount: t.amount,
          periodStart: row.currentPeriodStart,
          periodEnd: row.currentPeriodEnd,
          now,
          oldLabel: old?.name ?? "the previous plan",
          newLabel: product.name,
          oldPriceId: row.priceIds[0] ?? null,
          newPriceId: t.prices[0]?.id ?? null,
        }),
      };
    }
    Object.assign(patch, {
      productId,
      priceIds: t.prices.map((p) => p.id),
      amount: t.amount,
      recurringInterval: product.recurring_interval ?? row.recurringInterval,
      recurringIntervalCount: product.recurring_interval_count ?? 1,
      prorationBehavior: behavior,
    });
  }
  const benefits = product?.benefits;
  if (u.discountId !== undefined && u.discountId !== row.discountId) {
    if (u.discountId === null) {
      patch.discountId = null;
    } else {
      const discount = await getDiscount(tx, organizationId, u.discountId).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) throw invalid(["body", "discount_id"], "Discount does not exist.");
        throw err;
      });
      const target = product ?? (await loadProducts(tx, organizationId, [row.productId], baseURL)).get(row.productId);
      // the static price billed, for a fixed discount's currency
      const price = target?.prices.find((p) => isStatic(p) && priceCurrency(p) === row.currency) ?? null;
      const refusal = target ? discountRefusal(discount, target, price, now) : "Discount is not applicable to this product.";
      if (refusal) throw invalid(["body", "discount_id"], refusal);
      if (!(await redeemDiscount(tx, organizationId, discount.id, now))) throw invalid(["body", "discount_id"], "Discount is no longer redeemable.");
      patch.discountId = discount.id;
    }
  }
  if (u.trialEnd) Object.assign(patch, trial(row, now, u.trialEnd));
  if (Object.keys(patch).length === 0) return null;
  return {
    patch,
    events: [],
    ...(product ? { mail: "subscription_updated" as const } : {}),
    ...(proration ? { proration } : {}),
    // the new product's benefits replace the old one's
    after: benefits
      ? async (t, at) => {
          // a deleted customer is granted nothing new (its grants of the old product are still revoked)
          const customer = await findCustomerRow(t, organizationId, { id: row.customerId }).catch((err: unknown) => {
            if (err instanceof ApiError && err.status === 404) return null;
            throw err;
          });
          await regrantSubscription(t, organizationId, { subscriptionId: row.id, customer, benefits }, at);
        }
      : undefined,
  };
}

/** Trialing until `trialEnd` (a future date): the current period runs until then, nothing is billed before. */
function trial(row: SubscriptionRow, now: Date, trialEnd: Date): Change["patch"] {
  const bad = (msg: string) => invalid(["body", "trial_end"], msg);
  if (row.status !== "trialing" && row.status !== "active") throw bad("Only an active or trialing subscription can be given a trial.");
  if (trialEnd.getTime() <= now.getTime()) throw bad("Trial end must be in the future.");
  return { status: "trialing", trialStart: row.trialStart ?? now, trialEnd, currentPeriodEnd: trialEnd };
}

/** A seat-based subscription's seats, within its price's tiers; the proration behavior is recorded as for a product. */
async function seats(
  tx: Tx,
  organizationId: string,
  row: SubscriptionRow,
  u: Extract<SubscriptionUpdate, { kind: "seats" }>,
  now: Date,
): Promise<Change | null> {
  if (isCanceled(row)) throw alreadyCanceled();
  const bad = (msg: string) => invalid(["body", "seats"], msg);
  const prices = await loadPrices(tx, organizationId, row.priceIds);
  const price = row.priceIds.map((id) => prices.get(id)).find((p) => p?.amount_type === "seat_based");
  if (!price || row.seats === null) throw bad("This subscription is not seat-based.");
  if (u.seats === row.seats) return null;
  const priced = seatAmount(price, u.seats);
  if (!priced) {
    const { min, max } = seatBounds(price);
    throw bad(max === null ? `Seats must be at least ${min}.` : `Seats must be between ${min} and ${max}.`);
  }
  if (priced.amount > MAX_AMOUNT) throw bad(`The amount for ${u.seats} seats exceeds the maximum amount.`);
  const behavior = u.prorationBehavior ?? (await getOrganization(tx, organizationId)).subscription_settings.proration_behavior;
  // seats never outnumber the purchase: the assigned ones (pending or claimed) stay within it (the row is locked,
  // as every seat assignment locks it first)
  const assigned = await countActiveSeats(tx, organizationId, { subscriptionId: row.id });
  if (u.seats < assigned) throw bad(`${assigned} seats are assigned: revoke ${assigned - u.seats} of them before lowering the seats to ${u.seats}.`);
  return {
    patch: {
      seats: u.seats,
      amount: priced.amount,
      prorationBehavior: behavior,
    },
    events: [],
    ...(row.status === "active"
      ? {
          proration: {
            behavior,
            lines: prorationLines({
              oldAmount: row.amount,
              newAmount: priced.amount,
              periodStart: row.currentPeriodStart,
              periodEnd: row.currentPeriodEnd,
              now,
              oldLabel: `${row.seats} seats`,
              newLabel: `${u.seats} seats`,
              oldPriceId: price.id,
              newPriceId: price.id,
            }),
          },
        }
      : {}),
  };
}

/** Moves the end of the current period (and the end of a subscription canceled at that end). */
function billingPeriod(row: SubscriptionRow, now: Date, periodEnd: Date): Change | null {
  if (isEnded(row)) throw alreadyCanceled();
  const bad = (msg: string) => invalid(["body", "current_billing_period_end"], msg);
  if (row.status === "trialing") throw bad("The subscription is trialing: change trial_end instead.");
  if (periodEnd.getTime() <= now.getTime() || periodEnd.getTime() <= row.currentPeriodStart.getTime()) {
    throw bad("The billing period end must be in the future.");
  }
  if (periodEnd.getTime() === row.currentPeriodEnd.getTime()) return null;
  return { patch: { currentPeriodEnd: periodEnd, ...(row.cancelAtPeriodEnd ? { endsAt: periodEnd } : {}) }, events: [] };
}

/** PATCH /v1/subscriptions/{id}. */
export async function updateSubscription(
  db: Db,
  organizationId: string,
  id: string,
  update: SubscriptionUpdate,
  baseURL: string,
): Promise<SubscriptionWire> {
  return change(db, organizationId, id, baseURL, async (tx, row, now) => {
    switch (update.kind) {
      case "revoke":
        return revoke(organizationId, row, now, update);
      case "cancel":
        return cancelAtPeriodEnd(row, now, update);
      case "change":
        return changeTerms(tx, organizationId, row, now, update, baseURL);
      case "seats":
        return seats(tx, organizationId, row, update, now);
      case "billing_period":
        return billingPeriod(row, now, update.periodEnd);
    }
  });
}

/** DELETE /v1/subscriptions/{id}: revokes now, like PATCH `{revoke: true}`. */
export async function revokeSubscription(db: Db, organizationId: string, id: string, baseURL: string): Promise<SubscriptionWire> {
  return updateSubscription(db, organizationId, id, { kind: "revoke" }, baseURL);
}

/**
 * Revokes now every subscription of the customer that has not ended (the customer is being deleted), in the
 * caller's transaction: each locked and ended as DELETE /v1/subscriptions/{id} does, with `subscription.updated`,
 * `subscription.canceled` (unless it already was) and `subscription.revoked`, then its grants revoked
 * (`benefit_grant.revoked`). `customer.state_changed` is left to the caller. Returns how many were revoked.
 */
export async function revokeSubscriptionsOfCustomer(tx: Tx, organizationId: string, customerId: string, now: Date, baseURL: string): Promise<number> {
  const open = await repo.lockOpenSubscriptionsOfCustomer(tx, organizationId, customerId);
  const revoked: Array<{ row: SubscriptionRow; change: Change }> = [];
  for (const current of open) {
    const decided = revoke(organizationId, current, now, {});
    revoked.push({ row: await repo.updateSubscription(tx, organizationId, current.id, { ...decided.patch, modifiedAt: now }), change: decided });
  }
  const wires = new Map((await toWires(tx, organizationId, revoked.map((r) => r.row), baseURL)).map((w) => [w.id, w]));
  for (const { row, change: decided } of revoked) {
    const data = wires.get(row.id);
    if (data) {
      await enqueue(tx, ["subscription.updated" as const, ...decided.events].map((type) => ({ type, organizationId, data: { ...data } })));
    }
    await decided.after?.(tx, now);
  }
  return revoked.length;
}
