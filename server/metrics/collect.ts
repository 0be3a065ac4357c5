// The gauges read at scrape time: the outbox's backlog and its oldest row's age, the renewals due (one cheap query
// each, on partial indexes, under a statement timeout), the database pool, the replicas' lag and the worker loops'
// heartbeats. A database that is down or slow does not fail the scrape: its gauges are left out and
// till_metrics_database_up says 0.
import { sql } from "drizzle-orm";
import { Gauge, Registry } from "prom-client";
import { rowsOf, type Database } from "../db/client.js";

export interface ScrapeSources {
  database: Database;
  /** The worker loops' last turns (Date.now()). */
  heartbeats(): Array<{ loop: string; at: number }>;
  /** How long the database's reads may take before the scrape goes on without them. */
  timeoutMs?: number;
}

const SCRAPE_DB_TIMEOUT_MS = 2_000;

interface DbFacts {
  backlog: number;
  oldestAge: number;
  renewalsDue: number;
}

/** The due outbox rows and the subscriptions whose period ended, in one round trip under a statement timeout. */
async function readDatabase(database: Database, timeoutMs: number): Promise<DbFacts> {
  const read = database.db.transaction(async (tx) => {
    if (database.driver === "postgres") await tx.execute(sql.raw(`SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`));
    const [row] = await rowsOf<{ backlog: number | string; oldest: number | string | null; due: number | string }>(
      tx,
      sql`SELECT
        (SELECT count(*) FROM outbox WHERE processed_at IS NULL AND available_at <= now()) AS backlog,
        (SELECT extract(epoch FROM now() - min(available_at)) FROM outbox WHERE processed_at IS NULL AND available_at <= now())
          AS oldest,
        (SELECT count(*) FROM subscription WHERE status IN ('trialing', 'active') AND current_period_end <= now()) AS due`,
    );
    return { backlog: Number(row?.backlog ?? 0), oldestAge: Number(row?.oldest ?? 0), renewalsDue: Number(row?.due ?? 0) };
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the metrics' database read timed out")), timeoutMs);
  });
  read.catch(() => {}); // a read that ends after the timeout is nobody's error
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A registry of this app's scrape-time gauges and the function that refreshes them before a scrape. */
export function scrapeGauges(sources: ScrapeSources): { registry: Registry; refresh(): Promise<void> } {
  const registry = new Registry();
  const registers = [registry];
  const up = new Gauge({ name: "till_metrics_database_up", help: "1 when the scrape's database reads answered in time, else 0.", registers });
  const backlog = new Gauge({ name: "till_outbox_backlog", help: "Outbox rows due and not yet processed.", registers });
  const oldest = new Gauge({ name: "till_outbox_oldest_age_seconds", help: "Age of the oldest due, unprocessed outbox row (0 when none).", registers });
  const due = new Gauge({ name: "till_renewals_due", help: "Active or trialing subscriptions whose period has ended (renewals due now).", registers });
  const pool = new Gauge({ name: "till_db_pool_connections", help: "The primary's pool: connections by state (active, idle, connecting).", labelNames: ["state"] as const, registers });
  const waiting = new Gauge({ name: "till_db_pool_waiting", help: "Queries waiting for a connection of the primary's pool.", registers });
  const poolMax = new Gauge({ name: "till_db_pool_max", help: "The primary's pool size.", registers });
  const lag = new Gauge({ name: "till_db_replica_lag_seconds", help: "How old the newest moment a read replica has replayed is.", labelNames: ["replica"] as const, registers });
  const healthy = new Gauge({ name: "till_db_replica_healthy", help: "1 when a read replica answers and serves reads.", labelNames: ["replica"] as const, registers });
  const beat = new Gauge({ name: "till_worker_loop_heartbeat_age_seconds", help: "Seconds since a worker loop's last turn.", labelNames: ["loop"] as const, registers });

  async function refresh(): Promise<void> {
    const { database } = sources;
    try {
      const facts = await readDatabase(database, sources.timeoutMs ?? SCRAPE_DB_TIMEOUT_MS);
      up.set(1);
      backlog.set(facts.backlog);
      oldest.set(facts.oldestAge);
      due.set(facts.renewalsDue);
    } catch {
      up.set(0);
      for (const g of [backlog, oldest, due]) g.reset();
    }
    const p = database.pool?.();
    if (p) {
      pool.set({ state: "active" }, p.active);
      pool.set({ state: "idle" }, p.idle);
      pool.set({ state: "connecting" }, p.connecting);
      waiting.set(p.waiting);
      poolMax.set(p.max);
    }
    lag.reset();
    healthy.reset();
    for (const r of database.reads?.state() ?? []) {
      healthy.set({ replica: r.replica }, r.healthy ? 1 : 0);
      if (r.lagMs !== null) lag.set({ replica: r.replica }, r.lagMs / 1000);
    }
    beat.reset();
    const now = Date.now();
    for (const h of sources.heartbeats()) beat.set({ loop: h.loop }, (now - h.at) / 1000);
  }
  return { registry, refresh };
}
