// Rules for refunds: the seller gives back part or all of a paid order. One transaction locks the order,
// checks the amount against what is still refundable (so concurrent refunds of one order can never give
// back more than it took), asks the processor, records the refund, moves the order to partially_refunded
// or refunded, optionally revokes a one-time purchase's benefits, and writes every event to the outbox. What the
// customer's wallet paid of the order goes back to the wallet (a `refund` movement, once per refund), in
// proportion to the refund, the rest to the card; `refund_to: "wallet"` (till's own) sends it all to the wallet.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { processorFor, type PaymentProcessor } from "../../payments/processor.js";
import { creditRefund, reverseRefundCredit, walletShareOfRefund } from "../balance/service.js";
import { regrantRevokedOfOrder, revokeGrantsOfOrder } from "../benefits/service.js";
import { paymentIdOfCheckout } from "../checkouts/service.js";
import { loadCustomers } from "../customers/service.js";
import { isUuid, metadataInput } from "../http.js";
import { notFound } from "../errors.js";
import { amountTooHigh, notPaid, refundedAlready, revokeSubscriptionBenefitsProhibited } from "./errors.js";
import type { SortKey } from "../listing.js";
import { paymentError } from "../payments/errors.js";
import { lastPaymentOfOrder } from "../payments/service.js";
import { getOrder, lockOrderRow, recordOrderRefund, reverseOrderRefund } from "../orders/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { ownerEmails } from "../organizations/service.js";
import { refundableAmount, type OrderRow } from "../orders/wire.js";
import { refundTax } from "../../../shared/refund-tax.js";
import { orgNow } from "../clock.js";
import * as repo from "./repository.js";
import { requestRefundedEmail } from "./emails.js";
import { REFUND_REASONS, toRefundWire, type RefundRow, type RefundWire } from "./wire.js";

export interface RefundDeps {
  db: Db;
  processor: PaymentProcessor;
}

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });

export const RefundCreateInput = z.object({
  order_id: uuid,
  reason: z.enum(REFUND_REASONS),
  amount: z.number().int().positive(),
  comment: z.string().max(10_000).nullish(),
  revoke_benefits: z.boolean().default(false),
  metadata: metadataInput.optional(),
  /**
   * till's own: where the money goes. `payment_method` (the default): what the wallet paid of the order goes back
   * to the wallet in proportion, the rest to the card; `wallet`: all of it to the customer's wallet, none to the card.
   */
  refund_to: z.enum(["payment_method", "wallet"]).optional(),
});
export type RefundCreateInput = z.output<typeof RefundCreateInput>;

// ---- errors (Polar's names and statuses) ----------------------------------------------------------------

/**
 * The processor's id of the payment an order was paid with: its checkout's, else (a renewal, a proration) its charge's.
 */
async function refundedPaymentId(tx: Queryable, order: OrderRow): Promise<string | null> {
  if (order.checkoutId) return paymentIdOfCheckout(tx, order.organizationId, order.checkoutId);
  const last = await lastPaymentOfOrder(tx, order.organizationId, order.id);
  return last?.status === "succeeded" ? last.processorPaymentId : null;
}

/** The tax refunded with `amount`: in proportion, cumulatively (billing/tax, `refundTax`). */
const taxOf = (order: OrderRow, amount: number): number => refundTax(order, amount, refundableAmount(order));

export async function createRefund(deps: RefundDeps, organizationId: string, input: RefundCreateInput): Promise<RefundWire> {
  // the processor refunds under the order's lock: in one of the pool's turns (db/call-turns.ts)
  return withCallTurn(deps.db, () => deps.db.transaction(async (tx) => {
    // concurrent refunds of one order queue here; each sees what the previous one refunded
    const order = await lockOrderRow(tx, organizationId, input.order_id.toLowerCase());
    if (!order) throw notFound("Order not found");
    if (order.status === "refunded") throw refundedAlready(order);
    if (order.status !== "paid" && order.status !== "partially_refunded") throw notPaid(order);
    if (input.revoke_benefits && order.subscriptionId) throw revokeSubscriptionBenefitsProhibited();
    if (input.amount > refundableAmount(order)) throw amountTooHigh(order);
    const taxAmount = taxOf(order, input.amount);

    // a sandbox's refund is dated on its test clock, as the order it refunds was
    const now = await orgNow(tx, organizationId);
    const pending: RefundRow = {
      id: randomUUID(),
      organizationId,
      status: "pending",
      reason: input.reason,
      amount: input.amount,
      taxAmount,
      currency: order.currency,
      comment: input.comment ?? null,
      revokeBenefits: input.revoke_benefits,
      orderId: order.id,
      subscriptionId: order.subscriptionId,
      customerId: order.customerId,
      processorRefundId: null,
      failureReason: null,
      metadata: input.metadata ?? {},
      createdAt: now,
      modifiedAt: null,
    };
    // the wallet's part (what it paid of the order, or all with refund_to: wallet) goes back to it; the rest to the
    // card
    const gross = input.amount + taxAmount;
    const toWallet = await walletShareOfRefund(tx, order, gross, input.refund_to === "wallet");
    let processorRefundId: string | null = null;
    let status: "succeeded" | "pending" = "succeeded";
    if (gross - toWallet > 0) {
      // the processor answers at once (like a confirm's payment, inside the lock); a refusal keeps nothing
      // the organization's own processor (its Stripe account when connected), not the router's default
      const processor = await processorFor(deps.processor, tx, organizationId);
      const result = await processor.refund({
        refundId: pending.id,
        paymentId: await refundedPaymentId(tx, order),
        amount: gross - toWallet,
        currency: order.currency,
        reason: input.reason,
        metadata: { order_id: order.id, refund_id: pending.id },
      });
      if (!result.ok) throw paymentError(result.message);
      processorRefundId = result.processorRefundId;
      status = result.status ?? "succeeded";
    }
    const ref = { organizationId, customerId: order.customerId, currency: order.currency, orderId: order.id, subscriptionId: order.subscriptionId };
    await creditRefund(tx, { ...ref, amount: toWallet, refundId: pending.id });
    // a refund the processor has not finished stays pending (settleProcessorRefund moves it on), but counts at once
    const stored: RefundRow = { ...pending, status, processorRefundId, modifiedAt: status === "succeeded" ? now : null };
    return commitRefund(tx, order, pending, stored, now);
  }));
}

