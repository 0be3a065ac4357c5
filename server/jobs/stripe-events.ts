// The worker's Stripe event loop (billing/stripe-events): leases the due Stripe events, oldest first, and runs
// each one's handler; the handler's outcome is recorded by the lease holder only. A worker that dies while
// processing leaves its lease to expire and the event is processed again (handlers are safe to run twice).
import { randomUUID } from "node:crypto";
import * as stripeEvents from "../billing/stripe-events/service.js";

export interface StripeEventLoopDeps extends stripeEvents.StripeEventDeps {
  log: { error(obj: unknown, msg?: string): void; warn(msg: string): void };
  /** Events processed at once. */
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
}

export interface StripeEventLoop {
  start(): void;
  /** Lets the events in hand finish. */
  stop(): Promise<void>;
  /** Stops at once (a crash): what is in hand is not recorded. */
  kill(): void;
  wake(): void;
  /** Events this loop processed (handled, ignored or given up). */
  readonly processed: number;
}

export function createStripeEventLoop(deps: StripeEventLoopDeps): StripeEventLoop {
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let processed = 0;
  let pending = false;
  let wakeUp: (() => void) | undefined;

  function wait(ms: number): Promise<void> {
    if (pending) {
      pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        wakeUp = undefined;
        pending = false;
        resolve();
      }
      wakeUp = finish;
    });
  }

  async function loop(): Promise<void> {
    while (running) {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await stripeEvents.claimDue(deps.db, deps.concurrency, deps.leaseMs, token);
        claimed = due.length;
        // one at a time, oldest first: events of one object apply in Stripe's order where they can
        for (const row of due) {
          if (!running) break;
          const outcome = await stripeEvents.processEvent(deps, row, token);
          if (outcome && outcome !== "retry") processed += 1;
          if (outcome === "failed" || outcome === "retry") deps.log.warn(`stripe: event ${row.id} (${row.type}) of organization ${row.organizationId} was not processed (${outcome})`);
        }
      } catch (err) {
        if (!running) break;
        deps.log.error(err, "stripe: processing Stripe events failed");
      }
      if (!running) break;
      if (claimed < deps.concurrency) await wait(deps.pollIntervalMs);
    }
  }

  return {
    get processed() {
      return processed;
    },
    start() {
      if (running) return;
      running = true;
      done = loop();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await done;
    },
    kill() {
      running = false;
      wakeUp?.();
    },
    wake() {
      pending = true;
      wakeUp?.();
    },
  };
}
