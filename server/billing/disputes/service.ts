// Rules for disputes (chargebacks): a processor's dispute (ProcessorDispute, payments/accounts.ts) of a paid order
// becomes Polar's Dispute, its status following the processor's. When it opens, the seller's owners get an email; when
// it closes won or lost, Polar's system events record the money (`balance.dispute`, and `balance.dispute_reversal` when
// won), and a lost one gives the order's money back (the order becomes refunded or partially refunded, with
// order.updated/order.refunded) and revokes the order's benefits as a refund with revoke_benefits does. Each
// consequence is applied once (settled_at), whatever the number and order of the events that bring the news.
//
// Functions taking `Db` open their own transaction; `Queryable` joins the caller's.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import type { ProcessorAccounts, ProcessorDispute } from "../../payments/accounts.js";
import { revokeGrantsOfOrder, revokeGrantsOfSubscription } from "../benefits/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { loadCustomers } from "../customers/service.js";
import { recordSystemEvents } from "../events/service.js";
import { badGateway, notFound } from "../errors.js";
import { disputeNotClosable, disputeNotOpen } from "./errors.js";
import type { SortKey } from "../listing.js";
import { getOrder, lockOrderRow, recordOrderRefund } from "../orders/service.js";
import { refundableAmount, refundableTaxAmount, type OrderRow } from "../orders/wire.js";
import { findPaymentByProcessorIds } from "../payments/service.js";
import { orgNow } from "../clock.js";
import { ownerEmails } from "../organizations/service.js";
import * as repo from "./repository.js";
import { CLOSED_STATUSES, toDisputeWire, type DisputeRow, type DisputeWire } from "./wire.js";

const NOT_FOUND = "Dispute not found";


async function wireOf(db: Queryable, row: DisputeRow): Promise<DisputeWire> {
  const { byId } = row.customerId ? await loadCustomers(db, row.organizationId, { ids: [row.customerId], externalIds: [] }) : { byId: new Map() };
  return toDisputeWire(row, (row.customerId && byId.get(row.customerId)) || null);
}

