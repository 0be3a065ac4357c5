// The renewal's part of a plan change that waited for the period's end (subscriptions/scheduled.ts): the pending
// terms are written before the new period is billed, so the new period is billed at them; the usage of the period
// ended is still billed at the metered prices it ran under (`endedMetered`). A product or add-on change regrants
// benefits.
import type { Queryable } from "../../db/client.js";
import { regrantSubscription } from "../benefits/service.js";
import { isMetered } from "../products/pricing.js";
import { ApiError } from "../errors.js";
import { findCustomerRow } from "../customers/service.js";
import { loadProducts } from "../products/service.js";
import type { PriceWire } from "../products/wire.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { patchSubscriptionTerms, type TermsPatch } from "../subscriptions/service.js";
import { subscriptionBenefits } from "../subscriptions/add-ons.js";

/** Whether the subscription has a pending change that the renewal starting a period at `newStart` applies. */
export const pendingAt = (sub: SubscriptionRow, newStart: Date) => sub.pendingUpdate !== null && Date.parse(sub.pendingUpdate.appliesAt) <= newStart.getTime();

/** The columns a pending change writes when it applies (an upcoming renewal reads them without writing). */
export function pendingTerms(p: NonNullable<SubscriptionRow["pendingUpdate"]>): TermsPatch {
  return {
    ...(p.productId ? { productId: p.productId, prorationBehavior: "next_period" } : {}),
    ...(p.seats !== null ? { seats: p.seats } : {}),
    priceIds: p.priceIds,
    amount: p.amount,
    recurringInterval: p.recurringInterval,
    recurringIntervalCount: p.recurringIntervalCount,
    ...(p.addOns ? { addOns: p.addOns } : {}),
    pendingUpdate: null,
  };
}

/** Writes the pending terms (the row locked) and regrants a new product's benefits; returns the row as written. */
export async function applyPendingUpdate(
  tx: Queryable,
  sub: SubscriptionRow,
  prices: PriceWire[],
  now: Date,
  baseURL: string,
): Promise<{ row: SubscriptionRow; endedMetered: PriceWire[] }> {
  const p = sub.pendingUpdate;
  if (!p) return { row: sub, endedMetered: prices.filter(isMetered) };
  const org = sub.organizationId;
  const row = await patchSubscriptionTerms(tx, org, sub.id, pendingTerms(p), now);
  if ((p.productId && p.productId !== sub.productId) || p.addOns) {
    const product = (await loadProducts(tx, org, [row.productId], baseURL)).get(row.productId);
    // a deleted customer is granted nothing new (its grants of the old product are still revoked)
    const customer = await findCustomerRow(tx, org, { id: sub.customerId }).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
    // the product's benefits and its add-ons'
    const benefits = await subscriptionBenefits(tx, org, product?.benefits ?? [], row.addOns);
    await regrantSubscription(tx, org, { subscriptionId: sub.id, customer, benefits }, now);
  }
  return { row, endedMetered: prices.filter(isMetered) };
}
