// The refunds' own errors, in Polar's names and statuses: 403 RefundedAlready, 400 RefundAmountTooHigh,
// RevokeSubscriptionBenefitsProhibited and NotPaidOrder.
import { formatMoney } from "../../../shared/money.js";
import { declareError } from "../errors.js";
import { refundableAmount, type OrderRow } from "../orders/wire.js";

export const refundedAlready = declareError({ status: 403, error: "RefundedAlready", detail: (order: OrderRow) => `Order is already fully refunded: ${order.id}` });

// money as the API's other messages print it ("$25.00"), not the raw minor units a seller would misread
export const amountTooHigh = declareError({
  status: 400,
  error: "RefundAmountTooHigh",
  detail: (order: OrderRow) => `Refund amount exceeds remaining order balance: ${formatMoney(refundableAmount(order), order.currency, "en")}`,
});

export const revokeSubscriptionBenefitsProhibited = declareError({
  status: 400,
  error: "RevokeSubscriptionBenefitsProhibited",
  detail: "Subscription benefits can only be revoked upon cancellation",
});

export const notPaid = declareError({ status: 400, error: "NotPaidOrder", detail: (order: OrderRow) => `Order is not paid: ${order.id}` });
