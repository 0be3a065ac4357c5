// Rules for meters: definitions (a filter selecting usage events and an aggregation measuring them), their
// units and archiving, and what they measure — always through the events domain, which owns the events.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { AggregationInput, FilterInput, type Aggregation, type Filter } from "../../../shared/meter-filter.js";
import {
  consumedByCustomerOfMeters,
  consumedOverPeriods,
  meterQuantities as eventQuantities,
  readyMeterIdsOfOrganization,
  type QuantitiesParams,
} from "../events/service.js";
import { isUuid, metadataInput } from "../http.js";
import { invalid, notFound, type ValidationIssue, validationError } from "../errors.js";
import type { SortKey } from "../listing.js";
import * as repo from "./repository.js";
import { markRollupsBuilding, rebuildSoon, stopRollups } from "../events/service.js";
import { meterDefinition, toMeterSummaryWire, toMeterWire, type MeterRow, type MeterSummaryWire, type MeterWire } from "./wire.js";

const NOT_FOUND = "Meter not found.";
export const METER_UNITS = ["scalar", "token", "custom"] as const;

// ---- inputs -------------------------------------------------------------------------------------

const name = z.string().trim().min(1).max(255);
const customLabel = z.string().trim().min(1).max(50);
const customMultiplier = z.int().min(1).max(1_000_000_000);

export const MeterCreateInput = z
  .object({
    name,
    unit: z.enum(METER_UNITS).default("scalar"),
    custom_label: customLabel.nullish(),
    custom_multiplier: customMultiplier.nullish(),
    filter: FilterInput,
    aggregation: AggregationInput,
    metadata: metadataInput.optional(),
    organization_id: z.uuid().nullish(),
  })
  .superRefine((m, ctx) => {
    if (m.unit === "custom" && !m.custom_label) {
      ctx.addIssue({ code: "custom", path: ["custom_label"], message: "custom_label is required when unit is custom." });
    }
  });
export type MeterCreateInput = z.output<typeof MeterCreateInput>;

export const MeterUpdateInput = z.object({
  name: name.nullish(),
  unit: z.enum(METER_UNITS).nullish(),
  custom_label: customLabel.nullish(),
  custom_multiplier: customMultiplier.nullish(),
  filter: FilterInput.nullish(),
  aggregation: AggregationInput.nullish(),
  metadata: metadataInput.optional(),
  is_archived: z.boolean().nullish(),
});
export type MeterUpdateInput = z.output<typeof MeterUpdateInput>;

/** A custom unit keeps its label and multiplier (1 unless given); the built-in units have neither. */
function unitFields(unit: string, label: string | null | undefined, multiplier: number | null | undefined) {
  return unit === "custom"
    ? { unit, customLabel: label ?? null, customMultiplier: multiplier ?? 1 }
    : { unit, customLabel: null, customMultiplier: null };
}

// ---- reads --------------------------------------------------------------------------------------

