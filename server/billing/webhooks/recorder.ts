// The webhook deliveries' recorders: finished attempts go to the delivery log in batches (an attempt is marked
// done only once it is recorded, so a worker that dies first leaves a lease that expires and the event is
// delivered again); an endpoint disabled by them is told to its owners.
import type { Db } from "../../db/client.js";
import type { Mailer } from "../../mail/mailer.js";
import type { WorkerLog, WorkerOptions, WorkerState } from "../../tasks/job.js";
import { originOf } from "./address.js";
import * as service from "./delivery.js";

export interface RecorderDeps {
  db: Db;
  mailer: Mailer;
  opts: Pick<WorkerOptions, "recordBatch" | "recorders" | "disableAfterFailedEvents">;
  log: WorkerLog;
  state(): WorkerState;
}

/**
 * The recorders: finished attempts go to the delivery log in batches of recordBatch (a full batch at once, else
 * after a few ms to gather more), up to `recorders` transactions at once; an endpoint disabled by them is told to
 * its owners.
 */
export function createRecorder(c: RecorderDeps) {
  const { db, opts, log } = c;
  const stateOf = c.state;
  let outcomes: service.ClaimOutcome[] = [];
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
  async function recordWithFallback(batch: service.ClaimOutcome[]): Promise<service.DisabledEndpoint[]> {
    const record = (list: service.ClaimOutcome[]) =>
      service.recordOutcomes(db, list, { disableAfterFailedEvents: opts.disableAfterFailedEvents });
    try {
      return await record(batch);
    } catch (err) {
      if (batch.length === 1) {
        const one = batch[0]!;
        // its endpoint was deleted meanwhile: nothing left to record
        if (!(await service.eventExists(db, one.event.id).catch(() => true))) return [];
        // else it stays leased and is attempted again once the lease expires
        log.error(err, `webhooks: could not record the attempt of event ${one.event.id}`);
        return [];
      }
      const out: service.DisabledEndpoint[] = [];
      for (const one of batch) out.push(...(await recordWithFallback([one])));
      return out;
    }
  }

  async function tellOwners(d: service.DisabledEndpoint): Promise<void> {
    try {
      const mail = await service.disabledEndpointMail(db, d, opts.disableAfterFailedEvents);
      log.warn(`webhooks: endpoint ${d.id} (${originOf(d.url)}) disabled (${d.reason})`);
      for (const to of mail.to) await c.mailer.send({ to, subject: mail.subject, text: mail.text });
    } catch (err) {
      log.error(err, `webhooks: could not tell the owners that endpoint ${d.id} was disabled`);
    }
  }

  return {
    push(outcome: service.ClaimOutcome): void {
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
