// The one place that knows which database driver is in use: postgres.js for DATABASE_URL, PGlite otherwise.
// Everything above this file sees a drizzle handle; migrations run here at boot, identical on both drivers.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
import * as schema from "./schema/index.js";
import { limitCallTurns } from "./call-turns.js";
import { createReadRouting, type ReadRouting } from "./replicas.js";

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** The driver-independent drizzle handle; a transaction (`Tx`) offers the same query API. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either the handle or an open transaction: what repositories take. */
export type Queryable = Db | Tx;

/**
 * The rows of a raw statement (`db.execute`): postgres.js answers with the rows, PGlite with an object holding them.
 */
export async function rowsOf<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

/**
 * The classes of till's transaction-scoped advisory locks (the first key of `pg_advisory_xact_lock(class, key)`),
 * in one place so that no two uses share one: the ingest lock of an organization (events/rollups.ts), a customer's
 * turn at a past-due order (dunning/repository.ts).
 */
export const ADVISORY_LOCK_CLASS = { ingest: 7316, customerTurn: 7317 } as const;

/**
 * How long a request's transaction waits for a row another one holds before it answers 409 instead (boundLockWaits).
 */
export const REQUEST_LOCK_WAIT = "5s";

/**
 * In `tx` (a request's transaction), a lock wait ends after REQUEST_LOCK_WAIT with PostgreSQL's lock_not_available
 * (isLockNotAvailable): a short hold (a processor event's settlement) is waited out, a long one answers 409.
 */
export async function boundLockWaits(tx: Tx): Promise<void> {
  await tx.execute(`SET LOCAL lock_timeout = '${REQUEST_LOCK_WAIT}'`);
}

/** Whether `err` (or one of its causes) is PostgreSQL's lock_not_available (55P03): a NOWAIT lock or lock_timeout. */
export function isLockNotAvailable(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "55P03") return true;
  }
  return false;
}

export interface Database {
  db: Db;
  driver: "postgres" | "pglite";
  close(): Promise<void>;
  /** LISTEN on a channel (the jobs worker's wake-up); resolves to the function that stops listening. */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Read replicas (DATABASE_REPLICA_URL): which reads may go to one (db/replicas.ts). */
  reads?: ReadRouting;
  /** The primary's connection pool now (PostgreSQL; the metrics endpoint reads it). */
  pool?(): PoolState;
}

/** A postgres.js pool's state (patches/postgres+3.4.9.patch adds `sql.pool()`). */
export interface PoolState {
  max: number;
  /** Connections running a query or held by a transaction. */
  active: number;
  idle: number;
  connecting: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface DbOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string | undefined;
  /** PGlite: start from this dump of a data directory (`dumpDataDir`) instead of an empty one (tests). */
  loadDataDir?: Blob | undefined;
  /** postgres.js pool size. */
  max?: number;
  /** Where the migrations are read (tests migrate a copy without the newest ones, to upgrade old rows). */
  migrationsFolder?: string;
  /** Streaming replicas of `url`'s server (postgres:// URLs) for reads that tolerate lag (db/replicas.ts). */
  replicaUrls?: string[] | undefined;
  /** How far behind a replica may be and still serve reads, in ms (TILL_REPLICA_MAX_LAG). */
  replicaMaxLagMs?: number | undefined;
  /** How often the replicas' freshness is measured, in ms (default: a quarter of the lag bound, at most 1 s). */
  replicaCheckIntervalMs?: number | undefined;
  /**
   * The primary without a pooler in between (DATABASE_DIRECT_URL), when `url` is a transaction-mode pooler:
   * migrations and LISTEN use it. Without it behind a pooler, nothing listens and the worker polls.
   */
  directUrl?: string | undefined;
}

/**
 * `url` without till's own `pgbouncer=true` parameter (PostgreSQL would refuse it as a startup parameter), and
 * whether it was there: a transaction-mode pooler keeps no prepared statement from one transaction to the next.
 * Only the query string is read: a URL naming several hosts (`postgres://a:5432,b:5432/db?target_session_attrs=…`,
 * which postgres.js and libpq take, a failover set-up's) is no URL to `new URL`, which throws on it.
 */
export function pooledUrl(url: string): { url: string; pooled: boolean } {
  const q = url.indexOf("?");
  if (q < 0) return { url, pooled: false };
  const params = new URLSearchParams(url.slice(q + 1));
  const flag = params.get("pgbouncer");
  if (flag === null) return { url, pooled: false };
  params.delete("pgbouncer");
  const rest = params.toString();
  return { url: `${url.slice(0, q)}${rest ? `?${rest}` : ""}`, pooled: flag === "true" || flag === "1" };
}

/**
 * The host:port pairs of a postgres:// URL, several when it names several hosts (never the password); the port
 * defaults to 5432. Undefined when it is not such a URL.
 */
export function serversOf(url: string): string[] | undefined {
  const match = /^postgres(?:ql)?:\/\/(?:[^@/?]*@)?([^/?]*)/.exec(url);
  if (!match?.[1]) return undefined;
  return match[1].split(",").map((server) => {
    const bracket = server.lastIndexOf("]");
    const colon = server.lastIndexOf(":");
    return colon > bracket ? server : `${server}:5432`;
  });
}

/**
 * The driver's own target_session_attrs for `url`'s: postgres.js 3.4.9 takes a server for `read-write` when it does
 * not report default_transaction_read_only = on, which a hot standby does not (it is read-only by recovery), so a
 * multi-host URL's `read-write` connected to the standby and every write failed. `primary` (not in recovery) is
 * what libpq's `read-write` checks besides; other values pass through. Drop when the driver checks both.
 */
