// A worker loop over leased rows (invoice documents, Stripe events): claims up to `concurrency` due rows under a
// fresh lease token, works them off, and sleeps `pollIntervalMs` when a claim came back short, unless woken. A
// worker that dies mid-way leaves its lease to expire and the rows are claimed again (the work is safe to redo).
import { randomUUID } from "node:crypto";

export interface LeaseLoopSpec<R> {
  concurrency: number;
  pollIntervalMs: number;
  log: { error(obj: unknown, msg?: string): void };
  /** What the log says when a pass fails. */
  failure: string;
  /** Leases up to `concurrency` due rows to `token`. */
  claim(token: string): Promise<R[]>;
  /** Works off the rows leased to `token`; `running()` turns false once the loop is stopped or killed. */
  work(rows: R[], token: string, running: () => boolean): Promise<void>;
}

export interface LeaseLoop {
  start(): void;
  /** Lets the rows in hand finish. */
  stop(): Promise<void>;
  /** Stops at once (a crash): what is in hand is not recorded. */
  kill(): void;
  wake(): void;
}

export function createLeaseLoop<R>(spec: LeaseLoopSpec<R>): LeaseLoop {
  let running = false;
  let done: Promise<void> = Promise.resolve();
  let pending = false;
  let wakeUp: (() => void) | undefined;
  const isRunning = () => running;

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
        const due = await spec.claim(token);
        claimed = due.length;
        await spec.work(due, token, isRunning);
      } catch (err) {
        if (!running) break;
        spec.log.error(err, spec.failure);
      }
      if (!running) break;
      if (claimed < spec.concurrency) await wait(spec.pollIntervalMs);
    }
  }

  return {
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
