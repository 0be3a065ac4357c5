// Processing Stripe's events. The inbound endpoint records each verified event once together with
// an outbox row (billing/stripe/service.ts recordEvent); the worker's fan-out hands that row to requestFromOutbox,
// which makes the event due in the same transaction; the worker's Stripe events job (jobs.ts) leases due
// events and runs each one's handler (registry.ts), oldest first. A handler failing, or Stripe unreachable,
// leaves the event to be tried again with backoff (then given up, its error kept); a crash leaves the lease to
// expire. A redelivered event was never recorded twice, so it is never processed twice.
//
// Functions taking `Db` open their own transactions; `Queryable` joins the caller's.
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import { stripeOf } from "../stripe/service.js";
import { createDispatcher, StripeEventNotReady, type StripeEventDispatcher, type StoredStripeEvent } from "./registry.js";
import { STRIPE_EVENT_HANDLERS } from "./handlers.js";
import * as repo from "./repository.js";

/** Waits after each failed attempt; after the last one the event is given up (its error kept on the row). */
export const RETRY_DELAYS_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000];

export interface StripeEventDeps {
  db: Db;
  /** The server secret the organizations' keys are sealed with. */
  secret: string;
  stripeApiUrl: string;
  /** Where links in the emails a handler causes point (the portal). */
  baseURL: string;
}

const dispatcher: StripeEventDispatcher = createDispatcher(STRIPE_EVENT_HANDLERS);

interface OutboxRowView {
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The outbox subscriber: makes the recorded events of `stripe.event` rows due. Returns how many. */
export async function requestFromOutbox(tx: Queryable, rows: OutboxRowView[]): Promise<number> {
  const refs = rows.flatMap((r) => (r.type === "stripe.event" && typeof r.payload.id === "string" ? [{ organizationId: r.organizationId, id: r.payload.id }] : []));
  return refs.length > 0 ? repo.requestEvents(tx, refs) : 0;
}

export const outboxSubscriber: OutboxSubscriber<OutboxRowView> = { name: "stripe-events", receive: (tx, rows) => requestFromOutbox(tx, rows) };

export const claimDue = (db: Db, limit: number, leaseMs: number, token: string) => repo.claimDue(db, limit, leaseMs, token);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * Runs a leased event's handler and records how it ended; answers the outcome recorded (null: the lease was
 * lost meanwhile, nothing recorded).
 */
export async function processEvent(deps: StripeEventDeps, row: repo.StripeEventRow, token: string): Promise<"handled" | "ignored" | "failed" | "retry" | null> {
  const handler = dispatcher.handlerOf(row.type);
  const stripe = handler ? await stripeOf(deps, row.organizationId) : null;
  if (!handler || !stripe) {
    const error = handler ? "Stripe is no longer connected to this organization." : null;
    return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome: "ignored", error })) ? "ignored" : null;
  }
  const event: StoredStripeEvent = { id: row.id, type: row.type, livemode: row.livemode, objectId: row.objectId, payload: row.payload ?? {} };
  try {
    const outcome = await handler.handle({ db: deps.db, stripe, organizationId: row.organizationId, event, deps });
    return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome, error: null })) ? outcome : null;
  } catch (err) {
    const delay = RETRY_DELAYS_MS[row.attempts];
    const error = `${handler.name}: ${err instanceof StripeEventNotReady ? "not ready: " : ""}${message(err)}`;
    if (delay === undefined) return (await repo.recordOutcome(deps.db, row, token, { done: true, outcome: "failed", error })) ? "failed" : null;
    return (await repo.recordOutcome(deps.db, row, token, { done: false, retryAt: new Date(Date.now() + delay), error })) ? "retry" : null;
  }
}

/** How the organization's event `id` stands (tests, `till stripe status`). */
export const findEvent = (db: Queryable, organizationId: string, id: string) => repo.findEvent(db, organizationId, id);

/** The Stripe event types a handler takes (the endpoint's registration lists at least these). */
export const HANDLED_STRIPE_EVENT_TYPES = dispatcher.types;
