// Throughput of the /v1 hot paths, each against a baseline measured in the same run:
//   1. GET /v1/products/{id} with an API key  vs  a bare Fastify route doing one primary-key SELECT;
//   2. POST /v1/events/ingest, batches of 1000  vs  a raw multi-row INSERT of the same rows (rows/s);
//   3. GET /v1/meters/{id}/quantities for one customer with 10k events in the table  vs  1M events.
// Goals on PostgreSQL: (1) ≥ 50%, (2) ≥ 50%, (3) as fast at 1M as at 10k (the customer's own events
// are read through the (organization_id, customer_id, timestamp) index, whatever the table holds).
// (1) is the means of two alternating rounds of each (the machine's speed wavers within a run).
//
//   npm run bench:api                                  # PGlite (in memory; the big table is bounded)
//   DATABASE_URL=postgres://… npm run bench:api        # a throw-away database on that server
//
// The servers run in a child process (the real app on a fresh database plus a bare Fastify that also
// offers a few control routes: seeding rows, the raw INSERT loop) so the load generator does not share
// their event loop. Loopback only; every phase is bounded in time.
import os from "node:os";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import postgres from "postgres";
import { bareProductRoute } from "./helpers/baseline.js";
import { benchSeller, call } from "./helpers/client.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { meterQuantities } from "../server/billing/events/repository.js";
import { rowsOf } from "../server/db/client.js";
import { event, product } from "../server/db/schema/index.js";

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = 3;
/** Alternating rounds of the bare SELECT and the product GET. */
const PRODUCT_ROUNDS = 2;
const INGEST_SECONDS = 5;
const INGEST_CONCURRENCY = 4;
const BATCH = 1000;
const GOAL = 0.5;
const SMALL_TABLE = 10_000;
/** PGlite holds everything in this process's memory and inserts far slower: its big table is smaller. */
const BIG_TABLE = { postgres: 1_000_000, pglite: 200_000 };
const CUSTOMER_EVENTS = 1_000;
const HARD_LIMIT_MS = 150_000;

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
}

// ---- child: the servers ------------------------------------------------------------------------------

interface IngestRow {
  name: string;
  timestamp: string;
  external_customer_id: string;
  metadata: Record<string, number>;
}

