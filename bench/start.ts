// Cold start of the server process and its memory once started: the compiled build (`NODE_ENV=production npm
// start`, i.e. node scripts/start.mjs running dist/server/main.js) against the sources through tsx (`node --import
// tsx server/main.ts`), in one run. Each start is a new process on the same database (migrated by the warm-up),
// timed from spawn to the first 200 from /healthz; at that moment its CPU time and RSS are read from /proc.
// A warm-up start of each (tsx's transform cache, the OS's file cache, the migrations), then ROUNDS alternating
// rounds (compiled first in even rounds, tsx first in odd ones); the table shows medians.
// Goals: the compiled start ≤ 0.5× tsx's, its RSS below tsx's. On a loaded machine read the CPU column beside
// the wall time: a process waiting for a core stretches both variants' wall times alike, not their CPU.
//
//   npm run bench:start                              # PGlite (a data directory of its own)
//   DATABASE_URL=postgres://… npm run bench:start    # a throw-away database on that server
//
// The server part is built first (scripts/build-server.mjs). Loopback only; bounded in time.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cpuMs } from "./helpers/server.js";
import { freshDatabase } from "../tests/helpers/db.js";
import { freePort } from "../tests/helpers/ports.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = 5;
const START_LIMIT_MS = 180_000;
const HARD_LIMIT_MS = 900_000;
const START_GOAL = 0.5;

interface Variant {
  name: "compiled" | "tsx";
  args: string[];
}

const VARIANTS: Variant[] = [
  { name: "compiled", args: [path.join(ROOT, "scripts", "start.mjs")] },
  { name: "tsx", args: ["--import", "tsx", path.join(ROOT, "server", "main.ts")] },
];

interface Sample {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
}

function rssMb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(line?.[1] ?? 0) / 1024;
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).status === 200;
  } catch {
    return false;
  }
}

/** One start: spawn, poll /healthz every 5 ms, read CPU and RSS at the first 200, stop the process. */
async function startOnce(variant: Variant, env: Record<string, string>): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, variant.args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), TILL_BASE_URL: `http://127.0.0.1:${port}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    for (;;) {
      if (gone) throw new Error(`${variant.name}: the server exited before /healthz answered:\n${stderr}`);
      if (performance.now() - started > START_LIMIT_MS) throw new Error(`${variant.name}: no /healthz within ${START_LIMIT_MS / 1000} s`);
      if (await healthy(`http://127.0.0.1:${port}/healthz`)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const wallMs = performance.now() - started;
    const pid = child.pid ?? 0;
    return { wallMs, cpuMs: cpuMs(pid) ?? Number.NaN, rssMb: rssMb(pid) };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

function table(rows: Array<{ name: string; wall: number; cpu: number; rss: number; samples: Sample[] }>, tsx: { wall: number; cpu: number; rss: number }): string {
  const header = ["server", "start ms", "vs tsx", "CPU ms", "vs tsx", "RSS MB", "vs tsx", "starts (wall ms)"];
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "-");
  const body = rows.map((r) => [
    r.name,
    r.wall.toFixed(0),
    ratio(r.wall, tsx.wall),
    r.cpu.toFixed(0),
    ratio(r.cpu, tsx.cpu),
    r.rss.toFixed(0),
    ratio(r.rss, tsx.rss),
    r.samples.map((s) => s.wallMs.toFixed(0)).join(" "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 7 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const begun = Date.now();
  const watchdog = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    process.exit(1);
  }, HARD_LIMIT_MS);
  const built = await promisify(execFile)(process.execPath, [path.join(ROOT, "scripts", "build-server.mjs")], { cwd: ROOT });
  console.log(built.stdout.trim());

  const database = process.env.DATABASE_URL ? await freshDatabase() : undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-bench-start-"));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "NODE_OPTIONS" && k !== "TILL_TEST_PAYMENTS") env[k] = v;
  // what production asks for (no dev mailbox, a secret of its own); nothing is mailed during a start
  Object.assign(env, {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    TILL_DATA_DIR: dataDir,
    TILL_AUTH_SECRET: "bench-start-secret-".padEnd(40, "x"),
    SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
    TILL_LOG_LEVEL: "warn",
  });
  delete env.DATABASE_URL;
  if (database?.url) env.DATABASE_URL = database.url;
  try {
    // the warm-up: the first start creates PGlite's database (or checks the migrations), tsx fills its cache
    for (const v of VARIANTS) await startOnce(v, env);
    const samples = new Map<string, Sample[]>(VARIANTS.map((v) => [v.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const v of order) samples.get(v.name)?.push(await startOnce(v, env));
    }
    const rows = VARIANTS.map((v) => {
      const s = samples.get(v.name) ?? [];
      return { name: v.name, wall: median(s.map((x) => x.wallMs)), cpu: median(s.map((x) => x.cpuMs)), rss: median(s.map((x) => x.rssMb)), samples: s };
    });
    const [compiled, tsx] = rows;
    if (!compiled || !tsx) throw new Error("no rows");
    const where = database ? "PostgreSQL" : "PGlite (a data directory)";
    console.log(
      `\ntill start benchmark — ${where}; NODE_ENV=production; ${ROUNDS} alternating rounds after a warm-up of each, medians;` +
        ` Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]?.toFixed(1)}\n`,
    );
    console.log(table(rows, tsx));
    console.log("");
    const startRatio = compiled.wall / tsx.wall;
    console.log(
      `start to /healthz: compiled ${compiled.wall.toFixed(0)} ms = ${startRatio.toFixed(2)}× tsx's ${tsx.wall.toFixed(0)} ms (CPU ${(compiled.cpu / tsx.cpu).toFixed(2)}×) — ` +
        `${startRatio <= START_GOAL ? "meets" : "misses"} the goal of ≤ ${START_GOAL}×`,
    );
    console.log(`RSS after start: compiled ${compiled.rss.toFixed(0)} MB, tsx ${tsx.rss.toFixed(0)} MB — ${compiled.rss < tsx.rss ? "meets" : "misses"} the goal of below tsx's`);
    console.log(`\n(${((Date.now() - begun) / 1000).toFixed(1)} s in all)`);
  } finally {
    clearTimeout(watchdog);
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
