// What a renewal bills for the period that ended: the static prices as sold (fixed, custom, seats), each metered
// price's usage beyond the period's meter credits, the add-ons, and the discount while its duration lasts
// (renewal.ts).
import type { Queryable } from "../../db/client.js";
import type { OrderFromCheckout } from "../orders/service.js";
import { discountAmount } from "../discounts/amount.js";
import { addInterval } from "../subscriptions/period.js";
import { isDiscountable, isMetered, priceAmount } from "../products/pricing.js";
import type { loadDiscountBases } from "../discounts/service.js";
import type { MeteredUnitPriceWire, PriceWire } from "../products/wire.js";
import { loadPrices, loadProductSummaries } from "../products/service.js";
import { inclusiveOf } from "../tax/service.js";
import { creditsOf } from "../subscriptions/meter-credits.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { usageLineDetail } from "../subscriptions/usage-line.js";
import { applyCredits, meteredUsage, type CreditedUsage, type MeteredUsage, type UsagePeriod } from "../subscriptions/usage.js";
import { monthlyBilledUnits } from "../subscriptions/meter-credits.js";

export type Discount = ReturnType<typeof loadDiscountBases> extends Promise<Map<string, infer D>> ? D : never;

/** Whether the discount still applies to a period starting at `periodStart` (Polar's durations). */
function discountApplies(d: Discount, sub: SubscriptionRow, periodStart: Date, endsTrial: boolean): boolean {
  if (d.duration === "forever") return true;
  // "once" was spent on the first order, unless that order was a trial's (nothing charged)
  if (d.duration === "once") return endsTrial;
  const firstPaid = sub.trialEnd ?? sub.startedAt ?? sub.createdAt;
  const months = ("duration_in_months" in d ? d.duration_in_months : undefined) ?? 1;
  return periodStart.getTime() < addInterval(firstPaid, "month", months).getTime();
}

export interface Bill {
  /** A metered line has its billed units and unit price (the invoice prints them). */
  /** Each line's service period: the new period for a static price (billed ahead), the period ended for usage. */
  items: OrderFromCheckout["items"];
  /** Per item: whether the discount applies to it, and its price's own tax behavior. */
  discountable: boolean[];
  inclusive: Array<boolean | undefined>;
  subtotal: number;
  discount: number;
  /** Units the period consumed, by lower-cased meter id (the meter credits of the next period roll over from it). */
  consumed: Map<string, number>;
}

/**
 * A metered price's line: its usage beyond the credits (`u`), named with consumed, credited and billed units when a
 * credit applied (`earlier`: units billed by the period's monthly orders, counted in the credits, said apart).
 */
export function usageItem(productName: string, price: MeteredUnitPriceWire, u: CreditedUsage | undefined, currency: string, period: { start: Date; end: Date }, earlier = 0) {
  const meter = price.meter as { name?: string } | undefined;
  const credited = (u?.credited ?? 0) - Math.min(earlier, u?.credited ?? 0);
  const paid = earlier > 0 ? `, ${Math.min(earlier, u?.credited ?? 0)} billed monthly` : "";
  const units = u && u.credited > 0 ? ` (${u.consumed} consumed, ${credited} credited${paid}, ${u.billed} billed)` : "";
  // tiers and the cap are spelled out on the line (usage-line.ts); its amount is then not units × one price
  const detail = usageLineDetail(price, u?.billed ?? 0, currency);
  const meterName = meter?.name ?? "usage";
  return {
    label: `${productName} — ${meterName}${units}${detail.text}`,
    // the same, as figures: an invoice says them in its reader's language
    usage: { product: productName, meter: meterName, consumed: u?.consumed ?? 0, credited, billed: u?.billed ?? 0, ...detail.facts },
    amount: u?.amount ?? 0,
    productPriceId: price.id,
    quantity: u?.billed ?? 0,
    ...(detail.unitPriced ? { unitAmount: String(price.unit_amount ?? "0") } : {}),
    period: { start: period.start, end: period.end },
  };
}

/**
 * The add-ons' lines of a period starting at `newStart`: each names its product (and its quantity), with its price;
 * a discount is the base product's (it does not reduce an add-on).
 */
