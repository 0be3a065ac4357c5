// A meter's definition on the wire: which usage events it selects (filter) and how it measures them
// (aggregation). Shared by the server (validation, SQL) and the CLI (building definitions).
//
// Properties name an event column (`name`, `source`, `timestamp` as epoch seconds) or a metadata key;
// `metadata.<key>` always means the metadata key, so `metadata.name` is the metadata entry `name`.
import { z } from "zod";

export const FILTER_OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export const FILTER_CONJUNCTIONS = ["and", "or"] as const;
export const AGGREGATION_FUNCTIONS = ["count", "sum", "max", "min", "avg", "unique"] as const;
export type AggregationFunction = (typeof AGGREGATION_FUNCTIONS)[number];
export const PROPERTY_AGGREGATION_FUNCTIONS = ["sum", "max", "min", "avg"] as const;

export interface FilterClause {
  property: string;
  operator: FilterOperator;
  value: string | number | boolean;
}
export interface Filter {
  conjunction: (typeof FILTER_CONJUNCTIONS)[number];
  clauses: Array<FilterClause | Filter>;
}
export type Aggregation =
  | { func: "count" }
  | { func: (typeof PROPERTY_AGGREGATION_FUNCTIONS)[number]; property: string }
  | { func: "unique"; property: string };

export const EVENT_COLUMNS = ["name", "source", "timestamp"] as const;
export type EventColumn = (typeof EVENT_COLUMNS)[number];
export type EventProperty = { kind: "column"; column: EventColumn } | { kind: "metadata"; key: string };

const METADATA_PREFIX = "metadata.";
const METADATA_KEY_MAX = 40;
// Polar's limits: filter values are int32 and filters stay small enough to read.
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
export const FILTER_MAX_DEPTH = 5;
export const FILTER_MAX_CLAUSES = 50;

/** What a property names, or an error message when it names nothing an event has. */
export function resolveProperty(property: string): EventProperty | string {
  const isMetadata = property.startsWith(METADATA_PREFIX);
  if (!isMetadata && (EVENT_COLUMNS as readonly string[]).includes(property)) {
    return { kind: "column", column: property as EventColumn };
  }
  const key = isMetadata ? property.slice(METADATA_PREFIX.length) : property;
  if (key.length === 0) return "Property must name an event field or a metadata key.";
  if (key.length > METADATA_KEY_MAX) return `Metadata keys have at most ${METADATA_KEY_MAX} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return "Property must not contain control characters.";
  return { kind: "metadata", key };
}

type Ctx = z.core.$RefinementCtx;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function checkClause(v: Record<string, unknown>, path: PropertyKey[], ctx: Ctx): void {
  const at = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [...path, key], message, input: v[key] });
  if (typeof v.property !== "string") at("property", v.property === undefined ? "Field required" : "Input should be a valid string");
  else {
    const resolved = resolveProperty(v.property);
    if (typeof resolved === "string") at("property", resolved);
  }
  if (!(FILTER_OPERATORS as readonly unknown[]).includes(v.operator)) {
    at("operator", `Input should be ${FILTER_OPERATORS.map((o) => `'${o}'`).join(", ")}`);
  }
  const value = v.value;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
      at("value", "Input should be a string, a 32-bit integer or a boolean");
    }
  } else if (typeof value === "string") {
    if (value.length > 1000) at("value", "String should have at most 1000 characters");
  } else if (typeof value !== "boolean") {
    at("value", value === undefined ? "Field required" : "Input should be a string, a 32-bit integer or a boolean");
  }
}

function checkFilter(v: unknown, path: PropertyKey[], depth: number, count: { n: number }, ctx: Ctx): void {
  if (!isObject(v)) {
    ctx.addIssue({ code: "custom", path, message: "Input should be a valid dictionary", input: v });
    return;
  }
  if (!(FILTER_CONJUNCTIONS as readonly unknown[]).includes(v.conjunction)) {
    ctx.addIssue({ code: "custom", path: [...path, "conjunction"], message: "Input should be 'and' or 'or'", input: v.conjunction });
  }
  if (!Array.isArray(v.clauses)) {
    ctx.addIssue({ code: "custom", path: [...path, "clauses"], message: "Input should be a valid list", input: v.clauses });
    return;
  }
  v.clauses.forEach((clause: unknown, i: number) => {
    const at = [...path, "clauses", i];
    if (++count.n > FILTER_MAX_CLAUSES) {
      if (count.n === FILTER_MAX_CLAUSES + 1) {
        ctx.addIssue({ code: "custom", path: at, message: `A filter has at most ${FILTER_MAX_CLAUSES} clauses.` });
      }
      return;
    }
    if (isObject(clause) && ("conjunction" in clause || "clauses" in clause)) {
      if (depth >= FILTER_MAX_DEPTH) {
        ctx.addIssue({ code: "custom", path: at, message: `Filters nest at most ${FILTER_MAX_DEPTH} levels deep.` });
        return;
      }
      checkFilter(clause, at, depth + 1, count, ctx);
    } else if (isObject(clause)) {
      checkClause(clause, at, ctx);
    } else {
      ctx.addIssue({ code: "custom", path: at, message: "Input should be a filter clause or a filter", input: clause });
    }
  });
}

/** Keeps only the wire keys so what is stored is exactly what is echoed. */
function normalizeFilter(v: Record<string, unknown>): Filter {
  const clauses = (v.clauses as unknown[]).map((c) => {
    const o = c as Record<string, unknown>;
    return "conjunction" in o || "clauses" in o
      ? normalizeFilter(o)
      : { property: o.property as string, operator: o.operator as FilterOperator, value: o.value as FilterClause["value"] };
  });
  return { conjunction: v.conjunction as Filter["conjunction"], clauses };
}

/** A meter filter: and/or over clauses and nested filters, with property names and values checked. */
export const FilterInput = z
  .unknown()
  .superRefine((v, ctx) => checkFilter(v, [], 1, { n: 0 }, ctx))
  .transform((v) => normalizeFilter(v as Record<string, unknown>));

/** A meter aggregation: count, sum/max/min/avg over a numeric property, or unique over any property. */
export const AggregationInput = z
  .unknown()
  .superRefine((v, ctx) => {
    if (!isObject(v)) {
      ctx.addIssue({ code: "custom", path: [], message: "Input should be a valid dictionary", input: v });
      return;
    }
    if (!(AGGREGATION_FUNCTIONS as readonly unknown[]).includes(v.func)) {
      ctx.addIssue({
        code: "custom",
        path: ["func"],
        message: `Input should be ${AGGREGATION_FUNCTIONS.map((f) => `'${f}'`).join(", ")}`,
        input: v.func,
      });
      return;
    }
    if (v.func === "count") return;
    if (typeof v.property !== "string") {
      ctx.addIssue({ code: "custom", path: ["property"], message: v.property === undefined ? "Field required" : "Input should be a valid string" });
      return;
    }
    const resolved = resolveProperty(v.property);
    if (typeof resolved === "string") ctx.addIssue({ code: "custom", path: ["property"], message: resolved, input: v.property });
    else if (v.func !== "unique" && resolved.kind === "column" && resolved.column !== "timestamp") {
      ctx.addIssue({
        code: "custom",
        path: ["property"],
        message: `${v.func} needs a numeric property: timestamp or a metadata key.`,
        input: v.property,
      });
    }
  })
  .transform((v): Aggregation => {
    const o = v as Record<string, unknown>;
    return o.func === "count" ? { func: "count" } : ({ func: o.func, property: o.property } as Aggregation);
  });