async function ownMeter(db: Queryable, organizationId: string, id: string) {
  const row = await repo.findMeter(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export async function getMeter(db: Db, organizationId: string, id: string): Promise<MeterWire> {
  return toMeterWire(await ownMeter(db, organizationId, id));
}

export async function listMeters(
  db: Db,
  organizationId: string,
  filter: repo.MeterListFilter,
  sorting: Array<SortKey<repo.MeterSortKey>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listMeters(db, organizationId, filter, sorting, pageNo, limit);
  return { items: rows.map(toMeterWire), total };
}

/** MeterQuantities of a meter of this organization (404 otherwise). */
export async function meterQuantities(db: Db, organizationId: string, id: string, params: QuantitiesParams) {
  return eventQuantities(db, organizationId, id, async () => meterDefinition(await ownMeter(db, organizationId, id)), params);
}

// ---- writes -------------------------------------------------------------------------------------

export async function createMeter(db: Db, organizationId: string, input: MeterCreateInput): Promise<MeterWire> {
  const row = await db.transaction(async (tx) => {
    const created = await repo.insertMeter(tx, {
    organizationId,
    name: input.name,
    ...unitFields(input.unit, input.custom_label, input.custom_multiplier),
    filter: input.filter as unknown as Record<string, unknown>,
    aggregation: input.aggregation as unknown as Record<string, unknown>,
    metadata: input.metadata ?? {},
    });
    // events sent before the meter existed count too: its rollups are built from them in the background
    await markRollupsBuilding(tx, organizationId, created.id);
    return created;
  });
  rebuildSoon(db, organizationId, row.id);
  return toMeterWire(row);
}

export async function updateMeter(db: Db, organizationId: string, id: string, input: MeterUpdateInput): Promise<MeterWire> {
  const { wire, rebuild } = await db.transaction(async (tx) => {
    const current = await ownMeter(tx, organizationId, id);
    const unit = input.unit ?? current.unit;
    const label = input.custom_label !== undefined ? input.custom_label : current.customLabel;
    const multiplier = input.custom_multiplier !== undefined ? input.custom_multiplier : current.customMultiplier;
    const issues: ValidationIssue[] = [];
    if (unit === "custom" && !label) {
      issues.push({ loc: ["body", "custom_label"], msg: "custom_label is required when unit is custom.", type: "value_error" });
    }
    if (issues.length > 0) throw validationError(issues);
    const now = new Date();
    const row = await repo.updateMeter(tx, organizationId, id, {
      modifiedAt: now,
      ...(input.name ? { name: input.name } : {}),
      ...unitFields(unit, label, multiplier),
      ...(input.filter ? { filter: input.filter as unknown as Record<string, unknown> } : {}),
      ...(input.aggregation ? { aggregation: input.aggregation as unknown as Record<string, unknown> } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      ...(input.is_archived === true ? { archivedAt: current.archivedAt ?? now } : {}),
      ...(input.is_archived === false ? { archivedAt: null } : {}),
    });
    if (!row) throw notFound(NOT_FOUND);
    // rollups: archiving stops their upkeep; a new definition (or unarchiving) rebuilds them in the background
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const redefined = !same(row.filter, current.filter) || !same(row.aggregation, current.aggregation);
    let rebuild = false;
    if (row.archivedAt && !current.archivedAt) await stopRollups(tx, organizationId, id);
    else if (!row.archivedAt && (redefined || current.archivedAt)) {
      await markRollupsBuilding(tx, organizationId, id);
      rebuild = true;
    } else if (row.archivedAt && redefined) await stopRollups(tx, organizationId, id);
    return { wire: toMeterWire(row), rebuild };
  });
  if (rebuild) rebuildSoon(db, organizationId, id);
  return wire;
}

// ---- for other domains --------------------------------------------------------------------------

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

/** Meters by id for other domains (prices, benefits): {id, name, unit, custom_label, custom_multiplier}. */
export async function loadMeterSummaries(
  db: Queryable,
  organizationId: string,
  ids: string[],
): Promise<Map<string, MeterSummaryWire>> {
  const rows = await repo.findMetersByIds(db, organizationId, uniqueUuids(ids));
  return new Map(rows.map((row) => [row.id, toMeterSummaryWire(row)]));
}

/** Full `Meter` shapes by id. */
export async function loadMeters(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, MeterWire>> {
  const rows = await repo.findMetersByIds(db, organizationId, uniqueUuids(ids));
  return new Map(rows.map((row) => [row.id, toMeterWire(row)]));
}

/** A live meter of the organization by id or name (names compare as written), or undefined. */
export async function liveMeterNamed(db: Queryable, organizationId: string, feature: string): Promise<MeterRow | undefined> {
  const meters = await repo.liveMeters(db, organizationId);
  const lower = feature.toLowerCase();
  return meters.find((m) => m.id.toLowerCase() === lower) ?? meters.find((m) => m.name === feature);
}

/** The ids among `ids` that are not meters of this organization (malformed ids count as missing). */
export async function meterIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.existingMeterIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/** A meter's definition, for reading the events it selects (`GET /v1/events?meter_id=`); 422 when unknown. */
export async function meterSelection(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<{ filter: Filter; aggregation: Aggregation }> {
  const row = isUuid(id) ? await repo.findMeter(db, organizationId, id.toLowerCase()) : undefined;
  if (!row) throw invalid(["query", "meter_id"], NOT_FOUND);
  return meterDefinition(row);
}

export interface CustomerStateMeter {
  id: string;
  created_at: string;
  modified_at: string | null;
  meter_id: string;
  consumed_units: number;
  credited_units: number;
  balance: number;
  /**
   * till's: the customer's credit pools of their own on this meter (a meter_credit benefit with `pool:
   * "subscription"`), each subscription's credit against the events sent for it; absent without any.
   */
  pools?: CreditPoolWire[];
}

/** A subscription's own credit pool on a meter: its credit, the usage of the events naming it, the balance. */
export interface CreditPoolWire {
  subscription_id: string;
  consumed_units: number;
  credited_units: number;
  balance: number;
}

/** The customer's pools per subscription, by lower-cased meter id (each pool's usage over its current period). */
async function creditPools(db: Queryable, organizationId: string, customer: { id: string; externalId: string | null }): Promise<Map<string, CreditPoolWire[]>> {
  const out = new Map<string, CreditPoolWire[]>();
  const pools = await repo.subscriptionPoolsOfCustomer(db, organizationId, customer.id);
  if (pools.length === 0) return out;
  const { consumed } = await meterUsage(
    db,
    organizationId,
    pools.map((p) => ({ meterId: p.meterId, customer, start: p.start, end: p.end, subscriptionId: p.subscriptionId })),
  );
  pools.forEach((p, i) => {
    const used = consumed[i] ?? 0;
    const list = out.get(p.meterId) ?? [];
    list.push({ subscription_id: p.subscriptionId, consumed_units: used, credited_units: p.credited, balance: p.credited - used });
    out.set(p.meterId, list);
  });
  return out;
}

/** A stable id for the (customer, meter) pair, shaped like a UUID: till keeps no customer-meter rows. */
export function customerMeterId(customerId: string, meterId: string): string {
  const h = createHash("sha256").update(`${customerId}:${meterId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The organization's live meters and which of them have complete rollups: two reads at once, no customer needed. */
export interface LiveMeters {
  meters: MeterRow[];
  ready: Set<string>;
}
export async function liveMetersOfOrganization(db: Queryable, organizationId: string): Promise<LiveMeters> {
  const [meters, ready] = await Promise.all([repo.liveMeters(db, organizationId), readyMeterIdsOfOrganization(db, organizationId)]);
  return { meters, ready };
}

/**
 * CustomerState.active_meters: every live meter the customer has used or been credited on. Consumed units
 * are the meter's quantity over the customer's events in the current billing period of the live
 * subscriptions that bill or credit that meter (Polar resets a customer's meter as the subscription cycles),
 * over all of them for a meter no live subscription names; credited units add up the customer's granted
 * meter_credit grants (`last_credited_units` for `last_credited_meter_id`: the period's credit, rolled-over
 * units included); balance = credited − consumed. A meter the customer holds credit pools of their own on lists each
 * (`pools`: the subscription's credit against the events naming it).
 * `live`: the organization's live meters, when the caller read them already.
 */
export async function customerMeters(
  db: Queryable,
  organizationId: string,
  customer: { id: string; externalId: string | null; createdAt: Date },
  grants: Array<{ benefit_type: string; properties: Record<string, unknown> }>,
  live?: LiveMeters,
): Promise<CustomerStateMeter[]> {
  const credited = new Map<string, number>();
  for (const g of grants) {
    const meterId = g.properties.last_credited_meter_id;
    const units = g.properties.last_credited_units;
    if (g.benefit_type === "meter_credit" && typeof meterId === "string" && typeof units === "number") {
      credited.set(meterId, (credited.get(meterId) ?? 0) + Math.trunc(units));
    }
  }
  const [{ meters, ready }, periods, pools] = await Promise.all([
    live ?? liveMetersOfOrganization(db, organizationId),
    repo.meterPeriodsOfCustomer(db, organizationId, customer.id),
    creditPools(db, organizationId, customer),
  ]);
  const consumed = await consumedByCustomerOfMeters(
    db,
    organizationId,
    meters.map(meterDefinition),
    customer,
    meters.map((m) => periods.get(m.id.toLowerCase()) ?? null),
    ready,
  );
  return meters.flatMap((m, i) => {
    const used = consumed[i] ?? 0;
    const credit = credited.get(m.id) ?? 0;
    if (used === 0 && credit === 0) return [];
    return [
      {
        id: customerMeterId(customer.id, m.id),
        created_at: customer.createdAt.toISOString(),
        modified_at: null,
        meter_id: m.id,
        consumed_units: used,
        credited_units: credit,
        balance: credit - used,
        ...(pools.has(m.id.toLowerCase()) ? { pools: pools.get(m.id.toLowerCase()) } : {}),
      },
    ];
  });
}

export interface UsageQuery {
  meterId: string;
  customer: { id: string; externalId: string | null };
  start: Date;
  end: Date;
  /**
   * Only the events that name this subscription (`metadata.subscription_id`): the usage of a subscription's own
   * credit pool (a meter_credit benefit with `pool: "subscription"`, docs/credits.md).
   */
  subscriptionId?: string | undefined;
}

/** The meter's definition narrowed to the events naming a subscription (read from the events, not the rollups). */
function ofSubscription(row: MeterRow, subscriptionId: string | undefined) {
  const d = meterDefinition(row);
  if (!subscriptionId) return d;
  const clause = { property: "metadata.subscription_id", operator: "eq" as const, value: subscriptionId };
  return { filter: { conjunction: "and" as const, clauses: [d.filter, clause] }, aggregation: d.aggregation };
}

/**
 * What meters measured for customers over periods (a subscription's metered prices), in two statements
 * whatever the number of queries: the meters, then every quantity at once. A meter that is not this
 * organization's measures 0 and is left out of `meters`.
 */
export async function meterUsage(
  db: Queryable,
  organizationId: string,
  queries: UsageQuery[],
): Promise<{ meters: Map<string, MeterWire>; consumed: number[] }> {
  if (queries.length === 0) return { meters: new Map(), consumed: [] };
  const rows = await repo.findMetersByIds(db, organizationId, uniqueUuids(queries.map((q) => q.meterId)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const known = queries.flatMap((q) => {
    const row = byId.get(q.meterId.toLowerCase());
    return row ? [{ q, row }] : [];
  });
  const totals = await consumedOverPeriods(
    db,
    organizationId,
    known.map(({ q, row }) => ({ meter: ofSubscription(row, q.subscriptionId), customer: q.customer, start: q.start, end: q.end })),
  );
  const byQuery = new Map(known.map(({ q }, i) => [q, totals[i] ?? 0]));
  return {
    meters: new Map(rows.map((row) => [row.id, toMeterWire(row)])),
    consumed: queries.map((q) => byQuery.get(q) ?? 0),
  };
}