export async function addOnLines(db: Queryable, sub: SubscriptionRow, newStart: Date) {
  if (sub.addOns.length === 0) return [];
  const [prices, products] = await Promise.all([
    loadPrices(db, sub.organizationId, sub.addOns.map((a) => a.priceId)),
    loadProductSummaries(db, sub.organizationId, sub.addOns.map((a) => a.productId)),
  ]);
  const period = { start: newStart, end: addInterval(newStart, sub.recurringInterval, sub.recurringIntervalCount) };
  return sub.addOns.map((a) => {
    const price = prices.get(a.priceId);
    const name = products.get(a.productId)?.name ?? "Add-on";
    const unit = price?.amount_type === "fixed" ? { unitAmount: String(price.price_amount) } : {};
    const label = a.quantity > 1 && price?.amount_type !== "seat_based" ? `${name} × ${a.quantity}` : price?.amount_type === "seat_based" ? `${name} (${a.quantity} seats)` : name;
    const item: Bill["items"][number] = { label, amount: a.amount, productPriceId: a.priceId, quantity: a.quantity, ...unit, period };
    return { item, inclusive: price ? inclusiveOf(price) : undefined };
  });
}

export async function billPeriod(
  db: Queryable,
  sub: SubscriptionRow,
  ctx: {
    productName: string;
    customer: UsagePeriod["customer"];
    prices: PriceWire[];
    discount: Discount | null;
    ended: { start: Date; end: Date };
    newStart: Date;
    endsTrial: boolean;
    /** The period's usage and the subscription's credits, when the caller read them already (a batch). */
    preloaded?: { usage: MeteredUsage[]; credits: Map<string, number> | undefined } | undefined;
  },
): Promise<Bill> {
  const items: Bill["items"] = [];
  const discountableItems: boolean[] = [];
  const inclusive: Array<boolean | undefined> = [];
  let discountable = 0;
  // a trial's usage is not billed
  const usage = ctx.endsTrial
    ? []
    : (ctx.preloaded?.usage ?? (await meteredUsage(db, sub.organizationId, [{ customer: ctx.customer, prices: ctx.prices, ...ctx.ended, subscriptionId: sub.id }]))[0] ?? []);
  // only the usage beyond the period's meter credits is billed
  const credits = ctx.endsTrial ? undefined : ctx.preloaded ? ctx.preloaded.credits : (await creditsOf(db, sub.organizationId, [sub.id])).get(sub.id);
  const credited = applyCredits(usage, credits);
  // units of the period billed already by its monthly orders (monthly-usage.ts): part of the credits, said apart
  const earlier = !credits || credits.size === 0 ? new Map<string, number>() : await monthlyBilledUnits(db, sub.organizationId, sub.id);
  const charged = new Map(credited.map((u) => [u.price, u]));
  const consumed = new Map<string, number>();
  for (const u of usage) if (u.meter && !consumed.has(u.meter.id.toLowerCase())) consumed.set(u.meter.id.toLowerCase(), u.consumed);
  for (const price of ctx.prices) {
    if (isMetered(price)) {
      if (ctx.endsTrial) continue;
      items.push(usageItem(ctx.productName, price, charged.get(price), sub.currency, ctx.ended, earlier.get(price.meter_id.toLowerCase()) ?? 0));
      discountableItems.push(false);
    } else {
      const amount = priceAmount(price, { amount: sub.amount, seats: sub.seats }) ?? sub.amount;
      if (isDiscountable(price)) discountable += amount;
      const period = { start: ctx.newStart, end: addInterval(ctx.newStart, sub.recurringInterval, sub.recurringIntervalCount) };
      items.push({ label: ctx.productName, amount, productPriceId: price.id, period });
      discountableItems.push(isDiscountable(price));
    }
    inclusive.push(inclusiveOf(price));
  }
  // the add-ons, a line each at its price for its quantity, billed ahead for the new period as the base price
  for (const line of await addOnLines(db, sub, ctx.newStart)) {
    items.push(line.item);
    discountableItems.push(false);
    inclusive.push(line.inclusive);
  }
  const subtotal = items.reduce((sum, i) => sum + i.amount, 0);
  const applies = ctx.discount !== null && discountApplies(ctx.discount, sub, ctx.newStart, ctx.endsTrial);
  const discount = applies && ctx.discount ? discountAmount(ctx.discount, discountable, sub.currency) : 0;
  return { items, discountable: discountableItems, inclusive, subtotal, discount, consumed };
}
