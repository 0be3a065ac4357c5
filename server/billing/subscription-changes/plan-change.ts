// The seller's plan changes to a subscription: another product or discount (with a trial), and seats, each priced
// from now with its proration (subscriptions/proration.ts) decided here and applied by lifecycle.ts on the locked
// row.
import type { Queryable } from "../../db/client.js";
import { regrantSubscription } from "../benefits/service.js";
import { discountRefusal, DISCOUNT_OVER } from "../discounts/refusal.js";
import { isMetered, isStatic, priceCurrency, seatAmount, seatBounds } from "../products/pricing.js";
import { findCustomerRow } from "../customers/service.js";
import { countActive as countActiveSeats } from "../customer-seats/service.js";
import { getDiscount, redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid } from "../errors.js";
import { loadPrices, loadProductSummaries, loadProducts } from "../products/service.js";
import { assertNever } from "../../../shared/kinds.js";
import type { PriceWire, ProductWire } from "../products/wire.js";
import { isCanceled, MAX_AMOUNT, prorationAt, type Change, type SubscriptionUpdate } from "../subscriptions/change.js";
import { alreadyCanceled } from "../subscriptions/errors.js";
import { prorationLines, type ProrationPlan } from "../subscriptions/proration.js";
import { subscriptionBenefits } from "../subscriptions/add-ons.js";
import { behaviorOf, monthlyAmount, pendingAddOns, pendingAfterChange, pendingUpdate, waits } from "../subscriptions/scheduled.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";

/** The price billed on `product` for this subscription's currency (and seats), and its amount; or the 422 why not. */
function terms(row: SubscriptionRow, product: ProductWire): { prices: PriceWire[]; amount: number } {
  const bad = (msg: string) => invalid(["body", "product_id"], msg);
  if (product.is_archived) throw bad("Product does not exist.");
  if (!product.is_recurring || !product.recurring_interval) throw bad("Product is not a subscription product.");
  const price = product.prices.filter(isStatic).find((p) => !p.is_archived && priceCurrency(p) === row.currency);
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
    case "custom":
      // a custom (pay what you want) amount is chosen by the customer at checkout
      throw bad("Product has a custom price: the customer chooses its amount at checkout.");
    default:
      return assertNever(price, "price kind");
  }
}

/**
 * Product and discount changes (either or both). The new product's price applies from now; the proration
 * behavior (the request's, else the organization's) is recorded on the row (`proration_behavior`) and decides
 * what the rest of the period costs (proration.ts: billed now, carried to the renewal, or nothing). The new
 * product's benefits replace the old one's grants.
 */
export async function changeTerms(
  tx: Queryable,
  organizationId: string,
  row: SubscriptionRow,
  now: Date,
  u: Extract<SubscriptionUpdate, { kind: "change" }>,
  baseURL: string,
  /** A preview: the discount's redemption is checked (discountRefusal), not counted. */
  preview = false,
): Promise<Change | null> {
  if (isCanceled(row)) throw alreadyCanceled();
  const patch: Change["patch"] = {};
  let proration: ProrationPlan | undefined;
  const productId = u.productId ?? row.productId;
  let product: ProductWire | undefined;
  if (productId !== row.productId) {
    // the product left too, in the same read: its name is on the proration lines
    const both = await loadProducts(tx, organizationId, [productId, row.productId], baseURL);
    product = both.get(productId);
    if (!product) throw invalid(["body", "product_id"], "Product does not exist.");
    // the add-ons stay (and those a pending change writes): the new product must offer each (remove the others first)
    const offered = new Set(product.add_on_ids);
    if ([...row.addOns, ...(row.pendingUpdate?.addOns ?? [])].some((a) => !offered.has(a.productId))) {
      throw invalid(["body", "product_id"], "The product does not offer every add-on of the subscription: remove those add-ons first.");
    }
    const t = terms(row, product);
    const interval = product.recurring_interval ?? row.recurringInterval;
    const count = product.recurring_interval_count ?? 1;
    const next = { productId, priceIds: t.prices.map((p) => p.id), amount: t.amount, recurringInterval: interval, recurringIntervalCount: count };
    const behavior = await behaviorOf(tx, organizationId, u.prorationBehavior, {
      old: monthlyAmount(row.amount, row.recurringInterval, row.recurringIntervalCount),
      new: monthlyAmount(t.amount, interval, count),
    });
    if (waits(behavior, row)) {
      // the product stays until the renewal, which writes these terms (renewal/pending.ts); its benefits then
      patch.pendingUpdate = pendingUpdate(row, now, { ...next, seats: null, ...pendingAddOns(row) });
      product = undefined;
    } else {
      // proration within the current period: only between prices of the same interval, on a paid (not trialing) period
      if (row.status === "active" && interval === row.recurringInterval && count === row.recurringIntervalCount) {
        const old = both.get(row.productId);
        proration = {
          behavior,
          lines: prorationLines({
            oldAmount: row.amount,
            newAmount: t.amount,
            periodStart: row.currentPeriodStart,
            periodEnd: row.currentPeriodEnd,
            now: prorationAt(row, now, u.prorationDate),
            oldTerms: { product: old?.name ?? null, seats: null },
            newTerms: { product: product.name, seats: null },
            oldPriceId: row.priceIds[0] ?? null,
            newPriceId: t.prices[0]?.id ?? null,
          }),
        };
      }
      // a change now replaces a pending one, but for its add-ons, which still wait
      Object.assign(patch, { ...next, prorationBehavior: behavior, ...(row.pendingUpdate ? { pendingUpdate: pendingAfterChange(row, now, next) } : {}) });
    }
  }
  const benefits = product?.benefits;
  if (u.discountId !== undefined && u.discountId !== row.discountId) {
    if (u.discountId === null) {
      patch.discountId = null;
    } else {
      const discount = await getDiscount(tx, organizationId, u.discountId).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) throw invalid(["body", "discount_id"], "Discount does not exist.", "value_error", "discount_unknown");
        throw err;
      });
      const target = product ?? (await loadProducts(tx, organizationId, [row.productId], baseURL)).get(row.productId);
      // the static price billed, for a fixed discount's currency
      const price = target?.prices.find((p) => isStatic(p) && priceCurrency(p) === row.currency) ?? null;
      const refusal = target ? discountRefusal(discount, target, price, now) : ({ msg: "Discount is not applicable to this product.", code: "discount_not_applicable" } as const);
      if (refusal) throw invalid(["body", "discount_id"], refusal.msg, "value_error", refusal.code);
      if (!preview && !(await redeemDiscount(tx, organizationId, discount.id, now))) throw invalid(["body", "discount_id"], DISCOUNT_OVER.msg, "value_error", DISCOUNT_OVER.code);
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
          // the add-ons' benefits stay with theirs
          const all = await subscriptionBenefits(t, organizationId, benefits, row.addOns);
          await regrantSubscription(t, organizationId, { subscriptionId: row.id, customer, benefits: all }, at);
        }
      : undefined,
  };
}

