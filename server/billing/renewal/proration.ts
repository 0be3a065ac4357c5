// The proration charge of a plan change (the lines are subscriptions/proration.ts's): with the
// proration behavior `invoice` the difference is billed now by an order (billing_reason `subscription_update`,
// charged to the customer's default payment method as renewals are, the attempt recorded as a payment; a net
// credit goes to the customer's balance; a declined charge makes the subscription past_due and its order goes
// through dunning like a failed renewal's; a bank debit still processing leaves the order pending until the bank
// answers, as a renewal's); with `prorate` the lines wait for the next renewal, whose order bills
// them as their own lines (see carriedProrations). `next_period` and `reset` bill nothing for the change (the new
// amount applies from the next renewal).
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { createPaymentProcessor, type PaymentProcessor } from "../../payments/index.js";
import { insertProrations, markProrationsBilled, pendingProrations, recordSettlement, settle, type BalancePreview, type Settlement } from "../balance/service.js";
import { loadCustomers } from "../customers/service.js";
import { insertPlannedOrder, orderWire, type OrderFromCheckout } from "../orders/service.js";
import type { OrderItemRow, OrderRow } from "../orders/wire.js";
import { getOrganization } from "../organizations/service.js";
import { chargeSaved, isProcessing, recordCharge } from "../payments/service.js";
import { processorErrorOf } from "../../payments/processor.js";
import { heldStart, insertDunning } from "../dunning/service.js";
import { noteProcessorError } from "../processor-connections/processor-errors.js";
import { loadPrices, loadProductSummaries } from "../products/service.js";
import { inclusiveOf, sellerTaxOf, taxOf } from "../tax/service.js";
import type { ProrationLine, ProrationPlan } from "../subscriptions/proration.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { patchSubscriptionTerms } from "../subscriptions/service.js";
import { planSubscriptionOrder, taxIdOf } from "./order.js";

let defaultProcessor: PaymentProcessor | null = null;

/** What an order billed now is: its billing reason, the charge's description, its payment's attempt kind. */
export interface BillNowKind {
  billingReason: "subscription_update" | "subscription_cycle";
  description: string;
  attempt: "update" | "renewal";
  /** Its lines are a change's prorations. */
  proration: boolean;
}

const PLAN_CHANGE: BillNowKind = { billingReason: "subscription_update", description: "plan change", attempt: "update", proration: true };

/** What billing a change did to the subscription: its row (past_due after a declined charge), and the order to dun. */
export interface ProrationOutcome {
  row: SubscriptionRow;
  /** The `subscription_update` order whose charge was declined: the caller starts its dunning (startDunning). */
  declinedOrderId: string | null;
}

/** A change's order as priced before its charge: its row and lines, and what the balance pays of it. */
export interface PricedOrder {
  row: OrderRow;
  items: OrderItemRow[];
  settlement: Settlement;
}

/**
 * Applies a change's proration in its transaction, after the row is written (`after` is the subscription as
 * changed): `prorate` stores the lines for the next renewal; `invoice` bills them now.
 */
export async function applyProration(
  tx: Queryable,
  after: SubscriptionRow,
  plan: ProrationPlan,
  now: Date,
  processor: PaymentProcessor | null = null,
): Promise<ProrationOutcome> {
  const unchanged = { row: after, declinedOrderId: null };
  if (plan.lines.length === 0 || (after.status !== "active" && after.status !== "past_due")) return unchanged;
  if (plan.behavior === "prorate") {
    await insertProrations(
      tx,
      plan.lines.map((l, position) => ({
        organizationId: after.organizationId,
        subscriptionId: after.id,
        label: l.label,
        facts: l.facts,
        amount: l.amount,
        productPriceId: l.productPriceId,
        position,
        createdAt: now,
      })),
    );
    return unchanged;
  }
  if (plan.behavior !== "invoice") return unchanged;
  defaultProcessor ??= createPaymentProcessor();
  return billNow(tx, after, plan.lines.map(lineItem), now, processor ?? defaultProcessor);
}

