// Metered usage of subscriptions: what each metered price's meter measured for the customer over a period and
// what that costs (unit amount × units, capped), less the meter credits of the period (applyCredits). The renewal bills
// it; `Subscription.meters` shows the current period's. A whole page of subscriptions is measured in one go (see
// meterUsage).
import { meterCreditsOfSubscriptions, subscriptionPools } from "../benefits/service.js";
import { isMetered } from "../products/pricing.js";
import { meterUsage, type UsageQuery } from "../meters/service.js";
import type { MeterWire } from "../meters/wire.js";
import type { Queryable } from "../../db/client.js";
import { meteredCharge as chargeOf, type MeteredPriceTerms } from "../../../shared/tiers.js";
import type { MeteredUnitPriceWire, PriceWire } from "../products/wire.js";
import { toSubscriptionMeterWire, type SubscriptionMeterWire, type SubscriptionRow } from "./wire.js";

/**
 * What `units` of a metered price cost, in minor units: through its tiers or at its unit amount, capped
 * (shared/tiers.ts).
 */
export const meteredCharge = (price: PriceWire, units: number): number => meteredChargeOf(price, units).amount;

/** The charge with its tier lines and whether the cap held it down (the renewal's invoice line says both). */
export const meteredChargeOf = (price: PriceWire, units: number) => chargeOf(price as MeteredPriceTerms, units);

export interface UsagePeriod {
  customer: { id: string; external_id: string | null };
  prices: PriceWire[];
  start: Date;
  end: Date;
  /** The subscription measured: a meter it holds a credit pool of its own on counts only the events naming it. */
  subscriptionId?: string | undefined;
}

export interface MeteredUsage {
  price: MeteredUnitPriceWire;
  /** null: the price names a meter that is not the organization's (measures nothing). */
  meter: MeterWire | null;
  consumed: number;
  amount: number;
}

export interface CreditedUsage extends MeteredUsage {
  /** Units of the meter's credit used by this price. */
  credited: number;
  billed: number;
}

/** The usage of metered prices after the credits (`credits`: units by lower-cased meter id). */
export function applyCredits(usage: MeteredUsage[], credits: Map<string, number> | undefined): CreditedUsage[] {
  const left = new Map(credits ?? []);
  return usage.map((u) => {
    const meterId = u.meter?.id.toLowerCase() ?? null;
    const available = meterId ? (left.get(meterId) ?? 0) : 0;
    const credited = Math.max(0, Math.min(available, u.consumed));
    if (meterId) left.set(meterId, available - credited);
    // a credit_only price bills nothing past the credits: usage beyond them is kept, not invoiced
    const creditOnly = isMetered(u.price) && u.price.overage === "credit_only";
    const billed = creditOnly ? 0 : u.consumed - credited;
    return { ...u, credited, billed, amount: credited === 0 && !creditOnly ? u.amount : meteredCharge(u.price, billed) };
  });
}

const meterIdOf = (price: PriceWire) => (isMetered(price) ? price.meter_id : null);

/** For each period, its metered prices' usage (in price order), measured in one batch. */
export async function meteredUsage(db: Queryable, organizationId: string, periods: UsagePeriod[]): Promise<MeteredUsage[][]> {
  const queries: UsageQuery[] = [];
  const measured = periods.flatMap((p) => (p.subscriptionId && p.prices.some(isMetered) ? [p.subscriptionId] : []));
  const pools = measured.length > 0 ? await subscriptionPools(db, organizationId, measured) : new Map<string, Set<string>>();
  const plans = periods.map((p) =>
    p.prices.flatMap((price) => {
      if (!isMetered(price)) return [];
      const meterId = price.meter_id;
      // an empty period measures nothing
      const index =
        p.end.getTime() > p.start.getTime()
          ? queries.push({
              meterId,
              customer: { id: p.customer.id, externalId: p.customer.external_id },
              start: p.start,
              end: p.end,
              subscriptionId: p.subscriptionId && pools.get(p.subscriptionId)?.has(meterId.toLowerCase()) ? p.subscriptionId : undefined,
            }) - 1
          : -1;
      return [{ price, meterId, index }];
    }),
  );
  const { meters, consumed } = await meterUsage(db, organizationId, queries);
  return plans.map((plan) =>
    plan.map(({ price, meterId, index }) => {
      const units = index < 0 ? 0 : (consumed[index] ?? 0);
      return { price, meter: meters.get(meterId.toLowerCase()) ?? null, consumed: units, amount: meteredCharge(price, units) };
    }),
  );
}

/**
 * `Subscription.meters` of each subscription: one per meter of its metered prices, the current period's usage,
 * and the units its meter_credit grants credited to that meter. A trial's usage is shown but not billed
 * (amount 0), as the renewal does.
 */
export async function subscriptionMeters(
  db: Queryable,
  organizationId: string,
  subs: Array<{ row: SubscriptionRow; customer: UsagePeriod["customer"]; prices: PriceWire[] }>,
): Promise<SubscriptionMeterWire[][]> {
  if (!subs.some((s) => s.prices.some((p) => meterIdOf(p) !== null))) return subs.map(() => []);
  const [usage, credits] = await Promise.all([
    meteredUsage(
      db,
      organizationId,
      subs.map((s) => ({ customer: s.customer, prices: s.prices, start: s.row.currentPeriodStart, end: s.row.currentPeriodEnd, subscriptionId: s.row.id })),
    ),
    meterCreditsOfSubscriptions(db, organizationId, subs.map((s) => s.row.id)),
  ]);
  return subs.map((s, i) => {
    const seen = new Set<string>();
    // the amount is what the renewal would bill: the usage beyond the period's credits
    return applyCredits(usage[i] ?? [], credits.get(s.row.id)).flatMap((u) => {
      if (!u.meter || seen.has(u.meter.id)) return [];
      seen.add(u.meter.id);
      const amount = s.row.status === "trialing" ? 0 : u.amount;
      const credited = credits.get(s.row.id)?.get(u.meter.id.toLowerCase()) ?? 0;
      return [toSubscriptionMeterWire(s.row, { meter: u.meter, consumed: u.consumed, credited, amount })];
    });
  });
}
