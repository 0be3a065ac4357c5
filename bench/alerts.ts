// Usage alerts on the ingest path: POST /v1/events/ingest (batches of 1,000 events of 50
// customers, each subscribed to a plan with a metered price on each of 4 meters) with a usage alert defined on
// every meter vs the same ingest with no alerts, in the same run, in alternating rounds (goal: ≥ 90%). The
// alerts' thresholds are never reached, so every batch pays the whole check (the customers' periods measured
// through the rollups) and none is cut short by a crossing already recorded. Prints rows/s of both and the ratio,
// and the CPU time per 1,000 rows of both (the server process's, the database's backends' too on PostgreSQL:
// bench/helpers/cpu.ts) — the figure to read on a loaded machine, where wall-time rounds swing by ±30%.
//
//   DATABASE_URL=postgres://… npm run bench:alerts     # PostgreSQL (a throw-away database on that server)
//   npm run bench:alerts                               # PGlite in memory
//
// The server runs in a child process; loopback only; bounded in time (HARD_LIMIT_MS).
import os from "node:os";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import { cpuMeter } from "./helpers/cpu.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { alertCheckCounts } from "../server/billing/usage-alerts/check.js";
import { rebuildMeterRollups } from "../server/billing/events/service.js";

const HARD_LIMIT_MS = 10 * 60_000;
const BATCH = 1000;
const CUSTOMERS = 50;
const METERS = 4;
const ROUND_SECONDS = Number(process.env.TILL_BENCH_ALERTS_SECONDS ?? 4);
const ROUNDS = 3;
const CONCURRENCY = 4;

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
  /** The server's own (throw-away) database on PostgreSQL: its backends' CPU is counted. */
  databaseUrl: string | null;
}

async function serve(): Promise<void> {
  const served = await startApp();
  // a control route: the subscriptions' periods moved a day back, as a live plan's are (a period that started
  // this hour would have the whole period read from events instead of the hourly rollups)
  const bare = Fastify({ logger: false });
  bare.post("/control/age", async () => {
    await served.database.db.execute(
      sql`UPDATE subscription SET current_period_start = current_period_start - interval '1 day', started_at = started_at - interval '1 day'`,
    );
    // and every meter's rollups complete, as the worker leaves them (reads of a meter still building scan events)
    const states = (await served.database.db.execute(sql`SELECT meter_id, organization_id, status FROM meter_rollup_state`)) as unknown;
    const rows = (Array.isArray(states) ? states : (states as { rows: unknown[] }).rows) as Array<{ meter_id: string; organization_id: string; status: string }>;
    for (const r of rows) if (r.status !== "ready") await rebuildMeterRollups(served.database.db, r.organization_id, r.meter_id);
    return { states: rows.map((r) => r.status) };
  });
  bare.get("/control/counts", async () => alertCheckCounts);
  bare.get("/control/cpu", async () => process.cpuUsage());
  await bare.listen({ port: 0, host: "127.0.0.1" });
  const address = bare.server.address();
  const bareUrl = typeof address === "object" && address ? `http://127.0.0.1:${address.port}` : "";
  announce({ app: served.url, bare: bareUrl, driver: served.database.url ? "postgres" : "pglite", databaseUrl: served.database.url ?? null }, [() => bare.close(), () => served.close()]);
}

