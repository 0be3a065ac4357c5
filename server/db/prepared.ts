// Prepared queries for hot read paths. drizzle builds a query's SQL on every call, and on postgres.js it runs
// an unprepared query with parameters in two round trips (describe, then execute) that the server parses and
// plans each time. A prepared one is built once and, after its first run on a connection, is one round trip
// to a server-side prepared statement (postgres.js keeps them per connection). PGlite runs it as any query.
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import type { Db, Queryable } from "./client.js";

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
export function rawQuery(db: Queryable, text: string, params: Array<string | null>, prepare = true): PromiseLike<RawRows> {
  const client = (db as unknown as { session: { client: PostgresJsClient | PgliteClient } }).session.client;
  if ("unsafe" in client) return client.unsafe(text, params, { prepare });
  return client.query(text, params).then((r) => r.rows);
}

const dialect = new PgDialect();
/** Texts sendQuery has prepared (see there). */
const builtTexts = new Set<string>();
const BUILT_TEXTS_MAX = 128;

/** A statement built with drizzle's `sql` as its text and parameters (what rawQuery and sendQuery send). */
export function queryOf(query: SQL): { text: string; params: Array<string | null> } {
  const { sql: text, params } = dialect.sqlToQuery(query);
  // drizzle's parameters as the driver takes them (strings, numbers, booleans): passed through as drizzle passes them
  return { text, params: params as Array<string | null> };
}

/**
 * A statement sent as rawQuery sends one, on its way when this returns (a transaction's statements pipelined in
 * order, pipelinedTransaction), where drizzle's lazy execute would go after those sent behind it; and prepared,
 * where drizzle sends parameters unprepared (Parse and Describe, a round trip, then Bind and Execute, and the
 * database plans it again), for the first BUILT_TEXTS_MAX texts of the process, unprepared after: a text built
 * from an organization's rows (its meters) is one per set of them, and each prepared text is a statement on every
 * connection, so no organization's meters can grow the server's memory.
 */
export function sendQuery(db: Queryable, query: { text: string; params: Array<string | null> }): Promise<RawRows> {
  let prepare = builtTexts.has(query.text);
  if (!prepare && builtTexts.size < BUILT_TEXTS_MAX) {
    builtTexts.add(query.text);
    prepare = true;
  }
  return sent(rawQuery(db, query.text, query.params, prepare));
}

/** sendQuery of a statement built with drizzle's `sql`. */
export const sendBuilt = (db: Queryable, query: SQL): Promise<RawRows> => sendQuery(db, queryOf(query));

/**
 * A rawQuery on its way now: postgres.js sends a query once something waits for it, in the order they began
 * waiting, so a statement held unawaited would go behind those awaited after it (a COMMIT among them).
 */
export function sent<T>(query: PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => query.then(resolve, reject));
}

/**
 * A transaction whose first statement travels with its BEGIN and whose last with its COMMIT: two round trips
 * fewer, and — what matters under concurrency — no wait for the application between the last statement and
 * the commit, so row locks it takes (an invoice counter) are held only for the database's own work.
 */
export interface PipelinedTx {
  /** The drizzle handle of the transaction, for everything between the first and the last statement. */
  readonly db: Queryable;
  /** The first statement, sent with BEGIN. */
  first(text: string, params: Array<string | null>): Promise<RawRows>;
  /** The last statement, sent with COMMIT; the transaction is over when it resolves (or rejects: rolled back). */
  last(text: string, params: Array<string | null>): Promise<RawRows>;
}

type PostgresJsPool = postgres.Sql;

/** What drizzle's own transaction() reuses from the pool's session (internal, hence read through a cast). */
interface PoolSession {
  dialect: PgDialect;
  options: ConstructorParameters<typeof PostgresJsSession>[3];
}

