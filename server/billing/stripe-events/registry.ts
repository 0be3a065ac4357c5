// The dispatcher of Stripe events by type, and the small registry other modules put their handlers in
// (handlers.ts lists them). A handler reads the current state of the event's object from Stripe before acting
// (events may come late, twice or out of order: acting on the object as it is now makes each of them correct)
// and must be safe to run again for the same event (a crash after it acted and before the event was marked
// processed runs it again): key what it records by the processor's ids.
import type { Db } from "../../db/client.js";
import type { Stripe } from "../../payments/stripe-client.js";

/** A Stripe event as recorded by the inbound endpoint. */
export interface StoredStripeEvent {
  id: string;
  type: string;
  livemode: boolean;
  /** The id of `data.object` (ch_…, re_…, dp_…, pi_…), when it has one. */
  objectId: string | null;
  /** The event as Stripe sent it (its `data.object` is the object as it was then, possibly stale). */
  payload: Record<string, unknown>;
}

export interface StripeEventContext {
  db: Db;
  /** The official client on the organization's own keys. */
  stripe: Stripe;
  organizationId: string;
  event: StoredStripeEvent;
  /** What the worker runs with (the sealed keys' secret, Stripe's URL, the server's base URL). */
  deps: { secret: string; stripeApiUrl: string; baseURL: string };
}

/** handled: till changed something (or had already); ignored: nothing of till's is concerned. */
export type StripeEventOutcome = "handled" | "ignored";

export interface StripeEventHandler {
  /** A name for logs and errors (`refunds`, `disputes`, `payment_intents`). */
  name: string;
  /** The Stripe event types it takes (each type has one handler). */
  types: readonly string[];
  handle(ctx: StripeEventContext): Promise<StripeEventOutcome>;
}

/**
 * Thrown by a handler when the event cannot be acted on yet but may later (the payment it names is not recorded
 * yet: its own event comes after this one): the event is tried again with backoff, then given up.
 */
export class StripeEventNotReady extends Error {}

export interface StripeEventDispatcher {
  /** The handler of the type, or undefined: the event is recorded as ignored. */
  handlerOf(type: string): StripeEventHandler | undefined;
  readonly types: readonly string[];
}

export function createDispatcher(handlers: readonly StripeEventHandler[]): StripeEventDispatcher {
  const byType = new Map<string, StripeEventHandler>();
  for (const handler of handlers) {
    for (const type of handler.types) {
      const other = byType.get(type);
      if (other) throw new Error(`Stripe event ${type} has two handlers: ${other.name} and ${handler.name}`);
      byType.set(type, handler);
    }
  }
  return { handlerOf: (type) => byType.get(type), types: [...byType.keys()] };
}
