// Prepared queries for hot read paths. drizzle builds a query's SQL on every call, and on postgres.js it runs
// an unprepared query with parameters in two round trips (describe, then execute) that the server parses and
// plans each time. A prepared one is built once and, after its first run on a connection, is one round trip
// to a server-side prepared statement (postgres.js keeps them per connection). PGlite runs it as any query.
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Queryable } from "./client.js";

/**
 * `build(db)` once per handle: the pool's handle keeps its query for the life of the process; a
 * transaction is a handle of its own (its own connection), whose query is dropped with it.
 */
export function preparedPerHandle<T>(build: (db: Queryable) => T): (db: Queryable) => T {
  const prepared = new WeakMap<Queryable, T>();
  return (db) => {
    let query = prepared.get(db);
    if (query === undefined) {
      query = build(db);
      prepared.set(db, query);
    }
    return query;
  };
}

/**
 * `column = ANY($n::uuid[])` with the ids as one parameter, filled in when the query runs: one statement
 * for any number of ids, where inArray writes a parameter per id (and so a new statement per list length).
 */
export const inUuids = (column: AnyColumn, placeholder: string): SQL => sql`${column} = ANY(${sql.placeholder(placeholder)}::uuid[])`;

/** A statement's result rows, column name → value as the driver parses it. */
export type RawRows = Array<Record<string, unknown>>;

interface PostgresJsClient {
  unsafe(text: string, params: Array<string | null>, options: { prepare: boolean }): PromiseLike<RawRows>;
}
interface PgliteClient {
  query(text: string, params: Array<string | null>): Promise<{ rows: RawRows }>;
}

/**
 * One hand-written statement on the handle's own connection (the pool, or the transaction's), without the query
 * builder: for the hottest writes, where building the query costs more than running it. On postgres.js it is a
 * server-side prepared statement after its first run on a connection (one round trip, no parse or plan); PGlite
 * runs it as any query. Every parameter is text (or null) and the SQL casts it (`$1::text::jsonb`), so both
 * drivers send the same thing whatever parsers drizzle installed; likewise read timestamps back `::text`.
 * The caller keeps tenancy explicit: organization ids are parameters like any other.
 */
export function rawQuery(db: Queryable, text: string, params: Array<string | null>): PromiseLike<RawRows> {
  const client = (db as unknown as { session: { client: PostgresJsClient | PgliteClient } }).session.client;
  if ("unsafe" in client) return client.unsafe(text, params, { prepare: true });
  return client.query(text, params).then((r) => r.rows);
}