async function call<T>(base: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return { json: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

let batchNo = 0;
function batch(): string {
  const now = Date.now();
  const prefix = `b${batchNo++}`;
  return JSON.stringify({
    events: Array.from({ length: BATCH }, (_, i) => ({
      name: "alerts.call",
      timestamp: new Date(now - ((i * 7919) % 300) * 1000).toISOString(),
      external_customer_id: `alerts-${i % CUSTOMERS}`,
      external_id: `${prefix}-${i}`,
      metadata: { units: i % 10 },
    })),
  });
}

interface Round {
  rate: number;
  /** CPU ms per 1,000 rows: the server process's, plus the database backends' on PostgreSQL. */
  cpu: number;
}

/** CPU ms so far of the server process (from its control route) and of the database's backends. */
async function cpuNow(bare: string, db: ReturnType<typeof cpuMeter>): Promise<number> {
  const server = (await call<{ user: number; system: number }>(bare, "GET", "/control/cpu")).json;
  return (server.user + server.system) / 1000 + (await db.read()).db;
}

/** Rows/s ingested over ROUND_SECONDS with CONCURRENCY requests in flight, and the CPU time per 1,000 rows. */
async function ingestRound(base: string, auth: Record<string, string>, cpu: () => Promise<number>): Promise<Round> {
  let inserted = 0;
  const c0 = await cpu();
  const t0 = Date.now();
  const deadline = t0 + ROUND_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const res = await fetch(`${base}/v1/events/ingest`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: batch() });
        const json = (await res.json()) as { inserted?: number };
        if (res.status !== 200 || json.inserted !== BATCH) throw new Error(`ingest: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
        inserted += BATCH;
      }
    }),
  );
  const rate = inserted / ((Date.now() - t0) / 1000);
  return { rate, cpu: ((await cpu()) - c0) / (inserted / 1000) };
}

async function main(): Promise<void> {
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  const db = cpuMeter(endpoints.databaseUrl ?? undefined);
  const cpu = () => cpuNow(endpoints.bare, db);
  try {
    const base = endpoints.app;
    const signUp = await call<{ token: string }>(base, "POST", "/api/auth/sign-up/email", {
      email: `alerts-${Date.now()}@example.com`,
      password: "correct-horse-battery",
      name: "Alerts",
    });
    const cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .filter((c) => c?.startsWith("better-auth.session_token="))
      .join("; ");
    const org = (await call<{ id: string }>(base, "POST", "/api/auth/organization/create", { name: "Alerts", slug: `alerts-${Date.now()}` }, { cookie })).json;
    const key = (await call<{ key: string }>(base, "POST", "/api/auth/api-key/create", { organizationId: org.id, name: "alerts", rateLimitEnabled: false }, { cookie })).json.key;
    const auth = { authorization: `Bearer ${key}` };
    const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "alerts.call" }] };
    // what usage is billed by: sums and counts (a max, min, avg or unique meter is measured through the exact path)
    const aggregations = [{ func: "sum", property: "units" }, { func: "count" }, { func: "sum", property: "units" }, { func: "count" }];
    const meterIds: string[] = [];
    for (const [i, aggregation] of aggregations.slice(0, METERS).entries()) {
      meterIds.push((await call<{ id: string }>(base, "POST", "/v1/meters/", { name: `Alerts ${i}`, filter, aggregation }, auth)).json.id);
    }
    // a free base and a metered price per meter (tiered and capped on two of them), so seller-made subscriptions take it
    const product = (
      await call<{ id: string }>(base, "POST", "/v1/products/", {
        name: "Usage plan",
        recurring_interval: "month",
        prices: [
          { amount_type: "fixed", price_amount: 0 },
          ...meterIds.map((meter_id, i) =>
            i % 2 === 0
              ? { amount_type: "metered_unit", meter_id, unit_amount: "0.5" }
              : { amount_type: "metered_unit", meter_id, cap_amount: 100_000, unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 1000, unit_amount: "0" }, { up_to: null, unit_amount: "0.2" }] } },
          ),
        ],
      }, auth)
    ).json;
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = (await call<{ id: string }>(base, "POST", "/v1/customers/", { email: `alerts-${i}@example.com`, external_id: `alerts-${i}` }, auth)).json;
      await call(base, "POST", "/v1/subscriptions/", { product_id: product.id, customer_id: customer.id }, auth);
    }
    const aged = await call<{ states: string[] }>(endpoints.bare, "POST", "/control/age", {});
    console.log(`meters' rollups before the run: ${aged.json.states.join(", ")}`);
    await ingestRound(base, auth, cpu); // warm up
    const without: Round[] = [];
    const withAlerts: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await ingestRound(base, auth, cpu));
      const ids: string[] = [];
      for (const meter_id of meterIds) {
        ids.push((await call<{ id: string }>(base, "POST", "/v1/usage-alerts/", { meter_id, kind: "units", threshold: 1e12 }, auth)).json.id);
        ids.push((await call<{ id: string }>(base, "POST", "/v1/usage-alerts/", { meter_id, kind: "amount", threshold: 1e11 }, auth)).json.id);
      }
      withAlerts.push(await ingestRound(base, auth, cpu));
      for (const id of ids) await call(base, "DELETE", `/v1/usage-alerts/${id}`, undefined, auth);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const a = mean(without.map((r) => r.rate));
    const b = mean(withAlerts.map((r) => r.rate));
    const cpuA = mean(without.map((r) => r.cpu));
    const cpuB = mean(withAlerts.map((r) => r.cpu));
    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(`\ntill usage alerts on ingest — ${database}; Node ${process.version}, ${os.cpus().length} CPUs`);
    console.log(`batches of ${BATCH} events of ${CUSTOMERS} subscribed customers, ${METERS} meters, ${CONCURRENCY} at once, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s (rows/s)`);
    console.log(`POST /v1/events/ingest, no alerts                   ${a.toFixed(0).padStart(9)}  (${without.map((x) => x.rate.toFixed(0)).join(", ")})`);
    console.log(`POST /v1/events/ingest, 2 alerts on every meter     ${b.toFixed(0).padStart(9)}  (${withAlerts.map((x) => x.rate.toFixed(0)).join(", ")})`);
    console.log(`ratio ${((b / a) * 100).toFixed(1)}%  ${b / a >= 0.9 ? "meets" : "misses"} ≥ 90% (wall time)`);
    const who = db.backends ? "server process + PostgreSQL backends" : "server process, PGlite in it";
    console.log(
      `CPU ms per 1,000 rows (${who}): no alerts ${cpuA.toFixed(1)} (${without.map((x) => x.cpu.toFixed(1)).join(", ")}), ` +
        `alerts ${cpuB.toFixed(1)} (${withAlerts.map((x) => x.cpu.toFixed(1)).join(", ")})`,
    );
    console.log(`CPU-time ratio ${((cpuA / cpuB) * 100).toFixed(1)}%  ${cpuA / cpuB >= 0.9 ? "meets" : "misses"} ≥ 90% (rows per CPU second, alerts vs none)`);
    const counts = (await call<typeof alertCheckCounts>(endpoints.bare, "GET", "/control/counts")).json;
    const phases = Object.entries(counts.ms).map(([k, v]) => `${k} ${(v / Math.max(1, counts.checks)).toFixed(1)}`).join(", ");
    console.log(`checks ${counts.checks}, (subscription, meter) pairs measured ${counts.measured}; ms per check: ${phases}`);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  } finally {
    await db.close();
    disarm();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
