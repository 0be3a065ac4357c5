// The jobs worker: moves outbox events into webhook events and delivers them (webhook-delivery.ts), and runs the
// loops beside it. Any number of workers (processes or replicas) may share a database: outbox rows are taken
// with FOR UPDATE SKIP LOCKED and due work is leased, so no two workers do the same job.
//
// The fan-out hands each batch of outbox events to the outbox's subscribers (jobs/subscribers.ts: each domain
// exports its own), which record their jobs — customer emails (mail-loop.ts), invoice PDFs (invoices.ts), benefit
// deliveries (delivery-loop.ts), a product's subscribers re-granted — and the worker wakes the loop doing them.
import path from "node:path";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import type { Mailer } from "../mail/mailer.js";
import { WAKE_CHANNEL } from "../db/outbox.js";
import { localFileStorage } from "../billing/files/storage.js";
import { createCleanup } from "./cleanup.js";
import { createDeliveryLoop } from "./delivery-loop.js";
import { createInvoiceLoop } from "./invoices.js";
import { createMailLoop } from "./mail-loop.js";
import { createRollupUpkeep } from "./rollups.js";
import { createStripeEventLoop } from "./stripe-events.js";
import type { WorkerState } from "./signal.js";
import { fanOutSubscribers } from "./subscribers.js";
import { createPaymentProcessor } from "../payments/index.js";
import { createWebhookDelivery } from "./webhook-delivery.js";

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
  /** Invoice PDFs made at once (jobs/invoices.ts). */
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

export interface WorkerDeps {
  database: Database;
  mailer: Mailer;
  /** With retentionDays, the worker also runs the retention cleanup (jobs/cleanup.ts) while it runs. */
  config: { webhooks: Pick<Config["webhooks"], "allowPrivate"> & Partial<Pick<Config["webhooks"], "retentionDays">> } & {
    /** Usage events' months kept (TILL_EVENT_RETENTION); absent, all. */
    events?: { retentionMonths?: number | undefined };
    /** With it, the worker sends customer emails (their links point here); without, it leaves them for one that does. */
    baseURL?: string;
    /** With it, the worker makes the invoice PDFs (stored under <dataDir>/files, billing/invoices). */
    dataDir?: string;
    /** Where github_repository and discord benefits are delivered (with `secret`, the worker delivers them). */
    benefits?: Config["benefits"];
    /** With it (and `secret`), the worker processes the Stripe events of connected organizations. */
    payments?: Pick<Config["payments"], "stripeApiUrl"> & Partial<Pick<Config["payments"], "testInLive">>;
  };
  /** The server secret: unseals the credentials benefit deliveries use. */
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
}

const quietLog: WorkerLog = { info() {}, warn() {}, error() {} };

export function createWorker(deps: WorkerDeps): Worker {
  const opts = { ...DEFAULT_WORKER_OPTIONS, ...deps.options };
  if (deps.database.driver === "pglite") opts.recorders = 1;
  const db = deps.database.db;
  const log = deps.log ?? quietLog;
  const { retentionDays } = deps.config.webhooks;
  const eventRetentionMonths = deps.config.events?.retentionMonths;
  const cleanup = retentionDays ? createCleanup({ database: deps.database, retentionDays, eventRetentionMonths, log }) : undefined;
  const rollupUpkeep = createRollupUpkeep({ db, log });

  let state: WorkerState = "idle";
  const stateOf = () => state;
  let loops: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | undefined;
  const invoiceLoop = deps.config.dataDir
    ? createInvoiceLoop({
        db,
        storage: localFileStorage(path.join(deps.config.dataDir, "files")),
        log,
        concurrency: opts.invoiceConcurrency,
        leaseMs: opts.leaseMs,
        pollIntervalMs: opts.pollIntervalMs,
      })
    : undefined;
  const mail = createMailLoop({ db, mailer: deps.mailer, baseURL: deps.config.baseURL, opts, log, state: stateOf });
  const delivery = createDeliveryLoop({
    db,
    delivery: deps.secret && deps.config.benefits ? { secret: deps.secret, services: deps.config.benefits } : undefined,
    opts,
    log,
    state: stateOf,
  });
  // Stripe's events recorded by the inbound endpoint (billing/stripe-events)
  const stripeLoop =
    deps.secret && deps.config.payments
      ? createStripeEventLoop({
          db,
          secret: deps.secret,
          stripeApiUrl: deps.config.payments.stripeApiUrl,
          baseURL: deps.config.baseURL ?? "",
          log,
          concurrency: 8,
          leaseMs: opts.leaseMs,
          pollIntervalMs: opts.pollIntervalMs,
        })
      : undefined;
  const subscribers = fanOutSubscribers(
    {
      "customer-emails": () => mail.wake(),
      invoices: () => invoiceLoop?.wake(),
      // a product's benefits changed: its subscribers' grants follow (their events go out with the next batch)
      "product-benefits": () => hooks.wakeFanOut(),
      "benefit-delivery": () => delivery.wake(),
      "stripe-events": () => stripeLoop?.wake(),
      // a wallet credited or recharged: its events go out with the next batch
      wallets: () => hooks.wakeFanOut(),
    },
    log,
    // the wallets' auto-recharge charges as the renewals do: the test processor, an organization's Stripe account
    createPaymentProcessor(
      { testInLive: deps.config.payments?.testInLive ?? false },
      deps.secret && deps.config.payments ? { secret: deps.secret, stripeApiUrl: deps.config.payments.stripeApiUrl } : undefined,
    ),
  );
  const hooks = createWebhookDelivery({ db, mailer: deps.mailer, opts, log, allowPrivate: deps.config.webhooks.allowPrivate, state: stateOf, subscribers });

  function wake(): void {
    hooks.wake();
    mail.wake();
    invoiceLoop?.wake();
    delivery.wake();
    stripeLoop?.wake();
  }

  return {
    get running() {
      return state === "running";
    },
    get attempted() {
      return hooks.attempted;
    },
    get mailed() {
      return mail.mailed;
    },
    get invoiced() {
      return invoiceLoop?.generated ?? 0;
    },
    wake,
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
      loops = hooks.loops();
      // not part of `loops`: a crash (kill) must not wait for a send in flight
      mail.start();
      delivery.start();
      stripeLoop?.start();
      cleanup?.start();
      invoiceLoop?.start();
      rollupUpkeep.start();
    },
    async stop() {
      if (state !== "running") return;
      state = "stopping";
      wake();
      await cleanup?.stop();
      await invoiceLoop?.stop();
      await rollupUpkeep.stop();
      await loops;
      await mail.stop(opts.stopGraceMs);
      await delivery.stop(opts.stopGraceMs);
      await stripeLoop?.stop();
      await hooks.settle(opts.stopGraceMs);
      await unlisten?.().catch(() => {});
      state = "idle";
    },
    async kill() {
      state = "dead";
      wake();
      void cleanup?.stop();
      invoiceLoop?.kill();
      stripeLoop?.kill();
      void rollupUpkeep.stop();
      hooks.kill();
      await loops.catch(() => {});
      await unlisten?.().catch(() => {});
    },
  };
}
