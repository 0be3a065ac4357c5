// The jobs worker: runs every domain's jobs (server/jobs/registry.ts) — webhook delivery with the outbox's
// fan-out, customer emails, invoice PDFs, benefit deliveries, processor events, the rollups' upkeep, the
// retention cleanup. Any number of workers (processes or replicas) may share a database: outbox rows are taken
// with FOR UPDATE SKIP LOCKED and due work is leased, so no two workers do the same job.
//
// The fan-out hands each batch of outbox events to the registry's subscribers (each domain exports its own in its
// jobs.ts), which record their jobs in its transaction; after the commit the worker wakes the job doing them.
import type { Database } from "../db/client.js";
import type { Mailer } from "../mail/mailer.js";
import { WAKE_CHANNEL } from "../db/outbox.js";
import { createPaymentProcessor } from "../payments/index.js";
import { DEFAULT_WORKER_OPTIONS } from "../tasks/job.js";
import type { FanOutSubscriber, JobContext, JobRun, WorkerConfig, WorkerCounter } from "../tasks/job.js";
import type { WorkerLog, WorkerOptions, WorkerState } from "../tasks/job.js";
import { JOBS, SUBSCRIBERS } from "./registry.js";

export { DEFAULT_WORKER_OPTIONS, type WorkerLog, type WorkerOptions };

export interface WorkerDeps {
  database: Database;
  mailer: Mailer;
  /** With webhooks.retentionDays, the worker also runs the retention cleanup (jobs/cleanup.ts) while it runs. */
  config: WorkerConfig;
  /** The server secret: unseals the credentials benefit deliveries and Stripe events use. */
  secret?: string;
  log?: WorkerLog;
  options?: Partial<WorkerOptions>;
}

export interface Worker {
  start(): Promise<void>;
  /** Stops claiming, lets attempts in flight finish (up to stopGraceMs), records them, gives back the rest. */
  stop(): Promise<void>;
  /** Stops as a crash would: nothing more is recorded or given back (tests of durability). */
  kill(): Promise<void>;
  /** Look for work now (e.g. after moving next_attempt_at in a test). */
  wake(): void;
  readonly running: boolean;
  /** Attempts this worker made (recorded or not). */
  readonly attempted: number;
  /** Customer emails this worker handed to the mail transport (recorded or not). */
  readonly mailed: number;
  /** Invoices and credit notes this worker made. */
  readonly invoiced: number;
  /** Each loop's last turn (Date.now()), while the worker runs: the readiness check and the metrics read them. */
  heartbeats(): Array<{ loop: string; at: number }>;
}

const quietLog: WorkerLog = { info() {}, warn() {}, error() {} };

export function createWorker(deps: WorkerDeps): Worker {
  const opts = { ...DEFAULT_WORKER_OPTIONS, ...deps.options };
  if (deps.database.driver === "pglite") opts.recorders = 1;
  const log = deps.log ?? quietLog;
  const { secret, config } = deps;
  const payments = secret && config.payments ? { secret, stripeApiUrl: config.payments.stripeApiUrl } : undefined;
  let state: WorkerState = "idle";
  let unlisten: (() => Promise<void>) | undefined;
  const beats = new Map<string, number>();

  // the jobs this worker does (a job lacking what it needs, a secret or a base URL, is left to another worker)
  const runs = new Map<string, { run: JobRun; counter: WorkerCounter | undefined }>();
  const all = () => [...runs.values()].map((r) => r.run);
  const counted = (counter: WorkerCounter) =>
    [...runs.values()].reduce((n, r) => n + (r.counter === counter ? (r.run.count ?? 0) : 0), 0);
  const fanOut: FanOutSubscriber[] = [];
  const ctx: JobContext = {
    database: deps.database,
    db: deps.database.db,
    mailer: deps.mailer,
    config,
    secret,
    opts,
    log,
    state: () => state,
    processor: createPaymentProcessor({ testInLive: config.payments?.testInLive ?? false }, payments),
    fanOut,
    beat: (loop) => void beats.set(loop, Date.now()),
  };
  // each subscriber that recorded jobs wakes the job doing them after the commit; one without, the fan-out
  for (const s of SUBSCRIBERS) {
    const subscriber = s.subscriber(ctx);
    const wakeAfter = () => (s.wakes ? runs.get(s.wakes)?.run.wake() : all().forEach((r) => r.wakeFanOut?.()));
    fanOut.push(async (tx, rows) => {
      if ((await subscriber.receive(tx, rows, log)) > 0) queueMicrotask(wakeAfter);
    });
  }
  for (const job of JOBS) {
    const run = job.create(ctx);
    if (run) runs.set(job.name, { run, counter: job.counter });
  }
  const wake = () => all().forEach((r) => r.wake());

  return {
    get running() {
      return state === "running";
    },
    get attempted() {
      return counted("attempted");
    },
    get mailed() {
      return counted("mailed");
    },
    get invoiced() {
      return counted("invoiced");
    },
    wake,
    heartbeats: () => (state === "running" ? [...beats].map(([loop, at]) => ({ loop, at })) : []),
    async start() {
      if (state === "running") return;
      state = "running";
      if (deps.database.listen) {
        try {
          unlisten = await deps.database.listen(WAKE_CHANNEL, wake);
        } catch (err) {
          log.error(err, "webhooks: LISTEN failed; polling only");
        }
      }
      for (const run of all()) run.start();
    },
    // in the reverse order of the start: webhook delivery, whose fan-out wakes the others, stops last
    async stop() {
      if (state !== "running") return;
      state = "stopping";
      wake();
      for (const run of all().reverse()) await run.stop();
      await unlisten?.().catch(() => {});
      beats.clear();
      state = "idle";
    },
    async kill() {
      state = "dead";
      wake();
      await Promise.all(all().reverse().map((run) => run.kill()));
      await unlisten?.().catch(() => {});
    },
  };
}
