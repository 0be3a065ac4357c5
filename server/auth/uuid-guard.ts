// Keeps client-supplied ids that are not UUIDs away from PostgreSQL's uuid columns. better-auth passes
// ids from bodies and queries (organizationId, memberId, userId, …) straight into its lookups, and
// PostgreSQL answers a malformed uuid with an error, which became a 500. Such a value can match no row,
// so it is replaced by the nil UUID (never generated): the lookup finds nothing and better-auth answers
// with its own "not found" error, as it would for any unknown id.
import type { BetterAuthOptions } from "better-auth";
import type { DBAdapter, DBTransactionAdapter, Where } from "better-auth/adapters";
import { getTableColumns, isTable, type Table } from "drizzle-orm";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** model name → names of its uuid-typed fields, read from the drizzle schema handed to the adapter. */
export function uuidFieldsOf(schema: Record<string, unknown>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [model, table] of Object.entries(schema)) {
    if (!isTable(table)) continue;
    const fields = Object.entries(getTableColumns(table as Table))
      .filter(([, column]) => column.columnType === "PgUUID")
      .map(([name]) => name);
    if (fields.length > 0) out.set(model, new Set(fields));
  }
  return out;
}

function asUuid(value: unknown): unknown {
  return typeof value === "string" && !UUID.test(value) ? NIL_UUID : value;
}

function guardWhere(uuidFields: Set<string> | undefined, where: Where[] | undefined): Where[] | undefined {
  if (!where || !uuidFields) return where;
  return where.map((w) => {
    if (!uuidFields.has(w.field)) return w;
    const op = w.operator ?? "eq";
    if ((op === "eq" || op === "ne") && typeof w.value === "string") return { ...w, value: asUuid(w.value) as string };
    if ((op === "in" || op === "not_in") && Array.isArray(w.value)) {
      return { ...w, value: (w.value as unknown[]).map(asUuid) as string[] };
    }
    return w;
  });
}

function guardMethods<A extends DBTransactionAdapter<BetterAuthOptions>>(adapter: A, fields: Map<string, Set<string>>): A {
  const g = <T extends { model: string; where?: Where[] | undefined }>(args: T): T => ({
    ...args,
    where: guardWhere(fields.get(args.model), args.where),
  });
  return {
    ...adapter,
    findOne: (args) => adapter.findOne(g(args)),
    findMany: (args) => adapter.findMany(g(args)),
    count: (args) => adapter.count(g(args)),
    update: (args) => adapter.update(g(args)),
    updateMany: (args) => adapter.updateMany(g(args)),
    delete: (args) => adapter.delete(g(args)),
    deleteMany: (args) => adapter.deleteMany(g(args)),
    consumeOne: (args) => adapter.consumeOne(g(args)),
    incrementOne: (args) => adapter.incrementOne(g(args)),
  };
}

/** Wraps a better-auth database adapter factory (e.g. `drizzleAdapter(db, …)`) with the guard. */
export function guardUuidLookups(
  factory: (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions>,
  schema: Record<string, unknown>,
): (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions> {
  const fields = uuidFieldsOf(schema);
  return (options) => {
    const adapter = factory(options);
    return {
      ...guardMethods(adapter, fields),
      transaction: (callback) => adapter.transaction((trx) => callback(guardMethods(trx, fields))),
    };
  };
}
