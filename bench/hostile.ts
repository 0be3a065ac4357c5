// Hostile bodies against the server's event loop: 1 MiB JSON bodies of several shapes (nesting just under and
// far over the 32-level bound, a wide object, many small objects, objects with distinct keys, a long string,
// strings of escaped quotes and of escaped surrogate pairs) sent to routes that parse JSON — the no-login
// license-key validation and sign-in (128 KiB limit), product creation (512 KiB) and /v1/events/ingest, which
// takes 1 MiB: there every shape, plus 1,000 valid events, 1,000 invalid ones and 16,000 hostile objects as
// events — while a worker thread polls GET /healthz one request at a time. Printed per route and shape: the answer time, median and max (goal for a refused body < 50 ms), beside the same route's
// answer to a small body; the server's CPU time per body and the longest stall of its event loop (figures a
// busy machine stretches less than wall times); the /healthz p99 under that load (goal < 10 ms) beside the
// /healthz p99 measured idle in the same run (the baselines); then one line per goal: met or not met. On
// PostgreSQL, the database's own part of each stored shape is measured too, just before the shape is sent: its
// batch stored by the ingest's statement and commit in the server's process, without HTTP or parse; a stored
// batch's goal is its median answer within 1.5× of that part's (STORED_GOAL_RATIO).
//
//   npm run bench:hostile                                  # PGlite (in memory)
//   DATABASE_URL=postgres://… npm run bench:hostile        # a throw-away database on that server
//   TILL_BENCH_HOSTILE_ONLY=ingest npm run bench:hostile   # only /v1/events/ingest's own shapes (quick runs)
//   TILL_BENCH_HOSTILE_ONLY=stored npm run bench:hostile   # only the valid 1,000-event batch (profiling it)
//
// With PGlite the database runs on the server's own thread, so storing a 1,000-event batch stalls /healthz
// by itself: the figures of record are taken on PostgreSQL.
//
// The server runs in a child process, so the load generator does not share its event loop. Loopback only;
// every phase is bounded in count and time.
import { openSync, readSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { sql } from "drizzle-orm";
import { eventsSpan, RESOLVED_IN_SQL } from "../server/billing/events/ingest/early-insert.js";
import { insertEventsWithRollups } from "../server/billing/events/rollups.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";

const MIB = 1024 * 1024;
/** A little under the server's body limit (1 MiB), so the body is read and parsed, not refused as too large. */
const SIZE = MIB - 64;
const REPEATS = 15;
/** Bodies sent per route and shape with nothing else going on, for the server CPU they cost alone. */
const ALONE = 5;
/** How long /healthz is polled idle (the baseline). */
const IDLE_MS = 1500;
const BODY_GOAL_MS = 50;
const HEALTHZ_GOAL_MS = 10;
/**
 * A stored batch's median answer against its database's part (the same batch stored by the ingest's own statement
 * and commit in the server's process, no HTTP or parse, 15 times just before the shape is sent): at most this
 * multiple of its median. What the server adds is its own; the database's part is the machine's and grows with
 * what each event stores; a max of 15 on a shared machine is its hiccups (the statement alone's own max ranges
 * 1.1–2.4× its median), so it is printed, not judged (bench/RESULTS.md, "Hostile input and large bodies").
 */
const STORED_GOAL_RATIO = 1.5;
const HARD_LIMIT_MS = 300_000;

/** A reader of the calling thread's CPU time in ms (Linux), or undefined where there is none. */
function mainThreadCpu(): (() => number) | undefined {
  let fd: number;
  try {
    fd = openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return undefined;
  }
  const buf = Buffer.alloc(128);
  return () => {
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString("latin1", 0, n);
    return Number(text.slice(0, text.indexOf(" "))) / 1e6;
  };
}

// ---- child: the server --------------------------------------------------------------------------------

/**
 * The app, plus a control port read between phases: the server process's CPU time and the longest stall of its
 * event loop since the last read (what a /healthz arriving at the worst moment waits for, machine load aside).
 */
async function serve(): Promise<void> {
  const served = await startApp();
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  // the longest stretch of CPU time between two 1 ms ticks: what one task held the loop for, as CPU time,
  // which other processes on the machine do not stretch (the stall above is wall time and does). The main
  // thread's own time (Linux: /proc/thread-self/schedstat, in ns), not the process's: the garbage collector's
  // helper threads mark and sweep beside the loop without holding it
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const loopCpuMs = mainThreadCpu() ?? cpuMs;
  let lastTick = loopCpuMs();
  let busyMs = 0;
  setInterval(() => {
    const now = loopCpuMs();
    busyMs = Math.max(busyMs, now - lastTick);
    lastTick = now;
  }, 1).unref();
  const control = http.createServer((req, res) => {
    if (req.url === "/store-alone") {
      // the database's part alone: a body's events stored by the ingest's own statement and commit, timed here
      // (no HTTP, no guard, no parse or check)
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const { organizationId, body } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { organizationId: string; body: string };
        // the body's `events` array as sent, as the ingest reads it
        const span = eventsSpan(body);
        if (!span) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: "not a batch" }));
          return;
        }
        const text = body.slice(span.start, span.end);
        const started = performance.now();
        served.database.db
          // the early statement the ingest sends for it: parents resolved and `_cost` rewritten when it names them
          .transaction((tx) => insertEventsWithRollups(tx, organizationId, { text, now: sql`now()`, ...(RESOLVED_IN_SQL.test(body) ? { resolve: true as const } : {}) }))
          .then(({ inserted }) => res.end(JSON.stringify({ ms: performance.now() - started, inserted })))
          .catch((err: unknown) => {
            res.statusCode = 500;
            res.end(JSON.stringify({ error: String(err) }));
          });
      });
      return;
    }
    res.end(JSON.stringify({ cpuMs: cpuMs(), stallMs: stalls.max / 1e6, busyMs }));
    stalls.reset();
    busyMs = 0;
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  announce({ url: served.url, control: controlUrl, driver: served.database.driver }, [
    () => new Promise((resolve) => control.close(resolve)),
    served.close,
  ]);
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** Requests sent again because the server closed the connection while the body was still being written. */
let resent = 0;

