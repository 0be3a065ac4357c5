// The worker's Stripe event loop (billing/stripe-events): leases the due Stripe events, oldest first, and runs
// each one's handler; the handler's outcome is recorded by the lease holder only. A worker that dies while
// processing leaves its lease to expire and the event is processed again (handlers are safe to run twice).
import * as stripeEvents from "../billing/processor-events/service.js";
import { createLeaseLoop, type LeaseLoop } from "./lease-loop.js";

export interface StripeEventLoopDeps extends stripeEvents.ProcessorEventDeps {
  log: { error(obj: unknown, msg?: string): void; warn(msg: string): void };
  /** Events processed at once. */
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
}

export interface StripeEventLoop extends LeaseLoop {
  /** Events this loop processed (handled, ignored or given up). */
  readonly processed: number;
}

export function createStripeEventLoop(deps: StripeEventLoopDeps): StripeEventLoop {
  let processed = 0;
  const loop = createLeaseLoop({
    ...deps,
    failure: "stripe: processing Stripe events failed",
    claim: (token) => stripeEvents.claimDue(deps.db, deps.concurrency, deps.leaseMs, token),
    // one at a time, oldest first: events of one object apply in Stripe's order where they can
    async work(due, token, running) {
      for (const row of due) {
        if (!running()) break;
        const outcome = await stripeEvents.processEvent(deps, row, token);
        if (outcome && outcome !== "retry") processed += 1;
        if (outcome === "failed" || outcome === "retry") deps.log.warn(`stripe: event ${row.id} (${row.type}) of organization ${row.organizationId} was not processed (${outcome})`);
      }
    },
  });
  return {
    ...loop,
    get processed() {
      return processed;
    },
  };
}
