// The test clock of a sandbox organization (Stripe's test clocks): `GET /v1/test-clock` tells the organization's
// now, `POST /v1/test-clock/advance` moves it forward and runs the time-driven work that comes due on the way, in
// time order, before answering: the clock stops at each subscription period end on the way (the earliest
// first), the renewals due then run (an order with its webhooks and emails, a trial ending, a cancellation at
// period end taking effect), and so at each failed charge's retry (billing/dunning) and each checkout's expiry
// (announced with checkout.expired, billing/checkouts/expiry.ts) and each monthly meter credit of a longer period
// (billing/subscriptions/monthly-credits.ts), until the target. Other expiries (license keys,
// event timestamps) follow the clock by reading it (clock.ts). Time never goes back: a clock is only advanced.
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { runRenewals } from "../renewal/run.js";
import { runTrialReminders } from "../renewal/trial-reminders.js";
import { runDunning } from "../dunning/service.js";
import { runInvoiceReminders } from "../dunning/invoices.js";
import { runTransferCancels } from "../dunning/transfer-cancel.js";
import { runCheckoutExpiries } from "../checkouts/expiry.js";
import { monthlyCreditDue } from "../subscriptions/monthly-credits.js";
import { runMonthlyCreditsAndOverage } from "../renewal/monthly-usage.js";
import type { WorkerLog } from "../../tasks/job.js";
import { addInterval } from "../subscriptions/period.js";
import { DURATION_EXAMPLES, parseClockDuration } from "../../../shared/clock-durations.js";
import { datetimeInput } from "../http.js";
import { invalid, notPermitted } from "../errors.js";
import { advanceIncomplete } from "./errors.js";
import { liveOrganizationOf } from "../organizations/sandbox.js";
import type { RenewalDeps } from "../renewal/renewal.js";
import { findClock, type ClockRow } from "../clock.js";
import * as repo from "./repository.js";

/** Periods one subscription may cross in one advance (Stripe allows two intervals; a test wants a few more). */
export const MAX_PERIODS_PER_SUBSCRIPTION = 24;
/** Renewals one advance may make in all (it answers when they are done). */
export const MAX_RENEWALS_PER_ADVANCE = 500;
/** Checkout expiry times one advance stops at (each stop announces every checkout expired by then). */
export const MAX_EXPIRY_STOPS_PER_ADVANCE = 1_000;
/** The furthest one advance may go. */
const MAX_ADVANCE_MS = 10 * 366 * 86_400_000;
/** More calendar months than any advance within MAX_ADVANCE_MS (and than a Date can count without overflowing). */
const MAX_ADVANCE_MONTHS = 10 * 12 + 1;

export const AdvanceInput = z
  .object({
    /** How far: a duration such as `31d`, `1w`, `12h`, `1mo`, `1y`, `1d12h` (shared/clock-durations.ts). */
    by: z.string().max(40).optional(),
    /** Or to when: a date-time after the clock's now. */
    to: datetimeInput.optional(),
  })
  .strict();
export type AdvanceInput = z.infer<typeof AdvanceInput>;

export interface TestClockWire {
  object: "test_clock";
  organization_id: string;
  /** The organization's now. */
  now: string;
  /** How far ahead of the wall clock it is, in milliseconds. */
  offset_ms: number;
  advanced_at: string | null;
  max_periods_per_advance: number;
}

export interface AdvanceWire extends TestClockWire {
  /** The clock's now before the advance. */
  from: string;
  /** Renewals made on the way (orders, trials ended, cancellations at period end taking effect). */
  renewals: number;
  /** Failed renewal charges retried on the way (billing/dunning), whatever their outcome. */
  retries: number;
  /** Checkouts that expired on the way, each announced with checkout.expired. */
  expired_checkouts: number;
}

/** Refuses a live organization: the test clock exists only in the sandbox. */
async function assertSandbox(db: Db, organizationId: string): Promise<void> {
  if (await liveOrganizationOf(db, organizationId)) return;
  throw notPermitted("The test clock exists only in the sandbox: use a till_test_ key, or the header Till-Sandbox: true with a session.");
}

function wireOf(organizationId: string, clock: ClockRow | undefined, wall: Date): TestClockWire {
  const offset = clock?.offsetMs ?? 0;
  return {
    object: "test_clock",
    organization_id: organizationId,
    now: new Date(wall.getTime() + offset).toISOString(),
    offset_ms: offset,
    advanced_at: clock?.modifiedAt?.toISOString() ?? null,
    max_periods_per_advance: MAX_PERIODS_PER_SUBSCRIPTION,
  };
}

export async function getTestClock(db: Db, organizationId: string): Promise<TestClockWire> {
  await assertSandbox(db, organizationId);
  return wireOf(organizationId, await findClock(db, organizationId), new Date());
}

/** The target of an advance from `from`, or a 422. */
function targetOf(input: AdvanceInput, from: number): number {
  if ((input.by === undefined) === (input.to === undefined)) {
    throw invalid(["body", "by"], "Give exactly one of by (a duration such as 31d) or to (a date-time).", "missing");
  }
  let target: number;
  if (input.by !== undefined) {
    const by = parseClockDuration(input.by);
    if (by === null || by.months + by.ms <= 0) throw invalid(["body", "by"], `A duration such as ${DURATION_EXAMPLES} is expected.`);
    // calendar months first, as a subscription's periods are counted; a count too large to be a date is too far
    target = by.months > MAX_ADVANCE_MONTHS ? Number.POSITIVE_INFINITY : addInterval(new Date(from), "month", by.months).getTime() + by.ms;
  } else {
    target = Date.parse(input.to ?? "");
    if (target <= from) throw invalid(["body", "to"], `The clock can only move forward: give a time after its now, ${new Date(from).toISOString()}.`);
  }
  if (target - from > MAX_ADVANCE_MS) throw invalid(["body", input.by !== undefined ? "by" : "to"], "One advance may cover at most 10 years.");
  return target;
}

