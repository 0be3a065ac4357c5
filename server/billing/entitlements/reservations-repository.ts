// SQL of reservations (org-scoped). A hold counts against its meter's balance while `held` and not expired.
import { and, eq, gt, sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import type { RawRows } from "../../db/prepared.js";
import { entitlementReservation } from "../../db/schema/index.js";

export type ReservationRow = typeof entitlementReservation.$inferSelect;

const open = (now: Date) => and(eq(entitlementReservation.status, "held"), gt(entitlementReservation.expiresAt, now));

/** Units held now per meter (lower-case id) for the customer. */
export async function heldUnitsOfCustomer(db: Queryable, organizationId: string, customerId: string, now = new Date()): Promise<Map<string, number>> {
  const rows = await db
    .select({ meterId: entitlementReservation.meterId, units: sql<number>`sum(${entitlementReservation.units})::float8` })
    .from(entitlementReservation)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.customerId, customerId), open(now)))
    .groupBy(entitlementReservation.meterId);
  return new Map(rows.map((r) => [r.meterId.toLowerCase(), Number(r.units)]));
}

// ---- the hot path: hand-written statements a reservation's transaction pipelines (reservations.ts) ----------

/** A reservation's columns as rawQuery reads them back (times as epoch ms: the same on both drivers). */
const COLUMNS = `r.id::text AS id, r.organization_id::text AS organization_id, r.customer_id::text AS customer_id,
  r.meter_id::text AS meter_id, r.units, r.used_units, r.status, r.metadata::text AS metadata,
  floor(extract(epoch FROM r.expires_at) * 1000)::float8 AS expires_ms,
  floor(extract(epoch FROM r.settled_at) * 1000)::float8 AS settled_ms,
  floor(extract(epoch FROM r.created_at) * 1000)::float8 AS created_ms`;

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** A row read with COLUMNS. */
export function reservationOf(raw: Record<string, unknown>): ReservationRow {
  const settled = num(raw.settled_ms);
  return {
    id: String(raw.id),
    organizationId: String(raw.organization_id),
    customerId: String(raw.customer_id),
    meterId: String(raw.meter_id),
    units: Number(raw.units),
    usedUnits: num(raw.used_units),
    status: String(raw.status),
    metadata: JSON.parse(String(raw.metadata)) as ReservationRow["metadata"],
    expiresAt: new Date(Number(raw.expires_ms)),
    settledAt: settled === null ? null : new Date(settled),
    createdAt: new Date(Number(raw.created_ms)),
  };
}

/**
 * The meter a feature names (by id, else the first by name, as meters' liveMeterNamed) and the customer a hold is
 * for, and the balance's lock (lockBalance's) taken when both are there: the statement a hold starts with.
 */
const HOLDER = (match: string) => `SELECT m.id::text AS meter_id, m.filter::text AS filter, m.aggregation::text AS aggregation,
    c.id::text AS customer_id,
    CASE WHEN c.id IS NOT NULL THEN pg_advisory_xact_lock(hashtext(c.id::text), hashtext(m.id::text))::text END AS locked
  FROM (SELECT m.id, m.filter, m.aggregation FROM meter m
        WHERE m.organization_id = $1::uuid AND m.archived_at IS NULL AND (lower(m.id::text) = lower($3::text) OR m.name = $3::text)
        ORDER BY lower(m.id::text) = lower($3::text) DESC, m.created_at, m.id LIMIT 1) m
  LEFT JOIN LATERAL (SELECT c.id FROM customer c
        WHERE c.organization_id = $1::uuid AND ${match} AND c.deleted_at IS NULL LIMIT 1) c ON true`;
export const HOLDER_BY_ID = HOLDER("c.id = $2::uuid");
export const HOLDER_BY_EXTERNAL_ID = HOLDER("c.external_id = $2::text");

export interface Holder {
  meterId: string;
  filter: Record<string, unknown>;
  aggregation: Record<string, unknown>;
  /** null: no live customer of the organization is the one named (no lock taken) */
  customerId: string | null;
}

/** HOLDER's answer: undefined when no live meter is the feature. */
export function holderOf(rows: RawRows): Holder | undefined {
  const [row] = rows;
  if (!row) return undefined;
  const json = (v: unknown) => JSON.parse(String(v)) as Record<string, unknown>;
  return { meterId: String(row.meter_id), filter: json(row.filter), aggregation: json(row.aggregation), customerId: row.customer_id ? String(row.customer_id) : null };
}

export const INSERT_HOLD = `INSERT INTO entitlement_reservation AS r (organization_id, customer_id, meter_id, units, status, expires_at, metadata, created_at)
  VALUES ($1::uuid, $2::uuid, $3::uuid, $4::float8, 'held', $5::timestamptz, $6::text::jsonb, $7::timestamptz) RETURNING ${COLUMNS}`;

export const insertHoldParams = (v: { organizationId: string; customerId: string; meterId: string; units: number; expiresAt: Date; metadata: object; createdAt: Date }) => [
  v.organizationId,
  v.customerId,
  v.meterId,
  String(v.units),
  v.expiresAt.toISOString(),
  JSON.stringify(v.metadata),
  v.createdAt.toISOString(),
];