/**
 * Records a refund of a locked order and its events in the caller's transaction: `refund.created` (pending), then
 * `refund.updated` when it succeeded already (its credit note follows from that event: billing/invoices). A
 * pending refund counts at once as a succeeded one does — the order's refunded amount and status, order.refunded,
 * the wallet's part, the benefits revoked — as Stripe's charge counts a pending refund in `amount_refunded`; its
 * `refund.updated` comes when the processor says how it ended, and a failure takes all of it back.
 */
async function commitRefund(tx: Queryable, order: OrderRow, pending: RefundRow, stored: RefundRow, now: Date): Promise<RefundWire> {
  const { organizationId } = order;
  await Promise.all([repo.insertRefund(tx, stored), recordOrderRefund(tx, order, { amount: stored.amount, taxAmount: stored.taxAmount }, now)]);
  const orderWire = await getOrder(tx, organizationId, order.id);
  const wire = toRefundWire(stored);
  const event = (type: OutboxEvent["type"], data: Record<string, unknown>): OutboxEvent => ({ type, organizationId, data });
  await enqueue(tx, [
    event("refund.created", toRefundWire(pending)),
    ...(stored.status === "succeeded" ? [event("refund.updated", wire)] : []),
    event("order.updated", orderWire),
    event("order.refunded", orderWire),
  ]);
  await requestRefundedEmail(tx, orderWire, wire);
  if (stored.revokeBenefits) {
    const revoked = await revokeGrantsOfOrder(tx, organizationId, order.id, now, order.customerId);
    if (revoked.length > 0) await enqueue(tx, customerStateChanged(organizationId, order.customerId));
  }
  return wire;
}

/** Stripe's refund reasons in Polar's words. */
const PROCESSOR_REASONS: Record<string, RefundRow["reason"]> = { duplicate: "duplicate", fraudulent: "fraudulent", requested_by_customer: "customer_request" };

export interface ProcessorRefund {
  orderId: string;
  /** The processor's refund id (Stripe's re_…): a refund is recorded once per id. */
  processorRefundId: string;
  /** What went back to the card, tax included (minor units). */
  grossAmount: number;
  /** The processor's reason (Stripe's duplicate, fraudulent, requested_by_customer), or null. */
  reason: string | null;
}

/**
 * A refund made at the processor (in Stripe's dashboard) recorded as a refund of the order, once per processor
 * refund id, with the events a refund made in till has: refund.created/updated, order.updated/refunded. Its
 * amount is split into amount and tax like a till refund's, up to what is still refundable. Answers the refund,
 * or null when it was recorded before (till's own refund through Stripe, or an earlier event) or nothing is left
 * to refund.
 */
export async function recordProcessorRefund(db: Db, organizationId: string, made: ProcessorRefund): Promise<RefundWire | null> {
  return db.transaction(async (tx) => {
    // under the order's lock: a refund till is making through the processor right now commits first
    const order = await lockOrderRow(tx, organizationId, made.orderId);
    if (!order) return null;
    if (await repo.hasProcessorRefund(tx, organizationId, made.processorRefundId)) return null;
    const refundable = refundableAmount(order);
    const refundableTax = Math.max(0, order.taxAmount - order.refundedTaxAmount);
    if (refundable <= 0 || made.grossAmount <= 0) return null;
    // the gross amount in the order's proportion of amount to tax (what is left of each)
    const amount = Math.min(refundable, Math.round((made.grossAmount * refundable) / (refundable + refundableTax)));
    const taxAmount = Math.min(refundableTax, Math.max(0, made.grossAmount - amount));
    const now = await orgNow(tx, organizationId);
    const pending: RefundRow = {
      id: randomUUID(),
      organizationId,
      status: "pending",
      reason: PROCESSOR_REASONS[made.reason ?? ""] ?? "other",
      amount,
      taxAmount,
      currency: order.currency,
      comment: `Refunded in Stripe (${made.processorRefundId})`,
      revokeBenefits: false,
      orderId: order.id,
      subscriptionId: order.subscriptionId,
      customerId: order.customerId,
      processorRefundId: made.processorRefundId,
      failureReason: null,
      metadata: {},
      createdAt: now,
      modifiedAt: null,
    };
    return commitRefund(tx, order, pending, { ...pending, status: "succeeded", modifiedAt: now }, now);
  });
}

