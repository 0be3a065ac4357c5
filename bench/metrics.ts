// Metrics at scale: GET /v1/metrics/ for a year by day on an organization with 100,000
// subscriptions and 1,000,000 orders (plus their changes, checkouts, and events with costs), vs the same query
// on an organization with a tenth of that, the two alternating request by request so the shared machine's load
// weighs on both alike: median and p95 ms of each, and their ratio, for all metrics and for all but the two read
// from the customers with events per hour (active users, cost per user). The request reads the hourly rollups
// (server/billing/metrics/rollups.ts); the rollup read and each source's scan are then timed alone, and the same
// query filtered (by product, billing type, customer) and in a half-hour zone (Asia/Kolkata), CPU beside wall time. Beside each wall time, the CPU a request costs (this
// process's — the server runs in it — and, on PostgreSQL, its pool's backends', read from /proc): the figure to
// read when the shared machine is loaded. "Cold": the first request after the organization's folded user rows
// changed (the kept counts of active users are read again: server/billing/metrics/users.ts).
// Goals: < 150 ms on the big organization, and within 2× of the small one.
// Seeding is bulk SQL (INSERT … SELECT generate_series; the subscriptions' trigger writes their history), never the API.
//
//   DATABASE_URL=postgres://… npm run bench:metrics     # the figures' home (a throw-away database on that server)
//   npm run bench:metrics                               # PGlite in memory: a tenth of the sizes
//
// Loopback only; the run is bounded in time (HARD_LIMIT_MS) and in samples.
import { cpus, loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { rowsOf } from "../server/db/client.js";
import { benchSeller, call } from "./helpers/client.js";
import { cpuMeter } from "./helpers/cpu.js";
import { startApp } from "./helpers/server.js";
import * as repo from "../server/billing/metrics/repository.js";
import * as rollups from "../server/billing/metrics/rollups.js";
import { METRICS } from "../server/billing/metrics/wire.js";

const HARD_LIMIT_MS = 15 * 60_000;
const WARMUP = 3;
const SAMPLES = 21;
const COLD = 5;
const FILTERED_SAMPLES = 7;
const BIG = process.env.DATABASE_URL ? { subscriptions: 100_000, orders: 1_000_000 } : { subscriptions: 10_000, orders: 100_000 };


async function seller(base: string, tag: string): Promise<{ organizationId: string; key: string }> {
  const { organizationId, apiKey } = await benchSeller(base, tag);
  return { organizationId, key: apiKey };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? NaN;

/** Every metric but the two read from the customers with events per hour (a distinct count: docs/metrics.md). */
const WITHOUT_USERS = METRICS.map((d) => d.slug).filter((m) => m !== "active_user_by_event" && m !== "cost_per_user");

async function main(): Promise<void> {
  const started = Date.now();
  const timer = setTimeout(() => {
    console.error(`bench:metrics: over ${HARD_LIMIT_MS / 60_000} minutes, stopping`);
    process.exit(2);
  }, HARD_LIMIT_MS);
  timer.unref();
  const served = await startApp();
  const db = served.database.db;
  try {
    // a year by day ending today: the data spread over the last 13 months
    const end = new Date();
    const start = new Date(end.getTime() - 364 * 86_400_000);
    const query = `start_date=${start.toISOString().slice(0, 10)}&end_date=${end.toISOString().slice(0, 10)}&interval=day`;
    const variants = [
      { name: "all metrics", query },
      { name: "all but active users and cost per user", query: `${query}&${WITHOUT_USERS.map((m) => `metrics=${m}`).join("&")}` },
    ];
    const orgs: Array<{ name: string; org: string; key: string }> = [];
    for (const size of [{ name: "big", ...BIG }, { name: "small", subscriptions: BIG.subscriptions / 10, orders: BIG.orders / 10 }]) {
      const s = await seller(served.url, `metrics-${size.name}`);
      const t0 = Date.now();
      await seed(db, s.organizationId, size.subscriptions, size.orders);
      console.log(`${size.name}: seeded ${size.subscriptions.toLocaleString("en")} subscriptions, ${size.orders.toLocaleString("en")} orders in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      orgs.push({ name: size.name, org: s.organizationId, key: s.key });
    }
    const get = (o: (typeof orgs)[number], q: string) =>
      call<{ periods: unknown[]; totals: Record<string, number> }>(served.url, "GET", `/v1/metrics/?${q}`, undefined, { authorization: `Bearer ${o.key}` });
    for (const o of orgs) {
      // the first read folds the seed's delta rows (as the worker's hourly cleanup would have)
      for (let i = 0; i < WARMUP; i++) {
        const res = await get(o, query);
        if (i === 0) console.log(`${o.name}: ${res.json.periods.length} periods × ${Object.keys(res.json.totals).length} metrics; total revenue ${res.json.totals.revenue}, MRR ${res.json.totals.monthly_recurring_revenue}`);
        // the fold deleted and rewrote every row: the statistics autovacuum would take after it
        if (i === 0) await db.execute(sql`ANALYZE`);
      }
    }
    const cpu = cpuMeter(served.database.url);
    // big and small alternate, so the shared machine's load weighs on both alike
    const times = new Map<string, Array<{ ms: number; cpu: number; db: number }>>();
    const timed = async (key: string, run: () => Promise<unknown>) => {
      const before = await cpu.read();
      const t = performance.now();
      await run();
      const ms = performance.now() - t;
      const after = await cpu.read();
      times.set(key, [...(times.get(key) ?? []), { ms, cpu: after.node - before.node, db: after.db - before.db }]);
    };
    for (let i = 0; i < SAMPLES; i++) {
      for (const v of variants) for (const o of orgs) await timed(`${o.name}/${v.name}`, () => get(o, v.query));
    }
    for (let i = 0; i < COLD; i++) {
      for (const o of orgs) {
        await db.execute(sql`UPDATE metric_user_generation SET generation = generation + 1 WHERE organization_id = ${o.org}::uuid`);
        await timed(`${o.name}/cold`, () => get(o, query));
      }
    }
    await cpu.close();
    for (const o of orgs) await breakdown(db, o.name, o.org, start, end);
    // filtered and in a half-hour zone: from metric_product_hour, the cut hours scanned (docs/metrics.md, "Rollups");
    // a customer filter is scanned through the indexes by customer
    const filteredCpu = cpuMeter(served.database.url);
    for (const o of orgs) {
      const [monthly] = await rowsOf<{ id: string }>(db, sql`SELECT id FROM product WHERE organization_id = ${o.org}::uuid AND recurring_interval IS NOT NULL`);
      const [customer] = await rowsOf<{ id: string }>(db, sql`SELECT customer_id AS id FROM "order" WHERE organization_id = ${o.org}::uuid LIMIT 1`);
      const filtered = [
        ["product", `${query}&product_id=${monthly?.id ?? ""}`],
        ["billing type one_time", `${query}&billing_type=one_time`],
        ["Asia/Kolkata", `${query}&timezone=Asia/Kolkata`],
        ["Asia/Kolkata, product", `${query}&timezone=Asia/Kolkata&product_id=${monthly?.id ?? ""}`],
        ["customer", `${query}&customer_id=${customer?.id ?? ""}`],
      ] as const;
      const line: string[] = [];
      for (const [label, q] of filtered) {
        await get(o, q);
        const runs: Array<{ ms: number; cpu: number }> = [];
        for (let i = 0; i < FILTERED_SAMPLES; i++) {
          const before = await filteredCpu.read();
          const t = performance.now();
          await get(o, q);
          const ms = performance.now() - t;
          const after = await filteredCpu.read();
          runs.push({ ms, cpu: after.node - before.node + after.db - before.db });
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
        line.push(`${label} ${median(runs.map((r) => r.ms)).toFixed(0)} ms wall, CPU ${median(runs.map((r) => r.cpu)).toFixed(1)} ms`);
      }
      console.log(`${o.name}: filtered, all metrics (median of ${FILTERED_SAMPLES}): ${line.join("; ")}`);
    }
    await filteredCpu.close();
    const stats = (key: string) => {
      const runs = times.get(key) ?? [];
      const sorted = runs.map((r) => r.ms).sort((x, y) => x - y);
      const mean = (f: (r: (typeof runs)[number]) => number) => runs.reduce((a, r) => a + f(r), 0) / Math.max(1, runs.length);
      return { median: pct(sorted, 0.5), p95: pct(sorted, 0.95), cpu: mean((r) => r.cpu), db: mean((r) => r.db), cpuTotal: mean((r) => r.cpu + r.db) };
    };
    const cpuText = (x: ReturnType<typeof stats>) =>
      `CPU per request ${x.cpuTotal.toFixed(1)} ms (node ${x.cpu.toFixed(1)}${cpu.backends ? ` + PostgreSQL ${x.db.toFixed(1)}` : ", PGlite in it"})`;
    for (const v of [...variants.map((x) => x.name), "cold"]) {
      const big = stats(`big/${v}`);
      const small = stats(`small/${v}`);
      const ratio = big.median / small.median;
      const cpuRatio = big.cpuTotal / small.cpuTotal;
      const label = v === "cold" ? `all metrics, cold (${COLD} samples)` : v;
      console.log(
        `metrics.get, a year by day, ${label}: big median ${big.median.toFixed(1)} ms (p95 ${big.p95.toFixed(1)}; goal < 150 ms), ` +
          `small median ${small.median.toFixed(1)} ms (p95 ${small.p95.toFixed(1)}), ratio big/small ${ratio.toFixed(2)}× (goal ≤ 2×): ${big.median < 150 && ratio <= 2 ? "met" : "NOT met"}`,
      );
      console.log(`  ${label}: big ${cpuText(big)}; small ${cpuText(small)}; CPU ratio ${cpuRatio.toFixed(2)}×: ${big.cpuTotal < 150 && cpuRatio <= 2 ? "met" : "NOT met"} in CPU`);
    }
    console.log(`  (load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")} on ${cpus().length} CPUs)`);
    console.log(`(${SAMPLES} samples each; run took ${((Date.now() - started) / 1000).toFixed(0)} s on ${served.database.driver})`);
  } finally {
    await served.close();
    clearTimeout(timer);
  }
}

/** Where the time goes: the request's rollup read, and each source's scan (the fallback), alone. */
async function breakdown(db: Awaited<ReturnType<typeof startApp>>["database"]["db"], name: string, organizationId: string, start: Date, end: Date) {
  const scope: repo.Scope = {
    organizationId,
    currency: "usd",
    unit: "day",
    timezone: "UTC",
    startLocal: new Date(start.getTime() - 30 * 86_400_000).toISOString().slice(0, 10),
    endLocal: new Date(end.getTime() + 86_400_000).toISOString().slice(0, 10),
    now: new Date(),
  };
  const all = await repo.periods(db, scope);
  const from = all[0]?.start ?? 0;
  const to = all[all.length - 1]?.end ?? 0;
  const parts: Array<[string, () => Promise<unknown>]> = [
    ["rollups without users", () => rollups.rollupSums(db, scope, all, false)],
    ["rollups with users", () => rollups.rollupSums(db, scope, all, true)],
    ["scan of orders", () => repo.orderBuckets(db, scope, from, to)],
    ["scan of subscription history", () => repo.levelBuckets(db, scope, from, to)],
    ["scan of subscriptions", () => repo.subscriptionEvents(db, scope, from, to)],
    ["scan of checkouts", () => repo.checkoutBuckets(db, scope, from, to)],
    ["scan of events", () => repo.eventBuckets(db, scope, from, to)],
  ];
  const split: string[] = [];
  for (const [part, run] of parts) {
    const t = performance.now();
    await run();
    split.push(`${part} ${(performance.now() - t).toFixed(0)} ms`);
  }
  console.log(`${name}: each query alone: ${split.join(", ")}`);
}

/**
 * `subscriptions` subscriptions over the last 13 months (monthly and yearly, a tenth canceled), and `orders`
 * orders spread over the same months (a fifth one-time purchases, a twentieth refunded in part), with customers,
 * two products, checkouts (one per ten orders) and events with costs (one per ten orders).
 */
async function seed(db: Awaited<ReturnType<typeof startApp>>["database"]["db"], org: string, subscriptions: number, orders: number): Promise<void> {
  const customers = Math.max(1, subscriptions / 2);
  const span = "interval '395 days'";
  await db.execute(sql`INSERT INTO product (organization_id, name, recurring_interval) VALUES (${org}::uuid, 'Monthly', 'month'), (${org}::uuid, 'Ebook', NULL)`);
  await db.execute(sql`INSERT INTO customer (organization_id, email, created_at)
    SELECT ${org}::uuid, 'c' || g || '@example.com', now() - ${sql.raw(span)} FROM generate_series(1, ${customers}) g`);
  const numbered = sql`WITH bench_customers AS (SELECT row_number() OVER (ORDER BY id) AS n, id FROM customer WHERE organization_id = ${org}::uuid)`;
  await db.execute(sql`${numbered} INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start, current_period_end,
      started_at, canceled_at, ended_at, customer_id, product_id, price_ids, customer_cancellation_reason)
    SELECT ${org}::uuid, CASE WHEN g % 10 = 0 THEN 'canceled' ELSE 'active' END, 500 + (g % 7) * 500, 'usd',
      CASE WHEN g % 5 = 0 THEN 'year' ELSE 'month' END, t, t + interval '1 month', t,
      CASE WHEN g % 10 = 0 THEN t + interval '20 days' END, CASE WHEN g % 10 = 0 THEN t + interval '30 days' END,
      c.id, (SELECT id FROM product WHERE organization_id = ${org}::uuid AND recurring_interval = 'month'), '{}'::uuid[],
      CASE WHEN g % 10 = 0 THEN 'too_expensive' END
    FROM generate_series(1, ${subscriptions}) g
    CROSS JOIN LATERAL (SELECT now() - ${sql.raw(span)} + (g::float8 / ${subscriptions}) * ${sql.raw(span)} AS t) tt
    JOIN bench_customers c ON c.n = 1 + g % ${customers}`);
  await db.execute(sql`${numbered} INSERT INTO "order" (organization_id, status, subtotal_amount, net_amount, total_amount, refunded_amount, currency,
      billing_reason, invoice_number, customer_id, product_id, created_at)
    SELECT ${org}::uuid, CASE WHEN g % 20 = 0 THEN 'partially_refunded' ELSE 'paid' END, 1000 + g % 900, 1000 + g % 900, 1000 + g % 900,
      CASE WHEN g % 20 = 0 THEN 100 ELSE 0 END, 'usd',
      CASE WHEN g % 5 = 0 THEN 'purchase' WHEN g % 5 = 1 THEN 'subscription_create' ELSE 'subscription_cycle' END,
      'BENCH-' || g, c.id, (SELECT id FROM product WHERE organization_id = ${org}::uuid AND (recurring_interval IS NULL) = (g % 5 = 0)), now() - ${sql.raw(span)} + (g::float8 / ${orders}) * ${sql.raw(span)}
    FROM generate_series(1, ${orders}) g JOIN bench_customers c ON c.n = 1 + g % ${customers}`);
  await db.execute(sql`INSERT INTO checkout (organization_id, status, client_secret, expires_at, amount, currency, product_ids, product_id, created_at)
    SELECT ${org}::uuid, CASE WHEN g % 3 = 0 THEN 'open' ELSE 'succeeded' END, 'bench_' || ${org} || '_' || g, now(), 1000, 'usd', '{}'::uuid[],
      (SELECT id FROM product WHERE organization_id = ${org}::uuid AND (recurring_interval IS NULL) = (g % 2 = 0)),
      now() - ${sql.raw(span)} + (g::float8 / ${orders / 10}) * ${sql.raw(span)}
    FROM generate_series(1, ${orders / 10}) g`);
  await db.execute(sql`${numbered} INSERT INTO event (organization_id, name, source, timestamp, customer_id, metadata)
    SELECT ${org}::uuid, 'llm.call', 'user', now() - ${sql.raw(span)} + (g::float8 / ${orders / 10}) * ${sql.raw(span)}, c.id,
      jsonb_build_object('_cost', jsonb_build_object('amount', '0.' || (g % 97), 'currency', 'usd'))
    FROM generate_series(1, ${orders / 10}) g JOIN bench_customers c ON c.n = 1 + g % ${customers}`);
  await db.execute(sql`ANALYZE`);
}

await main();
