// The entitlement check and reservations on the hot path, each against a bare baseline measured in the same run:
//   1. POST /v1/entitlements/check (API key, a meter with units) vs a bare Fastify route doing one primary-key
//      SELECT (bench/helpers/baseline.ts), in alternating rounds; the check's p99 printed. Goal ≥ 50 %. Beside it, a
//      feature flag's check and, for reference, GET /v1/products/{id} through the same stack; each row's CPU per
//      request (the server's process and the database's backends) printed.
//   2. reserve + commit pairs (POST /v1/reservations/, then …/{id}/commit) per second vs a bare Fastify route doing
//      one primary-key UPDATE per request, both driven by the same fetch loop (WORKERS at once). Goal ≥ 40 %. Beside
//      it, the ceiling a pair of requests can reach: pairs of two authenticated product GETs, the same loop. The app
//      has the server's own pool of 10 connections, as the bare routes do (TILL_BENCH_POOL=<n> for another).
// At scale: the organization holds 1M customers, and the checked customer 1M events of the meter in its current
// period. The seeding is SQL (INSERT … SELECT generate_series); the events then reach the meter's rollups the way a
// definition change does: the meter is marked `building` and rebuilt from the events in one statement
// (events/rollups.ts rebuildRollups), so the check reads whole hours from the rollups as it does in production.
//
//   DATABASE_URL=postgres://… npm run bench:entitlements   # a throw-away database on that server
//   npm run bench:entitlements                             # PGlite (in memory; 100k customers and events)
//   TILL_BENCH_PART=pairs TILL_BENCH_CPU_PROF=.tmp/prof …   # only the pairs (or `check`), e.g. for a profile
//
// The servers run in a child process (the real app plus a bare Fastify with the baselines and the seeding routes) so
// the load generator does not share their event loop. Loopback only; every phase is bounded in time.
import os from "node:os";
import autocannon, { type Options } from "autocannon";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import postgres from "postgres";
import { bareProductRoute } from "./helpers/baseline.js";
import { cpuMeter } from "./helpers/cpu.js";
import { benchSeller, call } from "./helpers/client.js";
import { seedMeteredUsage, subscribe, type SeedRequest } from "./helpers/metered.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { entitlementFacts } from "../server/billing/entitlements/facts.js";
import { customerEntitlementRows } from "../server/billing/entitlements/facts-repository.js";
import { checkEntitlement } from "../server/billing/entitlements/service.js";
import { rowsOf, type Db } from "../server/db/client.js";

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = 4;
const ROUNDS = 2;
/** Pairs: each worker reserves and commits for a customer of its own (a hold locks the customer's balance). */
const WORKERS = 10;
const PAIR_SECONDS = 5;
/** The app's PostgreSQL pool (TILL_BENCH_POOL to compare another). */
const POOL = Number(process.env.TILL_BENCH_POOL ?? 10);
/** The organization's customers and the checked customer's events (TILL_BENCH_SCALE=<n> for a quicker look). */
const SCALE = { postgres: Number(process.env.TILL_BENCH_SCALE ?? 1_000_000), pglite: Number(process.env.TILL_BENCH_SCALE ?? 100_000) };
const CREDITS = 100_000_000;
const CHECK_GOAL = 0.5;
const PAIR_GOAL = 0.4;
const HARD_LIMIT_MS = 10 * 60_000;
/** Which measurements run: both (default), or only the check's or the pairs' (TILL_BENCH_PART=check|pairs). */
const PART = process.env.TILL_BENCH_PART ?? "all";

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
}

// ---- child: the servers ------------------------------------------------------------------------------

