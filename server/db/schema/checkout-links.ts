// Checkout links (Polar's /v1/checkout-links, Stripe's payment links): one shareable URL that opens a fresh
// checkout of the link's products each time it is followed. Soft-deleted, so a deleted link answers 404.
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";

import type { Metadata } from "./billing.js";
import { id, org, createdAt, modifiedAt, timestamptz } from "./columns.js";

export const checkoutLink = pgTable(
  "checkout_link",
  {
    id: id(),
    organizationId: org(),
    /** The credential in the link's URL (`/v1/checkout-links/{client_secret}/redirect`). */
    clientSecret: text("client_secret").notNull(),
    paymentProcessor: text("payment_processor").default("stripe").notNull(),
    label: text("label"),
    /** The products offered, in order (the first is selected). */
    productIds: uuid("product_ids").array().notNull(),
    allowDiscountCodes: boolean("allow_discount_codes").default(true).notNull(),
    requireBillingAddress: boolean("require_billing_address").default(false).notNull(),
    discountId: uuid("discount_id"),
    successUrl: text("success_url"),
    returnUrl: text("return_url"),
    trialInterval: text("trial_interval"),
    trialIntervalCount: integer("trial_interval_count"),
    seats: integer("seats"),
    metadata: jsonb("metadata").$type<Metadata>().default({}).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [
    uniqueIndex("checkout_link_client_secret_uq").on(t.clientSecret),
    index("checkout_link_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);