/** A refund is recorded under this processor refund id (made by till, or recorded from an earlier event). */
export const hasProcessorRefund = (db: Queryable, organizationId: string, processorRefundId: string) => repo.hasProcessorRefund(db, organizationId, processorRefundId);

/** How the processor says a refund ended (Stripe's refund status, and its failure_reason). */
export interface ProcessorRefundOutcome {
  processorRefundId: string;
  status: "succeeded" | "failed" | "canceled";
  failureReason: string | null;
}

/**
 * Moves a refund recorded under the processor's refund id to how the processor says it ended, once: a pending
 * refund that succeeded is `succeeded` (refund.updated, and with it the credit note); a pending or succeeded one
 * that failed or was canceled (Stripe fails a refund the card's issuer refuses, even one it answered succeeded) is
 * `failed`/`canceled` and everything it did is undone in one transaction — the order's refunded amount and status
 * as they were, the wallet's part taken back, the benefits it revoked granted again — with refund.updated and
 * order.updated in the outbox, and the organization's owners told by email. A refund failed or canceled already
 * stays so. Answers the refund as it is now, or null when nothing changed (unknown, or already so).
 */
export async function settleProcessorRefund(db: Db, organizationId: string, outcome: ProcessorRefundOutcome): Promise<RefundWire | null> {
  return db.transaction(async (tx) => {
    const found = await repo.findByProcessorRefundId(tx, organizationId, outcome.processorRefundId);
    if (!found) return null;
    // the order's lock first, as a refund being made takes it; then the refund as it is under it
    const order = await lockOrderRow(tx, organizationId, found.orderId);
    const row = await repo.findByProcessorRefundId(tx, organizationId, outcome.processorRefundId);
    if (!order || !row || row.status === "failed" || row.status === "canceled") return null;
    const now = await orgNow(tx, organizationId);
    if (outcome.status === "succeeded") {
      if (row.status !== "pending") return null;
      const succeeded = await repo.updateRefundStatus(tx, organizationId, row.id, { status: "succeeded", failureReason: null, modifiedAt: now });
      const wire = toRefundWire(succeeded);
      await enqueue(tx, [{ type: "refund.updated", organizationId, data: wire }]);
      await requestRefundedEmail(tx, await getOrder(tx, organizationId, order.id), wire);
      return wire;
    }
    const ended = await repo.updateRefundStatus(tx, organizationId, row.id, { status: outcome.status, failureReason: outcome.failureReason, modifiedAt: now });
    await reverseOrderRefund(tx, order, { amount: row.amount, taxAmount: row.taxAmount }, now);
    await reverseRefundCredit(tx, { organizationId, refundId: row.id });
    const regranted = row.revokeBenefits ? await regrantRevokedOfOrder(tx, organizationId, order.id, row.createdAt, now) : [];
    const orderWire = await getOrder(tx, organizationId, order.id);
    const wire = toRefundWire(ended);
    await enqueue(tx, [
      { type: "refund.updated", organizationId, data: wire },
      { type: "order.updated", organizationId, data: orderWire },
      ...(regranted.length > 0 ? [customerStateChanged(organizationId, order.customerId)] : []),
    ]);
    const data = {
      refund: wire,
      order: { id: order.id, invoice_number: orderWire.invoice_number, product: orderWire.product ? { name: orderWire.product.name } : null, customer_email: orderWire.customer.email },
      benefits_granted_again: regranted.length,
    };
    for (const recipient of await ownerEmails(tx, organizationId)) {
      await requestEmail(tx, { organizationId, causeId: row.id, type: "refund_failed", recipient, data });
    }
    return wire;
  });
}

export interface RefundListFilter {
  ids?: string[] | undefined;
  orderIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  succeeded?: boolean | undefined;
}

export async function listRefunds(
  db: Queryable,
  organizationId: string,
  filter: RefundListFilter,
  sorting: Array<SortKey<repo.RefundSort>>,
  pageNo: number,
  limit: number,
): Promise<{ items: RefundWire[]; total: number }> {
  let customerIds = filter.customerIds;
  if (filter.externalCustomerIds) {
    const { byExternalId } = await loadCustomers(db, organizationId, { ids: [], externalIds: filter.externalCustomerIds });
    const external = [...byExternalId.values()].map((c) => c.id);
    customerIds = customerIds ? customerIds.filter((id) => external.includes(id)) : external;
  }
  const { rows, total } = await repo.listRefunds(
    db,
    organizationId,
    { ids: filter.ids, orderIds: filter.orderIds, subscriptionIds: filter.subscriptionIds, customerIds, succeeded: filter.succeeded },
    sorting,
    pageNo,
    limit,
  );
  return { items: rows.map(toRefundWire), total };
}
