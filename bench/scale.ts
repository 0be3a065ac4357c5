// Usage at scale, each figure against a baseline measured in the same run:
//   1. GET /v1/customers/{id}/state and GET /v1/meters/{id}/quantities (40 days, daily) for one customer with
//      1,000,000 events vs one with 10,000 (read through the meter rollups): median ms, ratio (goal ≤ 1.5×, < 10 ms);
//   2. POST /v1/events/ingest, batches of 1,000 with external_id (dedupe) and two meters' rollups kept
//      vs a raw multi-row INSERT … ON CONFLICT DO NOTHING of the same rows (goal ≥ 50%);
//   3. lists at 1,000,000 rows in one organization (orders, customers, subscriptions, events): first page with
//      total_count, median and p99 ms (goal: median < 30 ms), total_count checked against count(*); and page 1,000
//      (what a deep OFFSET costs; Polar's wire pages by number, it has no cursor);
//   4. GET /v1/customers|orders|subscriptions/export of 1,000,000 rows each: the server's RSS growth (goal < 50 MB);
//   5. ("table") ingest and one customer's state with 1,000,000 vs 10,000,000 events in the table (goal: within
//      1.2×; bench/scale-table.ts).
// Seeding is bulk SQL (INSERT … SELECT generate_series), never the API; rollups of seeded events are rebuilt
// as a definition change would rebuild them (its time is printed).
//
//   DATABASE_URL=postgres://… npm run bench:scale     # the figures' home (a throw-away database on that server)
//   npm run bench:scale                               # PGlite in memory: 100,000 rows instead of 1,000,000
//
// The server runs in a child process with a few control routes (seeding, the raw INSERT loop, its RSS).
// Loopback only; the whole run is bounded in time (HARD_LIMIT_MS).
import os from "node:os";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import postgres from "postgres";
import { benchSeller, call } from "./helpers/client.js";
import { BATCH, ingestRows, measureIngest, runTablePart, tableRoutes, tableSizes } from "./scale-table.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { markRollupsBuilding, rebuildMeterRollups } from "../server/billing/events/service.js";
import { rowsOf } from "../server/db/client.js";
import { product } from "../server/db/schema/index.js";

const SAMPLES = 100;
const INGEST_SECONDS = 5;
const INGEST_CONCURRENCY = 4;
const LIST_SAMPLES = 100;
const DEEP_SAMPLES = 10;
/** TILL_BENCH_SCALE_PARTS=usage,ingest,lists,export,table (default all): run only those parts (export alone seeds its rows). */
const PARTS = new Set((process.env.TILL_BENCH_SCALE_PARTS ?? "usage,ingest,lists,export,table").split(","));
/** The whole run's bound: 20 minutes, and a minute more per 200,000 events the table part fills. */
const hardLimitMs = (driver: "postgres" | "pglite") => (20 + (PARTS.has("table") ? tableSizes(driver)[1] / 200_000 : 0)) * 60_000;
const SIZES = { postgres: { big: 1_000_000, small: 10_000 }, pglite: { big: 100_000, small: 10_000 } };

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
}

// ---- child: the server and its control routes ----------------------------------------------------------

