// Entitlement checks and reservations on the wire (till's own API, no Polar counterpart).
import { z } from "zod";
import { ENTITLEMENT_REASONS, OVERAGE_MODES, type EntitlementAnswer } from "../../../shared/entitlements.js";
import { RESERVATION_STATUSES } from "../../db/schema/reservations.js";
import type { ReservationRow } from "./reservations-repository.js";

const uuid = z.guid({ message: "Input should be a valid UUID" });
const externalId = z.string().min(1).max(1024);
/** Units of a meter: positive, finite, and small enough to add up exactly. */
const units = z.number().positive().max(1e12);

const oneCustomer = (v: { customer_id?: string | null | undefined; external_customer_id?: string | null | undefined }, ctx: z.core.$RefinementCtx) => {
  if (!v.customer_id === !v.external_customer_id) {
    ctx.addIssue({ code: "custom", path: ["customer_id"], message: "Give exactly one of customer_id and external_customer_id." });
  }
};

export const EntitlementCheckInput = z
  .object({
    customer_id: uuid.nullish(),
    external_customer_id: externalId.nullish(),
    feature: z.string().trim().min(1).max(255),
    units: units.nullish(),
  })
  .superRefine(oneCustomer);
export type EntitlementCheckInput = z.output<typeof EntitlementCheckInput>;

export const EntitlementCheck = z.object({
  allowed: z.boolean(),
  reason: z.enum(ENTITLEMENT_REASONS).nullable(),
  feature: z.string(),
  kind: z.enum(["feature_flag", "meter"]).nullable(),
  customer_id: z.uuid().nullable(),
  benefit_id: z.uuid().nullable(),
  meter_id: z.uuid().nullable(),
  balance: z.number().nullable(),
  limit: z.number().nullable(),
  held: z.number().nullable(),
  units: z.number().nullable(),
  overage: z.enum(OVERAGE_MODES).nullable(),
});
export type EntitlementCheckWire = z.output<typeof EntitlementCheck>;

export const toCheckWire = (a: EntitlementAnswer, feature: string, customerId: string | null, overage: EntitlementCheckWire["overage"]): EntitlementCheckWire => ({
  allowed: a.allowed,
  reason: a.reason,
  feature,
  kind: a.kind,
  customer_id: customerId,
  benefit_id: a.benefit_id,
  meter_id: a.meter_id,
  balance: a.balance,
  limit: a.limit,
  held: a.held,
  units: a.units,
  overage,
});

// ---- reservations -------------------------------------------------------------------------------------------------

/** The longest a hold may last: a day. */
export const MAX_HOLD_SECONDS = 86_400;
export const DEFAULT_HOLD_SECONDS = 300;

export const ReservationCreateInput = z
  .object({
    customer_id: uuid.nullish(),
    external_customer_id: externalId.nullish(),
    /** A meter's id or name. */
    feature: z.string().trim().min(1).max(255),
    units,
    expires_in: z.int("Input should be a whole number of seconds").min(1).max(MAX_HOLD_SECONDS).default(DEFAULT_HOLD_SECONDS),
    metadata: z.record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
  })
  .superRefine(oneCustomer);
export type ReservationCreateInput = z.output<typeof ReservationCreateInput>;

export const ReservationCommitInput = z.object({ units: z.number().min(0).max(1e12) });
export type ReservationCommitInput = z.output<typeof ReservationCommitInput>;

export const Reservation = z.object({
  id: z.uuid(),
  created_at: z.iso.datetime(),
  organization_id: z.uuid(),
  customer_id: z.uuid(),
  meter_id: z.uuid(),
  units: z.number(),
  used_units: z.number().nullable(),
  status: z.enum(RESERVATION_STATUSES),
  expires_at: z.iso.datetime(),
  settled_at: z.iso.datetime().nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});
export type ReservationWire = z.output<typeof Reservation>;

export function toReservationWire(row: ReservationRow, now = new Date()): ReservationWire {
  // a hold past its expiry is expired whether or not the worker has marked it yet
  const status = row.status === "held" && row.expiresAt.getTime() <= now.getTime() ? "expired" : row.status;
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    organization_id: row.organizationId,
    customer_id: row.customerId,
    meter_id: row.meterId,
    units: row.units,
    used_units: row.usedUnits ?? null,
    status: status as ReservationWire["status"],
    expires_at: row.expiresAt.toISOString(),
    settled_at: row.settledAt?.toISOString() ?? (status === "expired" ? row.expiresAt.toISOString() : null),
    metadata: row.metadata as ReservationWire["metadata"],
  };
}
