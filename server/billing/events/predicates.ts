// Meter definitions compiled to SQL over the event table. Every value is a bound parameter; the only text
// spliced into the SQL comes from fixed tables below (comparison operators, aggregate functions).
//
// Semantics (Polar's): `name`/`source` compare as text and `timestamp` as epoch seconds, and a value of the
// wrong type matches nothing. A metadata entry compares by its own JSON type: strings as text, numbers
// numerically (against a number, or a string that reads as one), booleans as booleans; a missing entry or a
// type mismatch matches nothing. `like`/`not_like` test whether the text contains the value, literally.
import { sql, type SQL } from "drizzle-orm";
import { event } from "../../db/schema/index.js";
import {
  resolveProperty,
  type Aggregation,
  type AggregationFunction,
  type EventProperty,
  type Filter,
  type FilterClause,
  type FilterOperator,
} from "../../../shared/meter-filter.js";

const COMPARISON: Record<Exclude<FilterOperator, "like" | "not_like">, string> = {
  eq: "=",
  ne: "<>",
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
};

const FALSE = sql`false`;
const TRUE = sql`true`;

function property(name: string): EventProperty {
  const resolved = resolveProperty(name);
  // definitions are validated on the way in; an unreadable stored property selects nothing
  return typeof resolved === "string" ? { kind: "metadata", key: "\u0000" } : resolved;
}

const containsPattern = (v: string | number | boolean) => `%${String(v).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function compare(left: SQL, op: FilterOperator, value: string | number | boolean): SQL {
  if (op === "like") return sql`coalesce(${left} LIKE ${containsPattern(value)}, false)`;
  if (op === "not_like") return sql`coalesce(${left} NOT LIKE ${containsPattern(value)}, false)`;
  return sql`${left} ${sql.raw(COMPARISON[op])} ${value}`;
}

const numericValue = (v: string | number | boolean): number | null => {
  if (typeof v === "number") return v;
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return null;
};

const epochSeconds = sql`extract(epoch from ${event.timestamp})::bigint`;

function clauseSql(c: FilterClause): SQL {
  const prop = property(c.property);
  const likeOp = c.operator === "like" || c.operator === "not_like";
  if (prop.kind === "column") {
    if (prop.column === "timestamp") {
      if (likeOp) return compare(sql`${epochSeconds}::text`, c.operator, c.value);
      return typeof c.value === "number" ? compare(epochSeconds, c.operator, c.value) : FALSE;
    }
    const column = prop.column === "name" ? event.name : event.source;
    if (typeof c.value !== "string") return FALSE;
    return compare(sql`${column}`, c.operator, c.value);
  }
  const text = sql`(${event.metadata} ->> ${prop.key})`;
  if (likeOp) return compare(text, c.operator, c.value);
  const branches: SQL[] = [];
  if (typeof c.value !== "boolean") branches.push(sql`WHEN 'string' THEN ${compare(text, c.operator, String(c.value))}`);
  const num = numericValue(c.value);
  if (num !== null) branches.push(sql`WHEN 'number' THEN ${compare(sql`${text}::numeric`, c.operator, num)}`);
  if (typeof c.value === "boolean") {
    branches.push(sql`WHEN 'boolean' THEN ${compare(sql`${text}::boolean`, c.operator, c.value)}`);
  }
  return sql`(CASE jsonb_typeof(${event.metadata} -> ${prop.key}) ${sql.join(branches, sql` `)} ELSE false END)`;
}

/** The events a filter selects. An empty filter selects every event (like Polar's). */
export function filterSql(filter: Filter): SQL {
  if (filter.clauses.length === 0) return TRUE;
  const parts = filter.clauses.map((c) => ("conjunction" in c ? filterSql(c) : clauseSql(c)));
  return sql`(${sql.join(parts, sql.raw(filter.conjunction === "and" ? " AND " : " OR "))})`;
}

const AGGREGATE: Record<Exclude<AggregationFunction, "count" | "unique">, string> = {
  sum: "sum",
  max: "max",
  min: "min",
  avg: "avg",
};

export interface AggregationSql {
  /** The aggregate over the selected events, as float8 (null over no rows, except count). */
  value: SQL;
  /** Which events can contribute (a property aggregation reads numeric metadata only). */
  where: SQL;
}

/**
 * What an aggregation reads from each selected event: `number` (numeric, for sum/min/max/avg) or `distinct`
 * (jsonb, for unique: equal values compare equal whatever their spelling), and which events can contribute.
 * Rollups store these per bucket; sums are numeric so a sum of bucket sums is exactly the sum of the events.
 */
export interface AggregationInputs {
  where: SQL;
  number: SQL | null;
  distinct: SQL | null;
}

export function aggregationInputs(aggregation: Aggregation): AggregationInputs {
  if (aggregation.func === "count") return { where: TRUE, number: null, distinct: null };
  const prop = property(aggregation.property);
  if (aggregation.func === "unique") {
    const distinct =
      prop.kind === "metadata"
        ? sql`(${event.metadata} -> ${prop.key})`
        : prop.column === "timestamp"
          ? sql`to_jsonb(extract(epoch from ${event.timestamp}))`
          : sql`to_jsonb(${prop.column === "name" ? event.name : event.source})`;
    return { where: TRUE, number: null, distinct };
  }
  if (prop.kind === "column") {
    // only timestamp is numeric among the columns (validated on the way in)
    return prop.column === "timestamp"
      ? { where: TRUE, number: sql`extract(epoch from ${event.timestamp})`, distinct: null }
      : { where: FALSE, number: sql`NULL::numeric`, distinct: null };
  }
  return {
    where: sql`jsonb_typeof(${event.metadata} -> ${prop.key}) = 'number'`,
    number: sql`(${event.metadata} ->> ${prop.key})::numeric`,
    distinct: null,
  };
}

export function aggregationSql(aggregation: Aggregation): AggregationSql {
  if (aggregation.func === "count") return { value: sql`count(*)::float8`, where: TRUE };
  const prop = property(aggregation.property);
  if (aggregation.func === "unique") {
    const operand =
      prop.kind === "column"
        ? sql`${prop.column === "name" ? event.name : prop.column === "source" ? event.source : event.timestamp}`
        : sql`(${event.metadata} -> ${prop.key})`;
    return { value: sql`count(DISTINCT ${operand})::float8`, where: TRUE };
  }
  const { where, number } = aggregationInputs(aggregation);
  const fn = sql.raw(AGGREGATE[aggregation.func]);
  // sum and avg over numeric (exact, as the rollups add them up); min and max over float8
  const value = aggregation.func === "sum" || aggregation.func === "avg" ? sql`${fn}(${number})::float8` : sql`${fn}((${number})::float8)::float8`;
  return { value, where };
}

/** How per-customer quantities are combined (`customer_aggregation_function`), over a column `q`. */
export function combineSql(func: AggregationFunction, q: SQL): SQL {
  switch (func) {
    case "count":
      return sql`count(${q})::float8`;
    case "unique":
      return sql`count(DISTINCT ${q})::float8`;
    default:
      return sql`${sql.raw(AGGREGATE[func])}(${q})::float8`;
  }
}
