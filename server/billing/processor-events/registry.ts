// The handlers of a processor's events, by the kind of facts an event carries (payments/accounts.ts: a payment
// that finished, refunds, a dispute), and the context they run in. The processor's adapter reads the event's
// object as it is now before a handler acts (events may come late, twice or out of order: acting on the object as
// it is now makes each of them correct); a handler must be safe to run again for the same event (a crash after it
// acted and before the event was marked processed runs it again): key what it records by the processor's ids.
import type { Db } from "../../db/client.js";
import type { ProcessorEvent } from "../../payments/accounts.js";

/** A processor's event as recorded by its inbound endpoint. */
export interface StoredProcessorEvent {
  id: string;
  type: string;
  livemode: boolean;
  /** The id of the event's object (the processor's charge, refund, dispute, intent), when it has one. */
  objectId: string | null;
}

export interface ProcessorEventContext {
  db: Db;
  organizationId: string;
  event: StoredProcessorEvent;
  /** Where links in the emails a handler causes point (the portal). */
  baseURL: string;
}

/** handled: till changed something (or had already); ignored: nothing of till's is concerned. */
export type ProcessorEventOutcome = "handled" | "ignored";

type FactsOf<K extends ProcessorEvent["kind"]> = Awaited<ReturnType<Extract<ProcessorEvent, { kind: K }>["read"]>>;

export interface ProcessorEventHandler<K extends ProcessorEvent["kind"]> {
  /** A name for logs and errors (`refunds`, `disputes`, `payment_intents`). */
  name: string;
  handle(ctx: ProcessorEventContext, facts: FactsOf<K>): Promise<ProcessorEventOutcome>;
}

/** One handler per kind of facts: a kind added to ProcessorEvent fails the typecheck until it has one. */
export type ProcessorEventHandlers = { [K in ProcessorEvent["kind"]]: ProcessorEventHandler<K> };

/**
 * Thrown by a handler when the event cannot be acted on yet but may later (the payment it names is not recorded
 * yet: its own event comes after this one): the event is tried again with backoff, then given up.
 */
export class ProcessorEventNotReady extends Error {}