async function serve(): Promise<void> {
  // the server's own pool (db/client.ts: 10), as the bare routes have: with the test pool of 5, ten loops' holds
  // and commits, each holding a connection through its COMMIT's flush, waited for a connection
  const served = await startApp({ pool: POOL });
  const database = served.database;
  const db = database.db;
  const run = (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(db, query);
  const pg = database.url ? postgres(database.url, { max: 10, onnotice: () => {} }) : null;
  await served.worker.start();

  const bare = Fastify({ logger: false });
  const closeRow = bareProductRoute(bare, database);
  let rows: string[] = [];
  let next = 0;
  // the UPDATE baseline: one primary-key UPDATE per request, round the rows the workers share
  bare.post("/bump", async () => {
    const id = rows[next++ % rows.length]!;
    if (pg) return (await pg`UPDATE product SET modified_at = now() WHERE id = ${id} RETURNING id`)[0];
    return (await run(sql`UPDATE product SET modified_at = now() WHERE id = ${id} RETURNING id`))[0];
  });

  bare.post("/control/products", async (req) => {
    const { organizationId, n } = req.body as { organizationId: string; n: number };
    const made = await run(sql`INSERT INTO product (organization_id, name) SELECT ${organizationId}::uuid, 'Bump ' || i FROM generate_series(1, ${n}::int) AS i RETURNING id`);
    rows = made.map((r) => String(r.id));
    return { ids: rows };
  });

  // CPU so far of this process (the app and the bare routes) and of the database's backends
  const cpu = cpuMeter(database.url);
  bare.get("/control/cpu", async () => cpu.read());

  bare.post("/control/worker", async (req) => {
    const { on } = req.body as { on: boolean };
    await (on ? served.worker.start() : served.worker.stop());
    return { on };
  });

  /** The crowd of customers and the checked customer's events, rollups rebuilt (helpers/metered.ts). */
  bare.post("/control/seed", async (req) => seedMeteredUsage(db, { ...(req.body as Omit<SeedRequest, "eventName">), eventName: "bench.call" }));

  /** Where a check's time goes: each read of entitlementFacts alone, sequentially, in this process (mean ms). */
  bare.post("/control/profile", async (req) => {
    const { organizationId, customerId, meterId, runs } = req.body as { organizationId: string; customerId: string; meterId: string; runs: number };
    return profileFacts(db, organizationId, customerId, meterId, runs);
  });

  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  const endpoints: Endpoints = { app: served.url, bare: bareUrl, driver: database.driver };
  announce(endpoints, [() => bare.close(), closeRow, () => cpu.close() ?? Promise.resolve(), () => (pg ? pg.end({ timeout: 5 }) : Promise.resolve()), served.close]);
}

async function profileFacts(db: Db, organizationId: string, customerId: string, meterId: string, runs: number): Promise<Record<string, number>> {
  const steps: Record<string, () => Promise<unknown>> = {
    // the one statement: customer, grants, subscriptions with their metered prices, holds, live meters
    customerRows: () => customerEntitlementRows(db, organizationId, { id: customerId }),
    // that and the usage of the meter asked (through its rollups)
    entitlementFacts: () => entitlementFacts(db, organizationId, { id: customerId }, meterId),
    checkEntitlement: () => checkEntitlement(db, organizationId, { customer_id: customerId, feature: meterId, units: 1 }),
  };
  const out: Record<string, number> = {};
  for (const [name, step] of Object.entries(steps)) {
    await step();
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) await step();
    out[name] = (performance.now() - t0) / runs;
  }
  return out;
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------

interface Fixtures {
  organizationId: string;
  auth: { authorization: string };
  productId: string;
  /** One product per pair loop (the UPDATE baseline's rows), for the durable writes' reference */
  products: string[];
  meterId: string;
  /** The subscribed customers: the first is the checked one. */
  customers: string[];
}

async function fixtures(e: Endpoints): Promise<Fixtures> {
  const base = e.app;
  const { organizationId, auth } = await benchSeller(base, "entitled");
  const meter = await call<{ id: string }>(
    base,
    "POST",
    "/v1/meters/",
    { name: "Bench units", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "bench.call" }] }, aggregation: { func: "sum", property: "units" } },
    auth,
  );
  const meterId = meter.json.id;
  const credit = await call<{ id: string }>(base, "POST", "/v1/benefits/", { type: "meter_credit", description: "Units", properties: { units: CREDITS, rollover: false, meter_id: meterId } }, auth);
  const flag = await call<{ id: string }>(base, "POST", "/v1/benefits/", { type: "feature_flag", description: "Export", properties: {}, metadata: { key: "export" } }, auth);
  const prices = [
    { amount_type: "fixed", price_amount: 900, price_currency: "usd" },
    { amount_type: "metered_unit", meter_id: meterId, unit_amount: "1", price_currency: "usd", overage: "credit_only" },
  ];
  const plan = await call<{ id: string }>(base, "POST", "/v1/products/", { name: "Plan", recurring_interval: "month", prices }, auth);
  await call(base, "POST", `/v1/products/${plan.json.id}/benefits`, { benefits: [credit.json.id, flag.json.id] }, auth);
  const customers: string[] = [];
  for (let i = 0; i < WORKERS; i++) customers.push(await subscribe(base, auth, plan.json.id, `entitled-${i}-${Date.now()}@example.com`));
  const products = (await call<{ ids: string[] }>(e.bare, "POST", "/control/products", { organizationId, n: WORKERS })).json.ids;
  return { organizationId, auth, productId: products[0]!, products, meterId, customers };
}

