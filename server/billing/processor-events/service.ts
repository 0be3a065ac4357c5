// Processing the events of sellers' processor accounts. The processor's inbound endpoint records each verified
// event once together with an outbox row (payments/stripe/webhook.ts); the worker's fan-out hands that row to
// requestFromOutbox, which makes the event due in the same transaction; the worker's event loop leases due events
// and has each one read by the processor's adapter (ProcessorAccounts.openEvent) and acted on by the handler of its
// kind (handlers.ts), oldest first. A handler failing, or the processor unreachable, leaves the event to be tried
// again with backoff (then given up, its error kept); a crash leaves the lease to expire. A redelivered event was
// never recorded twice, so it is never processed twice.
//
// Functions taking `Db` open their own transactions; `Queryable` joins the caller's.
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { PROCESSOR_EVENT_OUTBOX_TYPE, type ProcessorEvent } from "../../payments/accounts.js";
import { processorAccounts } from "../../payments/index.js";
import { ProcessorEventNotReady, type ProcessorEventContext, type ProcessorEventOutcome, type StoredProcessorEvent } from "./registry.js";
import { PROCESSOR_EVENT_HANDLERS } from "./handlers.js";
import * as repo from "./repository.js";

/** Waits after each failed attempt; after the last one the event is given up (its error kept on the row). */
export const RETRY_DELAYS_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000];

export interface ProcessorEventDeps {
  db: Db;
  /** The server secret the organizations' keys are sealed with. */
  secret: string;
  /** Where the processor's API answers (TILL_STRIPE_API_URL). */
  stripeApiUrl: string;
  /** Where links in the emails a handler causes point (the portal). */
  baseURL: string;
}

interface OutboxRowView {
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The outbox subscriber: makes the recorded events of the outbox's processor event rows due. Returns how many. */
export async function requestFromOutbox(tx: Queryable, rows: OutboxRowView[]): Promise<number> {
  const refs = rows.flatMap((r) => (r.type === PROCESSOR_EVENT_OUTBOX_TYPE && typeof r.payload.id === "string" ? [{ organizationId: r.organizationId, id: r.payload.id }] : []));
  return refs.length > 0 ? repo.requestEvents(tx, refs) : 0;
}

export const outboxSubscriber: OutboxSubscriber<OutboxRowView> = { name: "stripe-events", receive: (tx, rows) => requestFromOutbox(tx, rows) };

export const claimDue = (db: Db, limit: number, leaseMs: number, token: string) => repo.claimDue(db, limit, leaseMs, token);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/** Reads an event's facts and has the handler of their kind act on them. */
function dispatch(opened: ProcessorEvent, ctx: ProcessorEventContext): { name: string; run: () => Promise<ProcessorEventOutcome> } {
  const handlers = PROCESSOR_EVENT_HANDLERS;
  switch (opened.kind) {
    case "payment":
      return { name: handlers.payment.name, run: async () => handlers.payment.handle(ctx, await opened.read()) };
    case "refunds":
      return { name: handlers.refunds.name, run: async () => handlers.refunds.handle(ctx, await opened.read()) };
    case "dispute":
      return { name: handlers.dispute.name, run: async () => handlers.dispute.handle(ctx, await opened.read()) };
  }
}

/**
 * Runs a leased event's handler and records how it ended; answers the outcome recorded (null: the lease was
 * lost meanwhile, nothing recorded).
 */
export async function processEvent(deps: ProcessorEventDeps, row: repo.ProcessorEventRow, token: string): Promise<"handled" | "ignored" | "failed" | "retry" | null> {
  const opened = await processorAccounts(deps).openEvent(deps.db, row.organizationId, { type: row.type, objectId: row.objectId });
  if ("ignored" in opened) {
    return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome: "ignored", error: opened.ignored })) ? "ignored" : null;
  }
  const event: StoredProcessorEvent = { id: row.id, type: row.type, livemode: row.livemode, objectId: row.objectId };
  const handler = dispatch(opened, { db: deps.db, organizationId: row.organizationId, event, baseURL: deps.baseURL });
  try {
    const outcome = await handler.run();
    return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome, error: null })) ? outcome : null;
  } catch (err) {
    const delay = RETRY_DELAYS_MS[row.attempts];
    const error = `${handler.name}: ${err instanceof ProcessorEventNotReady ? "not ready: " : ""}${message(err)}`;
    if (delay === undefined) return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome: "failed", error })) ? "failed" : null;
    return (await repo.recordOutcome(deps.db, row, token, { done: false, retryAt: new Date(Date.now() + delay), error })) ? "retry" : null;
  }
}

/** How the organization's event `id` stands (tests, `till stripe status`). */
export const findEvent = (db: Queryable, organizationId: string, id: string) => repo.findEvent(db, organizationId, id);
