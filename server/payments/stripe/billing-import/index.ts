// A seller's Stripe Billing business as the importer's BillingSource (payments/billing-import.ts): read in one pass
// (read.ts, mapped by map-catalog.ts and map-customers.ts), subscriptions handed over and back (handover.ts), every
// request at the account's pace (pace.ts).
import type Stripe from "stripe";
import type { BillingSource } from "../../billing-import.js";
import { handBack, handOver, readSubscription } from "./handover.js";
import { createPace, STRIPE_LIVE_LIMIT, STRIPE_TEST_LIMIT, type PaceOptions } from "./pace.js";
import { readSnapshot, type SourceContext } from "./read.js";

export interface StripeBillingSourceOptions {
  /** Requests per second (Stripe's published limit of the mode by default: 25 in test mode, 100 live). */
  limit?: number;
  /** The account's id when known (else the first read asks Stripe for it). */
  accountId?: string | null;
  /** The pacing's clock and sleep (tests). */
  now?: PaceOptions["now"];
  sleep?: PaceOptions["sleep"];
}

export function createStripeBillingSource(stripe: Stripe, livemode: boolean, opts: StripeBillingSourceOptions = {}): BillingSource {
  const pace = createPace({ limit: opts.limit ?? (livemode ? STRIPE_LIVE_LIMIT : STRIPE_TEST_LIMIT), now: opts.now, sleep: opts.sleep });
  const ctx: SourceContext = { stripe, pace, livemode, accountId: opts.accountId ?? null };
  return {
    processor: "stripe",
    requests: pace.requests,
    read: (onPage) => readSnapshot(ctx, onPage),
    readSubscription: (id) => readSubscription(ctx, id),
    handOver: (id, tillSubscriptionId, known) => handOver(ctx, id, tillSubscriptionId, known),
    handBack: (id, tillSubscriptionId) => handBack(ctx, id, tillSubscriptionId),
  };
}
