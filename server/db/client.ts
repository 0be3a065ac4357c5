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

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** The driver-independent drizzle handle; a transaction (`Tx`) offers the same query API. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either the handle or an open transaction: what repositories take. */
export type Queryable = Db | Tx;

/** The rows of a raw statement (`db.execute`): postgres.js answers with the rows, PGlite with an object holding them. */
export async function rowsOf<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

export interface Database {
  db: Db;
  driver: "postgres" | "pglite";
  close(): Promise<void>;
  /** LISTEN on a channel (the jobs worker's wake-up); resolves to the function that stops listening. */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
}

export interface DbOptions {
  /** postgres:// URL; when absent PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string | undefined;
  /** postgres.js pool size. */
  max?: number;
  /** Where the migrations are read (tests migrate a copy without the newest ones, to upgrade old rows). */
  migrationsFolder?: string;
}

export async function openDatabase(opts: DbOptions): Promise<Database> {
  if (opts.url) {
    // notices (e.g. "relation already exists, skipping" from migrations) are noise in the log
    const client = postgres(opts.url, { max: opts.max ?? 10, onnotice: () => {}, backoff: reconnectBackoff });
    const db = drizzlePostgres(client, { schema });
    await migratePostgres(db, { migrationsFolder: opts.migrationsFolder ?? migrationsFolder });
    return {
      db,
      driver: "postgres",
      close: () => client.end({ timeout: 5 }),
      async listen(channel, onNotify) {
        // postgres.js listens on a connection of its own and listens again each time it closed (a restart, a
        // failover, pg_terminate_backend), retrying until PostgreSQL answers; each time it listens again the
        // listener is woken once, for the notifications sent while nobody listened
        const { unlisten } = await client.listen(channel, () => onNotify(), () => onNotify());
        return unlisten;
      },
    };
  }
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const client = new PGlite(opts.dataDir);
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
 * Seconds before a closed connection is opened again, after `retries` failed attempts in a row: postgres.js's own
 * grows to 20 s, so a server whose database was away for a few seconds went on waiting long after it was back.
 * From 50 ms, doubling, at most 2 s, with jitter (replicas reconnecting at once spread out).
 */
export function reconnectBackoff(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 2);
}
