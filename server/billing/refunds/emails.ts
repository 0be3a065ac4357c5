// The buyer's email for a refund that succeeded (customer_email_settings.order_refunded, till's own key): asked for
// in the transaction that records the success, once per refund (its id is the email's cause), so a refund still
// pending at the processor tells the buyer nothing until the processor says it went through.
import type { Queryable } from "../../db/client.js";
import { walletCreditOfRefund } from "../balance/service.js";
import { requestEmail } from "../customer-emails/service.js";
import type { OrderWire } from "../orders/wire.js";
import type { RefundWire } from "./wire.js";

export async function requestRefundedEmail(tx: Queryable, order: OrderWire, refund: RefundWire): Promise<void> {
  const recipient = order.customer.email;
  if (refund.status !== "succeeded" || !recipient?.includes("@")) return;
  const data = {
    refund: { id: refund.id, amount: refund.amount, tax_amount: refund.tax_amount, currency: refund.currency },
    order: {
      id: order.id,
      invoice_number: order.invoice_number,
      product: order.product ? { name: order.product.name } : null,
      total_amount: order.total_amount,
      refunded_amount: order.refunded_amount,
      refunded_tax_amount: order.refunded_tax_amount,
    },
    to_wallet: await walletCreditOfRefund(tx, refund.organization_id, refund.id),
  };
  await requestEmail(tx, { organizationId: refund.organization_id, causeId: refund.id, type: "order_refunded", recipient, data, customerId: order.customer_id });
}
