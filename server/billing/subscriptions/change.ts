// What a seller's change to a subscription is (the PATCH body parsed, the columns and events it decides) and the
// states it is judged by: shared by lifecycle.ts, which applies a change on the locked row, and plan-change.ts.
import type { Tx } from "../../db/client.js";
import { invalid } from "../errors.js";
import type { OutboxEvent, OutboxEventType } from "../../db/outbox.js";
import type { ProrationPlan } from "./proration.js";
import type * as repo from "./repository.js";
import type { SubscriptionRow } from "./wire.js";
import type { CANCELLATION_REASONS } from "../../../shared/cancellation-reasons.js";

export const PRORATION_BEHAVIORS = ["invoice", "prorate", "next_period", "reset"] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

export interface Cancellation {
  reason?: CancellationReason | null | undefined;
  comment?: string | null | undefined;
}

/** The `SubscriptionUpdate` variants (0.47.1's separate ones and 0.49.0's `SubscriptionUpdateBase`), parsed. */
export type SubscriptionUpdate =
  | ({ kind: "revoke" } & Cancellation)
  | ({ kind: "cancel"; cancelAtPeriodEnd: boolean } & Cancellation)
  | {
      kind: "change";
      /** undefined or null: the product stays. */
      productId?: string | null | undefined;
      prorationBehavior?: ProrationBehavior | null | undefined;
      /** undefined: the discount stays; null: it is removed. */
      discountId?: string | null | undefined;
      /** undefined or null: the trial stays as it is; a date: trialing until then. */
      trialEnd?: Date | null | undefined;
      prorationDate?: Date | null | undefined;
    }
  | { kind: "seats"; seats: number; prorationBehavior?: ProrationBehavior | null | undefined; prorationDate?: Date | null | undefined }
  | { kind: "billing_period"; periodEnd: Date }
  /** till's own: the add-ons as they should be (subscription-changes/add-ons.ts). */
  | {
      kind: "add_ons";
      items: Array<{ productId: string; quantity: number }>;
      prorationBehavior?: ProrationBehavior | null | undefined;
      prorationDate?: Date | null | undefined;
    }
  /**
   * 0.49.0's SubscriptionUpdateClear, `{"pending_update": null}`: the change waiting for the period's end is dropped.
   */
  | { kind: "clear_pending" };

/**
 * The instant a change is prorated at (till's `proration_date`, as Stripe's): a preview's, so the PATCH bills what
 * the preview showed to the cent; else now. It lies within the current period and not after now.
 */
export function prorationAt(row: SubscriptionRow, now: Date, date: Date | null | undefined): Date {
  if (!date) return now;
  if (date.getTime() > now.getTime() || date.getTime() < row.currentPeriodStart.getTime()) {
    throw invalid(["body", "proration_date"], "The proration date must lie within the current period and not in the future.");
  }
  return date;
}

/** The largest amount the amount column holds (PostgreSQL integer); seats that would cost more are refused. */
export const MAX_AMOUNT = 2_147_483_647;

/** Ended for good (revoked, or canceled at a period end that has passed): nothing can change it any more. */
export const isEnded = (row: SubscriptionRow) => row.endedAt !== null || row.status === "canceled" || row.status === "incomplete_expired";
/** Polar's "canceled": ended, or set to end at the period end. */
export const isCanceled = (row: SubscriptionRow) => isEnded(row) || row.cancelAtPeriodEnd;

type Patch = Parameters<typeof repo.updateSubscription>[3];

/** What a change decided: the columns to write and the subscription events after `subscription.updated`. */
export interface Change {
  patch: Omit<Patch, "modifiedAt">;
  events: OutboxEventType[];
  /** The customer email the change asks for on its `subscription.updated` (a plan change's). */
  mail?: OutboxEvent["mail"];
  /** Runs after the row is written, in the transaction (grant revocation). */
  after?: (tx: Tx, now: Date) => Promise<void>;
  /** The change's proration (product and seat changes of an active subscription), applied after `after`. */
  proration?: ProrationPlan;
}