export async function getDispute(db: Queryable, organizationId: string, id: string): Promise<DisputeWire> {
  const row = await repo.findDispute(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return wireOf(db, row);
}

export async function listDisputes(
  db: Queryable,
  organizationId: string,
  filter: { orderIds?: string[] | undefined; statuses?: string[] | undefined },
  sorting: Array<SortKey<repo.DisputeSort>>,
  pageNo: number,
  limit: number,
): Promise<{ items: DisputeWire[]; total: number }> {
  const { rows, total } = await repo.listDisputes(db, organizationId, filter, sorting, pageNo, limit);
  const ids = [...new Set(rows.flatMap((r) => (r.customerId ? [r.customerId] : [])))];
  const { byId } = await loadCustomers(db, organizationId, { ids, externalIds: [] });
  return { items: rows.map((r) => toDisputeWire(r, (r.customerId && byId.get(r.customerId)) || null)), total };
}

/** The disputed amount split into amount and tax in the order's proportion (as a refund's). */
function split(order: OrderRow, gross: number): { amount: number; taxAmount: number } {
  const base = order.netAmount + order.appliedBalanceAmount;
  const amount = base + order.taxAmount > 0 ? Math.min(base, Math.round((gross * base) / (base + order.taxAmount))) : gross;
  return { amount, taxAmount: Math.max(0, Math.min(order.taxAmount, gross - amount)) };
}

async function emailOwners(tx: Queryable, row: DisputeRow, order: OrderRow, type: "dispute_opened" | "dispute_closed"): Promise<void> {
  const orderWire = await getOrder(tx, row.organizationId, order.id);
  const data = {
    ...toDisputeWire(row, null),
    order: {
      id: order.id, invoice_number: orderWire.invoice_number,
      product: orderWire.product ? { name: orderWire.product.name } : null, customer_email: orderWire.customer.email,
    },
  };
  for (const recipient of await ownerEmails(tx, row.organizationId)) {
    await requestEmail(tx, { organizationId: row.organizationId, causeId: row.id, type, recipient, data });
  }
}

/** Balance events, the order's money and benefits of a dispute that just closed won or lost. */
async function settle(tx: Queryable, row: DisputeRow, order: OrderRow, d: ProcessorDispute, now: Date): Promise<void> {
  const orderWire = await getOrder(tx, row.organizationId, order.id);
  const metadata = (sign: 1 | -1) => ({
    transaction_id: d.balanceTransactionId ?? d.processorDisputeId,
    dispute_id: row.id,
    order_id: order.id,
    order_created_at: order.createdAt.toISOString(),
    ...(orderWire.product_id ? { product_id: orderWire.product_id } : {}),
    ...(order.subscriptionId ? { subscription_id: order.subscriptionId } : {}),
    amount: sign * row.amount || 0,
    currency: row.currency,
    presentment_amount: sign * row.amount || 0,
    presentment_currency: row.currency,
    tax_amount: sign * row.taxAmount || 0,
    fee: d.fee,
  });
  const base = { organizationId: row.organizationId, customerId: row.customerId, timestamp: now };
  await recordSystemEvents(tx, [
    { ...base, name: "balance.dispute", metadata: metadata(-1), onceKey: `dispute:${row.id}` },
    ...(row.status === "won" ? [{ ...base, name: "balance.dispute_reversal", metadata: { ...metadata(1), fee: 0 }, onceKey: `dispute_reversal:${row.id}` }] : []),
  ]);
  if (row.status !== "lost") return;
  const amount = Math.min(row.amount, refundableAmount(order));
  const taxAmount = Math.min(row.taxAmount, refundableTaxAmount(order));
  if (amount > 0 || taxAmount > 0) {
    await recordOrderRefund(tx, order, { amount, taxAmount }, now);
    const refunded = await getOrder(tx, row.organizationId, order.id);
    await enqueue(tx, [
      { type: "order.updated", organizationId: row.organizationId, data: refunded },
      { type: "order.refunded", organizationId: row.organizationId, data: refunded },
    ]);
  }
  // the benefits this order paid for: a one-time purchase's, or those of the subscription it renewed (grants of a
  // subscription are the subscription's, not an order's); the customer's other purchases keep theirs
  const revoked = order.subscriptionId
    ? await revokeGrantsOfSubscription(tx, row.organizationId, order.subscriptionId, now, order.customerId)
    : await revokeGrantsOfOrder(tx, row.organizationId, order.id, now, order.customerId);
  if (revoked.length > 0) await enqueue(tx, customerStateChanged(row.organizationId, order.customerId));
}

/**
 * Records the processor's dispute as it is now: made on first sight (the seller told), its status followed, its
 * close settled once. Answers null when no payment of till's is disputed (a charge another program made).
 */
export async function upsertFromProcessor(db: Db, organizationId: string, d: ProcessorDispute): Promise<DisputeWire | null> {
  return db.transaction(async (tx) => {
    const payment = await findPaymentByProcessorIds(tx, organizationId, [d.chargeId, ...(d.paymentIntentId ? [d.paymentIntentId] : [])]);
    if (!payment?.orderId) return null;
    const order = await lockOrderRow(tx, organizationId, payment.orderId);
    if (!order) return null;
    const now = await orgNow(tx, organizationId);
    const status = d.status;
    let row = await repo.findByProcessorId(tx, organizationId, d.processorDisputeId);
    if (!row) {
      row = {
        id: randomUUID(),
        organizationId,
        orderId: order.id,
        paymentId: payment.id,
        customerId: order.customerId,
        status,
        ...split(order, d.grossAmount),
        currency: d.currency,
        reason: d.reason,
        evidenceDueBy: d.evidenceDueBy,
        processor: d.processor,
        processorDisputeId: d.processorDisputeId,
        chargeId: d.chargeId,
        settledAt: null,
        createdAt: now,
        modifiedAt: null,
      };
      await repo.insertDispute(tx, row);
      await emailOwners(tx, row, order, "dispute_opened");
    } else if (row.status !== status || row.reason !== d.reason || row.evidenceDueBy?.getTime() !== d.evidenceDueBy?.getTime()) {
      // a closed dispute stays as it closed (an older event read late cannot reopen it)
      const next = CLOSED_STATUSES.includes(row.status) ? row.status : status;
      row = { ...row, status: next, reason: d.reason, evidenceDueBy: d.evidenceDueBy, modifiedAt: now };
      await repo.updateDispute(tx, organizationId, row.id, { status: row.status, reason: row.reason, evidenceDueBy: row.evidenceDueBy, modifiedAt: now });
    }
    if (CLOSED_STATUSES.includes(row.status) && !row.settledAt) {
      if (row.status !== "prevented") await settle(tx, row, order, d, now);
      row = { ...row, settledAt: now };
      await repo.updateDispute(tx, organizationId, row.id, { settledAt: now });
      if (row.status !== "prevented") await emailOwners(tx, row, order, "dispute_closed");
    }
    return wireOf(tx, row);
  });
}

/** Accepts (concedes) an open dispute: closed at the processor, so it is lost (SDK 0.49.0's disputes.accept). */
export async function acceptDispute(deps: { db: Db; accounts: ProcessorAccounts }, organizationId: string, id: string): Promise<DisputeWire> {
  const row = await repo.findDispute(deps.db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  if (CLOSED_STATUSES.includes(row.status)) throw disputeNotOpen(row);
  const closed = await deps.accounts.closeDispute(deps.db, organizationId, row.processorDisputeId);
  if (!closed.ok) throw closed.refused ? disputeNotClosable(closed.detail) : badGateway(closed.detail);
  const wire = await upsertFromProcessor(deps.db, organizationId, closed.dispute);
  if (!wire) throw notFound(NOT_FOUND);
  return wire;
}
