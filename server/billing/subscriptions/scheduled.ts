// Plan changes that wait for the period's end (Polar's `proration_behavior: next_period`, shown as
// `pending_update`): which behavior a change takes (the request's, else the organization's, with the
// organization's plan setting that makes downgrades wait), the pending change recorded on the row, and clearing
// it (PATCH `{"pending_update": null}`, 0.49.0's SubscriptionUpdateClear). The renewal applies it (renewal/pending.ts).
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import type { PendingUpdateValue } from "../../db/schema/index.js";
import { getOrganization } from "../organizations/service.js";
import { isCanceled, PRORATION_BEHAVIORS, type Change, type ProrationBehavior } from "./change.js";
import { alreadyCanceled } from "./errors.js";
import type { SubscriptionRow } from "./wire.js";

const PER_YEAR: Record<string, number> = { day: 365, week: 52, month: 12, year: 1 };

/** A price's amount per month (amount × periods a year ÷ 12), to tell a downgrade from an upgrade. */
export function monthlyAmount(amount: number, interval: string, count: number): number {
  return (amount * (PER_YEAR[interval] ?? 12)) / 12 / Math.max(1, count);
}

const isBehavior = (v: unknown): v is ProrationBehavior => typeof v === "string" && (PRORATION_BEHAVIORS as readonly string[]).includes(v);

/**
 * The proration behavior of a change: the request's; else, with `downgrades_at_period_end`, `next_period` for a
 * downgrade (a lower monthly-normalised amount) and the organization's behavior for an upgrade (`invoice` if the
 * organization's is `next_period`: an upgrade applies now); else the organization's.
 */
export async function behaviorOf(
  tx: Queryable,
  organizationId: string,
  requested: ProrationBehavior | null | undefined,
  amounts: { old: number; new: number },
): Promise<ProrationBehavior> {
  if (requested) return requested;
  const org = await getOrganization(tx, organizationId);
  const own = isBehavior(org.subscription_settings.proration_behavior) ? org.subscription_settings.proration_behavior : "prorate";
  if (!org.plan_settings.downgrades_at_period_end) return own;
  if (amounts.new < amounts.old) return "next_period";
  return own === "next_period" ? "invoice" : own;
}

/** Whether a change with this behavior waits for the period's end: `next_period` on a subscription that renews. */
export const waits = (behavior: ProrationBehavior, row: SubscriptionRow) => behavior === "next_period" && (row.status === "active" || row.status === "trialing");

/** The pending change (what the renewal will write), replacing any pending one. */
export function pendingUpdate(row: SubscriptionRow, now: Date, terms: Omit<PendingUpdateValue, "id" | "createdAt" | "appliesAt">): PendingUpdateValue {
  return { id: randomUUID(), createdAt: now.toISOString(), appliesAt: row.currentPeriodEnd.toISOString(), ...terms };
}

/** The add-ons a pending change writes at the renewal: a plan change that replaces the pending one keeps them. */
export const pendingAddOns = (row: SubscriptionRow): Pick<PendingUpdateValue, "addOns"> => (row.pendingUpdate?.addOns ? { addOns: row.pendingUpdate.addOns } : {});

type Terms = Pick<PendingUpdateValue, "priceIds" | "amount" | "recurringInterval" | "recurringIntervalCount">;

/**
 * The pending change left by a plan change applied now (`terms`: the row's terms after it): the add-ons still wait
 * for the renewal (written at the new terms); any other pending change is replaced.
 */
export function pendingAfterChange(row: SubscriptionRow, now: Date, terms: Terms): PendingUpdateValue | null {
  const addOns = row.pendingUpdate?.addOns;
  return addOns ? pendingUpdate(row, now, { ...terms, productId: null, seats: null, addOns }) : null;
}

/** PATCH `{"pending_update": null}`: the pending change is dropped; nothing to drop changes nothing. */
export function clearPendingUpdate(row: SubscriptionRow): Change | null {
  if (isCanceled(row)) throw alreadyCanceled();
  if (!row.pendingUpdate) return null;
  return { patch: { pendingUpdate: null }, events: [] };
}
