// A billing run: N subscriptions due at once — 30% with a metered price and 100 events each in
// the period ended, 10% paying with a saved method whose charges are declined (the test processor's
// 4000 0000 0000 0341, `pm_test_…_fails`) — renewed by the renewal schedule (server/jobs/schedules.ts) of TWO
// worker processes sharing the database. Prints renewals/s (goal: ≥ 500/s on the machine of record, checked as a
// share of a baseline measured in the same run: helpers/baseline.ts), p99 per renewal, each worker's peak RSS, and checks
// (SQL) that every subscription has exactly one order for the period renewed (no double billing, none missed).
//
//   DATABASE_URL=postgres://… npm run bench:billing-run   # 100,000 subscriptions, two worker processes
//   npm run bench:billing-run                             # PGlite in memory: 2,000, one in-process worker
//   TILL_BENCH_RENEWALS=10000 …                           # another size
//   TILL_BENCH_WORKERS=1 …                                # another number of worker processes (PostgreSQL)
//   TILL_BENCH_CONCURRENCY=1 …                            # claiming transactions per worker at once (default 4)
//   TILL_BENCH_CPU_PROF=/tmp/prof …                       # each worker writes a V8 CPU profile there
//
// Seeding is bulk SQL (INSERT … SELECT generate_series), never the API; the organization, meter and products are
// made through the API. Per renewal: each worker times the gap between successive charges it makes (one charge
// per renewal, inside the claiming transaction), i.e. one renewal's work; its p99 is printed with the batch size.
// Loopback only; the whole run is bounded in time (HARD_LIMIT_MS).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import { benchSeller, call } from "./helpers/client.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { atRecordBaseline, bareProductRoute, measureBaseline, RECORD_BASELINE } from "./helpers/baseline.js";
import { dueCount, makeRenewalCatalog, rows, seedDueSubscriptions, type Seeded, type SeedOptions } from "./helpers/renewals.js";
import { openDatabase } from "../server/db/client.js";
import { startSchedules } from "../server/jobs/schedules.js";
import type { WorkerLog } from "../server/jobs/worker.js";
import { createTestProcessor } from "../server/payments/test-processor.js";
import type { PaymentProcessor } from "../server/payments/processor.js";

const HARD_LIMIT_MS = 30 * 60_000;
const SIZES = { postgres: 100_000, pglite: 2_000 };
const BATCH = 50;
/**
 * Renewals per second with two worker processes on PostgreSQL, where the baseline (helpers/baseline.ts) runs at
 * RECORD_BASELINE: checked as a share of the baseline measured in the same run, as bench:checkout does.
 */
const GOAL = 500;
const GOAL_SHARE = GOAL / RECORD_BASELINE;
/** TILL_BENCH_WORKERS: worker processes on PostgreSQL (default 2). */
const WORKERS = Math.max(1, Number(process.env.TILL_BENCH_WORKERS ?? 2));
/** TILL_BENCH_CONCURRENCY: claiming transactions each worker runs at once (startSchedules' `concurrency`). */
const CONCURRENCY = Math.max(1, Number(process.env.TILL_BENCH_CONCURRENCY ?? 4));

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
  databaseUrl: string | null;
}

/** Wraps a processor to record when each charge (one per renewal) is made. */
function timedProcessor(inner: PaymentProcessor, stamps: number[]): PaymentProcessor {
  return {
    ...inner,
    charge: async (request) => {
      stamps.push(performance.now());
      return inner.charge(request);
    },
  };
}

/** Gaps between successive charges, with those across a batch boundary (a claim) kept: every renewal's time. */
function gaps(stamps: number[]): number[] {
  return stamps.slice(1).map((t, i) => t - (stamps[i] ?? t));
}

// ---- child: the server, its control routes (seeding, the check) ------------------------------------------