/**
 * One request on a kept-alive loopback connection: status and milliseconds to the last byte of the answer. A
 * server that refuses a body by its Content-Length (413) may answer and close before the 1 MiB is written; the
 * write then fails (EPIPE/ECONNRESET), sometimes before the answer is read: such a request is sent again, once.
 */
async function request(base: string, method: string, p: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; text: string }> {
  try {
    return await requestOnce(base, method, p, body, headers);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "EPIPE" && code !== "ECONNRESET") throw err;
    resent++;
    return requestOnce(base, method, p, body, headers);
  }
}

function requestOnce(base: string, method: string, p: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; text: string }> {
  const url = new URL(p, base);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function fixtures(base: string) {
  const email = `bench-${Date.now().toString(36)}@example.com`;
  const signUp = await request(base, "POST", "/api/auth/sign-up/email", JSON.stringify({ email, password: "correct-horse-battery", name: "Bench" }));
  const token = (JSON.parse(signUp.text) as { token: string }).token;
  const auth = { authorization: `Bearer ${token}` };
  const org = await request(base, "POST", "/api/auth/organization/create", JSON.stringify({ name: "Bench org", slug: `bench-${Date.now().toString(36)}` }), auth);
  const organizationId = (JSON.parse(org.text) as { id: string }).id;
  const key = await request(base, "POST", "/api/auth/api-key/create", JSON.stringify({ organizationId, name: "bench" }), auth);
  const apiKey = (JSON.parse(key.text) as { key: string }).key;
  // customers for the batches that name them by id (those take the usual path: the ids are checked first)
  const customerIds: string[] = [];
  for (let i = 0; i < 50; i++) {
    const made = await request(base, "POST", "/v1/customers/", JSON.stringify({ email: `cust-${i}@example.com`, name: `Customer ${i}` }), { authorization: `Bearer ${apiKey}` });
    customerIds.push((JSON.parse(made.text) as { id: string }).id);
  }
  return { organizationId, apiKey, customerIds };
}

/** Pads `open … close` with `unit` repeated (comma-joined) to SIZE characters. */
function fill(open: string, unit: (i: number) => string, close: string): string {
  const parts: string[] = [];
  let length = open.length + close.length;
  for (let i = 0; ; i++) {
    const u = unit(i);
    if (length + u.length + 1 > SIZE) break;
    parts.push(u);
    length += u.length + 1;
  }
  return `${open}${parts.join(",")}${close}`;
}

/**
 * 16,000 objects of 5 keys drawn (seeded) from 999 names and "key" (about 96,000 values and 750 KiB, within every
 * bound): many hidden classes from few names.
 */
function fiveOfThousand(): string {
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 999;
  return `{"key":[${Array.from({ length: 16_000 }, () => `{${Array.from({ length: 5 }, () => `"k${next()}":1`).join(",")}}`).join(",")}]}`;
}

function shapes(): Array<{ name: string; body: string }> {
  const nest = (n: number, inner: string) => "[".repeat(n) + inner + "]".repeat(n);
  const overDepth = Math.floor(SIZE / 2);
  return [
    { name: "arrays 32 deep, repeated", body: fill('{"key":[', () => nest(30, "1"), "]}") },
    { name: `arrays ${overDepth} deep`, body: nest(overDepth, "") },
    { name: "objects 33 deep, then padding", body: '{"a":'.repeat(33) + `"${"p".repeat(SIZE - 300)}"` + "}".repeat(33) },
    { name: "wide object (small keys)", body: fill("{", (i) => `"k${i}":${i}`, "}") },
    { name: "many small objects", body: fill('{"key":[', () => '{"a":1}', "]}") },
    // each object's own keys make JSON.parse build a new hidden class per object (80–160 ms of CPU for 1 MiB):
    // refused by the scan at the 1,001st distinct key name
    { name: "objects with distinct keys", body: `{"key":[${Array.from({ length: 33_000 }, (_, i) => `{"a${i}":1,"b${i}":2}`).join(",")}]}` },
    // the dearest shape within the name bound measured: objects of 5 keys drawn from 1,000 names in random orders
    { name: "objects of 5 keys out of 1,000 names", body: fiveOfThousand() },
    { name: "long string", body: `{"key":"${"s".repeat(SIZE - 20)}"}` },
    { name: "escaped quotes", body: `{"key":"${'\\"'.repeat(Math.floor((SIZE - 20) / 2))}"}` },
    { name: "escaped surrogate pairs", body: `{"key":"${"\\ud83d\\ude00".repeat(Math.floor((SIZE - 20) / 12))}"}` },
  ];
}

/** Shapes only /v1/events/ingest gets: its own body, valid (a fresh batch each time) and not. */
function ingestShapes(customerIds: string[]): Array<{ name: string; body: string | (() => string); stored?: boolean }> {
  const metadata = (i: number) => Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`key${k}`, k % 2 ? k * 1000 + i : `value ${k} ${"x".repeat(14)}`]));
  let batch = 0;
  const valid = () => {
    batch++;
    return JSON.stringify({
      events: Array.from({ length: 1000 }, (_, i) => ({ name: "bench.call", external_customer_id: `cust-${i % 50}`, external_id: `b${batch}-${i}-${Date.now()}`, metadata: metadata(i) })),
    });
  };
  // the same batch naming customers by id instead: stored early, the ids read in the early transaction before
  // its COMMIT
  const byCustomer = () => {
    batch++;
    return JSON.stringify({
      events: Array.from({ length: 1000 }, (_, i) => ({ name: "bench.call", customer_id: customerIds[i % customerIds.length], external_id: `b${batch}-${i}-${Date.now()}`, metadata: metadata(i) })),
    });
  };
  // and one whose early statement resolves parents and rewrites `_cost`: every event after the first names it as
  // its parent, every other one carries a `_cost` (which the check rewrites)
  const usual = () => {
    batch++;
    const stamp = Date.now();
    return JSON.stringify({
      events: Array.from({ length: 1000 }, (_, i) => ({
        name: "bench.call",
        external_customer_id: `cust-${i % 50}`,
        external_id: `b${batch}-${i}-${stamp}`,
        ...(i > 0 ? { parent_id: `b${batch}-0-${stamp}` } : {}),
        metadata: i % 2 ? { ...metadata(i), _cost: { amount: 12, currency: "USD" } } : metadata(i),
      })),
    });
  };
  const invalid = JSON.stringify({
    events: Array.from({ length: 1000 }, (_, i) => ({ name: "bench.bad", external_customer_id: `cust-${i}`, metadata: { ...metadata(i), key1: { not: "a scalar" } } })),
  });
  return [
    { name: "1,000 valid events (stored)", body: valid, stored: true },
    { name: "1,000 valid events naming customer ids (stored)", body: byCustomer, stored: true },
    { name: "1,000 valid events with parents and _cost (stored)", body: usual, stored: true },
    { name: "1,000 events, each invalid", body: invalid },
    { name: "events: 16,000 objects of 5 keys", body: fiveOfThousand().replace('{"key"', '{"events"') },
  ];
}