/** What a change's proration would do, written nowhere: the lines carried to the renewal, or the order billed now. */
export interface PreviewedProration {
  carried: ProrationLine[];
  invoiced: PricedOrder | null;
}

/**
 * applyProration's preview (subscription-changes/preview.ts): `prorate` answers the lines it would store, `invoice`
 * the order priceNow builds (the balance read without a lock), stopping before the charge and the writes.
 */
export async function previewProration(db: Queryable, after: SubscriptionRow, plan: ProrationPlan, now: Date): Promise<PreviewedProration> {
  const none = { carried: [], invoiced: null };
  if (plan.lines.length === 0 || (after.status !== "active" && after.status !== "past_due")) return none;
  if (plan.behavior === "prorate") return { carried: plan.lines, invoiced: null };
  if (plan.behavior !== "invoice") return none;
  const priced = await priceNow(db, after, plan.lines.map(lineItem), now, PLAN_CHANGE, { shift: 0 });
  return priced ? { carried: [], invoiced: { row: priced.order.row, items: priced.order.items, settlement: priced.settlement } } : none;
}

/**
 * A proration line as an order's line: its facts kept (a document says the line from them in its reader's
 * language) and its span as the line's service period. A line carried from before 0066 has no facts.
 */
function lineItem(l: Omit<ProrationLine, "facts"> & { facts: ProrationLine["facts"] | null }): OrderFromCheckout["items"][number] {
  const item = { label: l.label, amount: l.amount, productPriceId: l.productPriceId };
  return l.facts ? { ...item, prorationFacts: l.facts, period: { start: new Date(l.facts.from), end: new Date(l.facts.to) } } : item;
}

/**
 * The `subscription_update` order of a change billed now, as it will be written: its lines, tax and what the
 * customer's balance pays (the credit read under the customer's lock). Null for a deleted customer (billed nothing).
 * A preview stops here; billNow charges it.
 */
async function priceNow(tx: Queryable, sub: SubscriptionRow, items: OrderFromCheckout["items"], now: Date, kind: BillNowKind, preview?: BalancePreview) {
  const org = sub.organizationId;
  const [customers, organization, prices, summaries] = await Promise.all([
    loadCustomers(tx, org, { ids: [sub.customerId], externalIds: [] }),
    getOrganization(tx, org),
    loadPrices(tx, org, items.flatMap((l) => l.productPriceId ?? [])),
    loadProductSummaries(tx, org, [sub.productId]),
  ]);
  const customer = customers.byId.get(sub.customerId);
  if (!customer) return null;
  const tax = taxOf(
    sellerTaxOf(organization),
    { address: customer.billing_address, business: customer.tax_id !== null, taxId: taxIdOf(customer.tax_id) },
    items.map((l) => ({ amount: l.amount, inclusive: inclusiveOf(l.productPriceId ? (prices.get(l.productPriceId) ?? null) : null) })),
    now,
  );
  const subtotal = items.reduce((sum, l) => sum + l.amount, 0);
  const total = tax ? tax.totalAmount : subtotal;
  const settlement = await settle(tx, org, sub.customerId, sub.currency, total, 1, preview);
  const planned = planSubscriptionOrder(sub, customer, { discountId: null, subtotalAmount: subtotal, discountAmount: 0, tax, items }, now);
  const order = {
    row: { ...planned.row, billingReason: kind.billingReason, checkoutId: null, status: settlement.due <= 0 ? "paid" : "pending", appliedBalanceAmount: settlement.applied },
    items: planned.items.map((i) => ({ ...i, proration: kind.proration })),
  };
  return { customer, organization, summaries, settlement, order };
}

/**
 * An order billed now (priceNow): a change's `subscription_update` order, or (`kind`) a month's usage within a longer
 * period (monthly-usage.ts), charged (the attempt recorded) or credited to the balance. A declined charge leaves the
 * order pending and the subscription past_due; the caller starts its dunning.
 */
