// The seller's (and the customer's, through the portal) changes to a subscription's add-ons: the whole set as it
// should be (an add-on added, its quantity changed, or left out to remove it), with the proration behavior a plan
// change takes (the request's, else the organization's): `invoice` bills the difference now, `prorate` carries it to
// the renewal, `next_period` waits for the period's end (the pending update holds the add-ons). Each add-on whose
// amount changes is prorated on lines of its own; the benefits follow the add-ons.
import type { Queryable } from "../../db/client.js";
import type { SubscriptionAddOn } from "../../db/schema/index.js";
import { regrantSubscription } from "../benefits/service.js";
import { findCustomerRow } from "../customers/service.js";
import { ApiError, invalid } from "../errors.js";
import { loadProducts, loadProductSummaries } from "../products/service.js";
import { resolveAddOns, sameAddOns, subscriptionBenefits } from "../subscriptions/add-ons.js";
import { isCanceled, prorationAt, type Change, type SubscriptionUpdate } from "../subscriptions/change.js";
import { alreadyCanceled } from "../subscriptions/errors.js";
import { prorationLines, type ProrationLine } from "../subscriptions/proration.js";
import { behaviorOf, monthlyAmount, pendingUpdate, waits } from "../subscriptions/scheduled.js";
import { addOnsAmount, type SubscriptionRow } from "../subscriptions/wire.js";

type AddOnsUpdate = Extract<SubscriptionUpdate, { kind: "add_ons" }>;

/** "Storage × 3": what a proration line names an add-on by. */
const termsOf = (name: string | null, a: SubscriptionAddOn | undefined) => ({ product: a && a.quantity > 1 ? `${name ?? "Add-on"} × ${a.quantity}` : name, seats: null });

/** The proration lines of the add-ons whose amount changes: the unused time of the old, the rest at the new. */
async function addOnProration(tx: Queryable, row: SubscriptionRow, next: SubscriptionAddOn[], at: Date): Promise<ProrationLine[]> {
  const before = new Map(row.addOns.map((a) => [a.productId, a]));
  const after = new Map(next.map((a) => [a.productId, a]));
  const productIds = [...new Set([...before.keys(), ...after.keys()])];
  const names = await loadProductSummaries(tx, row.organizationId, productIds);
  return productIds.flatMap((id) => {
    const old = before.get(id);
    const now = after.get(id);
    const name = names.get(id)?.name ?? null;
    return prorationLines({
      oldAmount: old?.amount ?? 0,
      newAmount: now?.amount ?? 0,
      periodStart: row.currentPeriodStart,
      periodEnd: row.currentPeriodEnd,
      now: at,
      oldTerms: termsOf(name, old),
      newTerms: termsOf(name, now),
      oldPriceId: old?.priceId ?? null,
      newPriceId: now?.priceId ?? null,
    });
  });
}

/** PATCH `{"items": [...]}`: the subscription's add-ons become these. */
export async function changeAddOns(tx: Queryable, organizationId: string, row: SubscriptionRow, u: AddOnsUpdate, now: Date, baseURL: string): Promise<Change | null> {
  if (isCanceled(row)) throw alreadyCanceled();
  const base = (await loadProducts(tx, organizationId, [row.productId], baseURL)).get(row.productId);
  if (!base) throw invalid(["body", "items"], "The subscription's product does not exist.");
  const next = await resolveAddOns(tx, organizationId, row, base, u.items, now, ["body", "items"]);
  const pending = row.pendingUpdate?.addOns;
  if (sameAddOns(next, row.addOns) && !pending) return null;
  const behavior = await behaviorOf(tx, organizationId, u.prorationBehavior, {
    old: monthlyAmount(row.amount + addOnsAmount(row), row.recurringInterval, row.recurringIntervalCount),
    new: monthlyAmount(row.amount + addOnsAmount({ addOns: next }), row.recurringInterval, row.recurringIntervalCount),
  });
  if (waits(behavior, row)) {
    // the add-ons stay until the renewal, which writes these (renewal/pending.ts); a pending plan change stays too
    const p = row.pendingUpdate;
    const terms = p
      ? { productId: p.productId, seats: p.seats, priceIds: p.priceIds, amount: p.amount, recurringInterval: p.recurringInterval, recurringIntervalCount: p.recurringIntervalCount }
      : { productId: null, seats: null, priceIds: row.priceIds, amount: row.amount, recurringInterval: row.recurringInterval, recurringIntervalCount: row.recurringIntervalCount };
    return { patch: { pendingUpdate: pendingUpdate(row, now, { ...terms, addOns: next }) }, events: [] };
  }
  const lines = row.status === "active" ? await addOnProration(tx, row, next, prorationAt(row, now, u.prorationDate)) : [];
  // a change now replaces the add-ons a pending change would have written (its plan change stays)
  const p = row.pendingUpdate;
  let patch: Change["patch"] = { addOns: next, prorationBehavior: behavior };
  if (p && pending) {
    const { addOns: _replaced, ...plan } = p;
    patch = { ...patch, pendingUpdate: plan.productId || plan.seats !== null ? plan : null };
  }
  return {
    patch,
    events: [],
    mail: "subscription_updated",
    ...(lines.length ? { proration: { behavior, lines } } : {}),
    // the benefits follow the add-ons: the base product's and each add-on's
    after: async (t, at) => {
      const customer = await findCustomerRow(t, organizationId, { id: row.customerId }).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      });
      const benefits = await subscriptionBenefits(t, organizationId, base.benefits, next);
      await regrantSubscription(t, organizationId, { subscriptionId: row.id, customer, benefits }, at);
    },
  };
}
