// Imports of a billing business kept at the seller's processor (Stripe Billing): each run and its plan (one item per
// object read, with what it became), the links from the processor's ids to till's rows (a rerun updates instead of
// duplicating), and each subscription's hand-over — till renews it from the end of its period at the processor, and
// never both sides at once: while a hand-over is pending the till subscription is `incomplete` (not renewed).
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { org, cascadeRef, createdAt, timestamptz } from "./columns.js";
import { subscription } from "./checkout.js";

/** Statuses of a run still in the worker's hands: one at a time per organization. */
export const IMPORT_RUNNING_STATUSES = ["queued", "reading", "importing", "moving", "undoing"] as const;

export const billingImport = pgTable(
  "billing_import",
  {
    id: uuid("id").defaultRandom().primaryKey(),
    organizationId: org(),
    /** till's processor id ("stripe"). */
    processor: text("processor").notNull(),
    dryRun: boolean("dry_run").notNull(),
    /** shared/stripe-import.ts ImportStatus. */
    status: text("status").notNull(),
    accountId: text("account_id"),
    livemode: boolean("livemode"),
    counts: jsonb("counts").$type<Record<string, Record<string, number>>>().default({}).notNull(),
    blocked: integer("blocked").default(0).notNull(),
    /** Objects read from the processor so far, by its list (customers, subscriptions …): the reading's progress. */
    read: jsonb("read").$type<Record<string, number>>().default({}).notNull(),
    requests: jsonb("requests").$type<{ sent: number; throttled: number; limit: number }>().default({ sent: 0, throttled: 0, limit: 0 }).notNull(),
    error: text("error"),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    createdAt: createdAt(),
    finishedAt: timestamptz("finished_at"),
  },
  (t) => [
    index("billing_import_org_created_idx").on(t.organizationId, t.createdAt.desc()),
    uniqueIndex("billing_import_running_uq")
      .on(t.organizationId)
      .where(sql`${t.status} IN ('queued', 'reading', 'importing', 'moving', 'undoing')`),
  ],
);

export const billingImportItem = pgTable(
  "billing_import_item",
  {
    importId: cascadeRef("import_id", () => billingImport.id),
    organizationId: org(),
    position: integer("position").notNull(),
    kind: text("kind").notNull(),
    sourceId: text("source_id").notNull(),
    label: text("label").notNull(),
    action: text("action").notNull(),
    becomes: text("becomes"),
    tillId: uuid("till_id"),
    reason: text("reason"),
  },
  (t) => [primaryKey({ columns: [t.importId, t.kind, t.sourceId] }), index("billing_import_item_position_idx").on(t.importId, t.position)],
);

/** What one of the processor's objects became in till (kind: meter, product, price, discount, customer). */
export const billingImportLink = pgTable(
  "billing_import_link",
  {
    organizationId: org(),
    processor: text("processor").notNull(),
    kind: text("kind").notNull(),
    /** The processor's id; a price's is `price_…/currency`, a product's `prod_…/interval` (one till product each). */
    sourceId: text("source_id").notNull(),
    tillId: uuid("till_id").notNull(),
    /** A digest of what was written from it: a rerun writes again only when the processor's object changed. */
    digest: text("digest").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.processor, t.kind, t.sourceId] })],
);

/**
 * pending (till's subscription waits, `incomplete`, while the processor is asked to end its own at the period's end)
 * → moved (till renews it) or refused (the processor's side changed: nothing moved); handing_back → handed_back.
 */
export const subscriptionHandover = pgTable(
  "subscription_handover",
  {
    subscriptionId: uuid("subscription_id")
      .primaryKey()
      .references(() => subscription.id, { onDelete: "cascade" }),
    organizationId: org(),
    importId: cascadeRef("import_id", () => billingImport.id),
    processor: text("processor").notNull(),
    sourceSubscriptionId: text("source_subscription_id").notNull(),
    state: text("state").notNull(),
    /** The end of the processor's period, when till's first renewal is due. */
    sourcePeriodEnd: timestamptz("source_period_end").notNull(),
    detail: text("detail"),
    attempts: integer("attempts").default(0).notNull(),
    nextAttemptAt: timestamptz("next_attempt_at"),
    lockedUntil: timestamptz("locked_until"),
    lockedBy: text("locked_by"),
    createdAt: createdAt(),
    movedAt: timestamptz("moved_at"),
    handedBackAt: timestamptz("handed_back_at"),
  },
  (t) => [
    uniqueIndex("subscription_handover_source_uq")
      .on(t.organizationId, t.processor, t.sourceSubscriptionId)
      .where(sql`${t.state} IN ('pending', 'moved', 'handing_back')`),
    index("subscription_handover_due_idx").on(t.nextAttemptAt).where(sql`${t.state} IN ('pending', 'handing_back')`),
    index("subscription_handover_import_idx").on(t.importId),
  ],
);
