// Tables of the billing engine (catalog, customers, meters, events, files, grants).
// Every row carries organization_id; nested wire shapes (properties, filters, addresses) are jsonb,
// kept in the wire's own shape so wire.ts maps them one-to-one.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { SeatTier } from "../../../shared/seat-tiers.js";
import type { UnitTiers } from "../../../shared/tiers.js";
import { organization } from "./auth.js";
import { id, org, cascadeRef, createdAt, modifiedAt, timestamptz, metadata } from "./columns.js";

export type { Metadata } from "./columns.js";


/** Billing-side settings of an organization (name, slug and logo live in better-auth's organization table). */
export const billingOrganization = pgTable("billing_organization", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  email: text("email"),
  website: text("website"),
  socials: jsonb("socials").$type<Array<{ platform: string; url: string }>>().default([]).notNull(),
  /** The lifecycle (organizations/status.ts): created, onboarding_started, under_review, denied, active. */
  status: text("status").default("created").notNull(),
  detailsSubmittedAt: timestamptz("details_submitted_at"),
  /** A platform admin's review of the submitted details: null (none), pending, approved or denied. */
  reviewStatus: text("review_status"),
  /** Why the details were denied, shown to the seller. */
  reviewReason: text("review_reason"),
  reviewedAt: timestamptz("reviewed_at"),
  featureSettings: jsonb("feature_settings").$type<Record<string, boolean>>(),
  subscriptionSettings: jsonb("subscription_settings").$type<Record<string, unknown>>(),
  notificationSettings: jsonb("notification_settings").$type<Record<string, boolean>>(),
  customerEmailSettings: jsonb("customer_email_settings").$type<Record<string, boolean>>(),
  details: jsonb("details").$type<Record<string, unknown>>(),
  /** Where the organization collects tax and whether its prices include it (billing/tax/settings.ts); null: none. */
  taxSettings: jsonb("tax_settings").$type<Record<string, unknown>>(),
  /**
   * How failed renewal charges are retried and how the subscription ends (billing/settings/dunning.ts); null: defaults.
   */
  dunningSettings: jsonb("dunning_settings").$type<Record<string, unknown>>(),
  modifiedAt: modifiedAt(),
});

export const product = pgTable(
  "product",
  {
    id: id(),
    organizationId: org(),
    name: text("name").notNull(),
    description: text("description"),
    visibility: text("visibility").default("public").notNull(),
    recurringInterval: text("recurring_interval"),
    recurringIntervalCount: integer("recurring_interval_count"),
    trialInterval: text("trial_interval"),
    trialIntervalCount: integer("trial_interval_count"),
    /** Billing interval of metered prices (0.49.0's meter_interval); null means the recurring interval. */
    meterInterval: text("meter_interval"),
    meterIntervalCount: integer("meter_interval_count"),
    isArchived: boolean("is_archived").default(false).notNull(),
    /** The products offered as add-ons on this product's subscriptions (migration 0088; same interval). */
    addOnIds: uuid("add_on_ids").array().default(sql`'{}'::uuid[]`).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("product_org_created_idx").on(t.organizationId, t.createdAt)],
);

export const productPrice = pgTable(
  "product_price",
  {
    id: id(),
    organizationId: org(),
    productId: cascadeRef("product_id", () => product.id),
    amountType: text("amount_type").notNull(),
    /** one_time | recurring */
    type: text("type").notNull(),
    recurringInterval: text("recurring_interval"),
    priceCurrency: text("price_currency").default("usd").notNull(),
    /** catalog (the product's own prices) | ad_hoc (made for one checkout) */
    source: text("source").default("catalog").notNull(),
    taxBehavior: text("tax_behavior"),
    isArchived: boolean("is_archived").default(false).notNull(),
    legacy: boolean("legacy").default(false).notNull(),
    priceAmount: integer("price_amount"),
    minimumAmount: integer("minimum_amount"),
    maximumAmount: integer("maximum_amount"),
    presetAmount: integer("preset_amount"),
    unitAmount: numeric("unit_amount"),
    capAmount: integer("cap_amount"),
    /** A metered price's tiers (till's own field; shared/tiers.ts); null: every unit at unit_amount. */
    unitTiers: jsonb("unit_tiers").$type<UnitTiers>(),
    meterId: uuid("meter_id"),
    /** A metered price's behaviour at zero balance: credit_only, or null (credit_then_invoice). */
    overage: text("overage"),
    /** Sorted, contiguous, max_seats null only on the last (products/prices.ts writes them so). */
    seatTiers: jsonb("seat_tiers").$type<{ seat_tier_type?: string; tiers: SeatTier[] }>(),
    position: integer("position").default(0).notNull(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("product_price_product_idx").on(t.productId)],
);

export const benefit = pgTable(
  "benefit",
  {
    id: id(),
    organizationId: org(),
    type: text("type").notNull(),
    description: text("description").notNull(),
    selectable: boolean("selectable").default(true).notNull(),
    deletable: boolean("deletable").default(true).notNull(),
    isDeleted: boolean("is_deleted").default(false).notNull(),
    properties: jsonb("properties").$type<Record<string, unknown>>().default({}).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("benefit_org_created_idx").on(t.organizationId, t.createdAt)],
);

export const productBenefit = pgTable(
  "product_benefit",
  {
    productId: cascadeRef("product_id", () => product.id),
    benefitId: cascadeRef("benefit_id", () => benefit.id),
    position: integer("position").default(0).notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.benefitId] }), index("product_benefit_benefit_idx").on(t.benefitId)],
);