/**
 * The reservation locked for its settlement, with, once the row is locked, the balance's lock (lockBalance's), its
 * meter's definition while the meter is live, and the organization's clock offset (ms; null without a test clock).
 */
export const LOCK_FOR_COMMIT = `WITH r AS (SELECT * FROM entitlement_reservation WHERE organization_id = $1::uuid AND id = $2::uuid FOR UPDATE)
  SELECT ${COLUMNS}, pg_advisory_xact_lock(hashtext(r.customer_id::text), hashtext(r.meter_id::text))::text AS locked,
    m.filter::text AS filter, m.aggregation::text AS aggregation,
    (SELECT t.offset_ms::float8 FROM test_clock t WHERE t.organization_id = $1::uuid) AS offset_ms
  FROM r LEFT JOIN meter m ON m.organization_id = r.organization_id AND m.id = r.meter_id AND m.archived_at IS NULL`;

/** The transaction-local setting COMMIT_GUARD sets: `ok` when a commit sent ahead may write. */
export const COMMIT_GUARDED = `current_setting('till.reservation_commit', true) = 'ok'`;

/**
 * What a commit sent ahead (commit-ahead.ts) built its statements from, checked under the locks LOCK_FOR_COMMIT
 * and the ingest lock took, into a transaction-local setting the INSERT and the settlement behind it read
 * (COMMIT_GUARDED): the hold open at $3 (epoch ms, as the wire's status reads it) for the customer and meter,
 * with at least the units used; the meter live with that definition; the clock's offset; the organization's kept
 * meters (the rows keptMetersSql reads). One check, so both writes happen or neither does.
 */
export const COMMIT_GUARD = `SELECT set_config('till.reservation_commit', CASE WHEN EXISTS (
      SELECT 1 FROM entitlement_reservation r
        JOIN meter m ON m.organization_id = r.organization_id AND m.id = r.meter_id AND m.archived_at IS NULL
      WHERE r.organization_id = $1::uuid AND r.id = $2::uuid AND r.status = 'held' AND floor(extract(epoch FROM r.expires_at) * 1000) > $3::float8
        AND r.units >= $4::float8 AND r.customer_id = $5::uuid AND r.meter_id = $6::uuid
        AND m.filter = $7::text::jsonb AND m.aggregation = $8::text::jsonb)
    AND (SELECT t.offset_ms::float8 FROM test_clock t WHERE t.organization_id = $1::uuid) IS NOT DISTINCT FROM $9::float8
    AND (SELECT coalesce(jsonb_agg(jsonb_build_object('id', m.id, 'filter', m.filter, 'aggregation', m.aggregation) ORDER BY m.id), '[]'::jsonb)
         FROM meter_rollup_state st JOIN meter m ON m.id = st.meter_id
         WHERE st.organization_id = $1::uuid AND st.status = 'ready') = $10::text::jsonb
  THEN 'ok' ELSE '' END, true) AS guard`;

const settle = (guarded: boolean) => `UPDATE entitlement_reservation AS r SET status = $3::text, used_units = $4::float8, settled_at = $5::timestamptz
  WHERE r.organization_id = $1::uuid AND r.id = $2::uuid${guarded ? ` AND ${COMMIT_GUARDED}` : ""} RETURNING ${COLUMNS}`;
/** The settlement of a reservation locked before (its row). */
export const SETTLE = settle(false);
/** SETTLE when COMMIT_GUARD passed; no row otherwise. */
export const SETTLE_GUARDED = settle(true);

export const settleParams = (organizationId: string, id: string, p: { status: "committed" | "released"; usedUnits: number | null; settledAt: Date }) => [
  organizationId,
  id,
  p.status,
  p.usedUnits === null ? null : String(p.usedUnits),
  p.settledAt.toISOString(),
];

export async function findReservation(db: Queryable, organizationId: string, id: string, lock = false): Promise<ReservationRow | undefined> {
  const q = db
    .select()
    .from(entitlementReservation)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.id, id)));
  const [row] = await (lock ? q.for("update") : q);
  return row;
}

export async function settleReservation(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: { status: "committed" | "released"; usedUnits: number | null; settledAt: Date },
): Promise<ReservationRow> {
  const [row] = await db
    .update(entitlementReservation)
    .set(patch)
    .where(and(eq(entitlementReservation.organizationId, organizationId), eq(entitlementReservation.id, id)))
    .returning();
  return row!;
}

/** Marks up to `limit` holds past their expiry as expired (any organization); returns how many. */
export async function expireHolds(db: Queryable, now: Date, limit: number): Promise<number> {
  const rows = await rowsOf<{ id: string }>(
    db,
    sql`
    UPDATE ${entitlementReservation} SET status = 'expired', settled_at = ${now.toISOString()}::timestamptz
    WHERE id IN (
      SELECT id FROM ${entitlementReservation}
      WHERE status = 'held' AND expires_at <= ${now.toISOString()}::timestamptz
      ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ) RETURNING id`,
  );
  return rows.length;
}
