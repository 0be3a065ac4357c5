// Start-up cost of the `till` CLI, each command as a ratio to a floor measured in the same run:
// - `till --help` and the `--json` commands (`till api GET /v1/organizations/`, `till orgs list`, `till products
//   list`) against the bare `node -e "import('commander')"` (goal ≤ 1.3×);
// - an interactive listing (`till orgs list` rendered with Ink, TILL_FORCE_TTY=1) against node + commander +
//   ink + react (goal ≤ 1.1×);
// - for the record, `till --help` through tsx instead of the esbuild bundle (why bin/till.js uses the bundle).
//
//   npm run bench:cli                 # BENCH_RUNS=30 for more runs
//
// The server runs in a child process (the real app on a fresh PGlite database, loopback only), signed in
// as a user with one organization, so the measured processes do not share an event loop with it. Runs are
// interleaved so load from elsewhere on the machine spreads over every case; the headline figure is the
// best of N runs (the least disturbed), the median is shown beside it. Each run also reports the CPU time
// it used (user + system, from process.cpuUsage() at exit, written by a --require'd probe to fd 3, the same
// for every case): on a machine busy with other work, wall times stretch with the queue for a CPU, CPU
// times much less, so the CPU ratio is the one to read when the load is above the number of CPUs.
// Runs on whichever Node runs it: `PATH=/path/to/node-24/bin:$PATH npm run bench:cli` for another line.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = path.join(ROOT, "bin", "till.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const HARD_LIMIT_MS = 180_000;

// ---- child: the server -------------------------------------------------------------------------------

async function serve(): Promise<void> {
  const { startServer } = await import("../tests/helpers/server.js");
  const { Client, uniqueEmail } = await import("../tests/helpers/client.js");
  const server = await startServer({ TILL_LOG_LEVEL: "silent" });
  const client = new Client(server.url);
  const { token } = await client.signUp(uniqueEmail("bench"));
  const org = await client.post("/api/auth/organization/create", { name: "Bench", slug: `bench-${Date.now()}` });
  if (org.status !== 200) throw new Error(`organization/create: ${org.status} ${org.text}`);
  // a short catalog for `till products list --json` to print
  for (const [i, amount] of [900, 1900, 4900].entries()) {
    const product = await client.post(
      "/v1/products/",
      { name: `Plan ${i + 1}`, recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: amount, price_currency: "usd" }] },
      { authorization: `Bearer ${token}` },
    );
    if (product.status !== 201) throw new Error(`POST /v1/products/: ${product.status} ${product.text}`);
  }
  process.stdout.write(`${JSON.stringify({ url: server.url, token })}\n`);
  // until the parent closes our stdin
  process.stdin.resume();
  process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
}

// ---- parent: the measurements ------------------------------------------------------------------------

interface Case {
  name: string;
  argv: string[];
  env?: Record<string, string>;
  floor?: string;
  goal?: number;
  /** Also shown as a ratio to this case (the same request without till: the CLI's own share). */
  ref?: string;
}

/** Loaded with --require into every measured process: its CPU time at exit, as JSON on fd 3. */
const CPU_PROBE = `process.once("exit", () => { try { require("node:fs").writeSync(3, JSON.stringify(process.cpuUsage())); } catch {} });\n`;
let probeFile = "";

interface Sample {
  wall: number;
  cpu: number;
}

