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