export async function billNow(
  tx: Queryable,
  sub: SubscriptionRow,
  items: OrderFromCheckout["items"],
  now: Date,
  processor: PaymentProcessor,
  kind: BillNowKind = PLAN_CHANGE,
): Promise<ProrationOutcome> {
  const org = sub.organizationId;
  const priced = await priceNow(tx, sub, items, now, kind);
  if (!priced) return { row: sub, declinedOrderId: null }; // a deleted customer is billed nothing
  const { customer, organization, summaries, settlement } = priced;
  const planned = priced.order;
  // the customer's default payment method, as a renewal charges (a card added in the portal included)
  const attempt =
    settlement.due > 0
      ? await chargeSaved(tx, processor, org, sub.customerId, {
          amount: settlement.due,
          currency: sub.currency,
          description: `${summaries.get(sub.productId)?.name ?? "Subscription"} — ${kind.description}`,
          // the order it pays: a bank debit's later outcome settles it (dunning's settleLatePayment)
          metadata: { subscription_id: sub.id, order_id: planned.row.id },
        })
      : null;
  const paid = settlement.due <= 0 || attempt?.result.ok === true;
  // a processing bank debit: the order waits for the bank's answer, the subscription as it was; so does a charge
  // the processor could not process (not the customer's decline): held for the processor's retries, the seller told
  const unprocessed = !paid && !isProcessing(attempt) ? processorErrorOf(attempt?.result) : null;
  const declined = !paid && !isProcessing(attempt) && !unprocessed;
  const row = declined ? await patchSubscriptionTerms(tx, org, sub.id, { status: "past_due" }, now) : sub;
  const order = { row: { ...planned.row, status: paid ? "paid" : "pending" }, items: planned.items };
  await insertPlannedOrder(tx, order, organization.slug);
  await recordSettlement(tx, org, settlement, { customerId: sub.customerId, currency: sub.currency, orderId: order.row.id, subscriptionId: sub.id });
  if (attempt) {
    const at = { organizationId: org, customerId: sub.customerId, orderId: order.row.id, checkoutId: null, amount: settlement.due, currency: sub.currency };
    await recordCharge(tx, processor, attempt, { ...at, attempt: kind.attempt }, now);
  }
  if (unprocessed) {
    await insertDunning(tx, heldStart(org, sub.id, order.row.id, now));
    await noteProcessorError(tx, org, unprocessed, { what: kind.description, id: order.row.id }, now);
  }
  const data = orderWire(order.row, order.items, { customer, product: summaries.get(sub.productId) ?? null, discount: null, subscription: row });
  const fill = { invoiceNumberOf: order.row.id };
  const events: OutboxEvent[] = [{ type: "order.created", organizationId: org, data, ...fill }];
  if (paid) events.push({ type: "order.paid", organizationId: org, data, ...fill });
  events.push(customerStateChanged(org, sub.customerId));
  await enqueue(tx, events);
  return { row, declinedOrderId: declined ? order.row.id : null };
}

/** A proration line waiting for the renewal: a stored one (pendingProrations), or a preview's not stored. */
export type CarriedLine = Pick<Awaited<ReturnType<typeof pendingProrations>>[number], "label" | "amount" | "productPriceId" | "facts">;

/**
 * The renewal's part of `prorate`: the subscription's pending proration lines, appended to the period's bill as
 * lines of their own (never discounted; taxed with the others). `billed` marks them billed by the renewal order.
 */
export async function carriedProrations(tx: Queryable, sub: SubscriptionRow, preloaded?: CarriedLine[]) {
  const pending = preloaded ?? (await pendingProrations(tx, sub.organizationId, sub.id));
  return {
    items: pending.map((p) => lineItem({ label: p.label, amount: p.amount, productPriceId: p.productPriceId, facts: p.facts })),
    billed: (orderId: string) => (pending.length > 0 ? markProrationsBilled(tx, sub.organizationId, sub.id, orderId) : Promise.resolve()),
  };
}
