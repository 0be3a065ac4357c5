// A job that runs a pass on a timer (the meter rollups' upkeep, the retention cleanup): its first pass `firstMs`
// after start, each next one `everyMs` after the last ended, so passes never overlap. A stop aborts the pass's
// signal and waits for it; a start after a stop begins again. `periodicJob` makes such a loop a worker's job from
// a plain object, as `leasedJob` does for a loop over leased rows.
import type { Job, JobContext } from "./job.js";

export interface PeriodicSpec {
  /** From start to the first pass. */
  firstMs: number;
  /** From the end of a pass to the next. */
  everyMs: number;
  /** Whether its timer may let the process exit (a pass an hour away must not hold it). */
  unref?: boolean;
  log: { error(obj: unknown, msg?: string): void };
  /** What the log says when a pass throws. */
  failure: string;
  /** One pass; `signal` aborts when the loop stops. */
  pass(signal: AbortSignal): Promise<unknown>;
}

export interface Periodic {
  start(): void;
  /** Schedules nothing more; a pass in progress sees its signal aborted and is waited for. */
  stop(): Promise<void>;
}

export function periodic(spec: PeriodicSpec): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let abort: AbortController | undefined;
  // each start has its own controller: a pass of an earlier start that ends late schedules nothing more
  const schedule = (ms: number, signal: AbortSignal) => {
    timer = setTimeout(() => {
      running = spec
        .pass(signal)
        .then(() => undefined, (err: unknown) => spec.log.error(err, spec.failure))
        .finally(() => {
          running = undefined;
          if (!signal.aborted) schedule(spec.everyMs, signal);
        });
    }, ms);
    if (spec.unref) timer.unref();
  };
  return {
    start() {
      if (abort && !abort.signal.aborted) return;
      abort = new AbortController();
      schedule(spec.firstMs, abort.signal);
    },
    async stop() {
      abort?.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

/** A periodic loop as a worker's job: how often is the object's; `pass` is undefined where the worker lacks a part. */
export function periodicJob(spec: {
  name: string;
  firstMs: number;
  everyMs: number;
  unref?: boolean;
  failure: string;
  pass(ctx: JobContext): ((signal: AbortSignal) => Promise<unknown>) | undefined;
}): Job {
  return {
    name: spec.name,
    create(ctx) {
      const pass = spec.pass(ctx);
      if (!pass) return undefined;
      const loop = periodic({ ...spec, log: ctx.log, pass });
      return {
        start: () => loop.start(),
        wake() {},
        stop: () => loop.stop(),
        // a crash does not wait for a pass in progress
        kill: () => void loop.stop(),
      };
    },
  };
}
