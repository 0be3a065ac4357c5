// Team customers' members (Polar's Member): the people of a customer of type "team", each with a role — owner
// (exactly one), billing_manager or member. The customer pays; its members sign into the customer portal and
// see what their role lets them see.
import { sql } from "drizzle-orm";
import { check, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

import { customer } from "./billing.js";
import { id, org, cascadeRef, createdAt, modifiedAt } from "./columns.js";

export const customerMember = pgTable(
  "customer_member",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    /** Lower-cased; unique within the customer. */
    email: text("email").notNull(),
    name: text("name"),
    /** The seller's id for the member, unique within the customer. */
    externalId: text("external_id"),
    /** owner | billing_manager | member */
    role: text("role").notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    check("customer_member_role", sql`${t.role} IN ('owner', 'billing_manager', 'member')`),
    uniqueIndex("customer_member_email_uq").on(t.customerId, t.email),
    uniqueIndex("customer_member_external_uq").on(t.customerId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
    uniqueIndex("customer_member_one_owner_uq").on(t.customerId).where(sql`${t.role} = 'owner'`),
    index("customer_member_org_created_idx").on(t.organizationId, t.createdAt),
    index("customer_member_org_email_idx").on(t.organizationId, t.email),
  ],
);
