// Benefit delivery: what makes a github_repository or discord grant real outside till.
// - benefit_delivery: one row per grant or revoke the worker owes a third party, made from an outbox event in the
//   transaction that fans the event out (or by a regrant / a newly connected account). Leased like customer emails;
//   a transient failure moves next_attempt_at, a permanent one (or a day of transient ones) ends it as failed.
// - customer_oauth_account: a customer's connected GitHub or Discord account (tokens sealed with the server secret).
// - customer_oauth_state: a pending authorization (state → PKCE verifier, sealed), used once, short-lived.
// - benefit_integration: the seller's credentials for a platform (GitHub token or App; Discord bot and OAuth app),
//   sealed as one JSON document.
import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import { benefitGrant, customer } from "./billing.js";
import { id, org, cascadeRef, timestamptz } from "./columns.js";

export const benefitDelivery = pgTable(
  "benefit_delivery",
  {
    id: id(),
    organizationId: org(),
    grantId: cascadeRef("grant_id", () => benefitGrant.id),
    /** grant | revoke */
    action: text("action").notNull(),
    /** The outbox event that caused it (no foreign key: processed outbox rows are cleaned up); null for a regrant. */
    outboxId: uuid("outbox_id"),
    /** pending | done | failed | superseded */
    status: text("status").default("pending").notNull(),
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at").defaultNow().notNull(),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    lastError: text("last_error"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    finishedAt: timestamptz("finished_at"),
  },
  (t) => [
    uniqueIndex("benefit_delivery_cause_key").on(t.outboxId, t.grantId, t.action),
    index("benefit_delivery_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("benefit_delivery_grant_idx").on(t.grantId),
  ],
);

export const customerOauthAccount = pgTable(
  "customer_oauth_account",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    /** github | discord */
    platform: text("platform").notNull(),
    accountId: text("account_id").notNull(),
    accountUsername: text("account_username"),
    /** Sealed (AES-256-GCM, key derived from the server secret). */
    accessToken: text("access_token").notNull(),
    refreshToken: text("refresh_token"),
    expiresAt: timestamptz("expires_at"),
    scope: text("scope"),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [uniqueIndex("customer_oauth_account_key").on(t.customerId, t.platform), index("customer_oauth_account_org_idx").on(t.organizationId)],
);

export const customerOauthState = pgTable("customer_oauth_state", {
  /** hex SHA-256 of the state parameter */
  stateHash: text("state_hash").primaryKey(),
  organizationId: org(),
  customerId: cascadeRef("customer_id", () => customer.id),
  platform: text("platform").notNull(),
  /** Sealed PKCE code verifier. */
  codeVerifier: text("code_verifier").notNull(),
  returnTo: text("return_to"),
  expiresAt: timestamptz("expires_at").notNull(),
});

export const benefitIntegration = pgTable(
  "benefit_integration",
  {
    organizationId: org(),
    /** github | discord */
    platform: text("platform").notNull(),
    /** Sealed JSON: the platform's credentials (server/billing/benefit-delivery/integrations.ts). */
    credentials: text("credentials").notNull(),
    createdAt: timestamptz("created_at").defaultNow().notNull(),
    modifiedAt: timestamptz("modified_at"),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.platform] })],
);
