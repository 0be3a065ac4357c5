// The usage a reservation's commit records: events its meter counts, measuring exactly the units used. A meter that
// sums a metadata property gets one event carrying the units in it; a counting meter gets one event per unit. The
// event's name and metadata come from the meter's filter (its `eq` clauses, the first `or` branch that can hold), and
// the event is checked against the whole filter with the events domain's semantics (events/predicates.ts): text
// compares as text, numbers numerically, a missing entry matches nothing, `like` means "contains". A meter no such
// event can satisfy (an aggregation other than sum or count, a filter only `like` or `ne` clauses describe) takes no
// reservations: the seller hears it when reserving, not at commit.
import { resolveProperty, type Aggregation, type Filter, type FilterClause, type FilterOperator } from "../../../shared/meter-filter.js";

type Value = string | number | boolean;
export interface SyntheticEvent {
  name: string;
  metadata: Record<string, Value>;
}

/** A counting meter's commit records one event per unit: at most this many units per reservation. */
export const MAX_COUNTED_UNITS = 1000;
/** The name of the event when the filter does not say one. */
const DEFAULT_NAME = "reservation";
const MAX_CANDIDATES = 32;

const isFilter = (c: FilterClause | Filter): c is Filter => "conjunction" in c;

function constraints(f: Filter): Array<Record<string, Value>> {
  if (f.clauses.length === 0) return [{}];
  const each = f.clauses.map((c) => (isFilter(c) ? constraints(c) : c.operator === "eq" ? [{ [c.property]: c.value }] : [{}]));
  if (f.conjunction === "or") return each.flat().slice(0, MAX_CANDIDATES);
  let out: Array<Record<string, Value>> = [{}];
  for (const options of each) {
    const next: Array<Record<string, Value>> = [];
    for (const a of out) {
      for (const b of options) {
        const clash = Object.keys(b).some((k) => k in a && a[k] !== b[k]);
        if (!clash) next.push({ ...a, ...b });
      }
    }
    out = next.slice(0, MAX_CANDIDATES);
  }
  return out;
}

const numeric = (v: Value): number | null => {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return null;
};

function compare(left: string | number | boolean, op: FilterOperator, right: string | number | boolean): boolean {
  switch (op) {
    case "like":
      return String(left).includes(String(right));
    case "not_like":
      return !String(left).includes(String(right));
    case "eq":
      return left === right;
    case "ne":
      return left !== right;
    case "gt":
      return left > right;
    case "gte":
      return left >= right;
    case "lt":
      return left < right;
    case "lte":
      return left <= right;
  }
}

function clauseMatches(c: FilterClause, e: SyntheticEvent, nowSeconds: number): boolean {
  const prop = resolveProperty(c.property);
  if (typeof prop === "string") return false;
  const like = c.operator === "like" || c.operator === "not_like";
  if (prop.kind === "column") {
    if (prop.column === "timestamp") return like ? compare(String(nowSeconds), c.operator, c.value) : typeof c.value === "number" && compare(nowSeconds, c.operator, c.value);
    const text = prop.column === "name" ? e.name : "user";
    return typeof c.value === "string" && compare(text, c.operator, c.value);
  }
  const v = e.metadata[prop.key];
  if (v === undefined) return false;
  if (like) return compare(String(v), c.operator, c.value);
  if (typeof v === "string") return typeof c.value !== "boolean" && compare(v, c.operator, String(c.value));
  if (typeof v === "number") {
    const n = numeric(c.value);
    return n !== null && typeof c.value !== "boolean" && compare(v, c.operator, n);
  }
  return typeof c.value === "boolean" && compare(v, c.operator, c.value);
}

export function filterMatches(f: Filter, e: SyntheticEvent, nowSeconds: number): boolean {
  if (f.clauses.length === 0) return true;
  const results = f.clauses.map((c) => (isFilter(c) ? filterMatches(c, e, nowSeconds) : clauseMatches(c, e, nowSeconds)));
  return f.conjunction === "and" ? results.every(Boolean) : results.some(Boolean);
}

/** The metadata key a sum reads, or null when the aggregation cannot carry a reservation's units. */
function summedKey(a: Aggregation): string | null {
  if (a.func !== "sum") return null;
  const prop = resolveProperty(a.property);
  return typeof prop === "string" || prop.kind !== "metadata" ? null : prop.key;
}

/**
 * The event a commit of `units` records (`count` of them for a counting meter), or why the meter cannot take
 * reservations of these units.
 */
export function usageEventFor(meter: { filter: Filter; aggregation: Aggregation }, units: number, nowSeconds: number): { event: SyntheticEvent; count: number } | { error: string } {
  const counting = meter.aggregation.func === "count";
  const key = summedKey(meter.aggregation);
  if (!counting && key === null) return { error: "Reservations hold units of a meter that sums a metadata property or counts events; this meter does neither." };
  if (counting && (!Number.isInteger(units) || units > MAX_COUNTED_UNITS)) {
    return { error: `A meter that counts events reserves whole units, at most ${MAX_COUNTED_UNITS} at a time.` };
  }
  for (const c of constraints(meter.filter)) {
    const metadata: Record<string, Value> = {};
    let name = DEFAULT_NAME;
    for (const [property, value] of Object.entries(c)) {
      const prop = resolveProperty(property);
      if (typeof prop === "string") continue;
      if (prop.kind === "metadata") metadata[prop.key] = value;
      else if (prop.column === "name" && typeof value === "string") name = value;
    }
    if (key !== null) {
      if (key in metadata && metadata[key] !== units) continue;
      metadata[key] = units;
    }
    const event = { name, metadata };
    if (filterMatches(meter.filter, event, nowSeconds)) return { event, count: counting ? units : 1 };
  }
  return { error: "No usage event this meter's filter selects can be made from its `eq` clauses: reservations need a filter that names its events." };
}

/**
 * The usage events of a reservation's commit by `plan`: external ids `reservation:<id>` (`:<n>` for each of a
 * counting meter's), so a retried commit records nothing twice.
 */
export function commitEvents(plan: { event: SyntheticEvent; count: number }, customerId: string, reservationId: string, timestamp: Date) {
  return Array.from({ length: plan.count }, (_, n) => ({
    ...plan.event,
    customerId,
    timestamp,
    externalId: plan.count === 1 ? `reservation:${reservationId}` : `reservation:${reservationId}:${n + 1}`,
  }));
}