function timeOnce(c: Case, env: NodeJS.ProcessEnv): Sample {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--require", probeFile, ...c.argv], {
    cwd: ROOT,
    env: { ...env, ...c.env },
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr}`);
  const usage = JSON.parse(String(r.output[3] ?? "")) as { user: number; system: number };
  return { wall, cpu: (usage.user + usage.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const best = (xs: number[]) => Math.min(...xs);

async function startServerChild(): Promise<{ url: string; token: string; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--serve"], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { url, token, stop: () => child.stdin.end() };
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error(`bench:cli did not finish within ${HARD_LIMIT_MS / 1000} s`);
    process.exit(1);
  }, HARD_LIMIT_MS);
  const server = await startServerChild();
  const configDir = path.join(mkdtempSync(path.join(os.tmpdir(), "till-bench-cli-")), "config");
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  // a signed-in profile, as `till login` leaves it
  writeFileSync(
    path.join(configDir, "config.json"),
    JSON.stringify({ profiles: { default: { server: server.url, token: server.token } } }),
    { mode: 0o600 },
  );
  probeFile = path.join(path.dirname(configDir), "cpu-probe.cjs");
  writeFileSync(probeFile, CPU_PROBE);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: os.tmpdir(), TILL_CONFIG_DIR: configDir };

  const commanderFloor = "floor: node + commander";
  const sameRequest = "ref: commander + the same GET over node:http";
  const inkFloor = "floor: node + commander + ink + react";
  const cases: Case[] = [
    { name: commanderFloor, argv: ["-e", "import('commander')"] },
    {
      name: inkFloor,
      argv: ["--input-type=module", "-e", "await import('commander'); await import('ink'); await import('react')"],
    },
    {
      // what the server and the loopback round trip cost, without any of till: the CLI's own share is the rest
      name: sameRequest,
      argv: [
        "--input-type=module",
        "-e",
        `await import('commander'); const { get } = await import('node:http');
         await new Promise((done) => get(${JSON.stringify(`${server.url}/v1/organizations/`)},
           { headers: { authorization: ${JSON.stringify(`Bearer ${server.token}`)} } },
           (res) => { res.resume(); res.on('end', done); }));`,
      ],
      floor: commanderFloor,
    },
    { name: "till --help", argv: [BIN, "--help"], floor: commanderFloor, goal: 1.3 },
    {
      name: "till api GET /v1/organizations/ --json",
      argv: [BIN, "api", "GET", "/v1/organizations/", "--json"],
      floor: commanderFloor,
      goal: 1.3,
      ref: sameRequest,
    },
    { name: "till orgs list --json", argv: [BIN, "orgs", "list", "--json"], floor: commanderFloor, goal: 1.3 },
    { name: "till products list --json", argv: [BIN, "products", "list", "--json"], floor: commanderFloor, goal: 1.3 },
    { name: "till orgs list (Ink table)", argv: [BIN, "orgs", "list"], env: { TILL_FORCE_TTY: "1" }, floor: inkFloor, goal: 1.1 },
    {
      name: "till --help via tsx (no bundle)",
      argv: [
        "--input-type=module",
        "-e",
        `const { register } = await import('tsx/esm/api'); register(); const { main } = await import(${JSON.stringify(path.join(ROOT, "cli", "main.ts"))}); process.exitCode = await main(['node', 'till', '--help']);`,
      ],
      floor: commanderFloor,
    },
  ];

  // warm-up: builds dist/cli if the sources changed, writes the code caches, fills the OS file cache
  for (const c of cases) timeOnce(c, env);
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  for (let i = 0; i < RUNS; i++) for (const c of cases) samples.get(c.name)?.push(timeOnce(c, env));
  server.stop();
  clearTimeout(deadline);
  rmSync(path.dirname(configDir), { recursive: true, force: true });

  const of = (name: string | undefined, key: keyof Sample) => (name ? (samples.get(name) ?? []).map((x) => x[key]) : []);
  const ratioText = (x: number) => (Number.isNaN(x) ? "" : `${x.toFixed(2)}×`);
  console.log(`till CLI start-up, ${RUNS} interleaved runs each (Node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]?.toFixed(1)})\n`);
  console.log(
    `${"".padEnd(44)}${"best ms".padStart(9)}${"median".padStart(8)}${"ratio".padStart(8)}${"(median)".padStart(10)}` +
      `${"cpu ms".padStart(8)}${"ratio".padStart(8)}  goal (wall, cpu)`,
  );
  for (const c of cases) {
    const [wall, cpu, floorWall, floorCpu] = [of(c.name, "wall"), of(c.name, "cpu"), of(c.floor, "wall"), of(c.floor, "cpu")];
    const ratio = c.floor ? best(wall) / best(floorWall) : NaN;
    const ratioMedian = c.floor ? median(wall) / median(floorWall) : NaN;
    const cpuRatio = c.floor ? best(cpu) / best(floorCpu) : NaN;
    const verdict = c.goal === undefined ? "" : `≤ ${c.goal}×: ${ratio <= c.goal ? "ok" : "MISSED"}, ${cpuRatio <= c.goal ? "ok" : "MISSED"}`;
    const ref = c.ref ? `  (${(best(wall) / best(of(c.ref, "wall"))).toFixed(2)}× the same request without till)` : "";
    console.log(
      `${c.name.padEnd(44)}${best(wall).toFixed(0).padStart(9)}${median(wall).toFixed(0).padStart(8)}` +
        `${ratioText(ratio).padStart(8)}${ratioText(ratioMedian).padStart(10)}${best(cpu).toFixed(0).padStart(8)}${ratioText(cpuRatio).padStart(8)}  ${verdict}${ref}`,
    );
  }
}

if (process.argv.includes("--serve")) await serve();
else await main();
