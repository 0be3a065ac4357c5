// The worker's webhook deliveries: the fan-out loop (outbox → webhook events, woken by the outbox trigger's
// NOTIFY; the outbox's subscribers run in its transaction), the claim loop (due events → attempts in flight, up
// to `concurrency`), and the recorders (finished attempts → the delivery log, in batches). Events are leased
// (locked_until), so no two workers make the same attempt, and an attempt is marked done only once it is
// recorded — a worker that dies mid-delivery leaves a lease that expires, and the event is delivered again.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.js";
import type { Mailer } from "../mail/mailer.js";
import * as webhooks from "../billing/webhooks/delivery.js";
import { originOf } from "../billing/webhooks/address.js";
import type { ClaimedEvent } from "../billing/webhooks/wire.js";
import { postWebhook } from "../billing/webhooks/sender.js";
import { signingKeys, signHeaders } from "../billing/webhooks/signing.js";
import { openStored } from "../seal.js";
import { Signal, type WorkerState } from "./signal.js";
import type { WorkerLog, WorkerOptions } from "./worker.js";

export interface WebhookDeliveryDeps {
  db: Db;
  mailer: Mailer;
  opts: WorkerOptions;
  log: WorkerLog;
  allowPrivate: boolean;
  state(): WorkerState;
  /** Run in each fan-out's transaction (jobs/subscribers.ts). */
  subscribers: webhooks.OutboxSubscriber[];
}

/**
 * The recorders: finished attempts go to the delivery log in batches of recordBatch (a full batch at once, else
 * after a few ms to gather more), up to `recorders` transactions at once; an endpoint disabled by them is told to
 * its owners.
 */
function createRecorder(c: WebhookDeliveryDeps) {
  const { db, opts, log } = c;
  const stateOf = c.state;
  let outcomes: webhooks.ClaimOutcome[] = [];
  let activeRecorders = 0;
  const recorded = new Set<Promise<void>>();
  let recordTimer: NodeJS.Timeout | undefined;

  /** Starts recorders for what has finished: a full batch at once, else after a few ms to gather more. */
  function scheduleRecord(): void {
    if (outcomes.length >= opts.recordBatch) startRecorders();
    else if (!recordTimer) recordTimer = setTimeout(startRecorders, 10);
  }

  function startRecorders(): void {
    clearTimeout(recordTimer);
    recordTimer = undefined;
    while (outcomes.length > 0 && activeRecorders < opts.recorders && stateOf() !== "dead") {
      activeRecorders += 1;
      const run = recordPending().finally(() => {
        activeRecorders -= 1;
        recorded.delete(run);
        if (outcomes.length > 0) scheduleRecord();
      });
      recorded.add(run);
    }
  }

  async function recordPending(): Promise<void> {
    while (outcomes.length > 0 && stateOf() !== "dead") {
      const batch = outcomes.splice(0, opts.recordBatch);
      const disabled = await recordWithFallback(batch);
      for (const d of disabled) void tellOwners(d);
    }
  }

  async function drainRecords(): Promise<void> {
    startRecorders();
    while (recorded.size > 0) await Promise.all([...recorded]);
  }

  /** A failing batch is retried one outcome at a time, so one bad row cannot hold back the others. */
  async function recordWithFallback(batch: webhooks.ClaimOutcome[]): Promise<webhooks.DisabledEndpoint[]> {
    const record = (list: webhooks.ClaimOutcome[]) =>
      webhooks.recordOutcomes(db, list, { disableAfterFailedEvents: opts.disableAfterFailedEvents });
    try {
      return await record(batch);
    } catch (err) {
      if (batch.length === 1) {
        const one = batch[0]!;
        // its endpoint was deleted meanwhile: nothing left to record
        if (!(await webhooks.eventExists(db, one.event.id).catch(() => true))) return [];
        // else it stays leased and is attempted again once the lease expires
        log.error(err, `webhooks: could not record the attempt of event ${one.event.id}`);
        return [];
      }
      const out: webhooks.DisabledEndpoint[] = [];
      for (const one of batch) out.push(...(await recordWithFallback([one])));
      return out;
    }
  }

  async function tellOwners(d: webhooks.DisabledEndpoint): Promise<void> {
    try {
      const mail = await webhooks.disabledEndpointMail(db, d, opts.disableAfterFailedEvents);
      log.warn(`webhooks: endpoint ${d.id} (${originOf(d.url)}) disabled (${d.reason})`);
      for (const to of mail.to) await c.mailer.send({ to, subject: mail.subject, text: mail.text });
    } catch (err) {
      log.error(err, `webhooks: could not tell the owners that endpoint ${d.id} was disabled`);
    }
  }

  return {
    push(outcome: webhooks.ClaimOutcome): void {
      outcomes.push(outcome);
      scheduleRecord();
    },
    drain: drainRecords,
    /** As a crash: what was not recorded yet is dropped (the leases decide who tries again). */
    clear(): void {
      clearTimeout(recordTimer);
      outcomes = [];
    },
  };
}

