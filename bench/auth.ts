// Throughput of the auth hot paths, each as a ratio to a bare Fastify hello-world measured in the same run:
// better-auth's get-session (cookie), and the request helper (GET /api/whoami) with an API key and with a
// bearer session. The goal: the helper serves at least 25% of hello-world on PostgreSQL.
//
//   npm run bench                                  # PGlite (in memory)
//   DATABASE_URL=postgres://… npm run bench        # a throw-away database on that server
//
// The servers run in a child process (the real app on a fresh database, rate limits off, plus a bare
// Fastify on another port) so the load generator does not share their event loop. Loopback only.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import Fastify from "fastify";
import { buildApp } from "../server/app.js";
import { loadConfig } from "../server/config.js";
import { createMailer } from "../server/mail/mailer.js";
import { freshDatabase } from "../tests/helpers/db.js";

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = 5;
const GOAL = 0.25;
/** Everything (start-up, four runs, shutdown) must finish well within a minute. */
const HARD_LIMIT_MS = 90_000;

interface Endpoints {
  app: string;
  hello: string;
  driver: "postgres" | "pglite";
  pid: number;
}

// ---- child: the servers ------------------------------------------------------------------------------

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

  const hello = Fastify({ logger: false });
  hello.get("/", async () => ({ hello: "world" }));
  const helloUrl = await hello.listen({ port: 0, host: "127.0.0.1" });

  const stop = async () => {
    await hello.close();
    await app.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
  const endpoints: Endpoints = { app: config.baseURL, hello: helloUrl, driver: database.driver, pid: process.pid };
  process.stdout.write(`${JSON.stringify(endpoints)}\n`);
}

// ---- parent: fixtures, load, report --------------------------------------------------------------------

function startServers(): Promise<{ child: ChildProcess; endpoints: Endpoints }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => resolve({ child, endpoints: JSON.parse(line) as Endpoints }));
    child.once("exit", (code) => reject(new Error(`bench server exited early (code ${code})`)));
  });
}

async function call<T>(base: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { origin: base, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return { json: JSON.parse(text) as T, headers: res.headers };
}

interface Fixtures {
  cookie: string;
  sessionToken: string;
  apiKey: string;
}

/** A seller with an organization and an API key without a per-key limit (autocannon sends tens of thousands). */
async function fixtures(base: string): Promise<Fixtures> {
  const signUp = await call<{ token: string }>(base, "POST", "/api/auth/sign-up/email", {
    email: `bench-${Date.now()}@example.com`,
    password: "correct-horse-battery",
    name: "Bench",
  });
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => c?.startsWith("better-auth.session_token="))
    .join("; ");
  const org = await call<{ id: string }>(base, "POST", "/api/auth/organization/create", { name: "Bench", slug: `bench-${Date.now()}` }, { cookie });
  const key = await call<{ key: string }>(
    base,
    "POST",
    "/api/auth/api-key/create",
    { organizationId: org.json.id, name: "bench", rateLimitEnabled: false },
    { cookie },
  );
  // each measured request must be the successful one
  const who = await call<{ kind: string; organization_id: string }>(base, "GET", "/api/whoami", undefined, {
    authorization: `Bearer ${key.json.key}`,
  });
  if (who.json.kind !== "api_key" || who.json.organization_id !== org.json.id) throw new Error("whoami (API key) is wrong");
  const session = await call<{ user: { id: string } } | null>(base, "GET", "/api/auth/get-session", undefined, { cookie });
  if (!session.json?.user) throw new Error("get-session (cookie) returned no session");
  return { cookie, sessionToken: signUp.json.token, apiKey: key.json.key };
}

/** utime + stime of a process in milliseconds (Linux), or null elsewhere. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[11], fields[12] are utime and stime (fields 14 and 15 of proc(5)), in clock ticks of 1/100 s
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

interface Row {
  name: string;
  rps: number;
  p99: number;
  cpuPerRequest: number | null;
  failures: number;
}

async function measure(name: string, url: string, headers: Record<string, string>, pid: number): Promise<Row> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  const before = cpuMs(pid);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: MEASURE_SECONDS });
  const after = cpuMs(pid);
  const total = r.requests.total;
  return {
    name,
    rps: r.requests.average,
    p99: r.latency.p99,
    cpuPerRequest: before !== null && after !== null && total > 0 ? (after - before) / total : null,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

function table(rows: Row[], baseline: number): string {
  const header = ["endpoint", "req/s", "× hello", "p99 ms", "CPU ms/req", "non-2xx/errors"];
  const body = rows.map((r) => [
    r.name,
    r.rps.toFixed(0),
    `${((r.rps / baseline) * 100).toFixed(1)}%`,
    r.p99.toFixed(1),
    r.cpuPerRequest === null ? "n/a" : r.cpuPerRequest.toFixed(3),
    String(r.failures),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const started = Date.now();
  const { child, endpoints } = await startServers();
  const watchdog = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    child.kill("SIGKILL");
    process.exit(1);
  }, HARD_LIMIT_MS);
  try {
    const f = await fixtures(endpoints.app);
    const pid = endpoints.pid;
    const rows = [
      await measure("hello-world (bare Fastify)", `${endpoints.hello}/`, {}, pid),
      await measure("GET /api/auth/get-session (cookie)", `${endpoints.app}/api/auth/get-session`, { cookie: f.cookie }, pid),
      await measure("GET /api/whoami (API key)", `${endpoints.app}/api/whoami`, { authorization: `Bearer ${f.apiKey}` }, pid),
      await measure("GET /api/whoami (bearer session)", `${endpoints.app}/api/whoami`, { authorization: `Bearer ${f.sessionToken}` }, pid),
    ];
    const baseline = rows[0]?.rps ?? 0;
    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(`\ntill auth benchmark — ${database}; ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${MEASURE_SECONDS} s each, Node ${process.version}, ${os.cpus().length} CPUs\n`);
    console.log(table(rows, baseline));
    console.log("");
    for (const r of rows.slice(2)) {
      const ratio = r.rps / baseline;
      const verdict = ratio >= GOAL ? "meets" : "misses";
      console.log(`${r.name}: ${(ratio * 100).toFixed(1)}% of hello-world — ${verdict} the goal of ≥ ${GOAL * 100}%`);
    }
    if (endpoints.driver !== "postgres") {
      console.log("(the goal is stated for PostgreSQL; set DATABASE_URL to measure there — cached lookups do not touch the database)");
    }
    if (rows.some((r) => r.failures > 0)) console.log("warning: some requests failed (see non-2xx/errors)");
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    clearTimeout(watchdog);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

if (process.argv.includes("--serve")) {
  await serve();
} else {
  await main();
}
