// The outbox's subscribers (db/outbox.ts, OutboxSubscriber): what each domain does with the events of a
// fanned-out batch, in the fan-out's transaction. The worker runs them in this order and wakes the loop of a
// subscriber that recorded jobs.
import type { OutboxSubscriber } from "../db/outbox.js";
import * as deliveries from "../billing/benefit-delivery/service.js";
import * as customerEmails from "../billing/customer-emails/service.js";
import * as invoices from "../billing/invoices/service.js";
import * as productBenefits from "../billing/subscriptions/product-benefits.js";
import * as stripeEvents from "../billing/stripe-events/service.js";
import type { OutboxSubscriber as FanOutSubscriber } from "../billing/webhooks/delivery.js";
import { walletSubscriber } from "../billing/wallets/credits.js";
import type { PaymentProcessor } from "../payments/processor.js";

/** The subscribers of every fanned-out batch, in order. */
export const OUTBOX_SUBSCRIBERS = [customerEmails.outboxSubscriber, invoices.outboxSubscriber, productBenefits.outboxSubscriber, deliveries.outboxSubscriber, stripeEvents.outboxSubscriber];

type Name = OutboxSubscriber<unknown>["name"];

/**
 * The subscribers as the fan-out runs them: each one that recorded jobs wakes its loop (`wakes`), after the commit.
 * The wallets' (credit products, auto-recharge) comes last and charges through `processor`, as renewals do.
 */
export function fanOutSubscribers(wakes: Record<Name, () => void>, log: { error(err: unknown, msg: string): void }, processor: PaymentProcessor): FanOutSubscriber[] {
  const all = [...OUTBOX_SUBSCRIBERS, walletSubscriber(processor)];
  return all.map((s) => async (tx, rows) => {
    if ((await s.receive(tx, rows, log)) > 0) queueMicrotask(wakes[s.name]);
  });
}
