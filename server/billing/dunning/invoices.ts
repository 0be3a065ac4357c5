// The invoices with terms' schedule: an unpaid invoice is reminded once INVOICE_REMINDER_DAYS before its due date
// (the `invoice_reminder` email with its pay link); past the due date it is overdue, once: the subscription goes
// past due and the organization's dunning rules take over (their retries, emails and final action), as for a
// declined renewal — its first retry after the rules' first interval. Still owed OVERDUE_REMINDER_DAYS after its due
// date, it is reminded once more (the reminder, saying it is overdue, with its pay link). Each organization at its own
// now (a test clock's too). Run in every pass of the schedules, before dunning's retries.
import { randomUUID } from "node:crypto";
import { and, asc, isNotNull, isNull, notInArray, or, sql, eq } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import { order } from "../../db/schema/index.js";
import { runClaimLoop, type ScheduledPass } from "../../tasks/claim.js";
import { seatHoldersChanged } from "../benefits/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { getOrder } from "../orders/service.js";
import type { OrderRow } from "../orders/wire.js";
import { lockSubscription, patchSubscriptionTerms } from "../subscriptions/service.js";
import { orgNow, orgNowSql } from "../clock.js";
import { later, requestPastDueEmail, settingsOf, subscriptionWireOf, type DunningDeps } from "./collect.js";
import * as repo from "./repository.js";

type DunningRun = DunningDeps & ScheduledPass;

/** Days before its due date an unpaid invoice is reminded. */
export const INVOICE_REMINDER_DAYS = 3;
/** Days after its due date an invoice still owed is reminded once more. */
export const OVERDUE_REMINDER_DAYS = 7;

async function claimDueInvoices(db: Queryable, wall: Date, limit: number, skipIds: string[], organizationId?: string): Promise<OrderRow[]> {
  const now = orgNowSql(order.organizationId, wall);
  return db
    .select()
    .from(order)
    .where(
      and(
        eq(order.status, "pending"),
        isNotNull(order.dueAt),
        or(
          and(isNull(order.remindedAt), sql`${order.dueAt} <= ${now} + ${INVOICE_REMINDER_DAYS} * interval '1 day'`),
          and(isNull(order.overdueAt), sql`${order.dueAt} <= ${now}`),
          and(isNotNull(order.overdueAt), isNull(order.overdueRemindedAt), sql`${order.dueAt} <= ${now} - ${OVERDUE_REMINDER_DAYS} * interval '1 day'`),
        ),
        organizationId ? eq(order.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(order.id, skipIds) : undefined,
      ),
    )
    .orderBy(asc(order.dueAt), asc(order.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

const mark = (tx: Queryable, o: OrderRow, patch: Partial<Pick<OrderRow, "remindedAt" | "overdueAt" | "overdueRemindedAt">>) =>
  tx.update(order).set(patch).where(and(eq(order.organizationId, o.organizationId), eq(order.id, o.id)));

/** The reminder before the due date: once, with the pay link (customer-emails adds it). */
async function remind(tx: Queryable, o: OrderRow, now: Date): Promise<void> {
  await mark(tx, o, { remindedAt: now });
  const data = await getOrder(tx, o.organizationId, o.id);
  if (!data.customer.email) return;
  await requestEmail(tx, { organizationId: o.organizationId, causeId: o.id, type: "invoice_reminder", recipient: data.customer.email, data: { ...data }, customerId: o.customerId });
}

/**
 * Still owed a week after its due date: reminded once more, with its pay link (the reminder's email, saying it is
 * overdue). The causing id is new: the reminder before the due date named the order.
 */
async function remindOverdue(tx: Queryable, o: OrderRow, now: Date): Promise<void> {
  await mark(tx, o, { overdueRemindedAt: now });
  const sub = o.subscriptionId ? await lockSubscription(tx, o.organizationId, o.subscriptionId) : undefined;
  // a subscription that ended (dunning's final action, the seller) leaves nothing its pay link could pay
  if (sub && sub.status !== "past_due" && sub.status !== "unpaid" && sub.status !== "active") return;
  const data = await getOrder(tx, o.organizationId, o.id);
  if (!data.customer.email) return;
  const email = { type: "invoice_reminder" as const, recipient: data.customer.email, data: { ...data, overdue: true }, customerId: o.customerId };
  await requestEmail(tx, { organizationId: o.organizationId, causeId: randomUUID(), ...email });
}

/** The step an order claimed is due for at `now`: reminded before, made overdue, or reminded after. */
function stepOf(run: DunningRun, o: OrderRow, now: Date) {
  if (!o.dueAt || o.dueAt.getTime() > now.getTime()) return (tx: Queryable) => remind(tx, o, now);
  if (!o.overdueAt) return (tx: Queryable) => overdue(tx, run, o, now);
  return (tx: Queryable) => remindOverdue(tx, o, now);
}

/** The overdue order's subscription is held by another transaction (left for the next pass; not an error). */
class SubscriptionHeld extends Error {}

/** Past its due date: the subscription past due and the organization's dunning rules from here. */
async function overdue(tx: Queryable, run: DunningRun, o: OrderRow, now: Date): Promise<void> {
  const org = o.organizationId;
  // The claim holds the order; a payment's settlement or a mark-paid holds the subscription, then waits for the
  // order. Waiting here for the subscription could deadlock with one: the order is left for the next pass instead.
  const sub = o.subscriptionId ? await lockSubscription(tx, org, o.subscriptionId, true) : undefined;
  if (o.subscriptionId && !sub) throw new SubscriptionHeld();
  await mark(tx, o, { overdueAt: now, remindedAt: o.remindedAt ?? now });
  // a subscription the seller ended meanwhile is left as it is; the invoice stays owed
  if (!sub || (sub.status !== "active" && sub.status !== "trialing")) return;
  const settings = await settingsOf(tx, org);
  const first = settings.retry_intervals_days[0];
  await repo.openInvoiceDunning(tx, { organizationId: org, orderId: o.id, subscriptionId: sub.id }, now);
  await repo.updateDunning(tx, org, o.id, { attempts: 1, nextAttemptAt: first === undefined ? now : later(now, first) }, now);
  const pastDue = await patchSubscriptionTerms(tx, org, sub.id, { status: "past_due" }, now);
  const wire = await subscriptionWireOf(tx, pastDue, run.baseURL);
  await enqueue(tx, [
    { type: "subscription.updated", organizationId: org, data: wire },
    { type: "subscription.past_due", organizationId: org, data: wire },
    customerStateChanged(org, sub.customerId),
    ...(await seatHoldersChanged(tx, org, pastDue)),
  ]);
  // the dunning's own email, with the pay link
  await requestPastDueEmail(tx, org, o.id);
}

/** Reminds and makes overdue every invoice due it. Returns how many orders were handled. */
export async function runInvoiceReminders(run: DunningRun): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 100,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => claimDueInvoices(tx, wall, batch, failed, run.organizationId),
    idOf: (row) => row.id,
    handle: (sp, row, now) => stepOf(run, row, now)(sp),
    failed: (row, err) => {
      if (!(err instanceof SubscriptionHeld)) run.log?.error(err, `invoice reminders: order ${row.id} could not be handled`);
    },
  });
}