async function serve(): Promise<void> {
  const served = await startApp();
  const database = served.database;

  // the raw INSERT goes through postgres.js directly (PGlite: its own handle, no driver); the baseline's route
  // (bench/helpers/baseline.ts) has a pool of its own
  const pg = database.url ? postgres(database.url, { max: 10, onnotice: () => {} }) : null;
  const db = database.db;
  const run = (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(db, query);

  const bare = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
  const closeRow = bareProductRoute(bare, database);

  bare.post("/control/product", async (req) => {
    const { organizationId } = req.body as { organizationId: string };
    const [row] = await db.insert(product).values({ organizationId, name: "Bench product", description: "For the benchmark" }).returning();
    return { id: row?.id };
  });

  /** The raw baseline: the same concurrency of multi-row INSERTs of `rows`, for `seconds`; rows per second. */
  bare.post("/control/raw-insert", async (req) => {
    const { organizationId, rows, seconds, concurrency } = req.body as {
      organizationId: string;
      rows: IngestRow[];
      seconds: number;
      concurrency: number;
    };
    const values = rows.map((r) => ({
      organization_id: organizationId,
      name: r.name,
      source: "user",
      timestamp: r.timestamp,
      external_customer_id: r.external_customer_id,
      metadata: r.metadata,
    }));
    const insertOnce = pg
      ? () => pg`INSERT INTO event ${pg(values.map((v) => ({ ...v, metadata: pg.json(v.metadata) })))}`
      : () =>
          db.insert(event).values(
            values.map((v) => ({
              organizationId: v.organization_id,
              name: v.name,
              source: v.source,
              timestamp: new Date(v.timestamp),
              externalCustomerId: v.external_customer_id,
              metadata: v.metadata,
            })),
          );
    const deadline = Date.now() + seconds * 1000;
    let batches = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          await insertOnce();
          batches++;
        }
      }),
    );
    return { rowsPerSecond: (batches * rows.length) / ((Date.now() - started) / 1000) };
  });

  /**
   * Grows the event table to `total` rows: `customerEvents` for the measured customer (spread over the
   * last 30 days), the rest for 1000 other customers, generated by INSERT … SELECT generate_series in chunks.
   */
  bare.post("/control/seed", async (req) => {
    const { organizationId, customerId, total, customerEvents } = req.body as {
      organizationId: string;
      customerId: string;
      total: number;
      customerEvents: number;
    };
    const started = Date.now();
    const [{ n: mine = 0 } = {}] = (await run(
      sql`SELECT count(*)::int AS n FROM ${event} WHERE organization_id = ${organizationId} AND customer_id = ${customerId}`,
    )) as Array<{ n?: number }>;
    if (mine < customerEvents) {
      await run(sql`INSERT INTO ${event} (organization_id, name, source, timestamp, customer_id, metadata)
        SELECT ${organizationId}::uuid, 'bench.call', 'user', now() - (i % 43200) * interval '1 minute', ${customerId}::uuid,
               jsonb_build_object('units', i % 10)
        FROM generate_series(1, ${customerEvents - mine}) AS i`);
    }
    for (;;) {
      const [{ n = 0 } = {}] = (await run(sql`SELECT count(*)::int AS n FROM ${event}`)) as Array<{ n?: number }>;
      if (n >= total) break;
      const chunk = Math.min(total - n, 250_000);
      await run(sql`INSERT INTO ${event} (organization_id, name, source, timestamp, customer_id, metadata)
        SELECT ${organizationId}::uuid, 'bench.call', 'user', now() - (i % 43200) * interval '1 minute', md5((i % 1000)::text)::uuid,
               jsonb_build_object('units', i % 10)
        FROM generate_series(1, ${chunk}) AS i`);
    }
    // settle the table (visibility map, statistics) so autovacuum does not run during the measurement
    await run(sql`VACUUM ANALYZE ${event}`);
    const [{ n = 0 } = {}] = (await run(sql`SELECT count(*)::int AS n FROM ${event}`)) as Array<{ n?: number }>;
    return { rows: n, seconds: (Date.now() - started) / 1000 };
  });

  /** The quantities query alone, sequentially, in the database: mean milliseconds over `runs`. */
  bare.post("/control/quantities-timing", async (req) => {
    const { organizationId, customerId, runs } = req.body as { organizationId: string; customerId: string; runs: number };
    const query = {
      meter: {
        filter: { conjunction: "and" as const, clauses: [{ property: "name", operator: "eq" as const, value: "bench.call" }] },
        aggregation: { func: "sum" as const, property: "units" },
      },
      selection: { customers: { ids: [customerId], externalIds: [] } },
      start: new Date(Date.now() - 30 * 86_400_000).toISOString(),
      end: new Date().toISOString(),
      interval: "day" as const,
      timezone: "UTC",
    };
    await meterQuantities(db, organizationId, query);
    const started = performance.now();
    for (let i = 0; i < runs; i++) await meterQuantities(db, organizationId, query);
    return { ms: (performance.now() - started) / runs };
  });

  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  const endpoints: Endpoints = { app: served.url, bare: bareUrl, driver: database.driver };
  announce(endpoints, [() => bare.close(), closeRow, () => (pg ? pg.end({ timeout: 5 }) : Promise.resolve()), served.close]);
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------


interface Fixtures {
  organizationId: string;
  apiKey: string;
  productId: string;
  customerId: string;
  meterId: string;
}

async function fixtures(e: Endpoints): Promise<Fixtures> {
  const base = e.app;
  const seller = await benchSeller(base);
  const { auth, organizationId, apiKey } = seller;
  const productId = (await call<{ id: string }>(e.bare, "POST", "/control/product", { organizationId })).json.id;
  const customer = await call<{ id: string }>(base, "POST", "/v1/customers/", { email: "metered@example.com" }, auth);
  const meter = await call<{ id: string }>(
    base,
    "POST",
    "/v1/meters/",
    {
      name: "Bench units",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "bench.call" }] },
      aggregation: { func: "sum", property: "units" },
    },
    auth,
  );
  return { organizationId, apiKey, productId, customerId: customer.json.id, meterId: meter.json.id };
}

interface Row {
  name: string;
  value: number;
  unit: string;
  p99: number | null;
  failures: number;
}

/** Rounds of one measurement as one row: the mean rate, the worst p99, every failure. */
function averaged(rows: Row[]): Row {
  const first = rows[0];
  if (!first) throw new Error("no rows");
  return {
    ...first,
    value: rows.reduce((n, r) => n + r.value, 0) / rows.length,
    p99: Math.max(...rows.map((r) => r.p99 ?? 0)),
    failures: rows.reduce((n, r) => n + r.failures, 0),
  };
}

