// The seller home's first paint: the data requests the home makes before it can draw, timed as the
// browser makes them — through the web app's door (/api/web, the session cookie) — on an organization with
// 100,000 subscriptions (and one first order each), for the home's default range (12 months by month) and for
// 30 days by day; beside them the same metrics request made directly on /v1 with the session as a bearer, so the
// door's own cost shows. Median and p95 of each, and the CPU a run costs (the server's process, which also runs
// the client, and PostgreSQL's backends: the figure to read on a loaded machine); no goal is asserted (the
// metrics query's speed is bench:metrics').
// Seeding is bulk SQL (INSERT … SELECT generate_series; the subscriptions' trigger writes their history).
//
//   DATABASE_URL=postgres://… npm run bench:dashboard     # 100,000 subscriptions on that server (a throw-away database)
//   npm run bench:dashboard                               # PGlite in memory: 10,000
//
// Loopback only; bounded in time (HARD_LIMIT_MS) and in samples.
import { cpus, loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { cpuMeter } from "./helpers/cpu.js";
import { startApp, type ServedApp } from "./helpers/server.js";

const HARD_LIMIT_MS = 10 * 60_000;
const WARMUP = 3;
const SAMPLES = 21;
const SUBSCRIPTIONS = process.env.DATABASE_URL ? 100_000 : 10_000;
/** The home's figures (web/src/seller/metrics.ts CHARTS). */
const METRICS = ["monthly_recurring_revenue", "revenue", "new_subscriptions", "churned_subscriptions", "active_subscriptions", "churn_rate"];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? NaN;

async function call(base: string, method: string, p: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res;
}

/** A signed-up seller with an organization: the session cookie, its bearer token and the organization's id. */
async function seller(base: string): Promise<{ cookie: string; token: string; organizationId: string }> {
  const signUp = await call(base, "POST", "/api/auth/sign-up/email", {}, { email: `dash-${Date.now()}@example.com`, password: "correct-horse-battery", name: "Dash" });
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => c?.startsWith("better-auth.session_token="))
    .join("; ");
  const token = ((await signUp.json()) as { token: string }).token;
  const org = (await (await call(base, "POST", "/api/auth/organization/create", { cookie }, { name: "Dash", slug: `dash-${Date.now()}` })).json()) as { id: string };
  return { cookie, token, organizationId: org.id };
}

/** `n` subscriptions started over the last 13 months (monthly, a tenth canceled after 30 days), one paid first order each. */
async function seed(served: ServedApp, org: string, n: number): Promise<void> {
  const db = served.database.db;
  const span = "interval '395 days'";
  await db.execute(sql`INSERT INTO product (organization_id, name, recurring_interval) VALUES (${org}::uuid, 'Monthly', 'month')`);
  await db.execute(sql`INSERT INTO customer (organization_id, email, created_at)
    SELECT ${org}::uuid, 'd' || g || '@example.com', now() - ${sql.raw(span)} FROM generate_series(1, ${n}) g`);
  const numbered = sql`WITH c AS (SELECT row_number() OVER (ORDER BY id) AS n, id FROM customer WHERE organization_id = ${org}::uuid)`;
  await db.execute(sql`${numbered} INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
      current_period_end, started_at, canceled_at, ended_at, customer_id, product_id, price_ids)
    SELECT ${org}::uuid, CASE WHEN c.n % 10 = 0 THEN 'canceled' ELSE 'active' END, 500 + (c.n % 7) * 500, 'usd', 'month', t, t + interval '1 month', t,
      CASE WHEN c.n % 10 = 0 THEN t + interval '20 days' END, CASE WHEN c.n % 10 = 0 THEN t + interval '30 days' END,
      c.id, (SELECT id FROM product WHERE organization_id = ${org}::uuid), '{}'::uuid[]
    FROM c CROSS JOIN LATERAL (SELECT now() - ${sql.raw(span)} + (c.n::float8 / ${n}) * ${sql.raw(span)} AS t) tt`);
  await db.execute(sql`INSERT INTO "order" (organization_id, status, subtotal_amount, net_amount, total_amount, refunded_amount, currency,
      billing_reason, invoice_number, customer_id, subscription_id, product_id, created_at)
    SELECT ${org}::uuid, 'paid', s.amount, s.amount, s.amount, 0, 'usd', 'subscription_create', 'DASH-' || row_number() OVER (), s.customer_id, s.id,
      s.product_id, s.started_at
    FROM subscription s WHERE s.organization_id = ${org}::uuid`);
  await db.execute(sql`ANALYZE`);
}

