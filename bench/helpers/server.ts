// What the benches share: the real app on a throw-away database in a child process (so the load generator does
// not share its event loop), announced to the parent on one stdout line, and the parent's handle on that child.
//
//   child:  const served = await startApp(); … announce({ app: served.url, … }, [other.close, served.close]);
//   parent: const { child, endpoints } = await spawnServer<E>(import.meta.url); … await stopServer(child);
//
// TILL_BENCH_CPU_PROF=<dir> runs the child under `node --cpu-prof` (a .cpuprofile per run in <dir>: where the
// server's time went); TILL_BENCH_NODE_FLAGS="--trace-gc …" passes more flags to the child's node.
// TILL_BENCH_SERVER=compiled runs the child from an esbuild bundle of the bench's script (dist/bench/<name>.mjs,
// bundled as scripts/build-server.mjs bundles the server) with no TypeScript loader, where it otherwise runs
// through tsx: the same bench then measures the compiled server. Loopback only.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import type { Worker } from "../../server/jobs/worker.js";
import { createMailer } from "../../server/mail/mailer.js";
import { freshDatabase } from "../../tests/helpers/db.js";
import { reservePort } from "../../tests/helpers/ports.js";

// ---- child --------------------------------------------------------------------------------------------

export interface ServedApp {
  app: FastifyInstance;
  /** The app's base URL (http://127.0.0.1:<port>). */
  url: string;
  database: Awaited<ReturnType<typeof freshDatabase>>;
  /** The app's jobs worker, not started (a bench that needs its jobs starts it; closing the app stops it). */
  worker: Worker;
  /** Closes the app and the database and removes the data directory. */
  close(): Promise<void>;
}

/**
 * The real app on a fresh database (a new PostgreSQL database next to DATABASE_URL's, else PGlite in memory),
 * listening on a free loopback port; rate limits off, logs silent. `pool`: PostgreSQL connections; `env`: more of
 * till's settings (TILL_STRIPE_IMPORT_RATE).
 */
export async function startApp(options: { pool?: number; env?: Record<string, string> } = {}): Promise<ServedApp> {
  const database = await freshDatabase(options.pool === undefined ? {} : { max: options.pool });
  const { port, release } = await reservePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-bench-"));
  const config = loadConfig({
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: `http://127.0.0.1:${port}`,
    TILL_DATA_DIR: dataDir,
    TILL_RATE_LIMIT: "false",
    TILL_LOG_LEVEL: "silent",
    // the benches pay live organizations' checkouts with the test card
    TILL_TEST_PAYMENTS: "live",
    // bench:checkout's Stripe run points it at the stand-in
    ...(process.env.TILL_STRIPE_API_URL ? { TILL_STRIPE_API_URL: process.env.TILL_STRIPE_API_URL } : {}),
    ...options.env,
  });
  const mailer = createMailer({ smtpUrl: undefined, from: config.mail.from, mailDir: path.join(dataDir, "mail"), log: () => {} });
  const { app, worker } = await buildApp({ config, database, mailer, secret: "bench-secret-".padEnd(40, "x") });
  await release();
  await app.listen({ port, host: "127.0.0.1" });
  return {
    app,
    url: config.baseURL,
    database,
    worker,
    async close() {
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Tells the parent where to find the servers (one JSON line on stdout, with this process's pid added) and, on
 * SIGTERM or SIGINT, runs `closers` in order and exits.
 */
export function announce(endpoints: object, closers: Array<() => Promise<unknown>>): void {
  const stop = async () => {
    for (const close of closers) await close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
  process.stdout.write(`${JSON.stringify({ ...endpoints, pid: process.pid })}\n`);
}

// ---- parent -------------------------------------------------------------------------------------------

/** Runs `<script> --serve` (a bench's own file: its import.meta.url) in a child and waits for its announcement. */
export async function spawnServer<E extends object>(script: string): Promise<{ child: ChildProcess; endpoints: E & { pid: number } }> {
  const dir = process.env.TILL_BENCH_CPU_PROF;
  const profile = dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=200"] : [];
  const flags = (process.env.TILL_BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const entry = benchServer() === "compiled" ? [await bundleBench(fileURLToPath(script))] : ["--import", "tsx", fileURLToPath(script)];
  const child = spawn(process.execPath, [...profile, ...flags, ...entry, "--serve"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    // the announcement is the first line that is a JSON object; anything else the child prints (--trace-gc) goes
    // to stderr
    let announced = false;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (announced || !line.startsWith("{")) process.stderr.write(`${line}\n`);
      else {
        announced = true;
        resolve({ child, endpoints: JSON.parse(line) as E & { pid: number } });
      }
    });
    child.once("exit", (code) => reject(new Error(`bench server exited early (code ${code})`)));
  });
}

/** How the bench's server child runs: `compiled` (TILL_BENCH_SERVER=compiled) or through `tsx`. */
export function benchServer(): "compiled" | "tsx" {
  const kind = process.env.TILL_BENCH_SERVER ?? "tsx";
  if (kind !== "compiled" && kind !== "tsx") throw new Error(`TILL_BENCH_SERVER=${kind}: compiled or tsx`);
  return kind;
}

/**
 * The bench's script and everything it imports of ours as one ES module, dist/bench/<name>.mjs, npm packages
 * imported from node_modules; the migrations beside it, where server/db/client.ts looks for them. dist/bench/ is as
 * deep in the tree as bench/ and tests/helpers/, so paths they resolve from their own file hold.
 */
async function bundleBench(file: string): Promise<string> {
  const root = path.resolve(path.dirname(file), "..");
  const outDir = path.join(root, "dist", "bench");
  const outfile = path.join(outDir, `${path.basename(file, ".ts")}.mjs`);
  const { build } = await import("esbuild");
  await build({ entryPoints: [file], outfile, bundle: true, platform: "node", target: "node20", format: "esm", packages: "external", jsx: "automatic", logLevel: "warning" });
  cpSync(path.join(root, "server", "db", "migrations"), path.join(outDir, "migrations"), { recursive: true });
  console.error(`bench: the server child runs ${path.relative(root, outfile)}, compiled (no tsx)`);
  return outfile;
}

/** Asks the child to close (it writes its CPU profile then) and waits for it to exit. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** Kills the child and this process after `ms` (every bench is bounded in time); returns the disarm. */
export function watchdog(child: ChildProcess, ms: number): () => void {
  const timer = setTimeout(() => {
    console.error(`bench: gave up after ${ms / 1000} s`);
    child.kill("SIGKILL");
    process.exit(1);
  }, ms);
  return () => clearTimeout(timer);
}

/** utime + stime of a process in milliseconds (Linux /proc), or null elsewhere. */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[11], fields[12] are utime and stime (fields 14 and 15 of proc(5)), in clock ticks of 1/100 s
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
