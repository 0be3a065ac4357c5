// Keeps values PostgreSQL would fail on (a 500) away from better-auth's queries, at the adapter, for every
// endpoint at once. better-auth passes ids, numbers and dates derived from bodies and queries to its lookups
// and writes with little checking:
// - a lookup by a uuid column with a value that is not a UUID matches no row: it is replaced by the nil UUID
//   (never generated), so better-auth answers its own "not found", as for any unknown id;
// - a write of a number, boolean, object or array to a text column (`{"username": 2147483648}` and
//   `{"username": {}}` reached the username plugin's toLowerCase; JSON fields such as metadata excepted), of a
//   non-integer or out-of-range number to an integer column, of an invalid or out-of-range
//   date (`banExpiresIn: -1e308`), and a page limit or offset that is not a whole number (`limit=1e309`) are
//   400 VALIDATION_ERROR;
//   The same check runs as the first database hook of every model (columnGuardPlugin), so plugins' own hooks
//   (the username plugin lower-cases a username before the write) never see such a value either;
// - a filter or sort field that names no column (`filterField=…` on list endpoints) is 400 VALIDATION_ERROR;
// - an update with nothing to set (`organization/update {"data":{}}`) changes nothing and reads the row back.
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import type { DBAdapter, DBTransactionAdapter, Where } from "better-auth/adapters";
import { APIError } from "better-auth/api";
import { getTableColumns, isTable, type Table } from "drizzle-orm";
import { isUuid } from "../../shared/uuid.js";

const NIL_UUID = "00000000-0000-0000-0000-000000000000";
const INT4_MAX = 2 ** 31 - 1;
/** PostgreSQL's timestamptz spans 4713 BC to 294276 AD; dates are kept to years 1–9999 (what ISO 8601 prints). */
const MIN_DATE = Date.UTC(1, 0, 1) - 0;
const MAX_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

type ColumnKind = "uuid" | "text" | "integer" | "timestamp" | "boolean" | "other";
const KINDS: Record<string, ColumnKind> = {
  PgUUID: "uuid",
  PgText: "text",
  PgVarchar: "text",
  PgInteger: "integer",
  PgTimestamp: "timestamp",
  PgBoolean: "boolean",
};

/** model name → field name → the kind of its column, read from the drizzle schema handed to the adapter. */
export function columnKindsOf(schema: Record<string, unknown>): Map<string, Map<string, ColumnKind>> {
  const out = new Map<string, Map<string, ColumnKind>>();
  for (const [model, table] of Object.entries(schema)) {
    if (!isTable(table)) continue;
    const fields = new Map<string, ColumnKind>();
    for (const [name, column] of Object.entries(getTableColumns(table as Table))) fields.set(name, KINDS[column.columnType] ?? "other");
    out.set(model, fields);
  }
  return out;
}

const invalid = (message: "Invalid body parameters" | "Invalid query parameters", details: string) =>
  new APIError("BAD_REQUEST", { message, code: "VALIDATION_ERROR", details });

function dateOk(value: unknown): boolean {
  const time = value instanceof Date ? value.getTime() : typeof value === "string" || typeof value === "number" ? new Date(value).getTime() : NaN;
  return Number.isFinite(time) && time >= MIN_DATE && time <= MAX_DATE;
}

/** The text columns better-auth and its plugins fill from JSON objects (metadata, role permissions). */
const JSON_TEXT_FIELDS = new Set(["metadata", "permissions", "permission"]);

/** Why `value` cannot be written to a column of this kind, or null. */
function writeProblem(kind: ColumnKind, field: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case "text":
      if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return "expected string";
      // an object or array for a plain text field (`{"username": {}}` reached the username plugin's toLowerCase)
      return typeof value === "object" && !(value instanceof Date) && !JSON_TEXT_FIELDS.has(field) ? "expected string" : null;
    case "integer":
      return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= INT4_MAX ? null : "expected a whole number within ±2147483647";
    case "timestamp":
      return dateOk(value) ? null : "expected a date between the years 1 and 9999";
    case "boolean":
      return typeof value === "boolean" ? null : "expected boolean";
    default:
      return null;
  }
}

function checkWrite(fields: Map<string, ColumnKind> | undefined, values: Record<string, unknown>): void {
  if (!fields) return;
  for (const [field, value] of Object.entries(values)) {
    const kind = fields.get(field);
    const problem = kind ? writeProblem(kind, field, value) : null;
    if (problem) throw invalid("Invalid body parameters", `[body.${field}] Invalid input: ${problem}`);
  }
}

