// Hostile bodies against the server's event loop: 1 MiB JSON bodies of several shapes (nesting just under and
// far over the 32-level bound, a wide object, many small objects, a long string, a string of escaped
// surrogate pairs) sent to routes that parse JSON, the no-login license-key validation and sign-in among
// them, while a second loop polls GET /healthz one request at a time. Printed: each body's answer time
// (goal < 50 ms) beside the same route's answer to a small body, and the /healthz p99 under that load (goal
// < 10 ms) beside the /healthz p99 measured idle in the same run (the baselines).
//
//   npm run bench:hostile                                  # PGlite (in memory)
//   DATABASE_URL=postgres://… npm run bench:hostile        # a throw-away database on that server
//
// The server runs in a child process, so the load generator does not share its event loop. Loopback only;
// every phase is bounded in count and time.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildApp } from "../server/app.js";
import { loadConfig } from "../server/config.js";
import { createMailer } from "../server/mail/mailer.js";
import { freshDatabase } from "../tests/helpers/db.js";

const MIB = 1024 * 1024;
/** A little under the server's body limit (1 MiB), so the body is read and parsed, not refused as too large. */
const SIZE = MIB - 64;
const REPEATS = 15;
const BASELINE_POLLS = 2000;
const BODY_GOAL_MS = 50;
const HEALTHZ_GOAL_MS = 10;
const HARD_LIMIT_MS = 240_000;

