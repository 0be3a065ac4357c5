// Both sides of each subscription an import hands over, read from till's database and the Stripe stand-in, and the
// cut-over's invariant over them: never renewing on both sides, never marked at Stripe for a subscription till does
// not hold for it.
import type Stripe from "stripe";
import { sql } from "drizzle-orm";
import type { Database } from "../../server/db/client.js";
import { subscription, subscriptionHandover } from "../../server/db/schema/index.js";

export interface Sides {
  stripeId: string;
  /** Stripe's subscription ends with its period (cancel_at_period_end). */
  endsAtStripe: boolean;
  /** till's subscription Stripe's metadata names (till_subscription_id), if any. */
  mark: string | undefined;
  /** till's subscriptions made for it (metadata stripe_subscription_id), with their status. */
  till: Array<{ id: string; status: string }>;
}

export async function readSides(db: Database["db"], stripe: Stripe, stripeIds: string[]): Promise<Sides[]> {
  const rows = await db.select({ id: subscription.id, status: subscription.status, stripeId: sql<string | null>`${subscription.metadata}->>'stripe_subscription_id'` }).from(subscription);
  const out: Sides[] = [];
  for (let i = 0; i < stripeIds.length; i += 20) {
    out.push(...(await Promise.all(stripeIds.slice(i, i + 20).map(async (stripeId) => {
      const theirs = await stripe.subscriptions.retrieve(stripeId);
      const till = rows.filter((r) => r.stripeId === stripeId).map((r) => ({ id: r.id, status: r.status }));
      return { stripeId, endsAtStripe: theirs.cancel_at_period_end, mark: theirs.metadata.till_subscription_id, till };
    }))));
  }
  return out;
}

const renewing = (status: string) => status === "active" || status === "trialing";

/**
 * What breaks the cut-over's invariant, in words (empty when it holds): a subscription till renews while Stripe's
 * still renews too, two of till's renewing one of Stripe's, or Stripe's marked for another of till's than the one
 * waiting or renewing.
 */
export function breaches(all: Sides[]): string[] {
  const out: string[] = [];
  for (const s of all) {
    const live = s.till.filter((t) => renewing(t.status));
    if (live.length > 0 && !s.endsAtStripe) out.push(`${s.stripeId}: renews in till (${live[0]?.id}) and still at Stripe`);
    if (live.length > 1) out.push(`${s.stripeId}: renewed by ${live.length} of till's subscriptions`);
    for (const t of live) if (s.mark !== t.id) out.push(`${s.stripeId}: renews in till as ${t.id}, Stripe's marked for ${s.mark}`);
    for (const t of s.till.filter((x) => x.status === "incomplete")) {
      if (s.mark !== undefined && s.mark !== t.id) out.push(`${s.stripeId}: waits in till as ${t.id}, Stripe's marked for ${s.mark}`);
    }
  }
  return out;
}

/** The hand-overs' rows, by till's subscription. */
export async function handovers(db: Database["db"]) {
  return db.select().from(subscriptionHandover);
}