/** A shape's body: its text, or a fresh one from its maker. */
const textOf = (shape: { body: string | (() => string) }): string => (typeof shape.body === "string" ? shape.body : shape.body());

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Polls /healthz from a worker thread (the main thread building and writing 1 MiB bodies must not delay reading
 * the answers) until stopped. The latencies, sorted. Two ways (TILL_BENCH_POLL):
 * - `closed` (the figure of record): one request at a time, the next as soon as the last is answered. A stall
 *   shows as one slow sample, however long (coordinated omission): the longest loop stall column shows it whole.
 * - `open`: one request every TILL_BENCH_POLL_MS (1) whether or not the ones before were answered (up to 32 at
 *   once), as independent callers would; each latency runs from its send to the end of its answer. On 2 CPUs it
 *   also measures the machine: the load generator writing 1 MiB bodies on 4 connections leaves little CPU to
 *   anyone (docs/decisions.md, "Hostile input and large bodies").
 */
const POLL_MODE = process.env.TILL_BENCH_POLL === "open" ? "open" : "closed";
const POLL_EVERY_MS = Number(process.env.TILL_BENCH_POLL_MS ?? 1);
const POLLER = `
const http = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
const open = workerData.mode === "open";
const agent = new http.Agent({ keepAlive: true, maxSockets: open ? 32 : 1 });
const samples = [];
let running = true;
let pending = 0;
let timer;
const finish = () => { agent.destroy(); parentPort.postMessage(samples); };
parentPort.once("message", () => { running = false; clearInterval(timer); if (pending === 0) finish(); });
const poll = () => {
  const sent = performance.now();
  pending++;
  http.get(workerData.base + "/healthz", { agent }, (res) => {
    res.resume();
    res.on("end", () => {
      samples.push(performance.now() - sent);
      pending--;
      if (!running) { if (pending === 0) finish(); }
      else if (!open) workerData.every > 0 ? setTimeout(poll, workerData.every) : setImmediate(poll);
    });
  });
};
if (open) timer = setInterval(poll, workerData.every);
poll();
`;

