// What a job is to the worker (server/jobs/worker.ts): each domain exports its loops as `Job` objects (and the
// outbox subscribers that record their work, and its schedules) in its `jobs.ts`; server/jobs/registry.ts lists
// those files, and the worker builds, starts, wakes, stops and kills whatever the registry holds. This module is
// a platform leaf: domains import it, it imports no domain.
import type { Config } from "../config.js";
import type { Database, Db, Queryable } from "../db/client.js";
import type { OutboxSubscriber } from "../db/outbox.js";
import type { outbox } from "../db/schema/index.js";
import type { Mailer } from "../mail/mailer.js";
import type { PaymentProcessor } from "../payments/processor.js";

export interface WorkerOptions {
  /** How often to look for due work when no notification arrives (retries come due this way). */
  pollIntervalMs: number;
  /** How long a claimed event stays leased; must exceed the request timeout. */
  leaseMs: number;
  /** The whole HTTP attempt, connection to last byte. */
  timeoutMs: number;
  /** Attempts in flight at once. */
  concurrency: number;
  /** Outbox rows moved per transaction. */
  fanOutBatch: number;
  /** Outcomes recorded per transaction. */
  recordBatch: number;
  /** Recording transactions at once (1 on PGlite, which has one connection). */
  recorders: number;
  /** Events in a row that use up all their attempts before an endpoint is disabled. */
  disableAfterFailedEvents: number;
  /** On stop: how long attempts in flight may finish before they are abandoned (their leases given back). */
  stopGraceMs: number;
  /** Customer emails sent at once. */
  mailConcurrency: number;
  /** Invoice PDFs made at once (billing/invoices/jobs.ts). */
  invoiceConcurrency: number;
  /** Benefit deliveries (GitHub invitations, Discord roles) run at once. */
  deliveryConcurrency: number;
}

export const DEFAULT_WORKER_OPTIONS: WorkerOptions = {
  pollIntervalMs: 1_000,
  leaseMs: 60_000,
  timeoutMs: 10_000,
  concurrency: 64,
  fanOutBatch: 500,
  recordBatch: 250,
  recorders: 2,
  disableAfterFailedEvents: 5,
  stopGraceMs: 3_000,
  mailConcurrency: 8,
  invoiceConcurrency: 2,
  deliveryConcurrency: 8,
};

export interface WorkerLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(obj: unknown, msg?: string): void;
}

/**
 * What a worker's loop sees of the worker: running; stopping (finish what is in hand); dead (a crash: record nothing).
 */
export type WorkerState = "idle" | "running" | "stopping" | "dead";

/** The configuration the worker's jobs read; a job whose part is missing is not run by this worker. */
export type WorkerConfig = {
  webhooks: Pick<Config["webhooks"], "allowPrivate"> & Partial<Pick<Config["webhooks"], "retentionDays">>;
  /** Usage events' months kept (TILL_EVENT_RETENTION); absent, all. */
  events?: { retentionMonths?: number | undefined };
  /** With it, the worker sends customer emails (their links point here); without, it leaves them for one that does. */
  baseURL?: string;
  /** With it, the worker makes the invoice PDFs (stored under <dataDir>/files, billing/invoices). */
  dataDir?: string;
  /** Where github_repository and discord benefits are delivered (with `secret`, the worker delivers them). */
  benefits?: Config["benefits"];
  /** With it (and `secret`), the worker processes the Stripe events of connected organizations. */
  payments?: Pick<Config["payments"], "stripeApiUrl"> & Partial<Pick<Config["payments"], "testInLive" | "stripeImportRate">>;
};

/** An outbox row as the fan-out hands it to the subscribers. */
export type OutboxRecord = typeof outbox.$inferSelect;

/** An outbox subscriber as the fan-out calls it. */
export type FanOutSubscriber = (tx: Queryable, rows: OutboxRecord[]) => Promise<void>;

/** What the worker gives each job when it builds it. */
export interface JobContext {
  database: Database;
  db: Db;
  mailer: Mailer;
  config: WorkerConfig;
  /** The server secret: unseals the credentials some jobs use (benefit deliveries, Stripe events). */
  secret: string | undefined;
  opts: WorkerOptions;
  log: WorkerLog;
  /** The worker's state, read by loops that stop with it rather than with their own stop. */
  state(): WorkerState;
  /** Charges made from the worker (wallets' auto-recharge): the test processor, an organization's Stripe account. */
  processor: PaymentProcessor;
  /** The outbox subscribers, in order, as the fan-out runs them in its transaction (each wakes its job after). */
  fanOut: readonly FanOutSubscriber[];
  /** A loop of the job says it is alive, once a turn (the readiness check and the metrics read the heartbeats). */
  beat(loop: string): void;
}

/** The counts a worker reports (tests and benches read them). */
export type WorkerCounter = "attempted" | "mailed" | "invoiced";

/** A job built for one worker. */
export interface JobRun {
  start(): void;
  /** Look for work now. */
  wake(): void;
  /** The worker is stopping: finish what is in hand (each job within its own bound). */
  stop(): Promise<void>;
  /** A crash: nothing more recorded; the returned promise ends when the job's loops have. */
  kill(): Promise<void> | void;
  /** Only the job hosting the outbox fan-out (webhook delivery): moves the outbox now. */
  wakeFanOut?(): void;
  /** What it counted, reported as the worker's `counter`. */
  readonly count?: number;
}

/** A loop the worker runs beside the others. */
export interface Job {
  /** Its name (the registry's key; subscribers name the job they wake). */
  readonly name: string;
  readonly counter?: WorkerCounter;
  /** Builds the job for one worker, or undefined when the worker lacks what it needs (a secret, a base URL). */
  create(ctx: JobContext): JobRun | undefined;
}

/**
 * An outbox subscriber (db/outbox.ts) and the job doing what it records; without `wakes`, what it records are
 * outbox events the fan-out's next batch takes.
 */
export interface JobSubscriber {
  subscriber(ctx: JobContext): OutboxSubscriber<OutboxRecord>;
  wakes?: string;
}

/** A periodic pass over due rows (renewals, dunning retries, checkout expiries); `Pass` says what it is given. */
export interface Schedule<Pass> {
  readonly name: string;
  run(pass: Pass): Promise<unknown>;
}