/** The range of `days` ending today, or (`before`) the one as long just before it: the home's comparison. */
function metricsQuery(organizationId: string, days: number, interval: string, before = false): string {
  const end = new Date(Date.now() - (before ? days : 0) * 86_400_000);
  const start = new Date(end.getTime() - (days - 1) * 86_400_000);
  const q = new URLSearchParams({ organization_id: organizationId, start_date: start.toISOString().slice(0, 10), end_date: end.toISOString().slice(0, 10), interval, timezone: "UTC" });
  for (const m of METRICS) q.append("metrics", m);
  return q.toString();
}

type Timing = { median: number; p95: number; cpu: number; db: number };

/** Median and p95 ms of `run` over SAMPLES runs after WARMUP, and its mean CPU (this process's, the database's). */
async function time(cpu: ReturnType<typeof cpuMeter>, run: () => Promise<unknown>): Promise<Timing> {
  const times: number[] = [];
  let node = 0;
  let db = 0;
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const before = await cpu.read();
    const t = performance.now();
    await run();
    const ms = performance.now() - t;
    const after = await cpu.read();
    if (i < WARMUP) continue;
    times.push(ms);
    node += after.node - before.node;
    db += after.db - before.db;
  }
  times.sort((a, b) => a - b);
  return { median: pct(times, 0.5), p95: pct(times, 0.95), cpu: node / SAMPLES, db: db / SAMPLES };
}

async function main(): Promise<void> {
  const started = Date.now();
  const timer = setTimeout(() => {
    console.error(`bench:dashboard: over ${HARD_LIMIT_MS / 60_000} minutes, stopping`);
    process.exit(2);
  }, HARD_LIMIT_MS);
  timer.unref();
  const served = await startApp();
  try {
    const s = await seller(served.url);
    const t0 = Date.now();
    await seed(served, s.organizationId, SUBSCRIPTIONS);
    console.log(`seeded ${SUBSCRIPTIONS.toLocaleString("en")} subscriptions and their first orders in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const web = { cookie: s.cookie, "till-web": "1", "till-sandbox": "false" };
    const rows: Array<[string, Timing]> = [];
    const cpu = cpuMeter(served.database.url);
    for (const [label, days, interval] of [["12 months by month (the home's default)", 365, "month"], ["30 days by day", 30, "day"]] as const) {
      const q = metricsQuery(s.organizationId, days, interval);
      const previous = metricsQuery(s.organizationId, days, interval, true);
      const org = `organization_id=${s.organizationId}`;
      // the home's first paint waits on whoami (the side, the role), then on the range's metrics and the organization
      // at once; the period before's metrics and the failed payments are asked after it (the whole home)
      const firstPaint = () =>
        call(served.url, "GET", `/api/web/whoami?${org}`, web).then(() =>
          Promise.all([call(served.url, "GET", `/api/web/v1/metrics/?${q}`, web), call(served.url, "GET", `/api/web/v1/organizations/${s.organizationId}?${org}`, web)]),
        );
      const whole = () =>
        firstPaint().then(() =>
          Promise.all([
            call(served.url, "GET", `/api/web/v1/metrics/?${previous}`, web),
            call(served.url, "GET", `/api/web/v1/payments/?${org}&status=failed&limit=5&sorting=-created_at`, web),
          ]),
        );
      rows.push([`${label}: first-paint data (whoami, then metrics + organization) through /api/web`, await time(cpu, firstPaint)]);
      rows.push([`${label}: the whole home (then the period before's metrics + failed payments) through /api/web`, await time(cpu, whole)]);
      rows.push([`${label}: metrics through /api/web`, await time(cpu, () => call(served.url, "GET", `/api/web/v1/metrics/?${q}`, web))]);
      rows.push([`${label}: metrics on /v1 (bearer)`, await time(cpu, () => call(served.url, "GET", `/v1/metrics/?${q}`, { authorization: `Bearer ${s.token}` }))]);
    }
    await cpu.close();
    for (const [label, r] of rows) {
      const db = cpu.backends ? ` + PostgreSQL ${r.db.toFixed(1)}` : ", PGlite in it";
      console.log(`${label}: median ${r.median.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; CPU per run ${(r.cpu + r.db).toFixed(1)} ms (node ${r.cpu.toFixed(1)}${db})`);
    }
    console.log(`(load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")} on ${cpus().length} CPUs)`);
    console.log(`(${SAMPLES} samples each; run took ${((Date.now() - started) / 1000).toFixed(0)} s on ${served.database.driver})`);
  } finally {
    await served.close();
    clearTimeout(timer);
  }
}

await main();