function pollHealthz(base: string): { stop: () => Promise<number[]> } {
  const worker = new Worker(POLLER, { eval: true, workerData: { base, every: POLL_EVERY_MS, mode: POLL_MODE } });
  const done = new Promise<number[]>((resolve, reject) => {
    worker.once("message", (samples: number[]) => resolve(samples.sort((a, b) => a - b)));
    worker.once("error", reject);
  });
  return {
    stop: async () => {
      worker.postMessage("stop");
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

interface Probe {
  cpuMs: number;
  stallMs: number;
  busyMs: number;
}

async function probe(control: string): Promise<Probe> {
  return (await fetch(control)).json() as Promise<Probe>;
}

/**
 * The database's part of a stored batch, measured in the same run: `body` stored REPEATS times by the ingest's
 * own statement and commit in the server's process (no HTTP, no guard, no parse), one at a time, nothing else
 * sent meanwhile. Milliseconds, sorted.
 */
async function storedAlone(control: string, organizationId: string, body: () => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const res = await fetch(`${control}/store-alone`, { method: "POST", body: JSON.stringify({ organizationId, body: body() }) });
    const answer = (await res.json()) as { ms?: number; inserted?: number; error?: string };
    if (!res.ok || answer.ms === undefined || answer.inserted !== 1000) throw new Error(`store-alone: ${res.status} ${JSON.stringify(answer)}`);
    times.push(answer.ms);
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const { child, endpoints } = await spawnServer<{ url: string; control: string; driver: string }>(import.meta.url);
  const { url, control, driver } = endpoints;
  const disarm = watchdog(child, HARD_LIMIT_MS);
  try {
    const f = await fixtures(url);
    const bearer = { authorization: `Bearer ${f.apiKey}` };
    const routes: Array<{ name: string; path: string; headers?: Record<string, string>; more?: () => ReturnType<typeof ingestShapes> }> = [
      { name: "POST /v1/customer-portal/license-keys/validate (no login, 128 KiB)", path: "/v1/customer-portal/license-keys/validate" },
      { name: "POST /api/auth/sign-in/email (128 KiB)", path: "/api/auth/sign-in/email" },
      { name: "POST /v1/products/ (API key, 512 KiB)", path: "/v1/products/", headers: bearer },
      { name: "POST /v1/events/ingest (API key, 1 MiB)", path: "/v1/events/ingest", headers: bearer, more: () => ingestShapes(f.customerIds) },
    ];

    // warm up both paths, then the idle baseline
    for (let i = 0; i < 200; i++) await request(url, "GET", "/healthz");
    const idlePoller = pollHealthz(url);
    const idleStart = await probe(control);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = await idlePoller.stop();
    const idleEnd = await probe(control);
    const idleCpuMsPerPoll = (idleEnd.cpuMs - idleStart.cpuMs) / idle.length;
    const baselineP99 = percentile(idle, 99);

    const rows: string[][] = [];
    const worst = { body: 0, bodyCpu: 0, refused: 0, healthz: 0, healthzPolls: 0, stall: 0, busy: 0 };
    const allTimes: number[] = [];
    const allPolls: number[] = [];
    /** Answer times of the valid batches, which the server stores (database work included). */
    const stored: number[] = [];
    /** The same, in the order they were sent (is the slowest the first, or one at random?). */
    const storedInOrder: number[] = [];
    /** Each stored shape's answers, and its database's part (storedAlone, median) when measured. */
    const storedShapes: Array<{ name: string; median: number; max: number; alone?: { median: number; max: number } }> = [];
    /** Whether the database has stored some batches before the first measured one. */
    let warmed = false;
    // TILL_BENCH_HOSTILE_ONLY=ingest: the ingest route's own shapes only (valid, invalid, hostile events)
    const only = process.env.TILL_BENCH_HOSTILE_ONLY;
    const ingestOnly = only === "ingest" || only === "stored";
    for (const route of ingestOnly ? routes.filter((r) => r.more) : routes) {
      // the route's answer to a small body of the same kind of mistake (the field of the wrong type)
      const smallTimes: number[] = [];
      const before = await probe(control);
      for (let i = 0; i < 50; i++) smallTimes.push((await request(url, "POST", route.path, '{"key":[1]}', route.headers)).ms);
      const after = await probe(control);
      smallTimes.sort((a, b) => a - b);
      rows.push([
        route.name,
        'small body {"key":[1]} (baseline)',
        "",
        `${percentile(smallTimes, 50).toFixed(1)} / ${smallTimes[smallTimes.length - 1]!.toFixed(1)}`,
        ((after.cpuMs - before.cpuMs) / 50).toFixed(2),
        `${after.stallMs.toFixed(1)} / ${after.busyMs.toFixed(1)}`,
        "",
        "",
      ]);
      const own = (route.more?.() ?? []).filter((s) => only !== "stored" || s.stored);
      for (const shape of [...(ingestOnly ? [] : shapes()), ...own]) {
        const body = () => textOf(shape);
        // a fresh database stores its first batches slower (its table and indexes empty, each connection's
        // statements not yet planned for reuse): the first stored shape would pay it, so some go first, untimed
        if ("stored" in shape && shape.stored && driver === "postgres" && !warmed) {
          await storedAlone(control, f.organizationId, body);
          warmed = true;
        }
        // a stored shape's database part, just before it is sent
        const dbPart = "stored" in shape && shape.stored && driver === "postgres" ? await storedAlone(control, f.organizationId, body) : undefined;
        await request(url, "POST", route.path, body(), route.headers); // warm-up
        // the body's own CPU, with no /healthz polls to answer meanwhile (a stored batch waits on the database
        // for most of its answer, and hundreds of polls are answered in that time)
        const quiet = await probe(control);
        for (let i = 0; i < ALONE; i++) await request(url, "POST", route.path, body(), route.headers);
        const cpuAlone = ((await probe(control)).cpuMs - quiet.cpuMs) / ALONE;
        const start = await probe(control);
        const poller = pollHealthz(url);
        const times: number[] = [];
        let status = 0;
        for (let i = 0; i < REPEATS; i++) {
          const text = body();
          const res = await request(url, "POST", route.path, text, route.headers);
          times.push(res.ms);
          status = res.status;
        }
        const polled = await poller.stop();
        const end = await probe(control);
        if ("stored" in shape && shape.stored) storedInOrder.push(...times);
        times.sort((a, b) => a - b);
        allTimes.push(...times);
        allPolls.push(...polled);
        const p99 = percentile(polled, 99);
        const cpu = (end.cpuMs - start.cpuMs) / REPEATS;
        if ("stored" in shape && shape.stored) {
          stored.push(...times);
          storedShapes.push({
            name: shape.name.replace(/^1,000 valid events ?| ?\(stored\)$/g, "") || "plain",
            median: times[Math.floor(times.length / 2)]!,
            max: times[times.length - 1]!,
            ...(dbPart ? { alone: { median: percentile(dbPart, 50), max: dbPart[dbPart.length - 1]! } } : {}),
          });
        } else {
          // the refusals' goal: a stored batch's CPU (its parse, check and answer) is printed in its own row
          worst.body = Math.max(worst.body, times[times.length - 1]!);
          worst.bodyCpu = Math.max(worst.bodyCpu, cpuAlone);
          worst.refused++;
        }
        if (p99 > worst.healthz) {
          worst.healthz = p99;
          worst.healthzPolls = polled.length;
        }
        worst.stall = Math.max(worst.stall, end.stallMs);
        worst.busy = Math.max(worst.busy, end.busyMs);
        rows.push([
          route.name,
          shape.name,
          String(status),
          `${times[Math.floor(times.length / 2)]!.toFixed(1)} / ${times[times.length - 1]!.toFixed(1)}`,
          `${cpu.toFixed(2)} / ${cpuAlone.toFixed(2)}`,
          `${end.stallMs.toFixed(1)} / ${end.busyMs.toFixed(1)}`,
          `${percentile(polled, 50).toFixed(2)} / ${p99.toFixed(2)} (${polled.length})`,
          `${(p99 / baselineP99).toFixed(1)}×`,
        ]);
      }
    }

    const verdict = (value: number, goal: number) => (value < goal ? "PASS" : "MISS");
    const load = os.loadavg().map((l) => l.toFixed(1)).join(" ");
    console.log(`\nhostile bodies (${driver}; ${(SIZE / MIB).toFixed(3)} MiB each, ${REPEATS} times per route and shape; load average ${load} on ${os.cpus().length} CPUs; niceness ${os.getPriority()})\n`);
    console.log(
      table(
        ["route", "body", "status", "answer ms (median / max)", "server CPU ms/body (with polls / alone)", "longest loop stall ms (wall / CPU)", "/healthz p50 / p99 ms (polls)", "p99 vs idle"],
        rows,
      ),
    );
    allTimes.sort((a, b) => a - b);
    allPolls.sort((a, b) => a - b);
    const streamP99 = percentile(allPolls, 99);
    console.log(`\nidle /healthz: p50 ${percentile(idle, 50).toFixed(2)} ms, p99 ${baselineP99.toFixed(2)} ms (${idle.length} polls, ${POLL_MODE} loop; ${(idleCpuMsPerPoll * 1000).toFixed(0)} µs of server CPU per poll, idle)`);
    console.log(`(server CPU: the server process's user+system time over the phase / bodies sent, the concurrent /healthz polls included, then over ${ALONE} bodies sent alone before; longest loop stall: event-loop delay max, 1 ms resolution, includes time the OS gave the CPU to others; CPU: the most CPU time the server's main thread spent between two 1 ms timer ticks (its garbage collector's helper threads not counted), what one task held the loop for whatever the machine's load)`);
    if (resent > 0) console.log(`(${resent} requests sent again: the server closed the connection while their body was being written)`);
    console.log(`1 MiB bodies: ${allTimes.length}, answered in median ${percentile(allTimes, 50).toFixed(1)} ms, max ${allTimes[allTimes.length - 1]!.toFixed(1)} ms; /healthz meanwhile (${allPolls.length} polls): p50 ${percentile(allPolls, 50).toFixed(2)} ms, p99 ${streamP99.toFixed(2)} ms; load average ${load}`);
    stored.sort((a, b) => a - b);
    if (worst.refused === 0) console.log(`goal: a refused 1 MiB body answered in < ${BODY_GOAL_MS} ms: none sent (TILL_BENCH_HOSTILE_ONLY=${only})`);
    else console.log(`goal: a refused 1 MiB body answered in < ${BODY_GOAL_MS} ms (slowest of all ${worst.refused} shapes refused): ${worst.body.toFixed(1)} ms — ${verdict(worst.body, BODY_GOAL_MS)} (server CPU, most per refused body sent alone: ${worst.bodyCpu.toFixed(1)} ms — ${verdict(worst.bodyCpu, BODY_GOAL_MS)})`);
    if (stored.length > 0) {
      const slowest = stored[stored.length - 1]!;
      console.log(`stored batches, in the order sent: ${storedInOrder.map((t) => t.toFixed(1)).join(" ")} ms`);
      const perShape = storedShapes.map((s) => `${s.name}: ${s.median.toFixed(1)} / ${s.max.toFixed(1)}`).join("; ");
      const absolute = `median ${percentile(stored, 50).toFixed(1)} ms, max ${slowest.toFixed(1)} ms — ${verdict(slowest, BODY_GOAL_MS)} (median — ${verdict(percentile(stored, 50), BODY_GOAL_MS)}; median / max per shape: ${perShape})`;
      const measured = storedShapes.flatMap((s) => (s.alone ? [{ ...s, alone: s.alone }] : []));
      if (measured.length === 0) {
        console.log(`goal: a valid 1,000-event batch of 1 MiB stored and answered in < ${BODY_GOAL_MS} ms (database work included; no database part measured on ${driver}): ${absolute}`);
      } else {
        const ratios = measured.map((s) => ({ name: s.name, median: s.median / s.alone.median, max: s.max / s.alone.max }));
        const worstRatio = Math.max(...ratios.map((r) => r.median));
        console.log(
          `goal: a valid 1,000-event batch of 1 MiB stored and answered within ${STORED_GOAL_RATIO}× its own statement and commit alone, measured just before (what the server adds to the database's part, median against median; the max against the max shown beside it): ${ratios.map((r) => `${r.name} ${r.median.toFixed(2)}× (max ${r.max.toFixed(2)}×)`).join("; ")} — ${worstRatio <= STORED_GOAL_RATIO ? "PASS" : "MISS"}`,
        );
        const own = measured.map((s) => `${s.name}: ${s.alone.median.toFixed(1)} / ${s.alone.max.toFixed(1)} ms`).join("; ");
        console.log(`the database's part, same run: each shape's batch stored by the ingest's statement and commit alone (no HTTP, no parse), ${REPEATS} times, median / max: ${own}`);
        console.log(`for reference, < ${BODY_GOAL_MS} ms whatever the database takes (the goal before; the database alone takes ${(measured[0]!.alone.median / BODY_GOAL_MS).toFixed(2)}× of it here, at the ${measured[0]!.name} batch's median): ${absolute}`);
      }
    }
    console.log(`goal: /healthz p99 < ${HEALTHZ_GOAL_MS} ms while they stream: ${streamP99.toFixed(2)} ms — ${verdict(streamP99, HEALTHZ_GOAL_MS)} (longest loop stall: ${worst.stall.toFixed(1)} ms wall, ${worst.busy.toFixed(1)} ms CPU — ${verdict(worst.busy, HEALTHZ_GOAL_MS)}; worst single shape's p99: ${worst.healthz.toFixed(2)} ms, over its ${worst.healthzPolls} polls, so their slowest: not a percentile, shown for reference)`);
  } finally {
    disarm();
    agent.destroy();
    await stopServer(child);
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