/** A filter or sort field that is no column (list endpoints take both from the query) is refused, not a 500. */
function checkFields(fields: Map<string, ColumnKind> | undefined, args: { where?: Where[] | undefined; sortBy?: { field: string } | undefined }): void {
  if (!fields) return;
  for (const name of [...(args.where ?? []).map((w) => w.field), ...(args.sortBy ? [args.sortBy.field] : [])]) {
    if (!fields.has(name)) throw invalid("Invalid query parameters", `[query] Unknown field: ${name.slice(0, 100)}`);
  }
}

function checkPaging(args: { limit?: number | undefined; offset?: number | undefined }): void {
  for (const name of ["limit", "offset"] as const) {
    const value: unknown = args[name];
    if (value !== undefined && !(typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
      throw invalid("Invalid query parameters", `[query.${name}] Invalid input: expected a whole number ≥ 0`);
    }
  }
}

function asUuid(value: unknown): unknown {
  return typeof value === "string" && !isUuid(value) ? NIL_UUID : value;
}

function guardWhere(fields: Map<string, ColumnKind> | undefined, where: Where[] | undefined): Where[] | undefined {
  if (!where || !fields) return where;
  return where.map((w) => {
    if (fields.get(w.field) !== "uuid") return w;
    const op = w.operator ?? "eq";
    if ((op === "eq" || op === "ne") && typeof w.value === "string") return { ...w, value: asUuid(w.value) as string };
    if ((op === "in" || op === "not_in") && Array.isArray(w.value)) {
      return { ...w, value: (w.value as unknown[]).map(asUuid) as string[] };
    }
    return w;
  });
}

const isEmpty = (values: Record<string, unknown>) => Object.values(values).every((v) => v === undefined);

function guardMethods<A extends DBTransactionAdapter<BetterAuthOptions>>(adapter: A, kinds: Map<string, Map<string, ColumnKind>>): A {
  const g = <T extends { model: string; where?: Where[] | undefined; sortBy?: { field: string } | undefined }>(args: T): T => {
    checkFields(kinds.get(args.model), args);
    return { ...args, where: guardWhere(kinds.get(args.model), args.where) };
  };
  return {
    ...adapter,
    create: (args) => {
      checkWrite(kinds.get(args.model), args.data);
      return adapter.create(args);
    },
    findOne: (args) => adapter.findOne(g(args)),
    findMany: (args) => {
      checkPaging(args);
      return adapter.findMany(g(args));
    },
    count: (args) => adapter.count(g(args)),
    update: (args) => {
      checkWrite(kinds.get(args.model), args.update as Record<string, unknown>);
      // drizzle refuses an empty SET ("No values to set"); nothing to change is a read
      if (isEmpty(args.update as Record<string, unknown>)) return adapter.findOne(g({ model: args.model, where: args.where }));
      return adapter.update(g(args));
    },
    updateMany: (args) => {
      checkWrite(kinds.get(args.model), args.update);
      if (isEmpty(args.update)) return adapter.count(g({ model: args.model, where: args.where }));
      return adapter.updateMany(g(args));
    },
    delete: (args) => adapter.delete(g(args)),
    deleteMany: (args) => adapter.deleteMany(g(args)),
    consumeOne: (args) => adapter.consumeOne(g(args)),
    incrementOne: (args) => adapter.incrementOne(g(args)),
  };
}

/** Wraps a better-auth database adapter factory (e.g. `drizzleAdapter(db, …)`) with the guard. */
export function guardColumnValues(
  factory: (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions>,
  schema: Record<string, unknown>,
): (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions> {
  const kinds = columnKindsOf(schema);
  return (options) => {
    const adapter = factory(options);
    return {
      ...guardMethods(adapter, kinds),
      transaction: (callback) => adapter.transaction((trx) => callback(guardMethods(trx, kinds))),
    };
  };
}

type WriteHook = (data: Record<string, unknown>) => Promise<void>;

/**
 * The write check as database hooks of every model, for better-auth's internal adapter: listed first among the
 * plugins, it runs before any other plugin's hooks.
 */
export function columnGuardPlugin(schema: Record<string, unknown>): BetterAuthPlugin {
  const kinds = columnKindsOf(schema);
  const databaseHooks: Record<string, { create: { before: WriteHook }; update: { before: WriteHook } }> = {};
  for (const [model, fields] of kinds) {
    const before: WriteHook = async (data) => checkWrite(fields, data);
    databaseHooks[model] = { create: { before }, update: { before } };
  }
  return {
    id: "till-column-guard",
    init: () => ({ options: { databaseHooks: databaseHooks as BetterAuthOptions["databaseHooks"] } }),
  };
}
