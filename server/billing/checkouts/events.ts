// What the customer's page hears on GET /v1/checkouts/client/{client_secret}/stream: Polar's checkout
// events ({key, payload}) published after the transaction that caused them commits. In-process only: with
// several replicas, a page connected to another replica hears only the initial event (then polls).
import { EventEmitter } from "node:events";

export type CheckoutEventKey =
  | "checkout.updated"
  | "checkout.order_created"
  | "checkout.subscription_created"
  | "checkout.webhook_event_delivered";

export interface CheckoutEvent {
  key: CheckoutEventKey;
  payload: Record<string, unknown>;
}

const bus = new EventEmitter();
// one listener per open page; pages of one checkout are few, but many checkouts stream at once
bus.setMaxListeners(0);

export function publishCheckoutEvents(checkoutId: string, events: CheckoutEvent[]): void {
  for (const e of events) bus.emit(checkoutId, e);
}

/** Calls `listener` for each event of the checkout until the returned function is called. */
export function subscribeCheckoutEvents(checkoutId: string, listener: (e: CheckoutEvent) => void): () => void {
  bus.on(checkoutId, listener);
  return () => bus.off(checkoutId, listener);
}