async function serve(): Promise<void> {
  const served = await startApp();
  const database = served.database;
  const pg = database.url ? postgres(database.url, { max: 10, onnotice: () => {} }) : null;
  const db = database.db;
  const run = (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(db, query);
  const bare = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });

  bare.post("/control/product", async (req) => {
    const { organizationId } = req.body as { organizationId: string };
    const [row] = await db.insert(product).values({ organizationId, name: "Scale product" }).returning();
    return { id: row?.id };
  });

  /** `n` events of the meters' name for one customer over the last 40 days, then the meters' rollups rebuilt. */
  bare.post("/control/seed-usage", async (req) => {
    const { organizationId, customerId, n, meterIds } = req.body as { organizationId: string; customerId: string; n: number; meterIds: string[] };
    const started = performance.now();
    for (let done = 0; done < n; done += 250_000) {
      await run(sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, metadata)
        SELECT ${organizationId}::uuid, 'scale.call', 'user', now() - ((i::bigint * 3457) % 3456000) * interval '1 second', ${customerId}::uuid,
               jsonb_build_object('units', i % 10)
        FROM generate_series(${done + 1}::int, ${Math.min(n, done + 250_000)}::int) AS i`);
    }
    const seeded = performance.now();
    for (const id of meterIds) {
      await markRollupsBuilding(db, organizationId, id);
      await rebuildMeterRollups(db, organizationId, id);
    }
    await run(sql`ANALYZE event`);
    await run(sql`ANALYZE meter_rollup`);
    return { seedSeconds: (seeded - started) / 1000, rebuildSeconds: (performance.now() - seeded) / 1000 };
  });

  /** Rows `from`..`to` of `n` customers, subscriptions or orders in the organization (bulk SQL; one call per chunk). */
  bare.post("/control/seed-lists", async (req) => {
    const { organizationId, productId, customerId, table, from, to } = req.body as {
      organizationId: string;
      productId: string;
      customerId: string;
      table: "customer" | "subscription" | "order" | "event";
      from: number;
      to: number;
    };
    const started = performance.now();
    const series = sql`generate_series(${from}::int, ${to}::int) AS i`;
    if (table === "customer") {
      await run(sql`INSERT INTO customer (organization_id, email, name, created_at)
        SELECT ${organizationId}::uuid, 'scale-' || i || '@example.com', 'Customer ' || i, now() - i * interval '1 second' FROM ${series}`);
    } else if (table === "subscription") {
      await run(sql`INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
          current_period_end, customer_id, product_id, price_ids, created_at)
        SELECT ${organizationId}::uuid, 'active', 1000, 'usd', 'month', now(), now() + interval '1 month', ${customerId}::uuid,
               ${productId}::uuid, '{}', now() - i * interval '1 second'
        FROM ${series}`);
    } else if (table === "event") {
      await run(sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, metadata, created_at)
        SELECT ${organizationId}::uuid, 'scale.list', 'user', now() - i * interval '1 second', ${customerId}::uuid,
               jsonb_build_object('units', i % 10), now() - i * interval '1 second'
        FROM ${series}`);
    } else {
      await run(sql`INSERT INTO "order" (organization_id, status, subtotal_amount, net_amount, total_amount, currency, billing_reason,
          invoice_number, customer_id, product_id, created_at)
        SELECT ${organizationId}::uuid, 'paid', 1000, 1000, 1000, 'usd', 'purchase', 'SCALE-' || i, ${customerId}::uuid,
               ${productId}::uuid, now() - i * interval '1 second'
        FROM ${series}`);
    }
    return { seconds: (performance.now() - started) / 1000 };
  });

  /** count(*) of each list's rows in the organization (what total_count must say). */
  bare.post("/control/counts", async (req) => {
    const { organizationId } = req.body as { organizationId: string };
    const [row] = await run(sql`SELECT
      (SELECT count(*) FROM "order" WHERE organization_id = ${organizationId}::uuid)::int AS orders,
      (SELECT count(*) FROM customer WHERE organization_id = ${organizationId}::uuid AND deleted_at IS NULL)::int AS customers,
      (SELECT count(*) FROM subscription WHERE organization_id = ${organizationId}::uuid)::int AS subscriptions,
      (SELECT count(*) FROM event WHERE organization_id = ${organizationId}::uuid)::int AS events`);
    return row;
  });

  bare.post("/control/vacuum", async () => {
    for (const t of ["customer", "subscription", '"order"', "event"]) await run(sql.raw(`VACUUM ANALYZE ${t}`));
    // the seeding's dirty pages written now rather than by a checkpoint during the timings (superuser only)
    await run(sql`CHECKPOINT`).catch(() => {});
    return {};
  });

  let rawBatch = 0;
  /** The raw baseline: the same concurrency of multi-row INSERTs (fresh external ids, dedupe on), rows/s. */
  bare.post("/control/raw-insert", async (req) => {
    const { organizationId, seconds, concurrency } = req.body as { organizationId: string; seconds: number; concurrency: number };
    if (!pg) return { rowsPerSecond: 0 };
    const deadline = Date.now() + seconds * 1000;
    let batches = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          const b = rawBatch++;
          const values = ingestRows(`raw-${b}`).map((r) => ({
            organization_id: organizationId,
            name: r.name,
            source: "user",
            timestamp: r.timestamp,
            external_customer_id: r.external_customer_id,
            external_id: r.external_id,
            metadata: r.metadata,
          }));
          // deduplicated as the ingest does on the partitioned table (migrations 0060, 0070): the external_ids
          // claimed first, each by the event then inserted
          await pg`WITH rows AS MATERIALIZED (SELECT till_uuid_v7() AS eid, * FROM jsonb_populate_recordset(NULL::event, ${pg.json(values)})),
            keys AS (INSERT INTO event_external_id (organization_id, external_id, event_id, event_timestamp)
              SELECT organization_id, external_id, eid, timestamp FROM rows ON CONFLICT DO NOTHING RETURNING event_id)
            INSERT INTO event (id, organization_id, name, source, timestamp, external_customer_id, external_id, metadata)
            SELECT eid, organization_id, name, source, timestamp, external_customer_id, external_id, metadata FROM rows WHERE eid IN (SELECT event_id FROM keys)`;
          batches++;
        }
      }),
    );
    return { rowsPerSecond: (batches * BATCH) / ((Date.now() - started) / 1000) };
  });

  tableRoutes(bare, run);

  bare.get("/control/memory", async () => {
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
  });

  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  announce({ app: served.url, bare: bareUrl, driver: database.driver } satisfies Endpoints, [
    () => bare.close(),
    () => (pg ? pg.end({ timeout: 5 }) : Promise.resolve()),
    served.close,
  ]);
}

