// Disputes (chargebacks) of paid orders (Polar's Dispute): one row per processor dispute, its
// status following the processor's; amount and tax split like a refund's. `settled_at` marks the close whose
// consequences (balance events, a lost dispute's refund of the order and revoked benefits) were applied once.
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { customer } from "./billing.js";
import { order } from "./checkout.js";
import { payment } from "./payments.js";

const timestamptz = (name: string) => timestamp(name, { withTimezone: true });

export const dispute = pgTable(
  "dispute",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    orderId: uuid("order_id")
      .notNull()
      .references(() => order.id, { onDelete: "cascade" }),
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payment.id, { onDelete: "cascade" }),
    customerId: uuid("customer_id").references(() => customer.id, { onDelete: "set null" }),
    /** Polar's DisputeStatus: prevented | early_warning | needs_response | under_review | lost | won */
    status: text("status").notNull(),
    /** Minor units before tax; the processor disputed amount + tax_amount. */
    amount: integer("amount").notNull(),
    taxAmount: integer("tax_amount").notNull(),
    currency: text("currency").notNull(),
    /** The processor's reason (fraudulent, product_not_received, …). */
    reason: text("reason"),
    evidenceDueBy: timestamptz("evidence_due_by"),
    processor: text("processor").notNull(),
    /** Stripe's dispute id (dp_… / du_…). */
    processorDisputeId: text("processor_dispute_id").notNull(),
    /** The disputed charge (ch_…). */
    chargeId: text("charge_id").notNull(),
    settledAt: timestamptz("settled_at"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [
    uniqueIndex("dispute_org_processor_uq").on(t.organizationId, t.processorDisputeId),
    index("dispute_org_created_idx").on(t.organizationId, t.createdAt),
    index("dispute_order_idx").on(t.orderId),
  ],
);
