// A worker loop over leased rows (customer emails, benefit deliveries, invoice documents, processor events):
// claims up to `concurrency` due rows under a fresh lease token, works them off, and sleeps `pollIntervalMs`
// when a claim came back short, unless woken. A worker that dies mid-way leaves its lease to expire and the rows
// are claimed again (the work is safe to redo). `leasedJob` makes such a loop a worker's job from a plain object.
import { randomUUID } from "node:crypto";
import type { Job, JobContext, WorkerCounter } from "./job.js";
import { Signal, within } from "./signal.js";

/** What a loop's work sees of its turn (one start to its stop). */
export interface InHand {
  /** The loop still claims: neither stopped nor killed, and (with `active`) its worker still running. */
  running(): boolean;
  /** A crash (kill): what is in hand is not recorded; the leases decide who does it again. */
  killed(): boolean;
  /** A stop stopped waiting for what is in hand (`stopGraceMs`): it is not recorded either. */
  abandoned(): boolean;
  /** Counts one piece of work (the loop's `count`). */
  count(): void;
}

export interface LeaseLoopSpec<R> {
  concurrency: number;
  pollIntervalMs: number;
  log: { error(obj: unknown, msg?: string): void };
  /** What the log says when a pass fails. */
  failure: string;
  /** Leases up to `concurrency` due rows to `token`. */
  claim(token: string): Promise<R[]>;
  /** Works off the rows leased to `token`. */
  work(rows: R[], token: string, hand: InHand): Promise<void>;
  /** Besides its own stop, the loop claims only while this holds (its worker's state is running). */
  active?(): boolean;
  /** A stop waits this long for the rows in hand, then abandons them; without, it waits until they are done. */
  stopGraceMs?: number;
  /** Called at each turn: the loop is alive (the worker's heartbeats). */
  beat?(): void;
}

export interface LeaseLoop {
  start(): void;
  /** Lets the rows in hand finish (within `stopGraceMs`, if given). */
  stop(): Promise<void>;
  /** Stops at once (a crash): what is in hand is not recorded. */
  kill(): void;
  wake(): void;
  /** What the work counted, every turn. */
  readonly count: number;
}

interface Turn {
  running: boolean;
  killed: boolean;
  abandoned: boolean;
}

export function createLeaseLoop<R>(spec: LeaseLoopSpec<R>): LeaseLoop {
  const signal = new Signal();
  let turn: Turn | undefined;
  let done: Promise<void> = Promise.resolve();
  let count = 0;

  async function loop(t: Turn): Promise<void> {
    const hand: InHand = {
      running: () => t.running && (spec.active?.() ?? true),
      killed: () => t.killed,
      abandoned: () => t.abandoned,
      count: () => void (count += 1),
    };
    while (hand.running()) {
      spec.beat?.();
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await spec.claim(token);
        claimed = due.length;
        await spec.work(due, token, hand);
      } catch (err) {
        if (!hand.running()) break;
        spec.log.error(err, spec.failure);
      }
      if (!hand.running()) break;
      if (claimed < spec.concurrency) await signal.wait(spec.pollIntervalMs);
    }
  }

  return {
    start() {
      if (turn?.running) return;
      turn = { running: true, killed: false, abandoned: false };
      done = loop(turn);
    },
    async stop() {
      const t = turn;
      if (!t) return;
      t.running = false;
      signal.fire();
      if (spec.stopGraceMs === undefined) return done;
      // one hanging (a send to a slow SMTP server) does not hold the stop: it records nothing once abandoned
      await within(done, spec.stopGraceMs);
      t.abandoned = true;
    },
    kill() {
      if (turn) Object.assign(turn, { running: false, killed: true });
      signal.fire();
    },
    wake: () => signal.fire(),
    get count() {
      return count;
    },
  };
}

/** A lease the loop took: up to `limit` rows for `leaseMs`, to `token`. */
export interface Lease {
  token: string;
  limit: number;
  leaseMs: number;
}

/** A worker's job over leased rows, as a plain object. `Env` is what it needs of the worker. */
export interface LeasedJob<R, Env> {
  readonly name: string;
  readonly counter?: WorkerCounter;
  /** What the log says when a claim (or a pass) fails. */
  readonly failure: string;
  /** Rows claimed and worked at once. */
  concurrency(ctx: JobContext): number;
  /**
   * Sends that may hang (mail, third-party APIs): the loop claims only while the worker runs, and a stop waits
   * stopGraceMs at most for what is in hand. Otherwise the loop claims until its own stop, which waits for it.
   */
  readonly stopsWithWorker?: boolean;
  /** What the job needs of the worker, or undefined when the worker lacks it (the job does not run there). */
  env(ctx: JobContext): Env | undefined;
  claim(env: Env, lease: Lease): Promise<R[]>;
  work(env: Env, rows: R[], token: string, hand: InHand): Promise<void>;
}

/** The job that runs `job`'s loop every `pollIntervalMs` (when not woken). */
export function leasedJob<R, Env>(job: LeasedJob<R, Env>): Job {
  return {
    name: job.name,
    ...(job.counter ? { counter: job.counter } : {}),
    create(ctx) {
      const env = job.env(ctx);
      if (env === undefined) return undefined;
      const limit = job.concurrency(ctx);
      const { leaseMs, pollIntervalMs, stopGraceMs } = ctx.opts;
      const loop = createLeaseLoop<R>({
        concurrency: limit,
        pollIntervalMs,
        log: ctx.log,
        failure: job.failure,
        claim: (token) => job.claim(env, { token, limit, leaseMs }),
        work: (rows, token, hand) => job.work(env, rows, token, hand),
        ...(job.stopsWithWorker ? { active: () => ctx.state() === "running", stopGraceMs } : {}),
        beat: () => ctx.beat(job.name),
      });
      return loop;
    },
  };
}
