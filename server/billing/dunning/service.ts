// Dunning: a renewal (or a plan change billed now, proration `invoice`) whose charge failed leaves
// its order pending and the subscription past_due; the order is charged again on the organization's schedule (by
// default 3, 5 and 7 days after each failure), driven by stored due times (order_dunning.next_attempt_at) that
// the jobs worker's schedule claims, so a clock handed to runDunning decides what is due. A success pays the order
// and makes the subscription active again; after the last failure the subscription ends as the organization
// chose — canceled, or unpaid (still payable from the portal) — its benefits revoked either way. The customer may
// also retry from the portal (confirmRetryPayment), with a new card or a saved one. Every change writes its
// events to the outbox in the same transaction.
//
// Here: the start, the schedule and the portal's side; one attempt (lock, charge, settle or give up) is
// collect.ts, the bank's late answer to a charge late.ts.
import { z } from "zod";
import { boundLockWaits, isLockNotAvailable, type Db, type Queryable } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { runClaimLoop, type ScheduledPass } from "../../tasks/claim.js";
import type { OutboxEvent } from "../../db/outbox.js";
import { notFound } from "../errors.js";
import { manualRetryLimitExceeded, notEligibleForRetry, paymentInProgress } from "./errors.js";
import { findOrder } from "../orders/service.js";
import * as paymentMethods from "../payments/methods.js";
import * as payments from "../payments/service.js";
import type { SubscriptionWire } from "../subscriptions/wire.js";
import { orgNow } from "../clock.js";
import { attemptLocked, later, processorRetryAt, settingsOf, type AttemptOutcome, type DunningDeps } from "./collect.js";
import * as repo from "./repository.js";
import type { DunningSettings } from "../settings/dunning.js";
import { UUID_RE } from "../../../shared/uuid.js";

/** Portal retries per order (Polar's ManualRetryLimitExceeded). */
export const MANUAL_RETRY_LIMIT = 5;

/**
 * The renewal's charge of `orderId` failed (in the renewal's transaction, the subscription just written
 * past_due): records its dunning state with the first retry's due time, and `subscription.past_due`. With no
 * retries configured the next pass of the schedule ends the subscription without charging again.
 */
export async function startDunning(tx: Queryable, organizationId: string, sub: SubscriptionWire, orderId: string, now: Date): Promise<OutboxEvent[]> {
  const start = dunningStart(await settingsOf(tx, organizationId), organizationId, sub, orderId, now);
  await repo.insertDunning(tx, start.row);
  return start.events;
}

/** The organization's dunning settings (stored, else the defaults). */
export const organizationDunningSettings = settingsOf;

/** startDunning's row and events under `settings`, for a caller that writes the row itself (a billing run's batch). */
export function dunningStart(settings: DunningSettings, organizationId: string, sub: SubscriptionWire, orderId: string, now: Date) {
  const first = settings.retry_intervals_days[0];
  const row = { orderId, organizationId, subscriptionId: sub.id, attempts: 1, nextAttemptAt: first === undefined ? now : later(now, first), createdAt: now };
  const events: OutboxEvent[] = [{ type: "subscription.past_due", organizationId, data: sub }];
  return { row, events };
}

/**
 * The renewal's charge of `orderId` could not be processed by the processor (not a decline: the seller's or till's
 * error, an outage): the subscription stays active, nothing is sent to the customer, and the order is charged again
 * with backoff (collect.ts: processorRetryAt) until it goes through — or is declined, when dunning starts.
 */
export const heldStart = (organizationId: string, subscriptionId: string, orderId: string, now: Date) => ({
  orderId,
  organizationId,
  subscriptionId,
  attempts: 0,
  processorErrors: 1,
  nextAttemptAt: processorRetryAt(now, 1),
  createdAt: now,
});

// ---- the schedule ----------------------------------------------------------------------------------

export interface DunningRun extends DunningDeps, ScheduledPass {}

/**
 * Charges again every failed renewal order whose next attempt is due at `now`, each in a savepoint of the
 * claiming transaction (one that throws is rolled back alone and left for a later pass). Returns the number
 * of rows handled.
 */
export async function runDunning(run: DunningRun): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 50,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => repo.claimDue(tx, wall, batch, failed, run.organizationId),
    idOf: (d) => d.orderId,
    handle: async (sp, d, now) => {
      await attemptLocked(sp, run, d, now, "retry");
    },
    failed: (d, err) => run.log?.error(err, `dunning: order ${d.orderId} could not be charged again`),
  });
}

// ---- the customer's side (the portal) ---------------------------------------------------------------

export const ConfirmRetryInput = z.object({
  confirmation_token_id: z.string().min(1).max(1024).nullish(),
  payment_method_id: z
    .string()
    .regex(UUID_RE, "Input should be a valid UUID")
    .nullish(),
  payment_processor: z.literal("stripe").optional(),
});
export type ConfirmRetryInput = z.output<typeof ConfirmRetryInput>;


