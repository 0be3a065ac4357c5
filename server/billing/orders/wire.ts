// The Polar `Order` and `OrderItemSchema` shapes from order and order_item rows, with what they embed
// (customer, product summary, discount, subscription). Emits the superset of SDK 0.47.1 and 0.49.0.
import type { InferSelectModel } from "drizzle-orm";
import type { order, orderItem } from "../../db/schema/index.js";
import type { CustomerWire } from "../customers/wire.js";
import type { ProductSummaryWire } from "../products/wire.js";
import { toSubscriptionBaseWire, type SubscriptionRow } from "../subscriptions/wire.js";

export type OrderRow = InferSelectModel<typeof order>;
export type OrderItemRow = InferSelectModel<typeof orderItem>;

export const ORDER_STATUSES = ["pending", "paid", "refunded", "partially_refunded", "void"] as const;
export const BILLING_REASONS = ["purchase", "subscription_create", "subscription_cycle", "subscription_update"] as const;

export function toOrderItemWire(item: OrderItemRow) {
  return {
    created_at: item.createdAt.toISOString(),
    modified_at: item.modifiedAt?.toISOString() ?? null,
    id: item.id,
    label: item.label,
    amount: item.amount,
    tax_amount: item.taxAmount,
    proration: item.proration,
    product_price_id: item.productPriceId ?? null,
    // till's own field (the SDKs drop it): a wallet top-up order's line, "top_up" or "auto_recharge" (its `label`
    // stays English); the portal says the line from it in the customer's language
    wallet_credit: item.walletCredit ?? null,
  };
}

/**
 * What a refund may still give back before tax (Polar: net + applied balance − refunded). What the wallet paid
 * (a negative applied amount) is refundable too in till: it goes back to the wallet (refunds/service.ts).
 */
export const refundableAmount = (row: OrderRow) => Math.max(0, row.netAmount + Math.max(0, row.appliedBalanceAmount) - row.refundedAmount);
/** The tax still refundable. */
export const refundableTaxAmount = (row: OrderRow) => Math.max(0, row.taxAmount - row.refundedTaxAmount);

export interface OrderEmbeds {
  customer: CustomerWire;
  product: ProductSummaryWire | null;
  discount: Record<string, unknown> | null;
  subscription: SubscriptionRow | null;
}

export function toOrderWire(row: OrderRow, items: OrderItemRow[], e: OrderEmbeds) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    status: row.status,
    paid: row.status === "paid" || row.status === "refunded" || row.status === "partially_refunded",
    subtotal_amount: row.subtotalAmount,
    discount_amount: row.discountAmount,
    net_amount: row.netAmount,
    tax_amount: row.taxAmount,
    total_amount: row.totalAmount,
    applied_balance_amount: row.appliedBalanceAmount,
    due_amount: Math.max(0, row.totalAmount + row.appliedBalanceAmount),
    refunded_amount: row.refundedAmount,
    refunded_tax_amount: row.refundedTaxAmount,
    refundable_amount: refundableAmount(row),
    refundable_tax_amount: refundableTaxAmount(row),
    currency: row.currency,
    billing_reason: row.billingReason,
    billing_name: row.billingName ?? null,
    billing_address: row.billingAddress ?? null,
    invoice_number: row.invoiceNumber,
    receipt_number: null,
    is_invoice_generated: row.isInvoiceGenerated,
    seats: row.seats ?? null,
    customer_id: row.customerId,
    product_id: row.productId ?? null,
    discount_id: row.discountId ?? null,
    subscription_id: row.subscriptionId ?? null,
    checkout_id: row.checkoutId ?? null,
    metadata: row.metadata,
    custom_field_data: row.customFieldData,
    platform_fee_amount: row.platformFeeAmount,
    platform_fee_currency: row.platformFeeCurrency ?? null,
    next_payment_attempt_at: null,
    customer: e.customer,
    product: e.product,
    discount: e.discount,
    subscription: e.subscription ? toSubscriptionBaseWire(e.subscription) : null,
    items: items.map(toOrderItemWire),
    description: e.product?.name ?? items[0]?.label ?? "Order",
    // till's own (the SDKs drop them): the buyer's purchase order number; an invoice with terms' due date; money
    // the seller received outside the processor and marked paid (when, and who)
    purchase_order: row.purchaseOrder ?? null,
    due_at: row.dueAt?.toISOString() ?? null,
    marked_paid_at: row.markedPaidAt?.toISOString() ?? null,
    marked_paid_by: row.markedPaidBy ?? null,
  };
}
export type OrderWire = ReturnType<typeof toOrderWire>;
