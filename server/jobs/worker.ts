// The jobs worker: moves outbox events into webhook events and delivers them. Any number of workers (processes
// or replicas) may share a database: outbox rows are taken with FOR UPDATE SKIP LOCKED and due events are leased
// (locked_until), so no two workers make the same attempt, and an attempt is marked done only once it is recorded —
// a worker that dies mid-delivery leaves a lease that expires, and the event is delivered again (same webhook-id).
//
// Three activities run side by side so none waits on another: the fan-out loop (outbox → events, woken by the
// outbox trigger's NOTIFY), the claim loop (due events → attempts in flight, up to `concurrency`), and the
// recorders (finished attempts → the delivery log, in batches). The fan-out also hands each batch of outbox events
// to the customer emails (billing/customer-emails), whose own loop sends the emails due, leased the same way.
import { randomUUID } from "node:crypto";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import type { Mailer } from "../mail/mailer.js";
import * as webhooks from "../billing/webhooks/service.js";
import { originOf } from "../billing/webhooks/address.js";
import { postWebhook } from "../billing/webhooks/sender.js";
import { signingKeys, signHeaders } from "../billing/webhooks/signing.js";
import * as customerEmails from "../billing/customer-emails/service.js";
import * as deliveries from "../billing/benefit-delivery/service.js";
import { regrantFromOutbox } from "../billing/subscriptions/product-benefits.js";
import { createCleanup } from "./cleanup.js";
import path from "node:path";
import * as invoices from "../billing/invoices/service.js";
import { localFileStorage } from "../billing/files/storage.js";
import { createInvoiceLoop } from "./invoices.js";
import { createRollupUpkeep } from "./rollups.js";
import * as stripeEvents from "../billing/stripe-events/service.js";
import { createStripeEventLoop } from "./stripe-events.js";

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
    /** With it, the worker sends customer emails (their links point here); without, it leaves them for one that does. */
    baseURL?: string;
    /** With it, the worker makes the invoice PDFs (stored under <dataDir>/files, billing/invoices). */
    dataDir?: string;
    /** Where github_repository and discord benefits are delivered (with `secret`, the worker delivers them). */
    benefits?: Config["benefits"];
    /** With it (and `secret`), the worker processes the Stripe events of connected organizations. */
    payments?: Pick<Config["payments"], "stripeApiUrl">;
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

/** A wake-up that is not lost when it comes while nobody waits. */
class Signal {
  private pending = false;
  private resolve: (() => void) | undefined;