async function customerOrder(db: Queryable, organizationId: string, customerId: string, orderId: string) {
  const row = await findOrder(db, organizationId, orderId);
  if (!row || row.customerId !== customerId) throw notFound("Order not found");
  return row;
}

/**
 * CustomerOrderPaymentStatus: the order's payment as the portal shows it, with till's `decline_reason` of a
 * failed one (the SDKs ignore it; the portal page asks for authentication on `authentication_required`).
 */
export async function paymentStatus(db: Db, organizationId: string, customerId: string, orderId: string) {
  const row = await customerOrder(db, organizationId, customerId, orderId);
  if (row.status !== "pending") return { status: "succeeded", error: null, decline_reason: null };
  const last = await payments.lastPaymentOfOrder(db, organizationId, orderId);
  if (!last) return { status: "pending", error: null, decline_reason: null };
  const failed = last.status === "failed";
  return { status: last.status, error: failed ? last.declineMessage : null, decline_reason: failed ? last.declineReason : null };
}

/**
 * The customer pays a past-due (or unpaid) renewal order now: with a new card (its token, saved and made the
 * default) or a saved method (its id), else the default. 409 while another attempt holds the order longer than
 * REQUEST_LOCK_WAIT, 422 when the order is not a failed renewal still owed, 429 after MANUAL_RETRY_LIMIT attempts.
 */
export async function confirmRetry(
  deps: DunningDeps & { db: Db },
  organizationId: string,
  customerId: string,
  orderId: string,
  input: ConfirmRetryInput,
) {
  const row = await customerOrder(deps.db, organizationId, customerId, orderId);
  // an invoice with terms is paid on its page within its terms too: its row is made at the first attempt
  if (row.dueAt && row.subscriptionId && row.status === "pending") {
    await repo.openInvoiceDunning(deps.db, { organizationId, orderId, subscriptionId: row.subscriptionId }, new Date());
  }
  const d = await repo.findDunning(deps.db, organizationId, orderId);
  if (!d || row.status !== "pending") throw notEligibleForRetry();
  if (d.manualAttempts >= MANUAL_RETRY_LIMIT) {
    throw manualRetryLimitExceeded(MANUAL_RETRY_LIMIT);
  }
  let method: payments.PaymentMethodRow | undefined;
  if (input.confirmation_token_id) {
    const added = await paymentMethods.addMethod(deps, organizationId, customerId, input.confirmation_token_id, true);
    // the card asks for 3-D Secure before it is saved: the page acts, then retries with the saved method
    if (added.status === "requires_action") return { status: "requires_action", client_secret: added.client_secret, error: null };
    method = await payments.findPaymentMethod(deps.db, organizationId, customerId, added.payment_method.id);
  } else if (input.payment_method_id) {
    method = await payments.findPaymentMethod(deps.db, organizationId, customerId, input.payment_method_id.toLowerCase());
    if (!method) throw notFound("Payment method not found");
  }
  let outcome: AttemptOutcome;
  try {
    // the charge is made under the order's lock: in one of the pool's turns (db/call-turns.ts)
    outcome = await withCallTurn(deps.db, () => deps.db.transaction(async (tx) => {
      // one request of the customer's at a time per order: another already waiting (or paying) answers 409 at
      // once, so that retries sent together cannot hold the database's connections
      if (!(await repo.tryCustomerTurn(tx, orderId))) throw paymentInProgress();
      // another attempt at the order holds it (a Stripe event's settlement, the schedule's retry charging the
      // card): its end is waited for REQUEST_LOCK_WAIT at most, then 409
      await boundLockWaits(tx);
      const locked = await repo.lockDunning(tx, organizationId, orderId);
      if (!locked) throw notEligibleForRetry();
      if (locked.manualAttempts >= MANUAL_RETRY_LIMIT) {
        throw manualRetryLimitExceeded(MANUAL_RETRY_LIMIT);
      }
      // stamped at the organization's now (a sandbox's test clock)
      return attemptLocked(tx, deps, locked, await orgNow(tx, organizationId), "manual", method);
    }));
  } catch (err) {
    if (isLockNotAvailable(err)) throw paymentInProgress();
    throw err;
  }
  if (outcome.kind === "paid") return { status: "succeeded", client_secret: null, error: null };
  if (outcome.kind === "failed") return { status: "failed", client_secret: null, error: outcome.payment.declineMessage };
  if (outcome.kind === "action") return { status: "requires_action", client_secret: outcome.clientSecret, error: null };
  // the debit is on its way: the order is paid (or not) when the bank answers
  if (outcome.kind === "processing") return { status: "pending", client_secret: null, error: null };
  if (outcome.kind === "in_progress") throw paymentInProgress();
  throw notEligibleForRetry();
}


// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** Holds a renewal order the processor could not process for its retries (heldStart's row). */
export const insertDunning: typeof repo.insertDunning = (...args) => repo.insertDunning(...args);
/** Starts dunning for declined renewal orders (the renewal's writes). */
export const insertDunnings: typeof repo.insertDunnings = (...args) => repo.insertDunnings(...args);