/** The row's prices and interval, as a pending change records them. */
const termsOf = (row: SubscriptionRow) => ({ priceIds: row.priceIds, recurringInterval: row.recurringInterval, recurringIntervalCount: row.recurringIntervalCount });

/** Trialing until `trialEnd` (a future date): the current period runs until then, nothing is billed before. */
function trial(row: SubscriptionRow, now: Date, trialEnd: Date): Change["patch"] {
  const bad = (msg: string) => invalid(["body", "trial_end"], msg);
  if (row.status !== "trialing" && row.status !== "active") throw bad("Only an active or trialing subscription can be given a trial.");
  if (trialEnd.getTime() <= now.getTime()) throw bad("Trial end must be in the future.");
  return { status: "trialing", trialStart: row.trialStart ?? now, trialEnd, currentPeriodEnd: trialEnd };
}

/** A seat-based subscription's seats, within its price's tiers; the proration behavior is recorded as for a product. */
export async function seats(
  tx: Queryable,
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
    throw invalid(["body", "seats"], max === null ? `Seats must be at least ${min}.` : `Seats must be between ${min} and ${max}.`, "value_error", "seats_unavailable");
  }
  if (priced.amount > MAX_AMOUNT) throw bad(`The amount for ${u.seats} seats exceeds the maximum amount.`);
  const behavior = await behaviorOf(tx, organizationId, u.prorationBehavior, { old: row.amount, new: priced.amount });
  // seats never outnumber the purchase: the assigned ones (pending or claimed) stay within it (the row is locked,
  // as every seat assignment locks it first)
  const assigned = await countActiveSeats(tx, organizationId, { subscriptionId: row.id });
  if (u.seats < assigned) throw bad(`${assigned} seats are assigned: revoke ${assigned - u.seats} of them before lowering the seats to ${u.seats}.`);
  if (waits(behavior, row)) {
    const terms = { productId: null, seats: u.seats, priceIds: row.priceIds, amount: priced.amount };
    const interval = { recurringInterval: row.recurringInterval, recurringIntervalCount: row.recurringIntervalCount };
    return { patch: { pendingUpdate: pendingUpdate(row, now, { ...terms, ...interval, ...pendingAddOns(row) }) }, events: [] };
  }
  // the product the prorated seats are of, named on the lines' facts (an invoice says them in its language)
  const productName = row.status === "active" ? ((await loadProductSummaries(tx, organizationId, [row.productId])).get(row.productId)?.name ?? null) : null;
  return {
    patch: {
      seats: u.seats,
      amount: priced.amount,
      prorationBehavior: behavior,
      ...(row.pendingUpdate ? { pendingUpdate: pendingAfterChange(row, now, { ...termsOf(row), amount: priced.amount }) } : {}),
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
              now: prorationAt(row, now, u.prorationDate),
              oldTerms: { product: productName, seats: row.seats },
              newTerms: { product: productName, seats: u.seats },
              oldPriceId: price.id,
              newPriceId: price.id,
            }),
          },
        }
      : {}),
  };
}
