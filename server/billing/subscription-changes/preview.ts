// POST /v1/subscriptions/{id}/preview (till's own): what a PATCH with the same body would do, written nowhere. The
// PATCH's own code runs on the locked row in a transaction that is rolled back (renewal/upcoming.ts inRolledBack),
// so the amounts are the very ones the change bills; a change billed now is priced and stops before the charge.
import { isLockNotAvailable, type Db } from "../../db/client.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import type { SubscriptionUpdate } from "../subscriptions/change.js";
import { subscriptionLocked } from "../subscriptions/errors.js";
import type { SubscriptionWire } from "../subscriptions/wire.js";
import { draftWire, inRolledBack, upcomingRenewal, type DraftOrderWire, type UpcomingWire } from "../renewal/upcoming.js";
import { applyChange, decideUpdate } from "./lifecycle.js";

export interface SubscriptionPreviewWire {
  /** The instant the change is priced at: a PATCH at another instant prorates other seconds. */
  proration_date: string;
  /** The behavior the change takes (the request's, else the organization's); null when nothing is prorated. */
  proration_behavior: string | null;
  /** Whether the body changes anything at all. */
  changes: boolean;
  /** The subscription as the change leaves it. */
  subscription: SubscriptionWire;
  /** The order billed now (`invoice`); null when nothing is billed now. */
  order: DraftOrderWire | null;
  /** The proration lines carried to the next renewal (`prorate`). */
  carried_forward: Array<{ label: string; amount: number }>;
  /** The next renewal after the change; null when none comes (revoked, canceled at the period end). */
  next_renewal: UpcomingWire | null;
}

export async function previewSubscriptionUpdate(
  db: Db,
  deps: { processor: PaymentProcessor; baseURL: string },
  organizationId: string,
  id: string,
  update: SubscriptionUpdate,
): Promise<SubscriptionPreviewWire> {
  try {
    return await inRolledBack(db, async (tx) => {
      const applied = await applyChange(tx, organizationId, id, deps.baseURL, decideUpdate(organizationId, update, deps.baseURL), null, true);
      const plan = applied.decided?.proration;
      const invoiced = applied.billed?.invoiced;
      const prorated = plan?.behavior === "prorate" && (applied.row.status === "active" || applied.row.status === "past_due");
      return {
        proration_date: applied.now.toISOString(),
        proration_behavior: plan?.behavior ?? (applied.decided?.patch.pendingUpdate ? "next_period" : null),
        changes: applied.decided !== null,
        subscription: applied.wire,
        order: invoiced ? draftWire(invoiced.row, invoiced.items, invoiced.settlement) : null,
        carried_forward: prorated ? plan.lines.map((l) => ({ label: l.label, amount: l.amount })) : [],
        next_renewal: await upcomingRenewal(tx, deps, applied.row, applied.now),
      };
    });
  } catch (err) {
    if (isLockNotAvailable(err)) throw subscriptionLocked();
    throw err;
  }
}