async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<Row> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: MEASURE_SECONDS });
  return { name, value: r.requests.average, unit: "req/s", p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts };
}

function ingestRows(): IngestRow[] {
  const timestamp = new Date(Date.now() - 3_600_000).toISOString();
  return Array.from({ length: BATCH }, (_, i) => ({
    name: "bench.ingest",
    timestamp,
    external_customer_id: `ingest-${i % 50}`,
    metadata: { units: i % 10, region: i % 3 },
  }));
}

/** POST /v1/events/ingest with the same 1000 rows (no external_id, so none is a duplicate) for a while. */
async function measureIngest(base: string, apiKey: string, rows: IngestRow[]): Promise<Row> {
  const body = JSON.stringify({ events: rows });
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  let inserted = 0;
  let failures = 0;
  const post = async () => {
    const res = await fetch(`${base}/v1/events/ingest`, { method: "POST", headers, body });
    const json = (await res.json()) as { inserted?: number };
    if (res.status === 200 && json.inserted === rows.length) inserted += rows.length;
    else failures++;
  };
  await post(); // warm-up
  inserted = 0;
  const started = Date.now();
  const deadline = started + INGEST_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: INGEST_CONCURRENCY }, async () => {
      while (Date.now() < deadline) await post();
    }),
  );
  return { name: `POST /v1/events/ingest (${BATCH}/request)`, value: inserted / ((Date.now() - started) / 1000), unit: "rows/s", p99: null, failures };
}