export const discount = pgTable(
  "discount",
  {
    id: id(),
    organizationId: org(),
    name: text("name").notNull(),
    code: text("code"),
    type: text("type").notNull(),
    amount: integer("amount"),
    currency: text("currency"),
    /** fixed: the amount per currency (0.49.0's `amounts`); `amount`/`currency` hold the primary entry */
    amounts: jsonb("amounts").$type<Record<string, number>>(),
    basisPoints: integer("basis_points"),
    duration: text("duration").notNull(),
    durationInMonths: integer("duration_in_months"),
    startsAt: timestamptz("starts_at"),
    endsAt: timestamptz("ends_at"),
    maxRedemptions: integer("max_redemptions"),
    redemptionsCount: integer("redemptions_count").default(0).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [
    index("discount_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("discount_org_code_uq")
      .on(t.organizationId, sql`lower(${t.code})`)
      .where(sql`${t.code} IS NOT NULL AND ${t.deletedAt} IS NULL`),
  ],
);

export const discountProduct = pgTable(
  "discount_product",
  {
    discountId: cascadeRef("discount_id", () => discount.id),
    productId: cascadeRef("product_id", () => product.id),
  },
  (t) => [primaryKey({ columns: [t.discountId, t.productId] })],
);

export const customField = pgTable(
  "custom_field",
  {
    id: id(),
    organizationId: org(),
    type: text("type").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    properties: jsonb("properties").$type<Record<string, unknown>>().default({}).notNull(),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [
    index("custom_field_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("custom_field_org_slug_uq").on(t.organizationId, t.slug).where(sql`${t.deletedAt} IS NULL`),
  ],
);

export const productCustomField = pgTable(
  "product_custom_field",
  {
    productId: cascadeRef("product_id", () => product.id),
    customFieldId: cascadeRef("custom_field_id", () => customField.id),
    position: integer("position").default(0).notNull(),
    required: boolean("required").default(false).notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.customFieldId] })],
);

export const meter = pgTable(
  "meter",
  {
    id: id(),
    organizationId: org(),
    name: text("name").notNull(),
    unit: text("unit").default("scalar").notNull(),
    customLabel: text("custom_label"),
    customMultiplier: integer("custom_multiplier"),
    filter: jsonb("filter").$type<Record<string, unknown>>().notNull(),
    aggregation: jsonb("aggregation").$type<Record<string, unknown>>().notNull(),
    metadata: metadata(),
    archivedAt: timestamptz("archived_at"),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [index("meter_org_created_idx").on(t.organizationId, t.createdAt)],
);

/** How a customer's or a subscription's renewals are collected (Stripe's collection_method values). */
export type CollectionMethod = "charge_automatically" | "send_invoice";

export const customer = pgTable(
  "customer",
  {
    id: id(),
    organizationId: org(),
    externalId: text("external_id"),
    type: text("type").default("individual").notNull(),
    email: text("email").notNull(),
    emailVerified: boolean("email_verified").default(false).notNull(),
    name: text("name"),
    /** The name invoices are made out to (a business buyer's company), when it is not the person's name. */
    billingName: text("billing_name"),
    billingAddress: jsonb("billing_address").$type<Record<string, string | null>>(),
    taxId: jsonb("tax_id").$type<Array<string | null>>(),
    locale: text("locale"),
    /** How renewals are collected (null: charge_automatically) and, with send_invoice, in how many days. */
    collectionMethod: text("collection_method").$type<CollectionMethod>(),
    daysUntilDue: integer("days_until_due"),
    metadata: metadata(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [
    index("customer_org_created_idx").on(t.organizationId, t.createdAt),
    // the list's default order (live customers, newest first, then id: migration 0032)
    index("customer_org_live_created_idx").on(t.organizationId, t.createdAt.desc(), t.id).where(sql`${t.deletedAt} IS NULL`),
    uniqueIndex("customer_org_email_uq").on(t.organizationId, t.email).where(sql`${t.deletedAt} IS NULL`),
    uniqueIndex("customer_org_external_uq")
      .on(t.organizationId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL AND ${t.deletedAt} IS NULL`),
  ],
);

/** Usage events. Only server/billing/events reads this table (it may move to a columnar store). */
export const event = pgTable(
  "event",
  {
    // time-ordered (UUID version 7, migration 0038): a batch's rows land on the primary key's last leaves
    // the primary key is (id, timestamp): the table is partitioned by month of timestamp (migration 0060)
    id: uuid("id").default(sql`till_uuid_v7()`).notNull(),
    // no foreign key: checked once per statement by a trigger, and deleted with its organization by another
    // (migration 0037: the key's check per row was an eighth of a 1,000-event batch's INSERT)
    organizationId: uuid("organization_id").notNull(),
    name: text("name").notNull(),
    source: text("source").default("user").notNull(),
    timestamp: timestamptz("timestamp").notNull(),
    customerId: uuid("customer_id"),
    externalCustomerId: text("external_customer_id"),
    externalId: text("external_id"),
    parentId: uuid("parent_id"),
    metadata: metadata(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.timestamp], name: "event_pkey" }),
    // no index on external_id: a partitioned table's unique index must hold the partition key, so
    // event_external_id dedupes, and names the event holding each key (migration 0070)
    // partial: an event names its customer one way, and no read looks for the NULLs (migration 0036)
    index("event_org_customer_ts_idx").on(t.organizationId, t.customerId, t.timestamp).where(sql`${t.customerId} IS NOT NULL`),
    index("event_org_ext_customer_ts_idx").on(t.organizationId, t.externalCustomerId, t.timestamp).where(sql`${t.externalCustomerId} IS NOT NULL`),
    index("event_org_name_ts_idx").on(t.organizationId, t.name, t.timestamp),
    // the events list's first page (migration 0032) and child_count of listed events
    index("event_org_ts_idx").on(t.organizationId, t.timestamp, t.id),
    index("event_parent_idx").on(t.parentId).where(sql`${t.parentId} IS NOT NULL`),
  ],
);

/**
 * The external_ids an organization's events were stored with: ingest's deduplication (migration 0060), each with
 * the event holding it (0070; null when that event was not found then). A claim outlives its event (retention).
 */
export const eventExternalId = pgTable(
  "event_external_id",
  {
    organizationId: uuid("organization_id").notNull(),
    externalId: text("external_id").notNull(),
    eventId: uuid("event_id"),
    eventTimestamp: timestamptz("event_timestamp"),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.externalId], name: "event_external_id_pkey" })],
);

export const file = pgTable(
  "file",
  {
    id: id(),
    organizationId: org(),
    name: text("name").notNull(),
    path: text("path").notNull(),
    mimeType: text("mime_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    service: text("service").notNull(),
    version: text("version"),
    isUploaded: boolean("is_uploaded").default(false).notNull(),
    isEnabled: boolean("is_enabled").default(true).notNull(),
    storageVersion: text("storage_version"),
    checksumEtag: text("checksum_etag"),
    checksumSha256Base64: text("checksum_sha256_base64"),
    checksumSha256Hex: text("checksum_sha256_hex"),
    lastModifiedAt: timestamptz("last_modified_at"),
    /** The pending multipart upload: its id, the parts and the hash of the presigned-URL token. */
    upload: jsonb("upload").$type<{
      id: string;
      token_hash: string;
      expires_at: string;
      parts: Array<{ number: number; chunk_start: number; chunk_end: number; checksum_sha256_base64: string | null }>;
    }>(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [index("file_org_created_idx").on(t.organizationId, t.createdAt)],
);

export const productMedia = pgTable(
  "product_media",
  {
    productId: cascadeRef("product_id", () => product.id),
    fileId: cascadeRef("file_id", () => file.id),
    position: integer("position").default(0).notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.fileId] })],
);

export const benefitGrant = pgTable(
  "benefit_grant",
  {
    id: id(),
    organizationId: org(),
    benefitId: cascadeRef("benefit_id", () => benefit.id),
    customerId: cascadeRef("customer_id", () => customer.id),
    subscriptionId: uuid("subscription_id"),
    orderId: uuid("order_id"),
    /** The customer seat whose claim made this grant (the seat holder's grant); null for the buyer's own. */
    customerSeatId: uuid("customer_seat_id"),
    /**
     * The team member the grant was made for (a claimed seat of the member; customer_id stays the team's); null for
     * the customer's own. References customer_member (ON DELETE SET NULL, migration 0065; members.ts imports this
     * file).
     */
    memberId: uuid("member_id"),
    grantedAt: timestamptz("granted_at"),
    revokedAt: timestamptz("revoked_at"),
    properties: jsonb("properties").$type<Record<string, unknown>>().default({}).notNull(),
    previousProperties: jsonb("previous_properties").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<{ message: string; type: string; timestamp: string }>(),
    createdAt: createdAt(),
    modifiedAt: modifiedAt(),
  },
  (t) => [
    index("benefit_grant_org_created_idx").on(t.organizationId, t.createdAt),
    index("benefit_grant_benefit_idx").on(t.benefitId),
    index("benefit_grant_customer_idx").on(t.customerId),
    index("benefit_grant_seat_idx").on(t.customerSeatId).where(sql`${t.customerSeatId} IS NOT NULL`),
    index("benefit_grant_member_idx").on(t.memberId).where(sql`${t.memberId} IS NOT NULL`),
    // a monthly meter credit's next date (migration 0084; subscriptions/monthly-credits.ts)
    index("benefit_grant_next_credit_idx")
      .on(sql`(${t.properties}->>'next_credit_at')`)
      .where(sql`${t.properties}->>'next_credit_at' IS NOT NULL`),
  ],
);
