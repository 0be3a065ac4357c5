// The trial reminder pass: a trialing subscription of an organization that lets trials start
// without a card, whose customer has no card on file and whose trial ends within the organization's
// `plan_settings.trial_reminder_days`, is reminded once: in the claiming transaction (a savepoint each) its
// `trial_reminded_at` is set and the customer's `trial_ending` email recorded. Run by the schedule beside the
// renewals (jobs/schedules.ts), and by a test clock's advance at each stop (test-clock/service.ts), each
// organization at its own now.
import { and, asc, eq, isNotNull, isNull, notInArray, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { billingOrganization, paymentMethod, subscription } from "../../db/schema/index.js";
import { runClaimLoop, type ScheduledPass } from "../../tasks/claim.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { requestEmail } from "../customer-emails/service.js";
import { loadCustomers } from "../customers/service.js";
import { hasChargeableMethod } from "../payments/service.js";
import { loadProductSummaries } from "../products/service.js";
import { DEFAULT_PLAN_SETTINGS } from "../settings/subscriptions.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { orgNow, orgNowSql } from "../clock.js";

export interface TrialReminderRun extends ScheduledPass {
  processor: PaymentProcessor;
}

const plan = sql`(${billingOrganization.details} -> 'plan_settings')`;
const reminderDays = sql`coalesce((${plan} ->> 'trial_reminder_days')::int, ${sql.raw(String(DEFAULT_PLAN_SETTINGS.trial_reminder_days))})`;

/** Up to `limit` subscriptions due a reminder at `wall` (each organization at its now), locked for the caller. */
async function claimDueReminders(db: Queryable, wall: Date, limit: number, skipIds: string[], organizationId?: string): Promise<SubscriptionRow[]> {
  const now = orgNowSql(subscription.organizationId, wall);
  const rows = await db
    .select({ sub: subscription })
    .from(subscription)
    .innerJoin(billingOrganization, eq(billingOrganization.organizationId, subscription.organizationId))
    .where(
      and(
        eq(subscription.status, "trialing"),
        isNull(subscription.trialRemindedAt),
        isNotNull(subscription.trialEnd),
        sql`(${plan} ->> 'trials_without_card') = 'true'`,
        sql`${reminderDays} > 0`,
        sql`${subscription.trialEnd} > ${now}`,
        sql`${subscription.trialEnd} <= ${now} + ${reminderDays} * interval '1 day'`,
        sql`NOT EXISTS (SELECT 1 FROM ${paymentMethod} WHERE ${paymentMethod.organizationId} = ${subscription.organizationId}
          AND ${paymentMethod.customerId} = ${subscription.customerId} AND ${paymentMethod.deletedAt} IS NULL)`,
        organizationId ? eq(subscription.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(subscription.id, skipIds) : undefined,
      ),
    )
    .orderBy(asc(subscription.trialEnd), asc(subscription.id))
    .limit(limit)
    .for("update", { of: subscription, skipLocked: true });
  return rows.map((r) => r.sub);
}

/** Reminds one claimed subscription (in its savepoint): marked reminded, and emailed unless a card turned up. */
async function remind(tx: Queryable, run: TrialReminderRun, sub: SubscriptionRow, now: Date): Promise<void> {
  await tx.update(subscription).set({ trialRemindedAt: now }).where(and(eq(subscription.organizationId, sub.organizationId), eq(subscription.id, sub.id)));
  // a card the checkout saved and not yet adopted counts as one (payments/service.ts): then there is nothing to remind
  if (await hasChargeableMethod(tx, run.processor, sub.organizationId, sub.customerId)) return;
  const customer = (await loadCustomers(tx, sub.organizationId, { ids: [sub.customerId], externalIds: [] })).byId.get(sub.customerId);
  const product = (await loadProductSummaries(tx, sub.organizationId, [sub.productId])).get(sub.productId);
  if (!customer?.email || !sub.trialEnd) return;
  await requestEmail(tx, {
    organizationId: sub.organizationId,
    causeId: sub.id,
    type: "trial_ending",
    recipient: customer.email,
    data: { subscription_id: sub.id, trial_end: sub.trialEnd.toISOString(), amount: sub.amount, currency: sub.currency, product: { name: product?.name ?? "your plan" } },
  });
}

/** Reminds every trial due a reminder, once. Returns how many subscriptions were handled. */
export async function runTrialReminders(run: TrialReminderRun): Promise<number> {
  return runClaimLoop({
    db: run.db,
    batch: run.batch ?? 100,
    now: run.now,
    nowOf: orgNow,
    claim: (tx, wall, batch, failed) => claimDueReminders(tx, wall, batch, failed, run.organizationId),
    idOf: (row) => row.id,
    handle: (sp, row, now) => remind(sp, run, row, now),
    failed: (row, err) => run.log?.error(err, `trial reminders: subscription ${row.id} could not be reminded`),
  });
}
