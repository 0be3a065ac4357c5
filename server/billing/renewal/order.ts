// A subscription's order — a renewal's (renewal.ts) or a plan change's proration charge (proration.ts) — planned
// as a checkout's order is, from the subscription and its customer's billing details at the sale.
import type { Settlement } from "../balance/service.js";
import type { CustomerWire } from "../customers/wire.js";
import { planOrderFromCheckout, type OrderFromCheckout } from "../orders/service.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import type { taxOf } from "../tax/service.js";
import type { billPeriod } from "./bill.js";
import { dueDate, effectiveTerms } from "../terms.js";

/** A customer's stored tax id as [value, format] (the wire's pair may hold nulls). */
export function taxIdOf(taxId: ReadonlyArray<string | null> | null | undefined): [string, string] | null {
  const [value, format] = taxId ?? [];
  return value && format ? [value, format] : null;
}

/**
 * The order of the subscription's product, seats, metadata and custom fields, billed to its customer, with the
 * caller's amounts, tax and lines. The caller sets its billing reason, status and applied balance.
 */
export function planSubscriptionOrder(
  sub: SubscriptionRow,
  customer: CustomerWire,
  bill: Pick<OrderFromCheckout, "discountId" | "subtotalAmount" | "discountAmount" | "tax" | "items">,
  now: Date,
) {
  return planOrderFromCheckout(
    {
      organizationId: sub.organizationId,
      checkoutId: "",
      customerId: sub.customerId,
      productId: sub.productId,
      subscriptionId: sub.id,
      billingReason: "subscription_create",
      currency: sub.currency,
      ...bill,
      seats: sub.seats,
      billingName: customer.billing_name ?? customer.name,
      billingAddress: customer.billing_address as Record<string, string | null> | null,
      billingTaxId: taxIdOf(customer.tax_id),
      metadata: sub.metadata,
      customFieldData: sub.customFieldData,
    },
    now,
  );
}

/** When a renewal's invoice issued `now` is due, when the subscription (else its customer) pays by invoice; else
 * null. */
export function invoiceDueAt(sub: SubscriptionRow, customer: CustomerWire, now: Date): Date | null {
  const customerTerms = { collectionMethod: customer.collection_method === "send_invoice" ? ("send_invoice" as const) : null, daysUntilDue: customer.days_until_due };
  const terms = effectiveTerms(sub, customerTerms);
  return terms.sendInvoice ? dueDate(now, terms.days) : null;
}

/**
 * The order of a renewal: the period's lines (the carried prorations' from `firstCarried` on), its tax and
 * discount, pending until its charge answers (planned first: the charge names it). The period it renews is part
 * of the order: a second order for it breaks a unique index (one renewal per period).
 */
export function renewalOrder(
  sub: SubscriptionRow,
  customer: CustomerWire,
  bill: Awaited<ReturnType<typeof billPeriod>>,
  tax: ReturnType<typeof taxOf>,
  s: { settlement: Settlement; firstCarried: number; dueAt?: Date | null },
  now: Date,
) {
  const { settlement, firstCarried } = s;
  const planned = planSubscriptionOrder(
    sub,
    customer,
    { discountId: bill.discount > 0 ? sub.discountId : null, subtotalAmount: bill.subtotal, discountAmount: bill.discount, tax, items: bill.items },
    now,
  );
  return {
    ...planned,
    row: {
      ...planned.row,
      billingReason: "subscription_cycle",
      checkoutId: null,
      status: "pending",
      renewedPeriodStart: sub.currentPeriodStart,
      appliedBalanceAmount: settlement.applied,
      purchaseOrder: sub.purchaseOrder,
      dueAt: s.dueAt ?? null,
    },
    items: planned.items.map((i) => (i.position >= firstCarried ? { ...i, proration: true } : i)),
  };
}