async function serve(): Promise<void> {
  const served = await startApp();
  const database = served.database;
  const db = database.db;
  const bare = Fastify({ logger: false });
  // the machine's speed, measured in the same run (helpers/baseline.ts)
  const closeRow = bareProductRoute(bare, database);

  bare.post("/control/seed", async (req) => seedDueSubscriptions(db, req.body as SeedOptions));

  /** The PostgreSQL backends serving this database (the server's pool and the workers'), for their CPU time. */
  bare.post("/control/backends", async () => {
    const found = await rows(db, sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
    return { pids: found.map((r) => Number(r.pid)) };
  });

  /** Subscriptions still due (active or trialing, period ended). */
  bare.post("/control/due", async (req) => ({ due: await dueCount(db, (req.body as { organizationId: string }).organizationId) }));

  /** The check: exactly one order per subscription for the period renewed; and what the orders say. */
  bare.post("/control/check", async (req) => {
    const { organizationId } = req.body as { organizationId: string };
    const org = sql`${organizationId}::uuid`;
    const [row] = await rows(
      db,
      // renewal orders counted by one grouped scan (a correlated count per subscription reads every order per
      // subscription: minutes at 100,000); the seeded period's order through the (subscription, period) index
      sql`WITH cycle AS (
            SELECT subscription_id, count(*) AS orders FROM "order"
            WHERE organization_id = ${org} AND billing_reason = 'subscription_cycle' GROUP BY subscription_id),
          per AS (
            SELECT s.id, s.status, coalesce(c.orders, 0) AS orders,
              (SELECT count(*) FROM "order" o WHERE o.subscription_id = s.id AND o.organization_id = ${org}
              AND o.renewed_period_start = (s.current_period_start + interval '1 minute') - interval '1 month') AS for_period
            FROM subscription s LEFT JOIN cycle c ON c.subscription_id = s.id WHERE s.organization_id = ${org})
          SELECT count(*)::int AS subscriptions,
                 count(*) FILTER (WHERE orders = 1 AND for_period = 1)::int AS exactly_one,
                 count(*) FILTER (WHERE orders > 1)::int AS more_than_one,
                 count(*) FILTER (WHERE orders = 0)::int AS none,
                 count(*) FILTER (WHERE status = 'past_due')::int AS past_due,
                 count(*) FILTER (WHERE status = 'active')::int AS active
          FROM per`,
    );
    const [orders] = await rows(
      db,
      sql`SELECT count(*) FILTER (WHERE status = 'paid')::int AS paid, count(*) FILTER (WHERE status = 'pending')::int AS pending,
                 count(*) FILTER (WHERE subtotal_amount > 1000)::int AS with_usage, coalesce(sum(total_amount), 0)::bigint AS total
          FROM "order" WHERE organization_id = ${org} AND billing_reason = 'subscription_cycle'`,
    );
    return { ...row, ...orders };
  });

  // PGlite in memory cannot be shared between processes: there, the schedule runs in this process
  let inline: { stop(): Promise<void> } | null = null;
  const inlineStamps: number[] = [];
  bare.post("/control/inline-go", async () => {
    inline = startSchedules({ db, processor: timedProcessor(createTestProcessor(), inlineStamps), baseURL: served.url, batch: BATCH, intervalMs: 200 });
    return {};
  });
  bare.post("/control/inline-stop", async () => {
    await inline?.stop();
    return { gaps: gaps(inlineStamps), renewals: inlineStamps.length, rss: peakRss(process.pid) };
  });

  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  announce({ app: served.url, bare: bareUrl, driver: database.driver, databaseUrl: database.url ?? null } satisfies Endpoints, [
    () => bare.close(),
    closeRow,
    served.close,
  ]);
}

// ---- worker child: the schedule on its own connection pool ------------------------------------------------

async function work(): Promise<void> {
  const url = process.env.TILL_BENCH_WORKER_DB;
  if (!url) throw new Error("TILL_BENCH_WORKER_DB is not set");
  const database = await openDatabase({ url, max: CONCURRENCY + 1 });
  const stamps: number[] = [];
  const renewalMs: number[] = [];
  const batchMs: number[] = [];
  let schedules: { stop(): Promise<void> } | null = null;
  const errors: string[] = [];
  const log: WorkerLog = { info: () => {}, warn: () => {}, error: (err, msg) => void errors.push(`${msg ?? ""}: ${String(err)}`) };
  const input = createInterface({ input: process.stdin });
  let cpuAtGo = process.cpuUsage();
  input.on("line", (line) => {
    if (line === "go") {
      cpuAtGo = process.cpuUsage();
      schedules = startSchedules({
        db: database.db,
        processor: timedProcessor(createTestProcessor(), stamps),
        baseURL: "http://127.0.0.1",
        batch: BATCH,
        concurrency: CONCURRENCY,
        intervalMs: 200,
        log,
        observe: { renewal: (ms) => renewalMs.push(ms), batch: (_size, ms) => batchMs.push(ms) },
      });
    } else if (line === "stop") {
      void (async () => {
        await schedules?.stop();
        const cpu = process.cpuUsage(cpuAtGo);
        // what the heap still holds after a full collection (--expose-gc): kept objects, not garbage not yet collected
        const heapPeakMb = process.memoryUsage().heapTotal / 1e6;
        (globalThis as { gc?: () => void }).gc?.();
        const heapKeptMb = process.memoryUsage().heapUsed / 1e6;
        const report = { gaps: renewalMs, batches: batchMs, renewals: stamps.length, cpuMs: (cpu.user + cpu.system) / 1000, errors: errors.slice(0, 5), errorCount: errors.length, heapPeakMb, heapKeptMb };
        // a pipe is written asynchronously: exit only once the report (about 1 MB at 100,000) has left
        await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(report)}\n`, () => resolve()));
        await database.close();
        process.exit(0);
      })();
    }
  });
  process.stdout.write("ready\n");
}

interface WorkerReport {
  /** Per renewal: its own time (its savepoint, in the claiming transaction); in process: gaps between charges. */
  gaps: number[];
  /** Per batch: from its claim to its commit (what a renewal waits until it is committed). */
  batches?: number[];
  /** The worker's CPU time from "go" to "stop". */
  cpuMs?: number;
  renewals: number;
  /** The worker's V8 heap at the end (MB), and what of it a full collection keeps. */
  heapPeakMb?: number;
  heapKeptMb?: number;
  errors?: string[];
  errorCount?: number;
}

function spawnWorker(databaseUrl: string): Promise<{ child: ChildProcess; lines: AsyncIterator<string> }> {
  // TILL_BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there (node --cpu-prof)
  const prof = process.env.TILL_BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.TILL_BENCH_CPU_PROF] : [];
  const child = spawn(process.execPath, [...prof, "--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--work"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, TILL_BENCH_WORKER_DB: databaseUrl },
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return lines.next().then((first) => {
    if (first.value !== "ready") throw new Error(`worker did not start: ${String(first.value)}`);
    return { child, lines };
  });
}

/** CPU time (user + system) of a process in ms, from /proc (clock ticks of 10 ms); null when unreadable. */
function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Peak resident set size (VmHWM) of a process in MB, from /proc; null elsewhere. */
function peakRss(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

// ---- parent ----------------------------------------------------------------------------------------------


const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
};

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  const workers: ChildProcess[] = [];
  const fmt = (n: number) => n.toLocaleString("en");
  const n = Number(process.env.TILL_BENCH_RENEWALS ?? SIZES[endpoints.driver]);
  try {
    const base = endpoints.app;
    const seller = await benchSeller(base, "billing");
    const { auth } = seller;
    const org = { id: seller.organizationId };
    const catalog = await makeRenewalCatalog(base, auth);
    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    // before anything is seeded, and again once the run is over (the machine's speed drifts over minutes): the
    // goal is checked against their mean
    const measureMachine = () => measureBaseline(`${endpoints.bare}/row/${catalog.plainProductId}`);
    const before = await measureMachine();
    console.log(
      `\ntill billing run — ${database}; Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(2)}; ` +
        `${fmt(n)} subscriptions due at once; ${new Date().toISOString()}\n` +
        `baseline (the machine's speed, same run): ${before.name}, ${before.value.toFixed(0)} req/s before the run (${RECORD_BASELINE.toLocaleString("en")} on the machine of record)\n`,
    );
    const seed = (await call<Seeded>(endpoints.bare, "POST", "/control/seed", { ...catalog, organizationId: org.id, n } satisfies SeedOptions)).json;
    console.log(
      `seeded ${fmt(seed.subscriptions)} subscriptions (30% metered, 10% failing) in ${seed.subsSeconds.toFixed(1)} s, ` +
        `${fmt(seed.events)} events in ${seed.eventsSeconds.toFixed(1)} s, their rollups in ${seed.rollupSeconds.toFixed(1)} s`,
    );

    const due = async () => (await call<{ due: number }>(endpoints.bare, "POST", "/control/due", { organizationId: org.id })).json.due;
    let reports: Array<WorkerReport & { rss: number | null }> = [];
    let t0 = 0;
    let t1 = 0;
    let peaks: Array<number | null> = [];
    let pgCpuMs: number | null = null;
    if (endpoints.driver === "postgres" && endpoints.databaseUrl) {
      const url = endpoints.databaseUrl;
      const spawned = await Promise.all(Array.from({ length: WORKERS }, () => spawnWorker(url)));
      workers.push(...spawned.map((s) => s.child));
      const backends = async () => (await call<{ pids: number[] }>(endpoints.bare, "POST", "/control/backends", {})).json.pids;
      const before = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]));
      t0 = performance.now();
      for (const s of spawned) s.child.stdin!.write("go\n");
      peaks = spawned.map(() => null);
      while ((await due()) > 0) {
        peaks = spawned.map((s) => peakRss(s.child.pid ?? 0));
        await new Promise((r) => setTimeout(r, 250));
      }
      t1 = performance.now();
      // PostgreSQL's share: the CPU its backends of this database spent during the run (new ones from 0)
      const spent = (await backends()).map((pid) => {
        const now = cpuMs(pid);
        const then = before.has(pid) ? before.get(pid) : 0;
        return now === null || then === null || then === undefined ? null : now - then;
      });
      pgCpuMs = spent.some((x) => x === null) ? null : spent.reduce<number>((a, x) => a + (x ?? 0), 0);
      peaks = spawned.map((s) => peakRss(s.child.pid ?? 0));
      for (const s of spawned) s.child.stdin!.write("stop\n");
      reports = await Promise.all(
        spawned.map(async (s, i) => ({ ...(JSON.parse(String((await s.lines.next()).value)) as WorkerReport), rss: peaks[i] ?? null })),
      );
    } else {
      t0 = performance.now();
      await call(endpoints.bare, "POST", "/control/inline-go", {});
      while ((await due()) > 0) await new Promise((r) => setTimeout(r, 250));
      t1 = performance.now();
      const r = (await call<WorkerReport & { rss: number | null }>(endpoints.bare, "POST", "/control/inline-stop", {})).json;
      reports = [r];
    }
    const seconds = (t1 - t0) / 1000;
    const rate = n / seconds;
    const after = await measureMachine();
    const baseline = (before.value + after.value) / 2;
    const all = reports.flatMap((r) => r.gaps);
    console.log(
      `\nrenewed ${fmt(n)} in ${seconds.toFixed(1)} s by ${reports.length} worker${endpoints.driver === "postgres" ? ` process${reports.length > 1 ? "es" : ""}` : " (in the server's process)"}: ` +
        `${rate.toFixed(0)} renewals/s = ${((rate / baseline) * 100).toFixed(2)} % of the baseline (${before.value.toFixed(0)} req/s before, ` +
        `${after.value.toFixed(0)} after: ${baseline.toFixed(0)}) — ${rate / baseline >= GOAL_SHARE ? "meets" : "misses"} the goal of ` +
        `≥ ${(GOAL_SHARE * 100).toFixed(2)} % (${GOAL}/s at the record's ${RECORD_BASELINE.toLocaleString("en")} req/s; here ${atRecordBaseline(rate, baseline).toFixed(0)}/s at it)`,
    );
    const pg = endpoints.driver === "postgres";
    console.log(
      (pg
        ? `per renewal (its own time in the claiming transaction — a deferred one's rows are written with its batch's, in the batch's time below; batches of ${BATCH}, ${CONCURRENCY} claiming transaction${CONCURRENCY > 1 ? "s" : ""} per worker at once): `
        : `per renewal (gap between successive charges, batches of ${BATCH} per transaction): `) +
        `median ${percentile(all, 0.5).toFixed(2)} ms, p99 ${percentile(all, 0.99).toFixed(1)} ms, max ${percentile(all, 1).toFixed(1)} ms`,
    );
    const workerCpu = reports.reduce((a, r) => a + (r.cpuMs ?? 0), 0);
    if (pg) {
      const perRenewal = pgCpuMs === null ? null : (workerCpu + pgCpuMs) / n;
      console.log(
        `CPU per renewal: workers ${(workerCpu / n).toFixed(2)} ms` +
          (pgCpuMs === null || perRenewal === null
            ? " (PostgreSQL's backends not readable from /proc)"
            : ` + PostgreSQL ${(pgCpuMs / n).toFixed(2)} ms = ${perRenewal.toFixed(2)} ms — on ${os.cpus().length} otherwise idle CPUs at most ≈ ${((os.cpus().length * 1000) / perRenewal).toFixed(0)} renewals/s`),
      );
    }
    const batches = reports.flatMap((r) => r.batches ?? []);
    if (batches.length > 0) {
      console.log(
        `per batch (claim to commit: how long a renewal waits to be committed): ` +
          `median ${percentile(batches, 0.5).toFixed(0)} ms, p99 ${percentile(batches, 0.99).toFixed(0)} ms, max ${percentile(batches, 1).toFixed(0)} ms`,
      );
    }
    reports.forEach((r, i) =>
      console.log(
        `worker ${i + 1}: ${fmt(r.renewals)} renewals, peak RSS ${r.rss === null ? "n/a" : `${r.rss.toFixed(0)} MB`}` +
          `${r.heapKeptMb === undefined ? "" : `; its heap at the end ${r.heapPeakMb?.toFixed(0)} MB, of which ${r.heapKeptMb.toFixed(0)} MB in use after a full collection`}` +
          `${r.errorCount ? `, ${r.errorCount} failed renewals (first: ${r.errors?.[0] ?? ""})` : ""}`,
      ),
    );
    const check = (
      await call<{ subscriptions: number; exactly_one: number; more_than_one: number; none: number; past_due: number; active: number; paid: number; pending: number; with_usage: number }>(
        endpoints.bare,
        "POST",
        "/control/check",
        { organizationId: org.id },
      )
    ).json;
    const ok = check.exactly_one === check.subscriptions && check.more_than_one === 0 && check.none === 0;
    console.log(
      `\ncheck: ${fmt(check.exactly_one)} of ${fmt(check.subscriptions)} subscriptions have exactly one order for the period renewed; ` +
        `${fmt(check.more_than_one)} have more than one, ${fmt(check.none)} none — ${ok ? "PASS" : "FAIL"}`,
    );
    console.log(
      `orders: ${fmt(check.paid)} paid, ${fmt(check.pending)} pending (declined), ${fmt(check.with_usage)} with usage billed; ` +
        `subscriptions: ${fmt(check.active)} active, ${fmt(check.past_due)} past_due`,
    );
    if (endpoints.driver !== "postgres") console.log("(the goal is stated for PostgreSQL with two worker processes; set DATABASE_URL to measure there)");
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (1/5/15 min)`);
    if (!ok) process.exitCode = 1;
  } finally {
    disarm();
    // a worker exits by itself after its report (writing its CPU profile first, when asked): give it time
    await Promise.all(
      workers.map((w) =>
        w.exitCode !== null || w.signalCode !== null
          ? undefined
          : new Promise<void>((resolve) => {
              const timer = setTimeout(() => {
                w.kill("SIGTERM");
                resolve();
              }, 10_000);
              w.once("exit", () => {
                clearTimeout(timer);
                resolve();
              });
            }),
      ),
    );
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) {
  await serve();
} else if (process.argv.includes("--work")) {
  await work();
} else {
  await main();
}