function table(rows: Array<Row & { baseline?: Row | undefined }>): string {
  const header = ["measurement", "rate", "unit", "vs baseline", "p99 ms", "failures"];
  const body = rows.map((r) => [
    r.name,
    r.value.toFixed(0),
    r.unit,
    r.baseline ? `${((r.value / r.baseline.value) * 100).toFixed(1)}%` : "(baseline)",
    r.p99 === null ? "-" : r.p99.toFixed(1),
    String(r.failures),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

const verdict = (ratio: number, goal: number) => (ratio >= goal ? "meets" : "misses");

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  try {
    const f = await fixtures(endpoints);
    const auth = { authorization: `Bearer ${f.apiKey}` };
    const lines: string[] = [];

    // 1. product get vs primary-key SELECT, in alternating rounds (baseline, product, baseline, product): the
    // machine's speed drifts and wavers within a run, and one round of each compared two moments of it as well
    const productProbe = await fetch(`${endpoints.app}/v1/products/${f.productId}`, { headers: auth });
    const baselines: Row[] = [];
    const productGets: Row[] = [];
    for (let round = 0; round < PRODUCT_ROUNDS; round++) {
      baselines.push(await measure("bare Fastify: SELECT product by primary key", `${endpoints.bare}/row/${f.productId}`));
      if (productProbe.status === 200) productGets.push(await measure("GET /v1/products/{id} (API key)", `${endpoints.app}/v1/products/${f.productId}`, auth));
    }
    const baseline = averaged(baselines);
    const productGet = productGets.length > 0 ? averaged(productGets) : null;
    const rounds = (rows: Row[]) => rows.map((r) => r.value.toFixed(0)).join(" / ");
    const meterGet = await measure("GET /v1/meters/{id} (API key)", `${endpoints.app}/v1/meters/${f.meterId}`, auth);
    if (!productGet) lines.push(`GET /v1/products/{id} answered ${productProbe.status}: not measured`);

    // 2. quantities for one customer on the small table (the big one after ingest has added its rows)
    const quantitiesUrl =
      `${endpoints.app}/v1/meters/${f.meterId}/quantities?interval=day&customer_id=${f.customerId}` +
      `&start_timestamp=${encodeURIComponent(new Date(Date.now() - 30 * 86_400_000).toISOString())}` +
      `&end_timestamp=${encodeURIComponent(new Date().toISOString())}`;
    const seedBody = { organizationId: f.organizationId, customerId: f.customerId, customerEvents: CUSTOMER_EVENTS };
    const small = await call<{ rows: number; seconds: number }>(endpoints.bare, "POST", "/control/seed", { ...seedBody, total: SMALL_TABLE });
    const check = await call<{ total: number }>(endpoints.app, "GET", quantitiesUrl.slice(endpoints.app.length), undefined, auth);
    const timing = { organizationId: f.organizationId, customerId: f.customerId, runs: 200 };
    const querySmall = await call<{ ms: number }>(endpoints.bare, "POST", "/control/quantities-timing", timing);
    const quantitiesSmall = await measure(`GET /v1/meters/{id}/quantities, ${small.json.rows.toLocaleString("en")} events`, quantitiesUrl, auth);
    // 3. ingest vs raw INSERT of the same rows
    const rows = ingestRows();
    const ingest = await measureIngest(endpoints.app, f.apiKey, rows);
    const raw = await call<{ rowsPerSecond: number }>(endpoints.bare, "POST", "/control/raw-insert", {
      organizationId: f.organizationId,
      rows,
      seconds: INGEST_SECONDS,
      concurrency: INGEST_CONCURRENCY,
    });
    const rawRow: Row = { name: `raw multi-row INSERT (${BATCH} rows/statement)`, value: raw.json.rowsPerSecond, unit: "rows/s", p99: null, failures: 0 };

    // 4. the same quantities on the big table
    const bigTarget = BIG_TABLE[endpoints.driver];
    const big = await call<{ rows: number; seconds: number }>(endpoints.bare, "POST", "/control/seed", { ...seedBody, total: bigTarget });
    const checkBig = await call<{ total: number }>(endpoints.app, "GET", quantitiesUrl.slice(endpoints.app.length), undefined, auth);
    const queryBig = await call<{ ms: number }>(endpoints.bare, "POST", "/control/quantities-timing", timing);
    const quantitiesBig = await measure(`GET /v1/meters/{id}/quantities, ${big.json.rows.toLocaleString("en")} events`, quantitiesUrl, auth);
    if (check.json.total !== checkBig.json.total) lines.push(`warning: the customer's total changed (${check.json.total} → ${checkBig.json.total})`);

    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(
      `\ntill /v1 benchmark — ${database}; ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${MEASURE_SECONDS} s per GET;` +
        ` ingest ${INGEST_CONCURRENCY} concurrent requests for ${INGEST_SECONDS} s; Node ${process.version}, ${os.cpus().length} CPUs\n`,
    );
    console.log(
      table([
        baseline,
        ...(productGet ? [{ ...productGet, baseline }] : []),
        { ...meterGet, baseline },
        rawRow,
        { ...ingest, baseline: rawRow },
        quantitiesSmall,
        { ...quantitiesBig, baseline: quantitiesSmall },
      ]),
    );
    console.log("");
    if (productGet) {
      const r = productGet.value / baseline.value;
      console.log(
        `product get: ${(r * 100).toFixed(1)}% of the primary-key SELECT — ${verdict(r, GOAL)} the goal of ≥ ${GOAL * 100}% ` +
          `(the means of ${PRODUCT_ROUNDS} alternating rounds: the SELECT ${rounds(baselines)} req/s, the product ${rounds(productGets)})`,
      );
    }
    const ri = ingest.value / rawRow.value;
    console.log(`ingest: ${(ri * 100).toFixed(1)}% of the raw INSERT rate — ${verdict(ri, GOAL)} the goal of ≥ ${GOAL * 100}%`);
    const rq = quantitiesBig.value / quantitiesSmall.value;
    console.log(
      `quantities: ${quantitiesSmall.value.toFixed(0)} req/s at ${small.json.rows.toLocaleString("en")} events, ` +
        `${quantitiesBig.value.toFixed(0)} req/s at ${big.json.rows.toLocaleString("en")} (${(rq * 100).toFixed(1)}%; ` +
        `seeding took ${big.json.seconds.toFixed(1)} s) — ${verdict(rq, 0.8)} "as fast at the big table" (≥ 80%)`,
    );
    console.log(
      `quantities query alone (in the database, sequential): ${querySmall.json.ms.toFixed(2)} ms at ` +
        `${small.json.rows.toLocaleString("en")} events, ${queryBig.json.ms.toFixed(2)} ms at ${big.json.rows.toLocaleString("en")}`,
    );
    if (endpoints.driver !== "postgres") {
      console.log(`(the goals are stated for PostgreSQL; set DATABASE_URL to measure there; PGlite's big table is ${bigTarget.toLocaleString("en")} rows)`);
    }
    for (const l of lines) console.log(l);
    if ([baseline, productGet, meterGet, ingest, quantitiesSmall, quantitiesBig].some((r) => r && r.failures > 0)) {
      console.log("warning: some requests failed (see failures)");
    }
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    disarm();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
