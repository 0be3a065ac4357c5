// Meter credits: a subscription's meter_credit grants credit their benefit's units on their meter
// each period. The renewal bills only the usage beyond the credits (billed units = consumed − credited, never
// below 0; the credit of a meter is used by its metered prices in price order), and then credits the new
// period: the benefit's units, plus — when the benefit has `rollover` — the units left unused in the period
// that ended. `Subscription.meters` and the customer state show consumed, credited and the billed amount; a
// renewal order's metered line names consumed, credited and billed units when a credit applied.
import type { Queryable } from "../../db/client.js";
import { meterCreditsOfSubscriptions } from "../benefits/service.js";
import { grantCreditUnits, meterCreditTerms, nextMonthlyCredit } from "../benefits/meter-credit.js";
import { findCustomer } from "../customers/service.js";
import { meterUsage, type UsageQuery } from "../meters/service.js";
import { loadPrices } from "../products/service.js";
import { meterCreditGrants, setGrantCredit } from "./meter-credits-repository.js";
import { meteredUsage } from "./usage.js";
import type { SubscriptionRow } from "./wire.js";

/** Units credited to each meter for each subscription's current period. */
export const creditsOf = (db: Queryable, organizationId: string, subscriptionIds: string[]) => meterCreditsOfSubscriptions(db, organizationId, subscriptionIds);

/**
 * Credits the new period of a renewed subscription (before its grants are cycled, so `benefit_grant.cycled`
 * carries the new credit): the grant's units (none for a `once` schedule: its credit was given at purchase), plus
 * the unused rest of the last credit when the benefit rolls over; a monthly schedule's next credit is a month into
 * the new period. `consumed`: units the ended period consumed, by lower-cased meter id.
 */
export async function cycleMeterCredits(
  tx: Queryable,
  organizationId: string,
  subscriptionId: string,
  consumed: Map<string, number>,
  now: Date,
  /** The subscription's meter_credit grants, when the caller read them already (the renewal schedule's batch). */
  grants?: Awaited<ReturnType<typeof meterCreditGrants>>,
  /** The new period (a monthly schedule counts its months from its start). */
  period?: { start: Date; end: Date },
  /** The period that ended, to measure the meters credited but not billed (no metered price): none in a trial. */
  ended?: { customer: { id: string; externalId: string | null }; start: Date; end: Date } | null,
): Promise<void> {
  const list = grants ?? (await meterCreditGrants(tx, organizationId, subscriptionId));
  const used = ended ? await withUnbilledMeters(tx, organizationId, subscriptionId, list, consumed, ended) : consumed;
  for (const g of list) {
    const terms = meterCreditTerms(g.benefit);
    if (!terms) continue;
    const last = typeof g.properties.last_credited_units === "number" ? Math.trunc(g.properties.last_credited_units) : 0;
    const unused = Math.max(0, last - (used.get(terms.meterId) ?? 0));
    const rolled = terms.rollover ? unused : 0;
    const units = terms.schedule === "once" ? 0 : grantCreditUnits(terms, g.properties);
    await setGrantCredit(tx, organizationId, g.id, {
      last_credited_meter_id: terms.meterId,
      last_credited_units: units + rolled,
      last_rolled_over_units: rolled,
      // the new period has had no monthly overage order yet (renewal/monthly-usage.ts)
      ...(g.properties.monthly_billed_units !== undefined ? { monthly_billed_units: 0 } : {}),
      last_credited_at: now.toISOString(),
      ...(terms.pool === "subscription" ? { credit_pool: "subscription" } : {}),
      ...(terms.schedule === "monthly" ? { next_credit_at: period ? (nextMonthlyCredit(period.start, period.start, period.end)?.toISOString() ?? null) : null } : {}),
    });
  }
}

/**
 * Units of each meter (lower-cased id) the current period's monthly overage orders billed (renewal/monthly-usage.ts):
 * they were added to the grant's credit when billed, so the renewal bills only the rest; its line says them apart.
 */
export async function monthlyBilledUnits(db: Queryable, organizationId: string, subscriptionId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const g of await meterCreditGrants(db, organizationId, subscriptionId)) {
    const units = g.properties.monthly_billed_units;
    const meterId = g.properties.last_credited_meter_id;
    if (typeof units !== "number" || units <= 0 || typeof meterId !== "string") continue;
    out.set(meterId.toLowerCase(), (out.get(meterId.toLowerCase()) ?? 0) + Math.trunc(units));
  }
  return out;
}

/**
 * `consumed` completed with the meters the grants credit and no metered price measured (a plan of credits alone):
 * their usage over the ended period, the subscription's own events on a meter it pools credits on.
 */
async function withUnbilledMeters(
  tx: Queryable,
  organizationId: string,
  subscriptionId: string,
  grants: Array<{ benefit: Record<string, unknown> }>,
  consumed: Map<string, number>,
  ended: { customer: { id: string; externalId: string | null }; start: Date; end: Date },
): Promise<Map<string, number>> {
  const queries: UsageQuery[] = [];
  for (const g of grants) {
    const t = meterCreditTerms(g.benefit);
    if (!t || consumed.has(t.meterId) || queries.some((q) => q.meterId === t.meterId)) continue;
    queries.push({ meterId: t.meterId, customer: ended.customer, start: ended.start, end: ended.end, subscriptionId: t.pool === "subscription" ? subscriptionId : undefined });
  }
  if (queries.length === 0 || ended.end.getTime() <= ended.start.getTime()) return consumed;
  const { consumed: totals } = await meterUsage(tx, organizationId, queries);
  const out = new Map(consumed);
  queries.forEach((q, i) => out.set(q.meterId, totals[i] ?? 0));
  return out;
}

/**
 * Credits the new period of a subscription whose renewal was paid late (a past-due order paid by a dunning
 * retry or from the portal): the declined renewal credited nothing, so this does what it would have done, with
 * the usage of the period it renewed, [renewedPeriodStart, the subscription's current period start). A trial's
 * usage counts as none (its credit rolls over whole), as at renewal.
 */
export async function cycleMeterCreditsOfLateRenewal(tx: Queryable, sub: SubscriptionRow, renewedPeriodStart: Date, now: Date): Promise<void> {
  const org = sub.organizationId;
  if ((await meterCreditGrants(tx, org, sub.id)).length === 0) return;
  const end = sub.currentPeriodStart;
  const wasTrial = sub.trialEnd !== null && sub.trialEnd.getTime() === end.getTime();
  const consumed = new Map<string, number>();
  const customer = wasTrial ? undefined : await findCustomer(tx, org, sub.customerId);
  if (customer) {
    const prices = await loadPrices(tx, org, sub.priceIds);
    const [usage] = await meteredUsage(tx, org, [
      { customer: { id: customer.id, external_id: customer.externalId }, prices: sub.priceIds.flatMap((id) => prices.get(id) ?? []), start: renewedPeriodStart, end, subscriptionId: sub.id },
    ]);
    for (const u of usage ?? []) if (u.meter && !consumed.has(u.meter.id.toLowerCase())) consumed.set(u.meter.id.toLowerCase(), u.consumed);
  }
  const ended = customer ? { customer: { id: customer.id, externalId: customer.externalId }, start: renewedPeriodStart, end } : null;
  await cycleMeterCredits(tx, org, sub.id, consumed, now, undefined, { start: sub.currentPeriodStart, end: sub.currentPeriodEnd }, ended);
}