/** A drizzle transaction handle on a reserved connection, built the way drizzle's transaction() builds one. */
function transactionHandle(db: Db, conn: postgres.ReservedSql): Queryable {
  const pool = (db as unknown as { session: PoolSession }).session;
  // a reserved connection is used like a transaction's (no BEGIN of its own: pipelinedTransaction sends it); without
  // the schema, which only drizzle's relational `db.query` reads (till uses none) and which costs a builder per
  // table on every handle made, that is on every transaction of the hot path
  const session = new PostgresJsSession(conn, pool.dialect, undefined, pool.options) as unknown as ConstructorParameters<typeof PostgresJsTransaction>[1];
  return new PostgresJsTransaction(pool.dialect, session, undefined) as unknown as Queryable;
}

export interface PipelinedOptions {
  /**
   * The transaction's prepared statements run on their generic plans (`plan_cache_mode`, for this transaction only):
   * a statement whose parameters decide little of its plan (a primary key, a JSON batch) is otherwise planned again
   * on every run whenever PostgreSQL guesses a custom plan cheaper, which for the hot path's longer statements costs
   * more than running them. Not on PGlite, which prepares nothing.
   */
  genericPlans?: boolean;
}

/** Runs `fn` in a transaction; on PGlite (one connection, nothing to pipeline) an ordinary one. */
export async function pipelinedTransaction<T>(db: Db, fn: (tx: PipelinedTx) => Promise<T>, options: PipelinedOptions = {}): Promise<T> {
  const client = (db as unknown as { session: { client: PostgresJsPool | PgliteClient } }).session.client;
  if (!("reserve" in client)) {
    return db.transaction((tx) =>
      fn({ db: tx, first: async (text, params) => rawQuery(tx, text, params), last: async (text, params) => rawQuery(tx, text, params) }),
    );
  }
  const conn = await client.reserve();
  let state: "idle" | "open" | "ended" = "idle";
  // read through a function: TypeScript cannot see the callbacks below change it
  const isOpen = () => state === "open";
  const isEnded = () => state === "ended";
  let handle: Queryable | undefined;
  // each statement on its way when called (execute()), not once awaited: a statement sent after first() through
  // `db` (sendBuilt, a facts read) goes behind it on the wire, whatever the promise machinery's microtasks do
  const run = (text: string, params: Array<string | null>) => conn.unsafe<RawRows>(text, params, { prepare: true }).execute();
  try {
    const result = await fn({
      get db() {
        if (!isOpen()) throw new Error("pipelinedTransaction: the transaction is not open");
        // built only when a statement other than the first and last is needed
        handle ??= transactionHandle(db, conn);
        return handle;
      },
      async first(text, params) {
        if (state !== "idle") throw new Error("pipelinedTransaction: first() is the first statement");
        state = "open";
        const begin = conn.unsafe("begin").execute();
        const generic = options.genericPlans ? conn.unsafe("set local plan_cache_mode = force_generic_plan").execute() : null;
        const [began, set, rows] = await Promise.allSettled([begin, generic, run(text, params)]);
        if (began.status === "rejected") throw began.reason;
        if (set.status === "rejected") throw set.reason;
        if (rows.status === "rejected") throw rows.reason;
        return rows.value;
      },
      async last(text, params) {
        if (!isOpen()) throw new Error("pipelinedTransaction: the transaction is not open");
        state = "ended";
        // a failed statement aborts the transaction: the COMMIT behind it answers ROLLBACK
        // (both are awaited before the connection goes back to the pool)
        const [rows, commit] = await Promise.allSettled([run(text, params), conn.unsafe("commit").execute()]);
        if (rows.status === "rejected") throw rows.reason;
        if (commit.status === "rejected") throw commit.reason;
        if (commit.value.command !== "COMMIT") throw new Error(`pipelinedTransaction: COMMIT answered ${commit.value.command}`);
        return rows.value;
      },
    });
    // a transaction left open must not go back to the pool
    if (!isEnded()) throw new Error("pipelinedTransaction: the function returned without last()");
    return result;
  } catch (err) {
    if (isOpen()) await conn.unsafe("rollback").catch(() => undefined);
    throw err;
  } finally {
    conn.release();
  }
}
