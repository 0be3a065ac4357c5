// POST /v1/subscriptions/{id}/preview (till's own): what a PATCH with the same body would do, written nowhere and
// computed from reads alone. The PATCH's own decision (lifecycle.ts decideUpdate) runs on the row as read, and its
// outcome is applied in memory: the row patched, the proration priced as the PATCH prices it (renewal/proration.ts
// previewProration: the lines it would store, or the order it would bill now), and the next renewal priced the
// renewal's way with those lines and that order's balance movement added (renewal/upcoming.ts). No transaction,
// no lock: a preview never waits on a change, and a change never waits on a preview.
import type { Db, Queryable } from "../../db/client.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { hasMeterCreditBenefit } from "../benefits/meter-credit-benefits.js";
import { orgNow } from "../clock.js";
import { notFound } from "../errors.js";
import type { SubscriptionUpdate } from "../subscriptions/change.js";
import { loadAddOnEmbeds } from "../subscriptions/add-ons.js";
import { findSubscription, subscriptionWire } from "../subscriptions/service.js";
import { subscriptionMeters } from "../subscriptions/usage.js";
import type { SubscriptionRow, SubscriptionWire } from "../subscriptions/wire.js";
import { previewProration } from "../renewal/proration.js";
import { embeds } from "../renewal/renewal.js";
import { draftWire, inRolledBack, upcomingRenewal, type DraftOrderWire, type SayLine, type UpcomingWire } from "../renewal/upcoming.js";
import { decideUpdate } from "./lifecycle.js";

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

type Deps = { processor: PaymentProcessor; baseURL: string };

/** `say`: the lines in a reader's language (the portal's customer); left out, their English labels. */
export async function previewSubscriptionUpdate(
  db: Db,
  deps: Deps,
  organizationId: string,
  id: string,
  update: SubscriptionUpdate,
  say?: SayLine,
): Promise<SubscriptionPreviewWire> {
  const [current, now] = await Promise.all([findSubscription(db, organizationId, id), orgNow(db, organizationId)]);
  if (!current) throw notFound("Subscription not found");
  const decided = await decideUpdate(organizationId, update, deps.baseURL)(db, current, now, true);
  const row: SubscriptionRow = decided ? { ...current, ...decided.patch, modifiedAt: now } : current;
  const plan = decided?.proration;
  const answer = async (q: Queryable): Promise<SubscriptionPreviewWire> => {
    const prorated = plan ? await previewProration(q, row, plan, now) : { carried: [], invoiced: null };
    const invoiced = prorated.invoiced;
    const left = { carried: prorated.carried, balanceMoved: invoiced?.settlement.applied ?? 0 };
    // the subscription's wire and its next renewal from one read of the row's embeds
    const e = await embeds(q, row, deps.baseURL);
    const [meters, addOns, next] = await Promise.all([
      subscriptionMeters(q, organizationId, [{ row, customer: e.customer, prices: e.prices }]),
      loadAddOnEmbeds(q, organizationId, [row], deps.baseURL),
      upcomingRenewal(q, deps, row, now, left, e, say),
    ]);
    const wire = subscriptionWire(row, { ...e, meters: meters[0], addOns });
    return {
      proration_date: now.toISOString(),
      proration_behavior: plan?.behavior ?? (decided?.patch.pendingUpdate ? "next_period" : null),
      changes: decided !== null,
      subscription: wire,
      order: invoiced ? draftWire(invoiced.row, invoiced.items, invoiced.settlement, say) : null,
      carried_forward: prorated.carried.map((l) => ({
        label: say?.({ usage: null, prorationFacts: l.facts, walletCredit: null }, row.currency) ?? l.label,
        amount: l.amount,
      })),
      next_renewal: next,
    };
  };
  const regrant = decided?.after;
  // A change of product or add-ons regrants the benefits, and a meter credit granted or revoked moves what the
  // renewal credits: for a seller with meter credits, the regrant runs in a transaction rolled back and the rest
  // reads there, so the next renewal sees the credits as the change leaves them.
  if (regrant && (await hasMeterCreditBenefit(db, organizationId))) {
    return inRolledBack(db, async (tx) => {
      await regrant(tx, now);
      return answer(tx);
    });
  }
  return answer(db);
}
