// Handing a subscription over to till and back. A hand-over makes the Stripe subscription end with its current period
// and marks it (metadata) with till's subscription that takes over and the moment it moves (that period's end);
// handing back undoes both. Each update carries an idempotency key of till's subscription, so a retry is taken once.
// A key replays its first answer for a day and refuses other parameters, so the mark holds no clock of its own (a
// retry of the same period sends the same), and an answer replayed or refused (a hand-over, a hand-back and a
// hand-over again within the day; a period that ended between two tries) is followed by the update sent again
// without the key: an update that sets fields says the same sent twice. A subscription already as asked is answered
// as it is, with no update.
import type Stripe from "stripe";
import { BillingSourceError, type SourceSubscription } from "../../billing-import.js";
import { MOVED_AT_KEY, MOVED_TO_KEY, mapSubscription } from "./map-customers.js";
import { itemsOf, ONE_SUBSCRIPTION_EXPAND, PURPOSES, type SourceContext } from "./read.js";
import { Stripe as StripeSdk } from "../client.js";

/** A subscription as it is now, its items in full; null when it no longer exists. */
async function current(ctx: SourceContext, id: string): Promise<{ raw: Stripe.Subscription; items: Stripe.SubscriptionItem[] } | null> {
  const raw = await ctx.pace.sendOrMissing(PURPOSES.subscriptions, () => ctx.stripe.subscriptions.retrieve(id, { expand: ONE_SUBSCRIPTION_EXPAND }));
  return raw ? { raw, items: await itemsOf(ctx, raw) } : null;
}

export async function readSubscription(ctx: SourceContext, id: string): Promise<SourceSubscription | null> {
  const now = await current(ctx, id);
  return now ? mapSubscription(now.raw, now.items) : null;
}

async function existing(ctx: SourceContext, id: string) {
  const now = await current(ctx, id);
  if (!now) throw new BillingSourceError(`The Stripe subscription ${id} no longer exists.`, false);
  return now;
}

/**
 * Sends the update with its idempotency key; when Stripe replays an earlier answer (or refuses the key's reuse), sends
 * it again without the key (an update that sets fields says the same sent twice) and answers that.
 */
async function update(ctx: SourceContext, id: string, params: Stripe.SubscriptionUpdateParams, idempotencyKey: string): Promise<SourceSubscription> {
  const send = (key: string | undefined) =>
    ctx.pace.send(PURPOSES.handOver, () =>
      ctx.stripe.subscriptions.update(id, { ...params, expand: ONE_SUBSCRIPTION_EXPAND }, { idempotencyKey: key }).catch((err: unknown) => {
        if (key !== undefined && err instanceof StripeSdk.errors.StripeIdempotencyError) return null;
        throw err;
      }),
    );
  let answer = await send(idempotencyKey);
  if (!answer || answer.lastResponse.headers["idempotent-replayed"] === "true") answer = await send(undefined);
  if (!answer) throw new BillingSourceError(`Stripe did not answer the update of the subscription ${id}.`, true);
  return mapSubscription(answer, await itemsOf(ctx, answer));
}

/**
 * Ends the subscription with its current period, marked as moved to till's `tillSubscriptionId`; `known` is the
 * subscription as just read (readSubscription), not read again then.
 */
export async function handOver(ctx: SourceContext, id: string, tillSubscriptionId: string, known?: SourceSubscription): Promise<SourceSubscription> {
  const now = known ?? (await readSubscription(ctx, id));
  if (!now) throw new BillingSourceError(`The Stripe subscription ${id} no longer exists.`, false);
  if (now.movedTo === tillSubscriptionId) return now;
  if (now.movedTo) throw new BillingSourceError(`The Stripe subscription ${id} was already handed over to till's subscription ${now.movedTo}.`, false);
  const params = { cancel_at_period_end: true, metadata: { [MOVED_TO_KEY]: tillSubscriptionId, [MOVED_AT_KEY]: now.currentPeriodEnd.toISOString() } };
  return update(ctx, id, params, `till-handover-${tillSubscriptionId}`);
}

/**
 * Undoes a hand-over to `tillSubscriptionId`: the subscription renews at Stripe again, the mark removed. A subscription
 * that carries no mark is left as it is (its end, if it has one, is the seller's); one handed over to another of
 * till's subscriptions is refused.
 */
export async function handBack(ctx: SourceContext, id: string, tillSubscriptionId: string): Promise<SourceSubscription> {
  const { raw, items } = await existing(ctx, id);
  const mark = raw.metadata[MOVED_TO_KEY];
  if (!mark) return mapSubscription(raw, items);
  if (mark !== tillSubscriptionId) throw new BillingSourceError(`The Stripe subscription ${id} was handed over to till's subscription ${mark}, not ${tillSubscriptionId}.`, false);
  const params = { cancel_at_period_end: false, metadata: { [MOVED_TO_KEY]: "", [MOVED_AT_KEY]: "" } };
  return update(ctx, id, params, `till-handback-${tillSubscriptionId}`);
}
