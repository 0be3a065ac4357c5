// Customer sessions: what lets a customer (not a seller) read and manage their own orders, subscriptions,
// benefits and license keys in the customer portal (/v1/customer-portal, the /portal page). The token is shown
// once, when the session is made; only its SHA-256 is kept.
import { index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";

import { customer } from "./billing.js";
import { customerMember } from "./members.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz } from "./columns.js";

export const customerSession = pgTable(
  "customer_session",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    /** The team member who signed in (a team customer's session without one acts as its owner). */
    memberId: uuid("member_id").references(() => customerMember.id, { onDelete: "cascade" }),
    /** hex SHA-256 of the token */
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: timestamptz("expires_at").notNull(),
    returnUrl: text("return_url"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("customer_session_customer_idx").on(t.customerId), index("customer_session_expires_idx").on(t.expiresAt)],
);

/** A one-time code mailed to a customer who asks for the portal by email; exchanged for a session. */
export const customerSessionCode = pgTable(
  "customer_session_code",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    /** The team member the code was mailed to, if it was a member's. */
    memberId: uuid("member_id").references(() => customerMember.id, { onDelete: "cascade" }),
    /** hex SHA-256 of the code */
    codeHash: text("code_hash").notNull().unique(),
    /** The code's first characters: a wrong code that begins the same counts as a wrong try at this one. */
    selector: text("selector"),
    /** Wrong tries at this code; at five it is void. */
    failedAttempts: integer("failed_attempts").notNull().default(0),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("customer_session_code_customer_idx").on(t.customerId, t.createdAt), index("customer_session_code_selector_idx").on(t.selector)],
);
