// A subscription's order — a renewal's (renewal.ts) or a plan change's proration charge (proration.ts) — planned
// as a checkout's order is, from the subscription and its customer's billing details at the sale.
import type { CustomerWire } from "../customers/wire.js";
import { planOrderFromCheckout, type OrderFromCheckout } from "../orders/service.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";

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