// ---- parent ----------------------------------------------------------------------------------------------


const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

/** Median ms of `SAMPLES` sequential GETs (after 10 to warm up); throws unless every answer is 200. */
async function timeGet(url: string, headers: Record<string, string>, samples = SAMPLES): Promise<number> {
  return (await timeGets(url, headers, samples)).median;
}

/** Median and p99 ms of `samples` sequential GETs (after 10 to warm up); throws unless every answer is 200. */
async function timeGets(url: string, headers: Record<string, string>, samples: number): Promise<{ median: number; p99: number }> {
  const once = async () => {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    return performance.now() - t;
  };
  for (let i = 0; i < 10; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(await once());
  const sorted = [...times].sort((a, b) => a - b);
  return { median: median(times), p99: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? NaN };
}

const verdict = (ok: boolean) => (ok ? "meets" : "misses");

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, hardLimitMs(endpoints.driver));
  const size = SIZES[endpoints.driver];
  const fmt = (n: number) => n.toLocaleString("en");
  try {
    const base = endpoints.app;
    const seller = await benchSeller(base, "scale");
    const { cookie, auth } = seller;
    const org = { id: seller.organizationId };
    const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "scale.call" }] };
    const meterIds: string[] = [];
    for (const aggregation of [{ func: "sum", property: "units" }, { func: "count" }]) {
      meterIds.push((await call<{ id: string }>(base, "POST", "/v1/meters/", { name: `Scale ${aggregation.func}`, filter, aggregation }, auth)).json.id);
    }
    const small = (await call<{ id: string }>(base, "POST", "/v1/customers/", { email: "small@example.com" }, auth)).json.id;
    const big = (await call<{ id: string }>(base, "POST", "/v1/customers/", { email: "big@example.com" }, auth)).json.id;
    const lines: string[] = [];
    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(`\ntill scale benchmark — ${database}; Node ${process.version}, ${os.cpus().length} CPUs\n`);

    /** `size.big` rows of each table in the organization (bulk SQL in chunks of 200,000), then VACUUM ANALYZE. */
    const seedLists = async (tables: Array<"customer" | "subscription" | "order" | "event">, into = { organizationId: org.id, customerId: big, rows: size.big }) => {
      const productId = (await call<{ id: string }>(endpoints.bare, "POST", "/control/product", { organizationId: into.organizationId })).json.id;
      let listSeconds = 0;
      for (const table of tables) {
        for (let from = 1; from <= into.rows; from += 200_000) {
          const body = { organizationId: into.organizationId, productId, customerId: into.customerId, table, from, to: Math.min(into.rows, from + 199_999) };
          listSeconds += (await call<{ seconds: number }>(endpoints.bare, "POST", "/control/seed-lists", body)).json.seconds;
        }
      }
      await call(endpoints.bare, "POST", "/control/vacuum", {});
      lines.push(`seeded ${fmt(into.rows)} ${tables.join(", ")} rows in ${listSeconds.toFixed(1)} s`);
    };

    // 1. one customer's usage at 10k vs 1M events
    if (PARTS.has("usage")) {
    const seedSmall = await call<{ seedSeconds: number; rebuildSeconds: number }>(endpoints.bare, "POST", "/control/seed-usage", {
      organizationId: org.id,
      customerId: small,
      n: size.small,
      meterIds,
    });
    const seedBig = await call<{ seedSeconds: number; rebuildSeconds: number }>(endpoints.bare, "POST", "/control/seed-usage", {
      organizationId: org.id,
      customerId: big,
      n: size.big,
      meterIds,
    });
    const end = new Date();
    const startTs = new Date(end.getTime() - 40 * 86_400_000);
    const quantities = (c: string) =>
      `${base}/v1/meters/${meterIds[0]}/quantities?interval=day&customer_id=${c}` +
      `&start_timestamp=${encodeURIComponent(startTs.toISOString())}&end_timestamp=${encodeURIComponent(end.toISOString())}`;
    const usage: Array<[string, number, number]> = [];
    for (const [name, url] of [
      ["GET /v1/customers/{id}/state", (c: string) => `${base}/v1/customers/${c}/state`],
      ["GET /v1/meters/{id}/quantities (40 days, daily)", quantities],
    ] as const) {
      usage.push([name, await timeGet(url(small), auth), await timeGet(url(big), auth)]);
    }
    const state = await call<{ active_meters: Array<{ consumed_units: number }> }>(base, "GET", `/v1/customers/${big}/state`, undefined, auth);
    lines.push(
      `seeded ${fmt(size.big)} events in ${seedBig.json.seedSeconds.toFixed(1)} s; rebuilding 2 meters' rollups from them took ` +
        `${seedBig.json.rebuildSeconds.toFixed(1)} s (${fmt(size.small)}: ${seedSmall.json.rebuildSeconds.toFixed(2)} s)`,
    );
    console.log(`usage of one customer (median of ${SAMPLES} sequential requests, ms)`);
    console.log(`${"".padEnd(48)}  ${fmt(size.small).padStart(9)}  ${fmt(size.big).padStart(9)}  ratio`);
    for (const [name, a, b] of usage) {
      const ratio = b / a;
      console.log(
        `${name.padEnd(48)}  ${a.toFixed(2).padStart(9)}  ${b.toFixed(2).padStart(9)}  ${ratio.toFixed(2)}×  ` +
          `ratio ${ratio <= 1.5 ? "PASS" : "MISS"} (≤ 1.5×), median ${b < 10 ? "PASS" : "MISS"} (< 10 ms)`,
      );
    }
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    lines.push(`check: the big customer's consumed units ${state.json.active_meters.map((m) => m.consumed_units).join(", ")}`);

    }
    // 2. ingest with rollups vs raw INSERT
    if (PARTS.has("ingest")) {
    const { rate: ingestRate, failures } = await measureIngest(base, auth, INGEST_SECONDS, INGEST_CONCURRENCY);
    const raw = (
      await call<{ rowsPerSecond: number }>(endpoints.bare, "POST", "/control/raw-insert", {
        organizationId: org.id,
        seconds: INGEST_SECONDS,
        concurrency: INGEST_CONCURRENCY,
      })
    ).json.rowsPerSecond;
    console.log(`\ningest, batches of ${BATCH} with external_id, ${INGEST_CONCURRENCY} at once, ${INGEST_SECONDS} s each (rows/s)`);
    if (raw > 0) {
      console.log(`raw multi-row INSERT … ON CONFLICT DO NOTHING   ${raw.toFixed(0).padStart(9)}`);
      console.log(
        `POST /v1/events/ingest (2 meters' rollups kept)  ${ingestRate.toFixed(0).padStart(9)}  ${((ingestRate / raw) * 100).toFixed(1)}%  ` +
          `${verdict(ingestRate / raw >= 0.5)} ≥ 50%${failures ? ` (${failures} failed)` : ""}`,
      );
    } else console.log(`POST /v1/events/ingest (2 meters' rollups kept)  ${ingestRate.toFixed(0).padStart(9)} (no raw baseline on PGlite)`);
    }

    // 3. lists at 1M rows
    if (PARTS.has("lists")) {
    // the usage part seeded its 1,000,000 events already; alone, the lists part seeds its own
    await seedLists(PARTS.has("usage") ? ["customer", "subscription", "order"] : ["customer", "subscription", "order", "event"]);
    const expected = (await call<Record<string, number>>(endpoints.bare, "POST", "/control/counts", { organizationId: org.id })).json;
    // the baseline: the same lists in an organization of 10 rows each (what a first page costs on this box at this
    // load, whatever the organization's size)
    const tiny = (await call<{ id: string }>(base, "POST", "/api/auth/organization/create", { name: "Tiny", slug: `tiny-${Date.now()}` }, { cookie })).json;
    const tinyKey = (await call<{ key: string }>(base, "POST", "/api/auth/api-key/create", { organizationId: tiny.id, name: "tiny", rateLimitEnabled: false }, { cookie })).json.key;
    const tinyAuth = { authorization: `Bearer ${tinyKey}` };
    const tinyCustomer = (await call<{ id: string }>(base, "POST", "/v1/customers/", { email: "tiny@example.com" }, tinyAuth)).json.id;
    await seedLists(["customer", "subscription", "order", "event"], { organizationId: tiny.id, customerId: tinyCustomer, rows: 10 });
    const load = os.loadavg().map((l) => l.toFixed(2)).join(" ");
    console.log(`\nlists, limit 10 (ms; ${LIST_SAMPLES} first pages, ${DEEP_SAMPLES} pages 1,000; load average ${load})`);
    console.log(
      `${"".padEnd(22)}  ${"total_count".padStart(11)}  ${"first median".padStart(12)}  ${"p99".padStart(7)}  goal      ` +
        `${"page 1,000".padStart(10)}  ${"10-row org".padStart(10)}`,
    );
    for (const list of ["orders", "customers", "subscriptions", "events"]) {
      const first = await call<{ pagination: { total_count: number } }>(base, "GET", `/v1/${list}/?limit=10`, undefined, auth);
      const firstMs = await timeGets(`${base}/v1/${list}/?limit=10`, auth, LIST_SAMPLES);
      const deepMs = await timeGets(`${base}/v1/${list}/?limit=10&page=1000`, auth, DEEP_SAMPLES);
      const tinyMs = await timeGets(`${base}/v1/${list}/?limit=10`, tinyAuth, LIST_SAMPLES);
      const exact = first.json.pagination.total_count === expected[list];
      console.log(
        `GET /v1/${list}/`.padEnd(22) +
          `  ${fmt(first.json.pagination.total_count).padStart(11)}  ${firstMs.median.toFixed(1).padStart(12)}  ${firstMs.p99.toFixed(1).padStart(7)}  ` +
          `< 30 ${firstMs.median < 30 ? "PASS" : "MISS"}  ${deepMs.median.toFixed(1).padStart(10)}  ${tinyMs.median.toFixed(1).padStart(10)}` +
          (exact ? "" : `  total_count WRONG: count(*) is ${fmt(expected[list] ?? NaN)}`),
      );
    }
    console.log(`(load average after the lists: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")})`);

    }

    // 4. export RSS (of the rows seeded for the lists; seeded here when the lists did not run)
    if (PARTS.has("export")) {
    if (!PARTS.has("lists")) await seedLists(["customer", "subscription", "order"]);
    type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
    const memory = async () => (await call<Memory>(endpoints.bare, "GET", "/control/memory")).json;
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");
    console.log(`\nexports of ${fmt(size.big)} rows (the server's RSS growth, peak − before; goal < 50 MB)`);
    for (const list of ["customers", "orders", "subscriptions"]) {
      const before = await memory();
      const peak = { ...before };
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const now = await memory();
          for (const k of Object.keys(peak) as Array<keyof Memory>) peak[k] = Math.max(peak[k], now[k]);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const exportStarted = performance.now();
      const res = await fetch(`${base}/v1/${list}/export`, { headers: auth });
      let bytes = 0;
      let newlines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines++;
      }
      polling = false;
      await poller;
      const growth = (peak.rss - before.rss) / 1024 / 1024;
      console.log(
        `GET /v1/${list}/export: ${fmt(newlines - 1)} rows, ${(bytes / 1024 / 1024).toFixed(0)} MB in ` +
          `${((performance.now() - exportStarted) / 1000).toFixed(1)} s; RSS +${growth.toFixed(1)} MB — ` +
          `${growth < 50 ? "PASS" : "MISS"} (< 50 MB); load average ${load()}`,
      );
      console.log(
        `  before → peak (MB): rss ${mb(before.rss)} → ${mb(peak.rss)}, heap used ${mb(before.heapUsed)} → ${mb(peak.heapUsed)}, ` +
          `heap total ${mb(before.heapTotal)} → ${mb(peak.heapTotal)}, external ${mb(before.external)} → ${mb(peak.external)}, ` +
          `array buffers ${mb(before.arrayBuffers)} → ${mb(peak.arrayBuffers)}`,
      );
    }
    }

    // 5. the event table at 1M vs 10M events
    if (PARTS.has("table")) {
      const timeTable = (url: string, headers: Record<string, string>, samples: number) => timeGet(url, headers, samples);
      const ctx = { base, bare: endpoints.bare, driver: endpoints.driver, auth, organizationId: org.id, timeGet: timeTable };
      lines.push(...(await runTablePart({ ...ctx, ingestSeconds: INGEST_SECONDS, concurrency: INGEST_CONCURRENCY })));
    }

    console.log("");
    for (const l of lines) console.log(l);
    if (endpoints.driver !== "postgres") console.log("(the goals are stated for PostgreSQL; set DATABASE_URL to measure there)");
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    disarm();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
