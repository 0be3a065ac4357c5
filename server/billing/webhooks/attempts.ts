// The webhook deliveries' attempts in flight: each claimed event is signed and posted, and its outcome handed to
// the recorders (recorder.ts). A stop lets the attempts finish within a grace, abandons the rest and gives their
// leases back; a crash (kill) aborts them and records nothing.
import { openStored } from "../../seal.js";
import type { WorkerOptions } from "../../tasks/job.js";
import { createRecorder, type RecorderDeps } from "./recorder.js";
import { postWebhook } from "./sender.js";
import * as service from "./delivery.js";
import { signingKeys, signHeaders } from "./signing.js";
import type { ClaimedEvent } from "./wire.js";
import { webhookDeliveries, webhookDuration } from "../../metrics/registry.js";

export interface AttemptsDeps extends RecorderDeps {
  opts: RecorderDeps["opts"] & Pick<WorkerOptions, "concurrency" | "timeoutMs">;
  allowPrivate: boolean;
}

/** `onRoom`: the claim loop waited for room (`waitForRoom`) and half of the slots are free again. */
export function createAttempts(c: AttemptsDeps, onRoom: () => void) {
  const { opts } = c;
  const inFlight = new Map<string, { token: string; controller: AbortController; done: Promise<void> }>();
  const keyCache = new Map<string, Buffer[]>();
  const recorder = createRecorder(c);
  /** The claim loop filled every slot and waits for room. */
  let waitingForRoom = false;
  let attempted = 0;

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

  function attempt(event: ClaimedEvent, token: string): void {
    const controller = new AbortController();
    const done = (async () => {
      let outcome: service.ClaimOutcome;
      if (!event.enabled) {
        outcome = { kind: "skipped", event, token };
      } else {
        const headers = signHeaders(keysOf(event.secret), event.id, event.payload);
        attempted += 1;
        const result = await postWebhook(event.url, { ...headers }, event.payload, {
          timeoutMs: opts.timeoutMs,
          allowPrivate: c.allowPrivate,
          signal: controller.signal,
        });
        outcome = { kind: "attempt", event, token, result };
        const last = result.httpCode === 410 || event.attempts + 1 >= service.MAX_ATTEMPTS;
        webhookDeliveries.inc({ outcome: result.succeeded ? "sent" : last ? "failed" : "retrying" });
        webhookDuration.observe(result.durationMs / 1000);
      }
      // abandoned (stop) or crashed (kill): not recorded; the lease decides who tries again
      if (controller.signal.aborted || c.state() === "dead") return;
      recorder.push(outcome);
    })().finally(() => {
      inFlight.delete(event.id);
      // the claim loop waits for room only when it filled every slot: wake it once half are free again
      if (waitingForRoom && inFlight.size <= opts.concurrency / 2) {
        waitingForRoom = false;
        onRoom();
      }
    });
    inFlight.set(event.id, { token, controller, done });
  }

  return {
    attempt,
    /** Attempts made (recorded or not). */
    get attempted() {
      return attempted;
    },
    /** Slots free for more attempts. */
    get room() {
      return opts.concurrency - inFlight.size;
    },
    waitForRoom(waiting: boolean): void {
      waitingForRoom = waiting;
    },
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
      for (const [token, ids] of byToken) await service.releaseEvents(c.db, token, ids).catch(() => {});
    },
    /** As a crash: nothing more recorded, attempts in flight aborted. */
    kill(): void {
      recorder.clear();
      for (const p of inFlight.values()) p.controller.abort();
    },
  };
}
