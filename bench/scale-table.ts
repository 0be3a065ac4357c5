// bench:scale's part "table": the ingest rate and one customer's state with the event table at two
// sizes (1,000,000 and 10,000,000 events on PostgreSQL by default), each ratio against the smaller size's figure
// measured in the same run (goal: within 1.2×). The table is filled with bulk SQL (each event with an external_id
// claimed in event_external_id, as the ingest stores them), spread over the last 12 months' partitions, 10,000
// external customers and a name no meter counts, so the meters' rollups stay exact without a rebuild; the measured
// customer has 10,000 events of the last 30 days, ingested through the API.
//
//   TILL_BENCH_SCALE_TABLE=1000000,10000000   the two sizes (PGlite's default: 20,000 and 200,000)
import os from "node:os";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { call } from "./helpers/client.js";

export const BATCH = 1000;
/** Events per fill request: each answers well within fetch's 300 s headers timeout on a loaded machine. */
const FILL_CHUNK = 100_000;
const PROBE_EVENTS = 10_000;
const SAMPLES = 100;

export interface IngestRow {
  name: string;
  timestamp: string;
  external_customer_id?: string;
  customer_id?: string;
  external_id: string;
  metadata: Record<string, number>;
}

/** A batch as a live app sends it: the last few minutes, 50 customers. */
export function ingestRows(prefix: string): IngestRow[] {
  const now = Date.now();
  return Array.from({ length: BATCH }, (_, i) => ({
    name: "scale.call",
    timestamp: new Date(now - ((i * 7919) % 300) * 1000).toISOString(),
    external_customer_id: `ingest-${i % 50}`,
    external_id: `${prefix}-${i}`,
    metadata: { units: i % 10 },
  }));
}

let batchNo = 0;
/** Rows/s of POST /v1/events/ingest, `concurrency` batches at once for `seconds`, and the batches that failed. */
export async function measureIngest(base: string, auth: Record<string, string>, seconds: number, concurrency: number) {
  let inserted = 0;
  let failures = 0;
  const post = async () => {
    const body = JSON.stringify({ events: ingestRows(`api-${batchNo++}`) });
    const res = await fetch(`${base}/v1/events/ingest`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    const json = (await res.json()) as { inserted?: number };
    if (res.status === 200 && json.inserted === BATCH) inserted += BATCH;
    else failures++;
  };
  await post();
  inserted = 0;
  const t0 = Date.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < deadline) await post(); }));
  return { rate: inserted / ((Date.now() - t0) / 1000), failures };
}

// ---- child: the control routes ------------------------------------------------------------------------

type Run = (query: ReturnType<typeof sql>) => Promise<Array<Record<string, unknown>>>;

export function tableRoutes(bare: FastifyInstance, run: Run): void {
  /** Events `from`..`to` of the filler (see the file's head; at most FILL_CHUNK), their months made first; seconds taken. */
  bare.post("/control/fill-events", async (req) => {
    const { organizationId, from, to } = req.body as { organizationId: string; from: number; to: number };
    const started = performance.now();
    for (let m = 0; m <= 12; m++) {
      await run(sql`SELECT till_event_partition(date_trunc('month', now() AT TIME ZONE 'UTC' - make_interval(months => ${m}::int)) AT TIME ZONE 'UTC')`);
    }
    await run(sql`WITH r AS MATERIALIZED (
        SELECT i, till_uuid_v7() AS id, now() - ((i::bigint * 7919) % 31536000) * interval '1 second' AS ts, 'fill-' || i AS external_id
        FROM generate_series(${from}::int, ${to}::int) AS i),
      keys AS (INSERT INTO event_external_id (organization_id, external_id, event_id, event_timestamp)
        SELECT ${organizationId}::uuid, external_id, id, ts FROM r RETURNING event_id)
      INSERT INTO event (id, organization_id, name, source, timestamp, external_customer_id, external_id, metadata)
      SELECT id, ${organizationId}::uuid, 'scale.filler', 'user', ts, 'filler-' || (i % 10000), external_id, jsonb_build_object('units', i % 10)
      FROM r WHERE id IN (SELECT event_id FROM keys)`);
    return { seconds: (performance.now() - started) / 1000 };
  });

  /** count(*) of the event table (every organization), after VACUUM ANALYZE of it; seconds the vacuum took. */
  bare.post("/control/events-settled", async () => {
    const started = performance.now();
    await run(sql.raw("VACUUM ANALYZE event"));
    await run(sql.raw("VACUUM ANALYZE event_external_id"));
    await run(sql`CHECKPOINT`).catch(() => {});
    const [row] = await run(sql`SELECT count(*)::int AS n FROM event`);
    return { events: Number(row?.n ?? 0), seconds: (performance.now() - started) / 1000 };
  });
}