export function driverSessionAttrs(url: string): "primary" | undefined {
  const q = url.indexOf("?");
  const attrs = q < 0 ? null : new URLSearchParams(url.slice(q + 1)).get("target_session_attrs");
  return attrs === "read-write" ? "primary" : undefined;
}

/** host:port of a URL (all of them, comma-separated, for several hosts), for logs and state (never the password). */
const serverOf = (url: string) => (serversOf(url) ?? ["?"]).join(",");

export async function openDatabase(opts: DbOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts);
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  // one options object: PGlite's constructor defaults a missing first argument to {} and then takes that as the
  // options, so `new PGlite(undefined, { loadDataDir })` ignored the dump and ran initdb and every migration
  const client = new PGlite({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder: opts.migrationsFolder ?? migrationsFolder });
  return {
    db,
    driver: "pglite",
    close: () => client.close(),
    async listen(channel, onNotify) {
      return client.listen(channel, () => onNotify());
    },
  };
}

/**
 * Runs the migrations one process at a time: processes started together (a rolling upgrade's new ones, several
 * replicas) would each find the same migrations missing, and all but one fail on the first's tables. A session's
 * advisory lock on a connection of its own (none behind a transaction-mode pooler without a direct URL, where a
 * session has no meaning); the next process then finds them applied. Ending the session releases the lock.
 */
async function oneAtATime(lock: postgres.Sql | undefined, run: () => Promise<void>): Promise<void> {
  if (!lock) return run();
  try {
    await lock`SELECT pg_advisory_lock(hashtext('till migrations'))`;
    await run();
  } finally {
    await lock.end({ timeout: 5 });
  }
}

async function openPostgres(url: string, opts: DbOptions): Promise<Database> {
  const target = pooledUrl(url);
  // notices (e.g. "relation already exists, skipping" from migrations) are noise in the log
  const options = { onnotice: () => {}, backoff: reconnectBackoff, ...(target.pooled ? { prepare: false } : {}) };
  // each client its own URL's (a replica's URL asks for no primary)
  const attrsOf = (u: string) => {
    const attrs = driverSessionAttrs(u);
    return attrs ? { target_session_attrs: attrs } : {};
  };
  const primary = postgres(target.url, { max: opts.max ?? 10, ...options, ...attrsOf(target.url) });
  // the session's own things (LISTEN) need a server connection of their own, which a transaction-mode pooler
  // does not give: they take the direct URL, or the primary's when there is no pooler
  // (named in pg_stat_activity: the LISTEN session that must not sit behind the pooler)
  const direct = opts.directUrl
    ? postgres(opts.directUrl, { max: 1, ...options, ...attrsOf(opts.directUrl), prepare: true, connection: { application_name: "till-direct" } })
    : target.pooled
      ? undefined
      : primary;
  const lockUrl = opts.directUrl ?? (target.pooled ? undefined : target.url);
  await oneAtATime(lockUrl ? postgres(lockUrl, { max: 1, ...options, ...attrsOf(lockUrl) }) : undefined, () =>
    migratePostgres(drizzlePostgres(direct ?? primary, { schema }), { migrationsFolder: opts.migrationsFolder ?? migrationsFolder }),
  );
  let client = primary;
  let reads: ReadRouting | undefined;
  if (opts.replicaUrls && opts.replicaUrls.length > 0) {
    const replicas = opts.replicaUrls.map((replicaUrl) => {
      const replica = pooledUrl(replicaUrl);
      const sql = postgres(replica.url, { max: opts.max ?? 10, connect_timeout: 2, ...options, ...(replica.pooled ? { prepare: false } : {}) });
      drizzlePostgres(sql); // the same type parsers as the primary's (drizzle sets them on the client it is given)
      return { name: serverOf(replica.url), client: sql };
    });
    const routed = createReadRouting({
      primary,
      replicas,
      maxLagMs: opts.replicaMaxLagMs ?? 2000,
      ...(opts.replicaCheckIntervalMs ? { intervalMs: opts.replicaCheckIntervalMs } : {}),
    });
    client = routed.client;
    reads = routed.routing;
  }
  const db = drizzlePostgres(client, { schema });
  // half the pool for transactions that wait on a payment processor or a request's parse (db/call-turns.ts)
  limitCallTurns(db, Math.floor(primary.options.max / 2));
  return {
    db,
    driver: "postgres",
    ...(reads ? { reads } : {}),
    pool: () => (primary as unknown as { pool(): PoolState }).pool(),
    async close() {
      await reads?.close();
      if (direct && direct !== primary) await direct.end({ timeout: 5 });
      await primary.end({ timeout: 5 });
    },
    ...(direct
      ? {
          async listen(channel: string, onNotify: () => void) {
            // postgres.js listens on a connection of its own and listens again each time it closed (a restart, a
            // failover, pg_terminate_backend), retrying until PostgreSQL answers; each time it listens again the
            // listener is woken once, for the notifications sent while nobody listened
            const { unlisten } = await direct.listen(channel, () => onNotify(), () => onNotify());
            return unlisten;
          },
        }
      : {}),
  };
}

/**
 * Seconds before a closed connection is opened again, after `retries` failed attempts in a row: postgres.js's own
 * grows to 20 s, so a server whose database was away for a few seconds went on waiting long after it was back.
 * From 50 ms, doubling, at most 2 s, with jitter (replicas reconnecting at once spread out).
 */
export function reconnectBackoff(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 2);
}
