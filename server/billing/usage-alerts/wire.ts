// Usage alerts' shapes (till's own, no Polar counterpart): the alert a seller defines on a meter, its input,
// and the crossing a webhook of type `till.usage_alert.triggered` carries.
import { z } from "zod";
import type { usageAlert } from "../../db/schema/index.js";

/**
 * What a threshold measures over the customer's current period: consumed `units`; the `amount` the usage costs
 * (minor units, through tiers, before the cap); consumed units as a percentage of the period's meter credits
 * (`credits_percent`); the amount as a percentage of the price's cap (`cap_percent`); the `balance` left of the
 * period's meter credits (credited − consumed units), which crosses by falling to or below its threshold (0: the
 * credits are exhausted) where every other kind crosses by rising to or above it.
 */
export const USAGE_ALERT_KINDS = ["units", "amount", "credits_percent", "cap_percent", "balance"] as const;
export type UsageAlertKind = (typeof USAGE_ALERT_KINDS)[number];

/** Whether a measure has crossed the alert's threshold (a balance from above, every other kind from below). */
export const reaches = (alert: { kind: string; threshold: string | number }, value: number): boolean =>
  alert.kind === "balance" ? value <= Number(alert.threshold) : value >= Number(alert.threshold);

/** The webhook event type of a crossing: till's, sent only to endpoints that subscribe to it. */
export const USAGE_ALERT_EVENT = "till.usage_alert.triggered";

const uuid = z.guid({ message: "Input should be a valid UUID" });

export const UsageAlertCreateInput = z
  .object({
    meter_id: uuid,
    customer_id: uuid.nullish(),
    kind: z.enum(USAGE_ALERT_KINDS),
    threshold: z.number().min(0).max(1e12),
    notify_customer: z.boolean().default(false),
  })
  .superRefine((a, ctx) => {
    if (a.kind !== "balance" && a.threshold <= 0) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: "A threshold is greater than 0 (only a balance threshold may be 0)" });
    }
    if (a.kind === "amount" && !Number.isInteger(a.threshold)) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: "An amount threshold is in minor units (an integer)" });
    }
    if (a.kind.endsWith("_percent") && a.threshold > 1000) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: "A percentage threshold is at most 1000" });
    }
  });
export type UsageAlertCreateInput = z.output<typeof UsageAlertCreateInput>;

export type UsageAlertRow = typeof usageAlert.$inferSelect;

export interface UsageAlertWire {
  id: string;
  created_at: string;
  modified_at: string | null;
  organization_id: string;
  meter_id: string;
  customer_id: string | null;
  kind: UsageAlertKind;
  threshold: number;
  notify_customer: boolean;
}

export function toUsageAlertWire(row: UsageAlertRow): UsageAlertWire {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    organization_id: row.organizationId,
    meter_id: row.meterId,
    customer_id: row.customerId ?? null,
    kind: row.kind as UsageAlertKind,
    threshold: Number(row.threshold),
    notify_customer: row.notifyCustomer,
  };
}

/** The `data` of a `till.usage_alert.triggered` webhook (and what its emails render). */
export interface UsageAlertCrossingWire {
  id: string;
  crossed_at: string;
  alert: UsageAlertWire;
  customer: { id: string; external_id: string | null; email: string | null; name: string | null };
  subscription_id: string;
  meter: { id: string; name: string };
  period_start: string;
  period_end: string;
  consumed_units: number;
  credited_units: number;
  /** What the period's usage costs so far (minor units, before the cap), and the price's cap. */
  amount: number;
  cap_amount: number | null;
  currency: string;
  /** The measure the alert compares with its threshold (units, minor units or a percentage). */
  value: number;
}