// ---- child: the server --------------------------------------------------------------------------------

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function serve(): Promise<void> {
  const database = await freshDatabase();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-bench-"));
  const config = loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: `http://127.0.0.1:${port}`,
    TILL_DATA_DIR: dataDir,
    TILL_RATE_LIMIT: "false",
    TILL_LOG_LEVEL: "silent",
  });
  const mailer = createMailer({ smtpUrl: undefined, from: config.mail.from, mailDir: path.join(dataDir, "mail"), log: () => {} });
  const { app } = await buildApp({ config, database, mailer, secret: "bench-secret-".padEnd(40, "x") });
  await app.listen({ port, host: "127.0.0.1" });
  const stop = async () => {
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.stdout.write(`${JSON.stringify({ url: config.baseURL, driver: database.driver })}\n`);
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------

function startServer(): Promise<{ child: ChildProcess; url: string; driver: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const { url, driver } = JSON.parse(line) as { url: string; driver: string };
      resolve({ child, url, driver });
    });
    child.once("exit", (code) => reject(new Error(`bench server exited early (code ${code})`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One request on a kept-alive loopback connection: status and milliseconds to the last byte of the answer. */
function request(base: string, method: string, p: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; text: string }> {
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
  return { organizationId, apiKey: (JSON.parse(key.text) as { key: string }).key };
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

function shapes(): Array<{ name: string; body: string }> {
  const nest = (n: number, inner: string) => "[".repeat(n) + inner + "]".repeat(n);
  const overDepth = Math.floor(SIZE / 2);
  return [
    { name: "arrays 32 deep, repeated", body: fill('{"key":[', () => nest(30, "1"), "]}") },
    { name: `arrays ${overDepth} deep`, body: nest(overDepth, "") },
    { name: "objects 33 deep, then padding", body: '{"a":'.repeat(33) + `"${"p".repeat(SIZE - 300)}"` + "}".repeat(33) },
    { name: "wide object (small keys)", body: fill("{", (i) => `"k${i}":${i}`, "}") },
    { name: "many small objects", body: fill('{"key":[', () => '{"a":1}', "]}") },
    { name: "long string", body: `{"key":"${"s".repeat(SIZE - 20)}"}` },
    { name: "escaped surrogate pairs", body: `{"key":"${"\\ud83d\\ude00".repeat(Math.floor((SIZE - 20) / 12))}"}` },
  ];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Polls /healthz one request at a time until stopped; the latencies, sorted. */
function pollHealthz(base: string): { stop: () => Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) samples.push((await request(base, "GET", "/healthz")).ms);
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples.sort((a, b) => a - b);
    },
  };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

async function main(): Promise<void> {
  const { child, url, driver } = await startServer();
  const watchdog = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    child.kill("SIGKILL");
    process.exit(1);
  }, HARD_LIMIT_MS);
  try {
    const f = await fixtures(url);
    const routes: Array<{ name: string; path: string; headers?: Record<string, string> }> = [
      { name: "POST /v1/customer-portal/license-keys/validate (no login)", path: "/v1/customer-portal/license-keys/validate" },
      { name: "POST /api/auth/sign-in/email", path: "/api/auth/sign-in/email" },
      { name: "POST /v1/products/ (API key)", path: "/v1/products/", headers: { authorization: `Bearer ${f.apiKey}` } },
    ];

    // warm up both paths, then the idle baseline
    for (let i = 0; i < 200; i++) await request(url, "GET", "/healthz");
    const idle: number[] = [];
    for (let i = 0; i < BASELINE_POLLS; i++) idle.push((await request(url, "GET", "/healthz")).ms);
    idle.sort((a, b) => a - b);
    const baselineP99 = percentile(idle, 99);

    const rows: string[][] = [];
    let worstBody = 0;
    let worstHealthz = 0;
    for (const route of routes) {
      // the route's answer to a small body of the same kind of mistake (the field of the wrong type)
      const smallTimes: number[] = [];
      for (let i = 0; i < 50; i++) smallTimes.push((await request(url, "POST", route.path, '{"key":[1]}', route.headers)).ms);
      smallTimes.sort((a, b) => a - b);
      rows.push([route.name, "small body {\"key\":[1]} (baseline)", "", `${percentile(smallTimes, 50).toFixed(1)} / ${smallTimes[smallTimes.length - 1]!.toFixed(1)}`, "", ""]);
      for (const shape of shapes()) {
        await request(url, "POST", route.path, shape.body, route.headers); // warm-up
        const poller = pollHealthz(url);
        const times: number[] = [];
        let status = 0;
        for (let i = 0; i < REPEATS; i++) {
          const res = await request(url, "POST", route.path, shape.body, route.headers);
          times.push(res.ms);
          status = res.status;
        }
        const polled = await poller.stop();
        times.sort((a, b) => a - b);
        const p99 = percentile(polled, 99);
        worstBody = Math.max(worstBody, times[times.length - 1]!);
        worstHealthz = Math.max(worstHealthz, p99);
        rows.push([
          route.name,
          shape.name,
          String(status),
          `${times[Math.floor(times.length / 2)]!.toFixed(1)} / ${times[times.length - 1]!.toFixed(1)}`,
          `${p99.toFixed(2)} (${polled.length})`,
          `${(p99 / baselineP99).toFixed(1)}×`,
        ]);
      }
    }

    console.log(`\nhostile bodies (${driver}; ${(SIZE / MIB).toFixed(3)} MiB each, ${REPEATS} times per route and shape)\n`);
    console.log(table(["route", "body", "status", "answer ms (median / max)", "/healthz p99 ms (polls)", "vs idle p99"], rows));
    console.log(`\nidle /healthz: p50 ${percentile(idle, 50).toFixed(2)} ms, p99 ${baselineP99.toFixed(2)} ms (${BASELINE_POLLS} polls)`);
    console.log(`slowest body answer: ${worstBody.toFixed(1)} ms (goal < ${BODY_GOAL_MS} ms): ${worstBody < BODY_GOAL_MS ? "meets" : "misses"}`);
    console.log(`worst /healthz p99 under load: ${worstHealthz.toFixed(2)} ms (goal < ${HEALTHZ_GOAL_MS} ms): ${worstHealthz < HEALTHZ_GOAL_MS ? "meets" : "misses"}`);
  } finally {
    clearTimeout(watchdog);
    agent.destroy();
    child.kill("SIGTERM");
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
