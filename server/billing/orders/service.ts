// Rules for orders: created paid by a confirmed checkout (one-time purchase or a subscription's first
// order) with a per-organization invoice number, read by the seller with filters, and their billing details
// corrected afterwards (name and address; country and state are fixed by the sale's tax).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import type { CustomFieldData, Metadata, ProrationFacts, WalletCredit } from "../../db/schema/index.js";
import { AddressInput } from "../customers/input.js";
import { loadCustomers } from "../customers/service.js";
import { loadDiscountBases } from "../discounts/service.js";
import { invalid, notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import type { CsvExport } from "../csv.js";
import { loadProductSummaries } from "../products/service.js";
import { loadSubscriptionRows } from "../subscriptions/service.js";
import { itemTax } from "../tax/service.js";
import type { TaxResult } from "../tax/compute.js";
import type { UsageLineFacts } from "../../../shared/tiers.js";
import * as repo from "./repository.js";
import { toOrderWire, type OrderEmbeds, type OrderItemRow, type OrderRow, type OrderWire } from "./wire.js";
import { invoicePrefix } from "../invoice-numbers/service.js";

const NOT_FOUND = "Order not found";

export const OrderUpdateInput = z.object({
  billing_name: z.string().max(256).nullish(),
  billing_address: AddressInput.nullish(),
});
export type OrderUpdateInput = z.output<typeof OrderUpdateInput>;

async function toWires(db: Queryable, organizationId: string, rows: OrderRow[]): Promise<OrderWire[]> {
  if (rows.length === 0) return [];
  const ids = <T>(pick: (r: OrderRow) => T | null) => rows.flatMap((r) => (pick(r) !== null ? [pick(r) as T] : []));
  const [items, customers, products, discounts, subscriptions] = await Promise.all([
    repo.itemsOfOrders(db, organizationId, rows.map((r) => r.id)),
    loadCustomers(db, organizationId, { ids: rows.map((r) => r.customerId), externalIds: [] }),
    loadProductSummaries(db, organizationId, ids((r) => r.productId)),
    loadDiscountBases(db, organizationId, ids((r) => r.discountId)),
    loadSubscriptionRows(db, organizationId, ids((r) => r.subscriptionId)),
  ]);
  return rows.flatMap((row) => {
    const customer = customers.byId.get(row.customerId);
    // customers are only ever soft-deleted; an order always has one
    if (!customer) return [];
    return [
      toOrderWire(
        row,
        items.filter((i) => i.orderId === row.id),
        {
          customer,
          product: row.productId ? (products.get(row.productId) ?? null) : null,
          discount: row.discountId ? (discounts.get(row.discountId) ?? null) : null,
          subscription: row.subscriptionId ? (subscriptions.get(row.subscriptionId) ?? null) : null,
        },
      ),
    ];
  });
}

export async function getOrder(db: Queryable, organizationId: string, id: string): Promise<OrderWire> {
  const row = await repo.findOrder(db, organizationId, id);
  const [wire] = row ? await toWires(db, organizationId, [row]) : [];
  if (!wire) throw notFound(NOT_FOUND);
  return wire;
}

export async function listOrders(
  db: Db,
  organizationId: string,
  filter: repo.OrderFilter,
  sorting: Array<SortKey<repo.OrderSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listOrders(db, organizationId, filter, sorting, pageNo, limit);
  return { items: await toWires(db, organizationId, rows), total };
}

/** The billing name and address shown on the invoice; the address keeps its country and state (the sale's tax). */
export async function updateOrder(db: Db, organizationId: string, id: string, input: OrderUpdateInput): Promise<OrderWire> {
  return db.transaction(async (tx) => {
    const current = await repo.findOrder(tx, organizationId, id);
    if (!current) throw notFound(NOT_FOUND);
    const patch: Parameters<typeof repo.updateOrder>[3] = {};
    if (input.billing_name !== undefined) patch.billingName = input.billing_name;
    if (input.billing_address) {
      const before = current.billingAddress;
      const next = input.billing_address;
      if (before && (before.country !== next.country || (before.state ?? null) !== (next.state ?? null))) {
        throw invalid(["body", "billing_address"], "Country and state fields cannot be updated.");
      }
      patch.billingAddress = {
        line1: next.line1 ?? null,
        line2: next.line2 ?? null,
        postal_code: next.postal_code ?? null,
        city: next.city ?? null,
        state: next.state ?? null,
        country: next.country,
      };
    }
    await repo.updateOrder(tx, organizationId, id, patch);
    return getOrder(tx, organizationId, id);
  });
}

// ---- for other domains ----------------------------------------------------------------------------

export interface OrderFromCheckout {
  organizationId: string;
  checkoutId: string;
  customerId: string;
  productId: string;
  subscriptionId: string | null;
  billingReason: "purchase" | "subscription_create";
  currency: string;
  discountId: string | null;
  subtotalAmount: number;
  discountAmount: number;
  /** The tax of the items after discount, one tax line per item in order (billing/tax); null: none known. */
  tax: TaxResult | null;
  seats: number | null;
  billingName: string | null;
  billingAddress: Record<string, string | null> | null;
  /** The buyer's tax id at the sale, for the invoice. */
  billingTaxId: readonly [string, string] | null;
  metadata: Metadata;
  customFieldData: CustomFieldData;
  /** The buyer's purchase order number (a checkout's field, a subscription's for its renewals). */
  purchaseOrder?: string | null;
  /** A metered line carries its billed units and its price's unit amount (the invoice prints units × unit price). */
  items: Array<{
    label: string;
    amount: number;
    productPriceId: string | null;
    quantity?: number;
    unitAmount?: string;
    period?: { start: Date; end: Date };
    /** A metered line's figures (its label in English is made from them). */
    usage?: UsageLineFacts;
    /** A proration line's kind, product, seats and span (its label in English is made from them). */
    prorationFacts?: ProrationFacts;
    /** A wallet top-up order's line: which credit it is (its label in English says the same). */
    walletCredit?: WalletCredit;
  }>;
}

/**
 * The paid order of a confirmed checkout and its items, built here (ids and times chosen now) so the caller
 * can shape its events before anything is written. Its invoice number is taken when it is inserted.
 */
export function planOrderFromCheckout(o: OrderFromCheckout, now: Date): { row: OrderRow; items: OrderItemRow[] } {
  const id = randomUUID();
  // before tax: an inclusive price's tax comes out of it, an exclusive one's is added
  const taxAmount = o.tax?.taxAmount ?? 0;
  const inclusiveTax = (o.tax?.lines ?? []).reduce((sum, l) => sum + (l.inclusive ? l.tax : 0), 0);
  const net = o.subtotalAmount - o.discountAmount - inclusiveTax;
  const row: OrderRow = {
    id,
    organizationId: o.organizationId,
    status: "paid",
    subtotalAmount: o.subtotalAmount,
    discountAmount: o.discountAmount,
    netAmount: net,
    taxAmount,
    totalAmount: net + taxAmount,
    appliedBalanceAmount: 0,
    refundedAmount: 0,
    refundedTaxAmount: 0,
    platformFeeAmount: 0,
    platformFeeCurrency: null,
    currency: o.currency,
    billingReason: o.billingReason,
    billingName: o.billingName,
    billingAddress: o.billingAddress,
    billingTaxId: o.billingTaxId ? [o.billingTaxId[0], o.billingTaxId[1]] : null,
    taxNote: o.tax?.note ?? null,
    invoiceNumber: "",
    isInvoiceGenerated: false,
    seats: o.seats,
    customerId: o.customerId,
    productId: o.productId,
    discountId: o.discountId,
    subscriptionId: o.subscriptionId,
    checkoutId: o.checkoutId,
    renewedPeriodStart: null,
    purchaseOrder: o.purchaseOrder ?? null,
    dueAt: null,
    remindedAt: null,
    overdueAt: null,
    overdueRemindedAt: null,
    markedPaidAt: null,
    markedPaidBy: null,
    customFieldData: o.customFieldData,
    metadata: o.metadata,
    createdAt: now,
    modifiedAt: null,
  };
  const items = o.items.map(
    (i, position): OrderItemRow => ({
      id: randomUUID(),
      organizationId: o.organizationId,
      orderId: id,
      label: i.label,
      amount: i.amount,
      taxAmount: o.tax?.lines[position]?.tax ?? 0,
      tax: itemTax(o.tax?.lines[position]),
      proration: false,
      quantity: i.quantity ?? null,
      unitAmount: i.unitAmount ?? null,
      usage: i.usage ?? null,
      prorationFacts: i.prorationFacts ?? null,
      walletCredit: i.walletCredit ?? null,
      periodStart: i.period?.start ?? null,
      periodEnd: i.period?.end ?? null,
      productPriceId: i.productPriceId,
      position,
      createdAt: now,
      modifiedAt: null,
    }),
  );
  return { row, items };
}

/**
 * Inserts a planned order with the organization's next invoice number, in the caller's transaction. The
 * number's counter stays locked until the transaction ends: send this with the transaction's last statements.
 * An outbox event's `invoiceNumberOf` reads the number in a statement sent behind it.
 */
export async function insertPlannedOrder(tx: Queryable, planned: { row: OrderRow; items: OrderItemRow[] }, organizationSlug: string): Promise<void> {
  await repo.insertOrder(tx, planned.row, planned.items, invoicePrefix(organizationSlug));
}

/** Inserts a planned order without its invoice number; numberPlannedOrders numbers it before the commit. */
export const insertUnnumberedOrder = (tx: Queryable, planned: { row: OrderRow; items: OrderItemRow[] }) => repo.insertUnnumberedOrder(tx, planned.row, planned.items);

/**
 * Numbers orders inserted unnumbered (in this order) with the organization's next invoice numbers; the count numbered.
 */
export const numberPlannedOrders = (tx: Queryable, organizationId: string, orderIds: string[], organizationSlug: string) =>
  repo.numberOrders(tx, organizationId, orderIds, invoicePrefix(organizationSlug));

/** The `Order` shape of rows whose embeds the caller already holds (webhook payloads). */
export const orderWire = (row: OrderRow, items: OrderItemRow[], embeds: OrderEmbeds) => toOrderWire(row, items, embeds);

/**
 * A pending order paid or void by its charge's late answer (dunning's retry, a bank debit's); false when it was not
 * pending.
 */
export const settlePendingOrder: typeof repo.settlePendingOrder = (...args) => repo.settlePendingOrder(...args);
/** The order row locked for the caller's transaction (a refund's), or undefined when it is not this organization's. */
export const recordMarkedPaid: typeof repo.recordMarkedPaid = (...args) => repo.recordMarkedPaid(...args);
export const lockOrderRow = (tx: Queryable, organizationId: string, id: string) => repo.lockOrder(tx, organizationId, id);

/**
 * Adds a succeeded refund to a locked order: refunded amounts grow, and the status becomes refunded once
 * nothing is left to refund (partially_refunded before). The caller checked the amounts against the lock.
 */
export async function recordOrderRefund(
  tx: Queryable,
  locked: OrderRow,
  refunded: { amount: number; taxAmount: number },
  now: Date,
): Promise<OrderRow> {
  const refundedAmount = locked.refundedAmount + refunded.amount;
  const refundedTaxAmount = locked.refundedTaxAmount + refunded.taxAmount;
  // what the wallet paid is refundable too (to the wallet): full once nothing is left (refundableAmount)
  const full = refundedAmount >= locked.netAmount + Math.max(0, locked.appliedBalanceAmount);
  const patch = { status: full ? "refunded" : "partially_refunded", refundedAmount, refundedTaxAmount, modifiedAt: now };
  await repo.updateOrderRefunds(tx, locked.organizationId, locked.id, patch);
  return { ...locked, ...patch };
}

/**
 * Takes a refund that failed at the processor back off a locked order: refunded amounts shrink by it, and the
 * status is what it was — paid when nothing stays refunded, partially_refunded otherwise.
 */
export async function reverseOrderRefund(tx: Queryable, locked: OrderRow, refunded: { amount: number; taxAmount: number }, now: Date): Promise<OrderRow> {
  const refundedAmount = Math.max(0, locked.refundedAmount - refunded.amount);
  const refundedTaxAmount = Math.max(0, locked.refundedTaxAmount - refunded.taxAmount);
  const full = refundedAmount >= locked.netAmount + Math.max(0, locked.appliedBalanceAmount);
  const status = refundedAmount === 0 && refundedTaxAmount === 0 ? "paid" : full ? "refunded" : "partially_refunded";
  const patch = { status, refundedAmount, refundedTaxAmount, modifiedAt: now };
  await repo.updateOrderRefunds(tx, locked.organizationId, locked.id, patch);
  return { ...locked, ...patch };
}

/** The organization's orders as CSV (`GET /v1/orders/export`, optionally of some products), oldest first. */
export function orderExport(organizationId: string, productIds: string[] | undefined): CsvExport {
  return repo.ordersExport(organizationId, productIds);
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** An order's row by id, or undefined. */
export const findOrder: typeof repo.findOrder = (...args) => repo.findOrder(...args);
/** The order (and subscription) a checkout made, if any (seats). */
export const ownerOfCheckout: typeof repo.ownerOfCheckout = (...args) => repo.ownerOfCheckout(...args);
/** Reserves a sandbox's invoice prefix next to its live organization's (organizations/sandbox.ts). */
/** Inserts orders without invoice numbers yet (the renewal's writes). */
export const insertUnnumberedOrders: typeof repo.insertUnnumberedOrders = (...args) => repo.insertUnnumberedOrders(...args);
