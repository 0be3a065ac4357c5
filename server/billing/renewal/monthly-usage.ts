// Monthly credits on a longer plan bill their overage monthly: when a grant with `schedule: "monthly"` reaches the
// next month of a yearly (or any longer) period, the usage of its meter beyond the credits so far, less what earlier
// months billed, is billed now by an order (billing_reason `subscription_cycle`, charged to the customer's default
// payment method as a renewal is; a decline makes the subscription past_due and starts dunning), before the next
// month is credited. The units billed join the period's credit (the customer paid for them), so the next month
// starts from its own credits and the renewal bills only what is left (its line says the units billed monthly apart).
// A `credit_only` price bills nothing past the credits, so it has no monthly order; a trial's usage is not billed.
import type { Queryable } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { meterCreditTerms } from "../benefits/meter-credit.js";
import { startDunning } from "../dunning/service.js";
import { isMetered } from "../products/pricing.js";
import { creditsOf } from "../subscriptions/meter-credits.js";
import { runMonthlyCredits, type DueCredit } from "../subscriptions/monthly-credits.js";
import { lockSubscription } from "../subscriptions/service.js";
import { applyCredits, meteredUsage } from "../subscriptions/usage.js";
import { usageItem } from "./bill.js";
import { billNow, type BillNowKind } from "./proration.js";
import { embeds, wireOf, type RenewalDeps } from "./renewal.js";
import type { RenewalRun } from "./run.js";

const MONTHLY_USAGE: BillNowKind = { billingReason: "subscription_cycle", description: "usage this month", attempt: "renewal", proration: false };

/**
 * Bills the overage of the grant's meter over the subscription's period up to `upTo` (the month that ended) beyond
 * the credits so far; returns the units billed (0: nothing to bill).
 */
export async function billMonthOverage(tx: Queryable, deps: RenewalDeps, g: DueCredit, upTo: Date, now: Date): Promise<number> {
  const terms = meterCreditTerms(g.benefit);
  if (!terms) return 0;
  // under the subscription's lock, as a renewal or a change: the two never bill the same usage
  const sub = await lockSubscription(tx, g.organizationId, g.subscriptionId);
  if (!sub || sub.status !== "active" || upTo.getTime() <= sub.currentPeriodStart.getTime()) return 0;
  const e = await embeds(tx, sub, deps.baseURL);
  const prices = e.prices.filter((p) => isMetered(p) && p.meter_id.toLowerCase() === terms.meterId && p.overage !== "credit_only");
  if (prices.length === 0) return 0;
  const customer = { id: e.customer.id, external_id: e.customer.external_id };
  const [usage] = await meteredUsage(tx, sub.organizationId, [{ customer, prices, start: sub.currentPeriodStart, end: upTo, subscriptionId: sub.id }]);
  const owed = applyCredits(usage ?? [], (await creditsOf(tx, sub.organizationId, [sub.id])).get(sub.id)).filter((u) => u.billed > 0);
  const units = owed.reduce((sum, u) => sum + u.billed, 0);
  if (units <= 0 || owed.every((u) => u.amount <= 0)) return 0;
  const earlier = typeof g.properties.monthly_billed_units === "number" ? Math.trunc(g.properties.monthly_billed_units) : 0;
  const items = owed.map((u) => usageItem(e.product.name, u.price, u, sub.currency, { start: sub.currentPeriodStart, end: upTo }, earlier));
  const outcome = await billNow(tx, sub, items, now, deps.processor, MONTHLY_USAGE);
  if (outcome.declinedOrderId) {
    const wire = await wireOf(tx, outcome.row, e);
    const dunning = await startDunning(tx, sub.organizationId, wire, outcome.declinedOrderId, now);
    await enqueue(tx, [{ type: "subscription.updated", organizationId: sub.organizationId, data: wire }, ...dunning]);
  }
  return units;
}

/** The monthly credits due, each month's overage billed first (the renewal's schedule: jobs.ts). */
export function runMonthlyCreditsAndOverage(run: RenewalRun): Promise<number> {
  return runMonthlyCredits(run, (tx, g, due, now) => billMonthOverage(tx, run, g, due, now));
}
