// A subscription change's preview for a customer with a month of metered usage, against a bare baseline measured in
// the same run: POST /v1/subscriptions/{id}/preview (API key; a switch to another plan, prorated, so the answer
// carries the next renewal with the period's usage priced) vs a bare Fastify route doing one primary-key SELECT
// (bench/helpers/baseline.ts), in alternating rounds; the rate's share of the baseline and the p99 printed, and
// the p99 of a preview alone (one connection). A preview is computed from reads alone, without a transaction or a
// lock (subscription-changes/preview.ts), so the previews of one subscription run side by side.
// At scale: the organization holds 1M customers and the customer 1M events of the meter in its current period,
// seeded by SQL and brought into the meter's rollups by a rebuild (bench/helpers/metered.ts): a preview reads the
// usage through the rollups, as the renewal does, so its cost does not grow with the events.
//
//   DATABASE_URL=postgres://… npm run bench:preview   # a throw-away database on that server
//   npm run bench:preview                             # PGlite (in memory; 100k customers and events)
//   TILL_BENCH_SCALE=<n>                              # n customers and n events, for a quicker look
//
// The servers run in a child process (the real app plus a bare Fastify with the baseline and the seeding route) so
// the load generator does not share their event loop. Loopback only; every phase is bounded in time.
import os from "node:os";
import autocannon, { type Options } from "autocannon";
import Fastify from "fastify";
import { bareProductRoute } from "./helpers/baseline.js";
import { cpuMeter } from "./helpers/cpu.js";
import { benchSeller, call } from "./helpers/client.js";
import { seedMeteredUsage, subscribe, type SeedRequest, type Seeded } from "./helpers/metered.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = 4;
const ROUNDS = 2;
const SCALE = { postgres: Number(process.env.TILL_BENCH_SCALE ?? 1_000_000), pglite: Number(process.env.TILL_BENCH_SCALE ?? 100_000) };
const EVENT = "bench.call";
const HARD_LIMIT_MS = 10 * 60_000;

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
}

// ---- child: the servers ------------------------------------------------------------------------------

async function serve(): Promise<void> {
  const served = await startApp();
  const database = served.database;
  await served.worker.start();
  const bare = Fastify({ logger: false });
  const closeRow = bareProductRoute(bare, database);
  bare.post("/control/seed", async (req) => seedMeteredUsage(database.db, { ...(req.body as Omit<SeedRequest, "eventName">), eventName: EVENT }));
  bare.post("/control/worker", async (req) => {
    const { on } = req.body as { on: boolean };
    await (on ? served.worker.start() : served.worker.stop());
    return { on };
  });
  const cpu = cpuMeter(database.url);
  bare.get("/control/cpu", async () => cpu.read());
  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  const endpoints: Endpoints = { app: served.url, bare: bareUrl, driver: database.driver };
  announce(endpoints, [() => bare.close(), closeRow, () => cpu.close() ?? Promise.resolve(), served.close]);
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------

interface Fixtures {
  organizationId: string;
  auth: { authorization: string };
  meterId: string;
  /** the plan switched to */
  plusId: string;
  subscriptionId: string;
  customerId: string;
}

async function fixtures(base: string): Promise<Fixtures> {
  const { organizationId, auth } = await benchSeller(base, "previewed");
  const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: EVENT }] };
  const meter = await call<{ id: string }>(base, "POST", "/v1/meters/", { name: "Bench units", filter, aggregation: { func: "sum", property: "units" } }, auth);
  const plan = (name: string, amount: number) => ({
    name,
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: amount, price_currency: "usd" },
      { amount_type: "metered_unit", meter_id: meter.json.id, unit_amount: "1", price_currency: "usd" },
    ],
  });
  const basic = await call<{ id: string }>(base, "POST", "/v1/products/", plan("Basic", 900), auth);
  const plus = await call<{ id: string }>(base, "POST", "/v1/products/", plan("Plus", 2900), auth);
  const customerId = await subscribe(base, auth, basic.json.id, `previewed-${Date.now()}@example.com`);
  const subs = await call<{ items: Array<{ id: string }> }>(base, "GET", `/v1/subscriptions/?customer_id=${customerId}`, undefined, auth);
  const subscriptionId = subs.json.items[0]?.id;
  if (!subscriptionId) throw new Error("no subscription");
  return { organizationId, auth, meterId: meter.json.id, plusId: plus.json.id, subscriptionId, customerId };
}

interface Row {
  name: string;
  value: number;
  p50: number;
  p99: number;
  failures: number;
  cpu: { node: number; db: number };
}

let controlUrl = "";
const cpuNow = async () => (await call<{ node: number; db: number }>(controlUrl, "GET", "/control/cpu")).json;

