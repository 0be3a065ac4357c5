// The Polar `Refund` shape from a refund row (SDK 0.47.1 and 0.49.0 read the same fields).
import type { InferSelectModel } from "drizzle-orm";
import type { refund } from "../../db/schema/index.js";

export type RefundRow = InferSelectModel<typeof refund>;

export const REFUND_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
/** The reasons a seller may give (Polar's `dispute_prevention` is for refunds the platform makes itself). */
export const REFUND_REASONS = ["duplicate", "fraudulent", "customer_request", "service_disruption", "satisfaction_guarantee", "other"] as const;

export function toRefundWire(row: RefundRow) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    metadata: row.metadata,
    status: row.status,
    reason: row.reason,
    amount: row.amount,
    tax_amount: row.taxAmount,
    currency: row.currency,
    organization_id: row.organizationId,
    order_id: row.orderId,
    subscription_id: row.subscriptionId ?? null,
    customer_id: row.customerId,
    revoke_benefits: row.revokeBenefits,
    dispute: null,
    // till's own field (the SDKs drop it): why the processor failed or canceled the refund, else null
    failure_reason: row.failureReason ?? null,
  };
}
export type RefundWire = ReturnType<typeof toRefundWire>;