// ---- parent -----------------------------------------------------------------------------------------------

export interface TableContext {
  base: string;
  bare: string;
  driver: "postgres" | "pglite";
  auth: Record<string, string>;
  organizationId: string;
  ingestSeconds: number;
  concurrency: number;
  /** Median ms of sequential GETs of `url`. */
  timeGet(url: string, headers: Record<string, string>, samples: number): Promise<number>;
}

export function tableSizes(driver: "postgres" | "pglite"): [number, number] {
  const given = process.env.TILL_BENCH_SCALE_TABLE?.split(",").map(Number);
  if (given && given.length === 2 && given.every((n) => Number.isInteger(n) && n > 0) && given[0]! < given[1]!) return [given[0]!, given[1]!];
  return driver === "postgres" ? [1_000_000, 10_000_000] : [20_000, 200_000];
}

/** Runs the part and prints its table; returns lines for the run's summary. */
export async function runTablePart(ctx: TableContext): Promise<string[]> {
  const fmt = (n: number) => n.toLocaleString("en");
  const lines: string[] = [];
  const probe = (await call<{ id: string }>(ctx.base, "POST", "/v1/customers/", { email: `probe-${Date.now()}@example.com` }, ctx.auth)).json.id;
  const now = Date.now();
  for (let b = 0; b < PROBE_EVENTS / BATCH; b++) {
    const events = ingestRows(`probe-${b}`).map(({ external_customer_id: _, ...e }, i) => ({
      ...e,
      customer_id: probe,
      timestamp: new Date(now - ((b * BATCH + i) * 2593) % (30 * 86_400_000)).toISOString(),
    }));
    await call(ctx.base, "POST", "/v1/events/ingest", { events }, ctx.auth);
  }
  const settled = async () => (await call<{ events: number; seconds: number }>(ctx.bare, "POST", "/control/events-settled", {})).json;
  let filled = 0;
  const figures: Array<{ events: number; ingest: number; failures: number; state: number; load: string }> = [];
  for (const target of tableSizes(ctx.driver)) {
    // what is in the table now (the other parts' events, the probe's, the last size's ingest) counts
    const need = Math.max(0, target - (await settled()).events);
    let fillSeconds = 0;
    for (let lo = filled + 1; lo <= filled + need; lo += FILL_CHUNK) {
      const body = { organizationId: ctx.organizationId, from: lo, to: Math.min(filled + need, lo + FILL_CHUNK - 1) };
      fillSeconds += (await call<{ seconds: number }>(ctx.bare, "POST", "/control/fill-events", body)).json.seconds;
    }
    filled += need;
    const after = await settled();
    lines.push(`table part: filled ${fmt(need)} events in ${fillSeconds.toFixed(1)} s, VACUUM ANALYZE ${after.seconds.toFixed(1)} s`);
    const state = await ctx.timeGet(`${ctx.base}/v1/customers/${probe}/state`, ctx.auth, SAMPLES);
    const ingest = await measureIngest(ctx.base, ctx.auth, ctx.ingestSeconds, ctx.concurrency);
    figures.push({ events: after.events, ingest: ingest.rate, failures: ingest.failures, state, load: os.loadavg()[0]!.toFixed(1) });
  }
  const [small, big] = figures as [(typeof figures)[0], (typeof figures)[0]];
  console.log(`\nthe event table at ${fmt(small.events)} vs ${fmt(big.events)} events (12 months' partitions; goal: within 1.2×)`);
  console.log(`${"".padEnd(44)}  ${fmt(small.events).padStart(11)}  ${fmt(big.events).padStart(11)}  slowdown`);
  const ingestRatio = small.ingest / big.ingest;
  const stateRatio = big.state / small.state;
  console.log(
    `${"POST /v1/events/ingest (rows/s)".padEnd(44)}  ${small.ingest.toFixed(0).padStart(11)}  ${big.ingest.toFixed(0).padStart(11)}  ` +
      `${ingestRatio.toFixed(2)}×  ${ingestRatio <= 1.2 ? "PASS" : "MISS"}${small.failures + big.failures ? ` (${small.failures + big.failures} failed)` : ""}`,
  );
  console.log(
    `${`GET /v1/customers/{id}/state (median ms, ${fmt(PROBE_EVENTS)} ev.)`.padEnd(44)}  ${small.state.toFixed(2).padStart(11)}  ${big.state.toFixed(2).padStart(11)}  ` +
      `${stateRatio.toFixed(2)}×  ${stateRatio <= 1.2 ? "PASS" : "MISS"}`,
  );
  console.log(`(load average at each: ${small.load}, ${big.load})`);
  return lines;
}
