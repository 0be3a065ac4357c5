// Reservations of a meter's balance (server/billing/entitlements): units held for a customer until the seller's app
// commits what it used (a usage event, in the same transaction) or releases them; a hold past its expiry stops
// counting by itself, and the worker marks it expired later. Only `held` rows count against a balance.
import { sql } from "drizzle-orm";
import { doublePrecision, index, pgTable, text } from "drizzle-orm/pg-core";
import { org, cascadeRef, createdAt, id, metadata, timestamptz } from "./columns.js";
import { customer, meter } from "./billing.js";

export const RESERVATION_STATUSES = ["held", "committed", "released", "expired"] as const;

export const entitlementReservation = pgTable(
  "entitlement_reservation",
  {
    id: id(),
    organizationId: org(),
    customerId: cascadeRef("customer_id", () => customer.id),
    meterId: cascadeRef("meter_id", () => meter.id),
    units: doublePrecision("units").notNull(),
    /** The units committed (≤ units); null until committed. */
    usedUnits: doublePrecision("used_units"),
    status: text("status").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    settledAt: timestamptz("settled_at"),
    metadata: metadata(),
    createdAt: createdAt(),
  },
  (t) => [
    index("entitlement_reservation_held_idx").on(t.organizationId, t.customerId, t.meterId).where(sql`${t.status} = 'held'`),
    index("entitlement_reservation_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'held'`),
    index("entitlement_reservation_org_created_idx").on(t.organizationId, t.createdAt.desc()),
  ],
);