async function measure(name: string, opts: Options, connections = CONNECTIONS): Promise<Row> {
  await autocannon({ ...opts, connections, duration: WARMUP_SECONDS });
  const before = await cpuNow();
  const r = await autocannon({ ...opts, connections, duration: MEASURE_SECONDS });
  const after = await cpuNow();
  const n = Math.max(1, r.requests.total);
  const cpu = { node: (after.node - before.node) / n, db: (after.db - before.db) / n };
  return { name, value: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts, cpu };
}

function averaged(rows: Row[]): Row {
  const mean = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0) / rows.length;
  return {
    ...rows[0]!,
    value: mean((r) => r.value),
    p50: mean((r) => r.p50),
    p99: Math.max(...rows.map((r) => r.p99)),
    failures: rows.reduce((n, r) => n + r.failures, 0),
    cpu: { node: mean((r) => r.cpu.node), db: mean((r) => r.cpu.db) },
  };
}

function table(rows: Array<Row & { baseline?: Row }>): string {
  const header = ["measurement", "req/s", "vs baseline", "p50 ms", "p99 ms", "CPU ms: till + db", "failures"];
  const body = rows.map((r) => [
    r.name,
    r.value.toFixed(0),
    r.baseline ? `${((r.value / r.baseline.value) * 100).toFixed(1)}%` : "(baseline)",
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    `${r.cpu.node.toFixed(2)} + ${r.cpu.db.toFixed(2)}`,
    String(r.failures),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

interface Preview {
  next_renewal: { subtotal_amount: number; items: Array<{ label: string; amount: number }> } | null;
}

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  controlUrl = endpoints.bare;
  try {
    const f = await fixtures(endpoints.app);
    const scale = SCALE[endpoints.driver];
    const seedBody = { organizationId: f.organizationId, customerId: f.customerId, meterId: f.meterId, customers: scale, events: scale };
    const seed = (await call<Seeded>(endpoints.bare, "POST", "/control/seed", seedBody)).json;
    // nothing else runs in the app while it is measured
    await call(endpoints.bare, "POST", "/control/worker", { on: false });
    const body = { product_id: f.plusId, proration_behavior: "prorate" };
    const probe = (await call<Preview>(endpoints.app, "POST", `/v1/subscriptions/${f.subscriptionId}/preview`, body, f.auth)).json;
    // the usage line: the period's units at 1 cent each (the events' units, less no credits)
    const usage = probe.next_renewal?.items.reduce((n, i) => (i.amount === seed.units ? n + 1 : n), 0) ?? 0;

    const previewRequest = {
      url: `${endpoints.app}/v1/subscriptions/${f.subscriptionId}/preview`,
      method: "POST" as const,
      headers: { ...f.auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    };
    const baselines: Row[] = [];
    const previews: Row[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baselines.push(await measure("bare Fastify: SELECT product by primary key", { url: `${endpoints.bare}/row/${f.plusId}` }));
      previews.push(await measure(`POST /v1/subscriptions/{id}/preview (${CONNECTIONS} connections)`, previewRequest));
    }
    const alone = await measure("POST /v1/subscriptions/{id}/preview (1 connection: a preview alone)", previewRequest, 1);
    const baseline = averaged(baselines);
    const preview = averaged(previews);

    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(
      `\ntill preview benchmark — ${database}; ${seed.customers.toLocaleString("en")} customers in the organization, the previewed one with ` +
        `${seed.events.toLocaleString("en")} events of its metered price in the current period; ${CONNECTIONS} connections (autocannon), ` +
        `${WARMUP_SECONDS} s warm-up + ${MEASURE_SECONDS} s × ${ROUNDS} alternating rounds; Node ${process.version}, ${os.cpus().length} CPUs\n`,
    );
    console.log(table([baseline, { ...preview, baseline }, { ...alone, baseline }]));
    console.log("");
    const ratio = preview.value / baseline.value;
    console.log(`preview: ${(ratio * 100).toFixed(1)}% of the bare SELECT's rate; p99 ${preview.p99.toFixed(1)} ms at ${CONNECTIONS} connections, ${alone.p99.toFixed(1)} ms alone`);
    console.log(`the next renewal ${usage > 0 ? "prices" : "DOES NOT price"} the period's ${seed.units.toLocaleString("en")} units (subtotal ${probe.next_renewal?.subtotal_amount})`);
    console.log(`seeding: customers ${seed.seconds.customers.toFixed(1)} s, events ${seed.seconds.events.toFixed(1)} s, rollups rebuilt + VACUUM ANALYZE ${seed.seconds.rollups.toFixed(1)} s`);
    if ([baseline, preview, alone].some((r) => r.failures > 0)) console.log("warning: some requests failed (see failures)");
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    disarm();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
