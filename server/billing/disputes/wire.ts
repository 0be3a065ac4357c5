// Polar's Dispute from a dispute row: SDK 0.47.1 reads the common fields, 0.49.0 also reason, evidence_due_by,
// past_due, customer and case_id (0.47.1 ignores what it does not know). Its statuses are Polar's DisputeStatus
// (DISPUTE_STATUSES, payments/accounts.ts), in which every processor's adapter says its own.
import type { InferSelectModel } from "drizzle-orm";
import type { dispute } from "../../db/schema/index.js";
import type { CustomerWire } from "../customers/wire.js";

export type DisputeRow = InferSelectModel<typeof dispute>;

/** Won or lost: the money's fate is decided. */
export const RESOLVED_STATUSES: readonly string[] = ["lost", "won"];
/** Nothing more will happen: decided, or prevented (an early warning closed without a dispute). */
export const CLOSED_STATUSES: readonly string[] = ["prevented", "lost", "won"];

export function toDisputeWire(row: DisputeRow, customer: CustomerWire | null, now: Date = new Date()) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    status: row.status,
    resolved: RESOLVED_STATUSES.includes(row.status),
    closed: CLOSED_STATUSES.includes(row.status),
    amount: row.amount,
    tax_amount: row.taxAmount,
    currency: row.currency,
    reason: row.reason,
    evidence_due_by: row.evidenceDueBy?.toISOString() ?? null,
    past_due: row.status === "needs_response" && row.evidenceDueBy !== null && row.evidenceDueBy.getTime() < now.getTime(),
    order_id: row.orderId,
    payment_id: row.paymentId,
    customer,
    case_id: null,
  };
}
export type DisputeWire = ReturnType<typeof toDisputeWire>;
