// Customer seats: what a seat-based purchase (a subscription or a one-time order with `seats`) lets its buyer
// hand out. A seat is assigned to an email (pending, with an invitation token kept as its SHA-256), claimed by
// that person (who becomes a customer of the seller and gets the product's benefits), or revoked.
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { customer } from "./billing.js";
import { order, subscription } from "./checkout.js";
import { customerMember } from "./members.js";
import { id, org, createdAt, modifiedAt, timestamptz } from "./columns.js";

export const customerSeat = pgTable(
  "customer_seat",
  {
    id: id(),
    organizationId: org(),
    subscriptionId: uuid("subscription_id").references(() => subscription.id, { onDelete: "cascade" }),
    orderId: uuid("order_id").references(() => order.id, { onDelete: "cascade" }),
    /** pending | claimed | revoked */
    status: text("status").default("pending").notNull(),
    /** Lower-cased; the address the invitation goes to. */
    email: text("email"),
    /** The seat holder: known at assignment when assigned by customer, else set by the claim. */
    customerId: uuid("customer_id").references(() => customer.id, { onDelete: "set null" }),
    /** The buyer's team member the seat was assigned to, when assigned by member. */
    memberId: uuid("member_id").references(() => customerMember.id, { onDelete: "set null" }),
    /** hex SHA-256 of the pending invitation's token; cleared by a claim or a revocation. */
    invitationTokenHash: text("invitation_token_hash"),
    invitationTokenExpiresAt: timestamptz("invitation_token_expires_at"),
    /** A new id per invitation sent (assignment, each resend): the invitation email's cause, so one email each. */
    invitationId: uuid("invitation_id"),
    claimedAt: timestamptz("claimed_at"),
    revokedAt: timestamptz("revoked_at"),
    seatMetadata: jsonb("seat_metadata").$type<Record<string, string | number | boolean>>().default({}).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    check("customer_seat_one_owner", sql`(${t.subscriptionId} IS NULL) <> (${t.orderId} IS NULL)`),
    uniqueIndex("customer_seat_token_uq").on(t.invitationTokenHash).where(sql`${t.invitationTokenHash} IS NOT NULL`),
    uniqueIndex("customer_seat_active_email_uq")
      .on(sql`coalesce(${t.subscriptionId}, ${t.orderId})`, t.email)
      .where(sql`${t.status} <> 'revoked' AND ${t.email} IS NOT NULL`),
    index("customer_seat_subscription_idx").on(t.subscriptionId),
    index("customer_seat_order_idx").on(t.orderId),
    index("customer_seat_customer_idx").on(t.customerId),
    index("customer_seat_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);