  fire(): void {
    this.pending = true;
    this.resolve?.();
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = undefined;
        this.pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}

export function createWorker(deps: WorkerDeps): Worker {
  const opts = { ...DEFAULT_WORKER_OPTIONS, ...deps.options };
  if (deps.database.driver === "pglite") opts.recorders = 1;
  const db = deps.database.db;
  const log = deps.log ?? quietLog;
  const allowPrivate = deps.config.webhooks.allowPrivate;
  const { retentionDays } = deps.config.webhooks;
  const cleanup = retentionDays ? createCleanup({ database: deps.database, retentionDays, log }) : undefined;
  const rollupUpkeep = createRollupUpkeep({ db, log });

  let state: "idle" | "running" | "stopping" | "dead" = "idle";
  let loops: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | undefined;
  const fanOutSignal = new Signal();
  const mailSignal = new Signal();
  const baseURL = deps.config.baseURL;
  let mailLoopDone: Promise<void> = Promise.resolve();
  /**
   * Bumped by every stop: a mail loop (and its sends in hand) of an earlier run stops and records nothing once a
   * stop stopped waiting for it (their leases expire, and the emails are sent again with the same Message-ID).
   */
  let mailRun = 0;
  let mailed = 0;
  /** Records the customer emails of each fanned-out batch, and wakes the mail loop when there are new ones. */
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
  const subscribers: webhooks.OutboxSubscriber[] = [
    async (tx, rows) => {
      if ((await customerEmails.requestFromOutbox(tx, rows)) > 0) queueMicrotask(() => mailSignal.fire());
    },
    async (tx, rows) => {
      if ((await invoices.requestFromOutbox(tx, rows)) > 0) queueMicrotask(() => invoiceLoop?.wake());
    },
  ];
  // a product's benefits changed: its subscribers' grants follow (their events go out with the next batch)
  subscribers.push(async (tx, rows) => {
    const failed = (err: unknown, productId: string) => log.error(err, `re-granting the subscribers of product ${productId} failed`);
    if ((await regrantFromOutbox(tx, rows, failed)) > 0) queueMicrotask(() => fanOutSignal.fire());
  });
  subscribers.push(async (tx, rows) => {
    if ((await deliveries.requestFromOutbox(tx, rows)) > 0) queueMicrotask(() => deliverySignal.fire());
  });
  // Stripe's events recorded by the inbound endpoint (billing/stripe-events)
  const stripeLoop =
    deps.secret && deps.config.payments
      ? createStripeEventLoop({ db, secret: deps.secret, stripeApiUrl: deps.config.payments.stripeApiUrl, log, concurrency: 8, leaseMs: opts.leaseMs, pollIntervalMs: opts.pollIntervalMs })
      : undefined;
  subscribers.push(async (tx, rows) => {
    if ((await stripeEvents.requestFromOutbox(tx, rows)) > 0) queueMicrotask(() => stripeLoop?.wake());
  });
  const deliverySignal = new Signal();
  let deliveryLoopDone: Promise<void> = Promise.resolve();
  const deliveryDeps = deps.secret && deps.config.benefits ? { secret: deps.secret, services: deps.config.benefits } : undefined;
  const claimSignal = new Signal();
  /** The claim loop filled every slot and waits for room. */
  let waitingForRoom = false;
  const inFlight = new Map<string, { token: string; controller: AbortController; done: Promise<void> }>();
  let outcomes: webhooks.ClaimOutcome[] = [];
  let activeRecorders = 0;
  const recorded = new Set<Promise<void>>();
  let recordTimer: NodeJS.Timeout | undefined;
  const keyCache = new Map<string, Buffer[]>();
  let attempted = 0;

  function wake(): void {
    fanOutSignal.fire();
    claimSignal.fire();
    mailSignal.fire();
    invoiceLoop?.wake();
    deliverySignal.fire();
    stripeLoop?.wake();
  }

  function keysOf(secret: string): Buffer[] {
    let keys = keyCache.get(secret);
    if (!keys) {
      if (keyCache.size > 10_000) keyCache.clear();
      keys = signingKeys(secret);
      keyCache.set(secret, keys);
    }
    return keys;
  }

  // ---- recording ----------------------------------------------------------------------------------

  /** Starts recorders for what has finished: a full batch at once, else after a few ms to gather more. */
  function scheduleRecord(): void {
    if (outcomes.length >= opts.recordBatch) startRecorders();
    else if (!recordTimer) recordTimer = setTimeout(startRecorders, 10);
  }

  function startRecorders(): void {
    clearTimeout(recordTimer);
    recordTimer = undefined;
    while (outcomes.length > 0 && activeRecorders < opts.recorders && state !== "dead") {
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
    while (outcomes.length > 0 && state !== "dead") {
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
      for (const to of mail.to) await deps.mailer.send({ to, subject: mail.subject, text: mail.text });
    } catch (err) {
      log.error(err, `webhooks: could not tell the owners that endpoint ${d.id} was disabled`);
    }
  }

  // ---- attempts -----------------------------------------------------------------------------------

  function attempt(event: webhooks.ClaimedEvent, token: string): void {
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
      if (controller.signal.aborted || state === "dead") return;
      outcomes.push(outcome);
      scheduleRecord();
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
    while (state === "running") {
      let moved = 0;
      try {
        const token = randomUUID();
        const room = Math.max(0, opts.concurrency - inFlight.size);
        const fanned = await webhooks.fanOut(db, opts.fanOutBatch, { room, leaseMs: opts.leaseMs, token }, subscribers);
        moved = fanned.moved;
        if (state !== "running") {
          if (state === "stopping") await webhooks.releaseEvents(db, token, fanned.claimed.map((e) => e.id));
          break;
        }
        // what fitted goes out now; the claim loop takes the rest
        for (const e of fanned.claimed) attempt(e, token);
        if (moved > 0) claimSignal.fire();
      } catch (err) {
        if (state !== "running") break;
        log.error(err, "webhooks: fan-out failed");
      }
      if (state !== "running") break;
      if (moved < opts.fanOutBatch) await fanOutSignal.wait(opts.pollIntervalMs);
    }
  }

  async function claimLoop(): Promise<void> {
    while (state === "running") {
      const room = opts.concurrency - inFlight.size;
      if (room > 0) {
        try {
          const token = randomUUID();
          const events = await webhooks.claimDueEvents(db, room, opts.leaseMs, token);
          if (state !== "running") {
            // a stop that came while claiming gives the leases back; a crash (kill) does not
            if (state === "stopping") await webhooks.releaseEvents(db, token, events.map((e) => e.id));
            break;
          }
          for (const e of events) attempt(e, token);
          waitingForRoom = events.length === room;
        } catch (err) {
          if (state !== "running") break;
          log.error(err, "webhooks: claiming due events failed");
        }
      } else {
        waitingForRoom = true;
      }
      if (state !== "running") break;
      await claimSignal.wait(opts.pollIntervalMs);
    }
  }

  /**
   * Sends the customer emails due, up to mailConcurrency at once. An email is recorded as sent only after the
   * transport took it; a worker that dies in between leaves its lease to expire and the email is sent again
   * with the same Message-ID. A stop lets the emails in hand finish.
   */
  async function mailLoop(url: string, run: number): Promise<void> {
    const abandoned = () => run !== mailRun;
    while (state === "running" && !abandoned()) {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await customerEmails.claimDue(db, opts.mailConcurrency, opts.leaseMs, token);
        claimed = due.length;
        await Promise.all(
          due.map(async (email) => {
            let error: unknown;
            try {
              mailed += 1;
              await customerEmails.deliver(deps.mailer, email, url);
            } catch (err) {
              error = err ?? new Error("mail transport failed");
            }
            // a crash (kill), or a stop that stopped waiting, records nothing: the lease decides who sends again
            if (state === "dead" || abandoned()) return;
            if (error !== undefined) log.warn(`mail: could not send the ${email.type} email ${email.id}: ${String(error)}`);
            await customerEmails.record(db, email, token, error).catch((err: unknown) => log.error(err, `mail: could not record email ${email.id}`));
          }),
        );
      } catch (err) {
        if (state !== "running") break;
        log.error(err, "mail: claiming due customer emails failed");
      }
      if (state !== "running" || abandoned()) break;
      if (claimed < opts.mailConcurrency) await mailSignal.wait(opts.pollIntervalMs);
    }
  }

  /**
   * Runs the benefit deliveries due (billing/benefit-delivery), up to deliveryConcurrency at once, each recorded
   * by its lease holder; a stop lets the ones in hand finish, a crash leaves their leases to expire.
   */
  async function deliveryLoop(d: deliveries.DeliveryDeps): Promise<void> {
    while (state === "running") {
      let claimed = 0;
      try {
        const token = randomUUID();
        const due = await deliveries.claimDue(db, opts.deliveryConcurrency, opts.leaseMs, token);
        claimed = due.length;
        await Promise.all(
          due.map((delivery) =>
            deliveries.run(db, d, delivery, token).catch((err: unknown) => {
              if (state !== "dead") log.error(err, `benefits: delivery ${delivery.id} could not be recorded`);
            }),
          ),
        );
      } catch (err) {
        if (state !== "running") break;
        log.error(err, "benefits: claiming due deliveries failed");
      }
      if (state !== "running") break;
      if (claimed < opts.deliveryConcurrency) await deliverySignal.wait(opts.pollIntervalMs);
    }
  }

  return {
    get running() {
      return state === "running";
    },
    get attempted() {
      return attempted;
    },
    get mailed() {
      return mailed;
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
          unlisten = await deps.database.listen(webhooks.WAKE_CHANNEL, wake);
        } catch (err) {
          log.error(err, "webhooks: LISTEN failed; polling only");
        }
      }
      loops = Promise.all([fanOutLoop(), claimLoop()]).then(() => {});
      // not part of `loops`: a crash (kill) must not wait for a send in flight
      if (baseURL) mailLoopDone = mailLoop(baseURL, mailRun);
      if (deliveryDeps) deliveryLoopDone = deliveryLoop(deliveryDeps);
      cleanup?.start();
      invoiceLoop?.start();
      stripeLoop?.start();
      rollupUpkeep.start();
    },
    async stop() {
      if (state !== "running") return;
      state = "stopping";
      wake();
      await cleanup?.stop();
      await invoiceLoop?.stop();
      await stripeLoop?.stop();
      await rollupUpkeep.stop();
      await loops;
      // sends in hand may finish within the grace period; one hanging on a slow SMTP server does not hold the stop
      let graceTimer: NodeJS.Timeout | undefined;
      await Promise.race([mailLoopDone, new Promise<void>((r) => (graceTimer = setTimeout(r, opts.stopGraceMs)))]);
      clearTimeout(graceTimer);
      mailRun += 1;
      await Promise.race([deliveryLoopDone, new Promise<void>((r) => (graceTimer = setTimeout(r, opts.stopGraceMs)))]);
      clearTimeout(graceTimer);
      const pending = [...inFlight.values()];
      await Promise.race([Promise.all(pending.map((p) => p.done)), new Promise((r) => setTimeout(r, opts.stopGraceMs))]);
      const abandoned = [...inFlight.entries()];
      for (const [, p] of abandoned) p.controller.abort();
      await Promise.all(abandoned.map(([, p]) => p.done));
      await drainRecords();
      const byToken = new Map<string, string[]>();
      for (const [id, p] of abandoned) byToken.set(p.token, [...(byToken.get(p.token) ?? []), id]);
      for (const [token, ids] of byToken) await webhooks.releaseEvents(db, token, ids).catch(() => {});
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
      clearTimeout(recordTimer);
      outcomes = [];
      for (const p of inFlight.values()) p.controller.abort();
      await loops.catch(() => {});
      await unlisten?.().catch(() => {});
    },
  };
}
