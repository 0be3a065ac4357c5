// Monthly credits within a longer billing period (a meter_credit benefit with `schedule: "monthly"` on a yearly
// plan): each month of the period adds the grant's units to its credit, so a year's credits are not all usable on
// day one. Within a period the months' credits add up; the renewal credits the new period's first month (and rolls
// the unused rest over when the benefit says so). Each credit is announced with `benefit_grant.cycled` and
// `customer.state_changed`. A schedule claims the due grants with SKIP LOCKED; a test clock's advance stops at them.
// The schedule itself is the renewal's (renewal/monthly-usage.ts), which bills the month's overage first.
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { runClaimLoop, type ScheduledPass } from "../../tasks/claim.js";
import { grantsWithEmbeds } from "../benefits/service.js";
import { toBenefitGrantWire } from "../benefits/wire.js";
import { grantCreditUnits, meterCreditTerms, nextMonthlyCredit } from "../benefits/meter-credit.js";
import { orgNow } from "../clock.js";
import { claimDueMonthlyCredits, monthlyCreditDueBy, setGrantCredit } from "./meter-credits-repository.js";
import { ACTIVE_STATUSES } from "./wire.js";

export type DueCredit = Awaited<ReturnType<typeof claimDueMonthlyCredits>>[number];

/**
 * What happens to a month that ended before the next is credited (the renewal's monthly overage order,
 * renewal/monthly-usage.ts): the units it billed, which count as the period's credit from then on.
 */
export type MonthEnded = (tx: Parameters<typeof setGrantCredit>[0], g: DueCredit, due: Date, now: Date) => Promise<number>;

/** Credits one due month, or (its subscription no longer live, or the period ending first) clears the due date. */
async function creditMonth(tx: Parameters<typeof setGrantCredit>[0], g: DueCredit, now: Date, monthEnded?: MonthEnded): Promise<void> {
  const due = new Date(String(g.properties.next_credit_at));
  const terms = meterCreditTerms(g.benefit);
  const live = (ACTIVE_STATUSES as readonly string[]).includes(g.status);
  if (!terms || terms.schedule !== "monthly" || !live || due.getTime() >= g.periodEnd.getTime()) {
    // the renewal credits the new period and sets the next month's date
    await setGrantCredit(tx, g.organizationId, g.id, { next_credit_at: null });
    return;
  }
  const billed = monthEnded ? await monthEnded(tx, g, due, now) : 0;
  const last = typeof g.properties.last_credited_units === "number" ? Math.trunc(g.properties.last_credited_units) : 0;
  const before = typeof g.properties.monthly_billed_units === "number" ? Math.trunc(g.properties.monthly_billed_units) : 0;
  const units = grantCreditUnits(terms, g.properties);
  await setGrantCredit(tx, g.organizationId, g.id, {
    last_credited_meter_id: terms.meterId,
    last_credited_units: last + billed + units,
    ...(billed > 0 ? { monthly_billed_units: before + billed } : {}),
    last_credited_at: now.toISOString(),
    next_credit_at: nextMonthlyCredit(g.periodStart, due, g.periodEnd)?.toISOString() ?? null,
  });
  const events: OutboxEvent[] = (await grantsWithEmbeds(tx, g.organizationId, [g.id])).map((r) => ({
    type: "benefit_grant.cycled",
    organizationId: g.organizationId,
    data: toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member),
  }));
  events.push(customerStateChanged(g.organizationId, g.customerId));
  await enqueue(tx, events);
}

/**
 * Credits every monthly credit due (one month per grant each round; a grant months behind is credited each), after
 * `monthEnded` billed the month that ended, when given.
 */
export async function runMonthlyCredits(run: ScheduledPass, monthEnded?: MonthEnded): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 100,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => claimDueMonthlyCredits(tx, wall, batch, failed, run.organizationId),
    idOf: (g) => g.id,
    handle: (sp, g, now) => creditMonth(sp, g, now, monthEnded),
    failed: (g, err) => run.log?.error(err, `meter credits: the monthly credit of grant ${g.id} failed`),
  });
}

/** The organization's earliest monthly credit due by `until` (the test clock stops at it). */
export const monthlyCreditDue = monthlyCreditDueBy;