export function createWebhookDelivery(c: WebhookDeliveryDeps) {
  const { db, opts, log, allowPrivate } = c;
  const fanOutSignal = new Signal();
  const claimSignal = new Signal();
  /** The claim loop filled every slot and waits for room. */
  let waitingForRoom = false;
  const inFlight = new Map<string, { token: string; controller: AbortController; done: Promise<void> }>();
  const keyCache = new Map<string, Buffer[]>();
  let attempted = 0;
  const stateOf = c.state;
  const recorder = createRecorder(c);

  /** The HMAC keys of an endpoint's secret as stored (sealed): opened once per stored value, not per attempt. */
  function keysOf(stored: string): Buffer[] {
    let keys = keyCache.get(stored);
    if (!keys) {
      if (keyCache.size > 10_000) keyCache.clear();
      keys = signingKeys(openStored("webhook-secret", stored));
      keyCache.set(stored, keys);
    }
    return keys;
  }

  // ---- attempts -----------------------------------------------------------------------------------

  function attempt(event: ClaimedEvent, token: string): void {
    const controller = new AbortController();
    const done = (async () => {
      let outcome: webhooks.ClaimOutcome;
      if (!event.enabled) {
        outcome = { kind: "skipped", event, token };
      } else {
        const headers = signHeaders(keysOf(event.secret), event.id, event.payload);
        attempted += 1;
        const result = await postWebhook(event.url, { ...headers }, event.payload, {
          timeoutMs: opts.timeoutMs,
          allowPrivate,
          signal: controller.signal,
        });
        outcome = { kind: "attempt", event, token, result };
      }
      // abandoned (stop) or crashed (kill): not recorded; the lease decides who tries again
      if (controller.signal.aborted || stateOf() === "dead") return;
      recorder.push(outcome);
    })().finally(() => {
      inFlight.delete(event.id);
      // the claim loop waits for room only when it filled every slot: wake it once half are free again
      if (waitingForRoom && inFlight.size <= opts.concurrency / 2) {
        waitingForRoom = false;
        claimSignal.fire();
      }
    });
    inFlight.set(event.id, { token, controller, done });
  }

  // ---- loops --------------------------------------------------------------------------------------

  async function fanOutLoop(): Promise<void> {
    while (stateOf() === "running") {
      let moved = 0;
      try {
        const token = randomUUID();
        const room = Math.max(0, opts.concurrency - inFlight.size);
        const fanned = await webhooks.fanOut(db, opts.fanOutBatch, { room, leaseMs: opts.leaseMs, token }, c.subscribers);
        moved = fanned.moved;
        if (stateOf() !== "running") {
          if (stateOf() === "stopping") await webhooks.releaseEvents(db, token, fanned.claimed.map((e) => e.id));
          break;
        }
        // what fitted goes out now; the claim loop takes the rest
        for (const e of fanned.claimed) attempt(e, token);
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
      const room = opts.concurrency - inFlight.size;
      if (room > 0) {
        try {
          const token = randomUUID();
          const events = await webhooks.claimDueEvents(db, room, opts.leaseMs, token);
          if (stateOf() !== "running") {
            // a stop that came while claiming gives the leases back; a crash (kill) does not
            if (stateOf() === "stopping") await webhooks.releaseEvents(db, token, events.map((e) => e.id));
            break;
          }
          for (const e of events) attempt(e, token);
          waitingForRoom = events.length === room;
        } catch (err) {
          if (stateOf() !== "running") break;
          log.error(err, "webhooks: claiming due events failed");
        }
      } else {
        waitingForRoom = true;
      }
      if (stateOf() !== "running") break;
      await claimSignal.wait(opts.pollIntervalMs);
    }
  }

  return {
    /** Attempts made (recorded or not). */
    get attempted() {
      return attempted;
    },
    wake(): void {
      fanOutSignal.fire();
      claimSignal.fire();
    },
    /** The fan-out after a subscriber recorded work that makes more events (a regrant's). */
    wakeFanOut: () => fanOutSignal.fire(),
    loops: () => Promise.all([fanOutLoop(), claimLoop()]).then(() => {}),
    /**
     * On stop, after the loops ended: attempts in flight may finish within `graceMs`, the rest are abandoned;
     * everything finished is recorded and the abandoned events' leases are given back.
     */
    async settle(graceMs: number): Promise<void> {
      const pending = [...inFlight.values()];
      await Promise.race([Promise.all(pending.map((p) => p.done)), new Promise((r) => setTimeout(r, graceMs))]);
      const abandoned = [...inFlight.entries()];
      for (const [, p] of abandoned) p.controller.abort();
      await Promise.all(abandoned.map(([, p]) => p.done));
      await recorder.drain();
      const byToken = new Map<string, string[]>();
      for (const [id, p] of abandoned) byToken.set(p.token, [...(byToken.get(p.token) ?? []), id]);
      for (const [token, ids] of byToken) await webhooks.releaseEvents(db, token, ids).catch(() => {});
    },
    /** As a crash: nothing more recorded, attempts in flight aborted. */
    kill(): void {
      recorder.clear();
      for (const p of inFlight.values()) p.controller.abort();
    },
  };
}
