// The webhook deliveries' job: the fan-out loop (outbox → webhook events, woken by the outbox trigger's NOTIFY;
// the outbox's subscribers run in its transaction), the claim loop (due events → attempts in flight, up to
// `concurrency`, attempts.ts), and the recorders (finished attempts → the delivery log, in batches, recorder.ts).
// Events are leased (locked_until), so no two workers make the same attempt, and an attempt is marked done only
// once it is recorded — a worker that dies mid-delivery leaves a lease that expires, and the event is delivered
// again.
import { randomUUID } from "node:crypto";
import type { Job, JobRun } from "../../tasks/job.js";
import { Signal } from "../../tasks/signal.js";
import { createAttempts, type AttemptsDeps } from "./attempts.js";
import * as webhooks from "./delivery.js";

export interface WebhookDeliveryDeps extends AttemptsDeps {
  opts: AttemptsDeps["opts"] & { fanOutBatch: number; leaseMs: number; pollIntervalMs: number; stopGraceMs: number };
  /** Run in each fan-out's transaction (the registry's subscribers, server/jobs/registry.ts). */
  subscribers: webhooks.OutboxSubscriber[];
  /** Each loop's turn says it is alive (the worker's heartbeats). */
  beat?(loop: string): void;
}

export function createWebhookDelivery(c: WebhookDeliveryDeps): JobRun & { readonly count: number } {
  const { db, opts, log } = c;
  const stateOf = c.state;
  const fanOutSignal = new Signal();
  const claimSignal = new Signal();
  const attempts = createAttempts(c, () => claimSignal.fire());
  let loops: Promise<void> = Promise.resolve();

  async function fanOutLoop(): Promise<void> {
    while (stateOf() === "running") {
      c.beat?.("webhooks.fan-out");
      let moved = 0;
      try {
        const token = randomUUID();
        const room = Math.max(0, attempts.room);
        const fanned = await webhooks.fanOut(db, opts.fanOutBatch, { room, leaseMs: opts.leaseMs, token }, c.subscribers);
        moved = fanned.moved;
        if (stateOf() !== "running") {
          if (stateOf() === "stopping") await webhooks.releaseEvents(db, token, fanned.claimed.map((e) => e.id));
          break;
        }
        // what fitted goes out now; the claim loop takes the rest
        for (const e of fanned.claimed) attempts.attempt(e, token);
        if (moved > 0) claimSignal.fire();
      } catch (err) {
        if (stateOf() !== "running") break;
        log.error(err, "webhooks: fan-out failed");
      }
      if (stateOf() !== "running") break;
      if (moved < opts.fanOutBatch) await fanOutSignal.wait(opts.pollIntervalMs);
    }
  }

  async function claimLoop(): Promise<void> {
    while (stateOf() === "running") {
      c.beat?.("webhooks.claim");
      const room = attempts.room;
      if (room > 0) {
        try {
          const token = randomUUID();
          const events = await webhooks.claimDueEvents(db, room, opts.leaseMs, token);
          if (stateOf() !== "running") {
            // a stop that came while claiming gives the leases back; a crash (kill) does not
            if (stateOf() === "stopping") await webhooks.releaseEvents(db, token, events.map((e) => e.id));
            break;
          }
          for (const e of events) attempts.attempt(e, token);
          attempts.waitForRoom(events.length === room);
        } catch (err) {
          if (stateOf() !== "running") break;
          log.error(err, "webhooks: claiming due events failed");
        }
      } else {
        attempts.waitForRoom(true);
      }
      if (stateOf() !== "running") break;
      await claimSignal.wait(opts.pollIntervalMs);
    }
  }

  return {
    /** Attempts made (recorded or not). */
    get count() {
      return attempts.attempted;
    },
    start(): void {
      loops = Promise.all([fanOutLoop(), claimLoop()]).then(() => {});
    },
    wake(): void {
      fanOutSignal.fire();
      claimSignal.fire();
    },
    /** The fan-out after a subscriber recorded work that makes more events (a regrant's). */
    wakeFanOut: () => fanOutSignal.fire(),
    /** After the loops ended, attempts in flight may finish within stopGraceMs (attempts.ts, `settle`). */
    async stop(): Promise<void> {
      await loops;
      await attempts.settle(opts.stopGraceMs);
    },
    /** As a crash: nothing more recorded, attempts in flight aborted; ends when the loops have. */
    kill(): Promise<void> {
      attempts.kill();
      return loops.catch(() => {});
    },
  };
}

export const jobs: Job[] = [
  {
    name: "webhooks",
    counter: "attempted",
    create: (ctx) =>
      createWebhookDelivery({ ...ctx, allowPrivate: ctx.config.webhooks.allowPrivate, subscribers: [...ctx.fanOut] }),
  },
];