interface CheckAnswer {
  allowed: boolean;
  balance: number | null;
  limit: number | null;
}

/** The check's answer once every customer's credits are granted (the grants run as jobs). */
async function awaitCredits(base: string, f: Fixtures): Promise<void> {
  for (const customer of f.customers) {
    for (let i = 0; ; i++) {
      const a = await call<CheckAnswer>(base, "POST", "/v1/entitlements/check", { customer_id: customer, feature: f.meterId }, f.auth);
      if (a.json.limit === CREDITS) break;
      if (i > 400) throw new Error(`no credits granted: ${JSON.stringify(a.json)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

interface Row {
  name: string;
  value: number;
  unit: string;
  p50: number | null;
  p99: number | null;
  failures: number;
  /** CPU per request (or pair) in ms: the server's process and the database's backends */
  cpu?: { node: number; db: number };
}

let controlUrl = "";
const cpuNow = async () => (await call<{ node: number; db: number }>(controlUrl, "GET", "/control/cpu")).json;
const perRequest = (a: { node: number; db: number }, b: { node: number; db: number }, n: number) => ({ node: (b.node - a.node) / Math.max(1, n), db: (b.db - a.db) / Math.max(1, n) });

async function measureCannon(name: string, opts: Options): Promise<Row> {
  await autocannon({ ...opts, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  const before = await cpuNow();
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: MEASURE_SECONDS });
  const cpu = perRequest(before, await cpuNow(), r.requests.total);
  return { name, value: r.requests.average, unit: "req/s", p50: r.latency.p50, p99: r.latency.p99, failures: r.non2xx + r.errors + r.timeouts, cpu };
}

/** The rounds' mean (an empty row when the part was not measured: TILL_BENCH_PART). */
function averaged(rows: Row[]): Row {
  const first = rows[0] ?? { name: "", value: NaN, unit: "", p50: null, p99: null, failures: 0 };
  const mean = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0) / rows.length;
  const cpu = { node: mean((r) => r.cpu?.node ?? 0), db: mean((r) => r.cpu?.db ?? 0) };
  return { ...first, value: mean((r) => r.value), p50: mean((r) => r.p50 ?? 0), p99: Math.max(...rows.map((r) => r.p99 ?? 0)), failures: rows.reduce((n, r) => n + r.failures, 0), cpu };
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN;

/** `workers` loops of `once(worker)` for `seconds` (after a second's warm-up): completions per second. */
async function loop(name: string, unit: string, seconds: number, once: (worker: number) => Promise<boolean>): Promise<Row> {
  const go = async (until: number, times: number[] | null) => {
    let failures = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        while (Date.now() < until) {
          const t0 = performance.now();
          if (!(await once(w).catch(() => false))) failures++;
          else times?.push(performance.now() - t0);
        }
      }),
    );
    return failures;
  };
  await go(Date.now() + WARMUP_SECONDS * 1000, null);
  const times: number[] = [];
  const before = await cpuNow();
  const started = Date.now();
  const failures = await go(started + seconds * 1000, times);
  const cpu = perRequest(before, await cpuNow(), times.length);
  return { name, value: times.length / ((Date.now() - started) / 1000), unit, p50: quantile(times, 0.5), p99: quantile(times, 0.99), failures, cpu };
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function patch(url: string, body: unknown, headers: Record<string, string>): Promise<boolean> {
  const res = await fetch(url, { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status === 200;
}

async function get(url: string, headers: Record<string, string>): Promise<boolean> {
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  return res.status === 200;
}

/** One hold of a unit and its commit; true when both answered as they should. */
async function pair(base: string, f: Fixtures, worker: number): Promise<boolean> {
  const held = await post(`${base}/v1/reservations/`, { customer_id: f.customers[worker], feature: f.meterId, units: 1 }, f.auth);
  if (held.status !== 201) return false;
  const done = await post(`${base}/v1/reservations/${String(held.json.id)}/commit`, { units: 1 }, f.auth);
  return done.status === 200 && done.json.status === "committed";
}

function table(rows: Array<Row & { baseline?: Row }>): string {
  const header = ["measurement", "rate", "unit", "vs baseline", "p50 ms", "p99 ms", "CPU ms: till + db", "failures"];
  const ms = (v: number | null) => (v === null ? "-" : v.toFixed(1));
  const cpu = (r: Row) => (r.cpu ? `${r.cpu.node.toFixed(2)} + ${r.cpu.db.toFixed(2)}` : "-");
  const body = rows.map((r) => [r.name, r.value.toFixed(0), r.unit, r.baseline ? `${((r.value / r.baseline.value) * 100).toFixed(1)}%` : "(baseline)", ms(r.p50), ms(r.p99), cpu(r), String(r.failures)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

const verdict = (ratio: number, goal: number) => `${(ratio * 100).toFixed(1)}% — ${ratio >= goal ? "meets" : "misses"} the goal of ≥ ${goal * 100}%`;

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  controlUrl = endpoints.bare;
  try {
    const f = await fixtures(endpoints);
    await awaitCredits(endpoints.app, f);
    const scale = SCALE[endpoints.driver];
    const seedBody = { organizationId: f.organizationId, customerId: f.customers[0], meterId: f.meterId, customers: scale, events: scale };
    const seed = await call<{ customers: number; events: number; units: number; seconds: Record<string, number> }>(endpoints.bare, "POST", "/control/seed", seedBody);
    // nothing else runs in the app while it is measured
    await call(endpoints.bare, "POST", "/control/worker", { on: false });
    const checkBody = { customer_id: f.customers[0], feature: f.meterId, units: 1 };
    const probe = await call<CheckAnswer>(endpoints.app, "POST", "/v1/entitlements/check", checkBody, f.auth);
    const expected = CREDITS - seed.json.units;
    const exact = probe.json.allowed && probe.json.balance === expected;
    const profileBody = { organizationId: f.organizationId, customerId: f.customers[0], meterId: f.meterId, runs: 20 };
    const profile = await call<Record<string, number>>(endpoints.bare, "POST", "/control/profile", profileBody);

    const checkRequest = { url: `${endpoints.app}/v1/entitlements/check`, method: "POST" as const, headers: { ...f.auth, "content-type": "application/json" }, body: JSON.stringify(checkBody) };
    // a feature flag's check: the one statement, no usage to measure
    const flagRequest = { ...checkRequest, body: JSON.stringify({ customer_id: f.customers[0], feature: "export" }) };
    // the reference: an authenticated read of one row through the same stack (bench:api's product GET)
    const productRequest = { url: `${endpoints.app}/v1/products/${f.productId}`, headers: f.auth };
    const products: Row[] = [];
    const baselines: Row[] = [];
    const checks: Row[] = [];
    const flags: Row[] = [];
    for (let round = 0; round < (PART === "pairs" ? 0 : ROUNDS); round++) {
      baselines.push(await measureCannon("bare Fastify: SELECT product by primary key", { url: `${endpoints.bare}/row/${f.productId}` }));
      checks.push(await measureCannon("POST /v1/entitlements/check (API key, meter, units)", checkRequest));
      flags.push(await measureCannon("POST /v1/entitlements/check (API key, feature flag)", flagRequest));
      products.push(await measureCannon("GET /v1/products/{id} (API key; the reference)", productRequest));
    }
    const selectRow = averaged(baselines);
    const checkRow = averaged(checks);
    const flagRow = averaged(flags);
    const productRow = averaged(products);

    const bump = () => fetch(`${endpoints.bare}/bump`, { method: "POST" }).then(async (r) => (await r.arrayBuffer(), r.status === 200));
    // the ceiling: a pair is two authenticated requests, and the cheapest of those is a product GET
    const getTwice = async () => (await get(productRequest.url, f.auth)) && get(productRequest.url, f.auth);
    // alternating rounds, as the check's: a shared machine's speed moves within a run, and a baseline measured once
    // made the ratio follow that drift
    const updates: Row[] = [];
    const pairs: Row[] = [];
    const ceilings: Row[] = [];
    const writes: Row[] = [];
    // the reference of two durable writes: an authenticated product update each, on a product of the loop's own
    let renamed = 0;
    const rename = (w: number) => patch(`${endpoints.app}/v1/products/${f.products[w]}`, { name: `Bump ${w}.${renamed++}` }, f.auth);
    const patchTwice = async (w: number) => (await rename(w)) && rename(w);
    for (let round = 0; round < (PART === "check" ? 0 : ROUNDS); round++) {
      updates.push(await loop("bare Fastify: UPDATE product by primary key", "req/s", PAIR_SECONDS, bump));
      pairs.push(await loop("reserve + commit (POST /v1/reservations/, …/commit)", "pairs/s", PAIR_SECONDS, (w) => pair(endpoints.app, f, w)));
      ceilings.push(await loop("reference: two GET /v1/products/{id} (API key)", "pairs/s", PAIR_SECONDS, getTwice));
      writes.push(await loop("reference: two PATCH /v1/products/{id} (API key)", "pairs/s", PAIR_SECONDS, patchTwice));
    }
    const updateRow = averaged(updates);
    const pairRow = averaged(pairs);
    const ceilingRow = averaged(ceilings);
    const writeRow = averaged(writes);
    const after = await call<CheckAnswer & { held: number }>(endpoints.app, "POST", "/v1/entitlements/check", checkBody, f.auth);

    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(
      `\ntill entitlements benchmark — ${database}; ${seed.json.customers.toLocaleString("en")} customers in the organization, the checked one with ` +
        `${seed.json.events.toLocaleString("en")} events; check: ${CONNECTIONS} connections (autocannon), ${WARMUP_SECONDS} s warm-up + ` +
        `${MEASURE_SECONDS} s × ${ROUNDS} alternating rounds; pairs: ${WORKERS} fetch loops, ${PAIR_SECONDS} s × ${ROUNDS} alternating rounds; the app's pool ${POOL}; Node ${process.version}, ` +
        `${os.cpus().length} CPUs\n`,
    );
    const checked = PART !== "pairs";
    const paired = PART !== "check";
    const rows = [
      ...(checked ? [selectRow, { ...checkRow, baseline: selectRow }, { ...flagRow, baseline: selectRow }, { ...productRow, baseline: selectRow }] : []),
      ...(paired ? [updateRow, { ...pairRow, baseline: updateRow }, { ...ceilingRow, baseline: updateRow }, { ...writeRow, baseline: updateRow }] : []),
    ];
    console.log(table(rows));
    console.log("");
    const rounds = (rows: Row[]) => rows.map((r) => r.value.toFixed(0)).join(" / ");
    if (checked) console.log(`check: ${verdict(checkRow.value / selectRow.value, CHECK_GOAL)} (rounds: SELECT ${rounds(baselines)} req/s, check ${rounds(checks)}); p99 ${checkRow.p99?.toFixed(1)} ms`);
    if (paired) {
      console.log(`reserve + commit: ${verdict(pairRow.value / updateRow.value, PAIR_GOAL)} (rounds: UPDATE ${rounds(updates)} req/s, pairs ${rounds(pairs)}/s; a pair is two requests); pair p99 ${pairRow.p99?.toFixed(1)} ms`);
      const ceiling = ceilingRow.value / updateRow.value;
      const reached = ((pairRow.value / ceilingRow.value) * 100).toFixed(1);
      console.log(`the ceiling of a pair (two authenticated product GETs): ${(ceiling * 100).toFixed(1)}% of the UPDATE's rate; reserve + commit reach ${reached}% of it`);
      const written = ((pairRow.value / writeRow.value) * 100).toFixed(1);
      console.log(`two authenticated product updates (durable writes): ${((writeRow.value / updateRow.value) * 100).toFixed(1)}% of the UPDATE's rate; reserve + commit reach ${written}% of it`);
    }
    console.log(
      `seeding: customers ${seed.json.seconds.customers?.toFixed(1)} s, events ${seed.json.seconds.events?.toFixed(1)} s, rollups rebuilt + VACUUM ANALYZE ${seed.json.seconds.rollups?.toFixed(1)} s`,
    );
    console.log(`the check's balance ${exact ? "is" : "IS NOT"} the credits less the events' units (${probe.json.balance} vs ${expected}); after the pairs: balance ${after.json.balance}, held ${after.json.held}`);
    console.log(`where a check's time goes (each read alone, sequential, mean ms): ${Object.entries(profile.json).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")}`);
    if (rows.some((r) => r.failures > 0)) console.log("warning: some requests failed (see failures)");
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    disarm();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