/** Refuses (422) an advance that would cross too many periods, before anything moves. */
async function assertBounded(db: Db, organizationId: string, target: Date, field: string): Promise<void> {
  let total = 0;
  for (const s of await repo.dueBy(db, organizationId, target)) {
    let periods = 0;
    for (let end = s.currentPeriodEnd; end.getTime() <= target.getTime(); end = addInterval(end, s.recurringInterval, s.recurringIntervalCount)) {
      periods += 1;
      if (s.cancelAtPeriodEnd) break;
      if (periods > MAX_PERIODS_PER_SUBSCRIPTION) {
        throw invalid(
          ["body", field],
          `This advance crosses more than ${MAX_PERIODS_PER_SUBSCRIPTION} billing periods of subscription ${s.id}; advance in smaller steps.`,
        );
      }
    }
    total += periods;
    if (total > MAX_RENEWALS_PER_ADVANCE) {
      throw invalid(["body", field], `This advance would make more than ${MAX_RENEWALS_PER_ADVANCE} renewals; advance in smaller steps.`);
    }
  }
}

/**
 * Advances the sandbox organization's clock to the target, stopping at each period end on the way to run the
 * renewals due then (in time order; each at its own time, so a 3-month advance makes three renewals of a monthly
 * subscription, each with its order and webhooks). Answers once the clock is at the target.
 */
export async function advanceTestClock(
  db: Db,
  deps: RenewalDeps & { log?: WorkerLog },
  organizationId: string,
  input: AdvanceInput,
): Promise<AdvanceWire> {
  await assertSandbox(db, organizationId);
  const started = new Date();
  const before = await findClock(db, organizationId);
  const from = started.getTime() + (before?.offsetMs ?? 0);
  const target = targetOf(input, from);
  await assertBounded(db, organizationId, new Date(target), input.by !== undefined ? "by" : "to");

  let renewals = 0;
  let retries = 0;
  let expired = 0;
  // each step renews at least one subscription period, retries at least one failed charge or expires at least one
  // checkout, or ends the loop; the bound checked above caps the renewals, the organization's retry intervals the
  // retries, MAX_EXPIRY_STOPS_PER_ADVANCE the expiry stops (past it, the rest expire at the later stops)
  let expiryStops = 0;
  for (let step = 0; step <= 2 * MAX_RENEWALS_PER_ADVANCE + MAX_EXPIRY_STOPS_PER_ADVANCE + 1; step++) {
    const [next] = await repo.dueBy(db, organizationId, new Date(target));
    const retryAt = await repo.retryDueBy(db, organizationId, new Date(target));
    const expiryAt = expiryStops < MAX_EXPIRY_STOPS_PER_ADVANCE ? await repo.checkoutExpiryBy(db, organizationId, new Date(target)) : undefined;
    const creditAt = await monthlyCreditDue(db, organizationId, new Date(target));
    const stops = [next?.currentPeriodEnd.getTime(), retryAt?.getTime(), expiryAt?.getTime(), creditAt?.getTime()].filter((t): t is number => t !== undefined);
    const wall = new Date();
    // stop the clock at the next period end, failed charge's retry or checkout expiry (or the target); it never goes
    // back
    const at = stops.length > 0 ? Math.max(Math.min(...stops), from) : target;
    await repo.moveClockTo(db, organizationId, Math.max(0, at - wall.getTime()), wall);
    if (expiryAt && expiryAt.getTime() <= at) expiryStops += 1;
    // checkouts first: what expires at this stop expired before (or as) a renewal due at it was made
    const ended = await runCheckoutExpiries({ ...deps, db, organizationId });
    expired += ended;
    // trials ending within their reminder window are reminded before a renewal at this stop ends them
    await runTrialReminders({ ...deps, db, organizationId });
    // invoices with terms due a reminder, or overdue (then in dunning's hands), at this stop
    await runInvoiceReminders({ ...deps, db, organizationId });
    if (stops.length === 0) break;
    // a month's credit within a longer period comes before a renewal at the same stop (which credits the next)
    const credited = await runMonthlyCreditsAndOverage({ ...deps, db, organizationId });
    const made = await runRenewals({ ...deps, db, organizationId });
    const retried = await runDunning({ ...deps, db, organizationId });
    renewals += made;
    retries += retried;
    if (made + retried + ended + credited === 0) {
      // a renewal, retry or expiry failed (logged); the schedule retries it. The clock still goes to the target.
      const now = new Date();
      await repo.moveClockTo(db, organizationId, Math.max(0, target - now.getTime()), now);
      const what = next && (!retryAt || next.currentPeriodEnd <= retryAt) && (!expiryAt || next.currentPeriodEnd <= expiryAt)
        ? `Subscription ${next.id} could not be renewed at ${next.currentPeriodEnd.toISOString()}`
        : retryAt && (!expiryAt || retryAt <= expiryAt)
          ? `A failed charge due for a retry at ${retryAt.toISOString()} could not be retried`
          : `A checkout expiring at ${expiryAt?.toISOString()} could not be expired`;
      throw advanceIncomplete(what);
    }
  }
  // bank transfers of orders paid another way that the outbox could not cancel: asked again, as the schedule does
  await runTransferCancels({ ...deps, db, organizationId });
  const wall = new Date();
  return { ...wireOf(organizationId, await findClock(db, organizationId), wall), from: new Date(from).toISOString(), renewals, retries, expired_checkouts: expired };
}
