// The machine's speed, measured in the bench's own run: a bare Fastify route doing one primary-key SELECT of a
// product (no till code), served in the bench's child process beside the app and loaded by autocannon from the
// parent. A rate goal stated on the machine of record becomes a share of this baseline, so a slower (or busier)
// machine, which runs both slower, checks the same thing (bench/RESULTS.md).
//
//   child:  const closeRow = bareProductRoute(bare, served.database);   // GET /row/:id
//   parent: const baseline = await measureBaseline(`${bare}/row/${productId}`);
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import autocannon from "autocannon";
import postgres from "postgres";
import { product } from "../../server/db/schema/index.js";
import type { ServedApp } from "./server.js";

/**
 * The baseline's rate in the figures of record's runs (bench:checkout, commit 1121806, a quiet moment of the
 * 2-vCPU machine of record): a goal of G per second there is G / RECORD_BASELINE of the baseline measured here.
 */
export const RECORD_BASELINE = 11_836;

export interface BaselineRow {
  name: string;
  value: number;
  unit: "req/s";
  p50: number;
  p99: number;
  failures: number;
}

/**
 * GET /row/:id on `bare`: the product's id and name by primary key, through a postgres.js pool of its own (10
 * connections) on PostgreSQL, else through the app's PGlite. Returns what closes that pool.
 */
export function bareProductRoute(bare: FastifyInstance, database: ServedApp["database"]): () => Promise<void> {
  const pg = database.url ? postgres(database.url, { max: 10, onnotice: () => {} }) : null;
  bare.get("/row/:id", async (req) => {
    const { id } = req.params as { id: string };
    if (pg) return (await pg`SELECT id, name FROM product WHERE id = ${id}`)[0];
    const result = (await database.db.execute(sql`SELECT id, name FROM ${product} WHERE id = ${id}`)) as unknown as { rows: unknown[] };
    return result.rows[0];
  });
  return () => (pg ? pg.end({ timeout: 5 }) : Promise.resolve());
}

/** The baseline's rate: `connections` at once, a warm-up of `warmupSeconds`, then `seconds` measured. */
export async function measureBaseline(url: string, opts: { connections?: number; warmupSeconds?: number; seconds?: number } = {}): Promise<BaselineRow> {
  const connections = opts.connections ?? 10;
  await autocannon({ url, connections, duration: opts.warmupSeconds ?? 1 });
  const r = await autocannon({ url, connections, duration: opts.seconds ?? 4 });
  return { name: "bare Fastify: SELECT product by primary key", value: r.requests.average, unit: "req/s", p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts };
}

/** "G/s at the record's baseline" for a rate measured beside `baseline`: the rate the machine of record would see. */
export const atRecordBaseline = (rate: number, baseline: number): number => (rate / baseline) * RECORD_BASELINE;
