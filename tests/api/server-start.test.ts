// `npm start` as a newcomer sees it: the server process on its defaults binds to loopback only, prints a
// banner (URL, database, mail, next command) and one readable line per request; in production the log is
// JSON, and binding to every interface is an explicit HOST that the banner points out.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createConnection } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startupBanner } from "../../server/banner.js";
import { loadConfig } from "../../server/config.js";
import { formatLine } from "../../server/http/request-log.js";
import { freePort } from "../helpers/ports.js";
import { serverArgs } from "../helpers/server-bundle.js";
import { stoppedAfterEach } from "../helpers/till-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
}

const running = stoppedAfterEach();

/**
 * How long the server may take to print its banner: on its defaults it creates an embedded PGlite database in
 * its data directory (initdb and the migrations in WebAssembly), about 12 s of CPU on Node 20 and 24 alike,
 * which took 64–150 s on 2 CPUs under a load of 22–25 (measured): the bound is for a process that hangs.
 */
const START_TIMEOUT_MS = 240_000;

/**
 * `node server/main.ts` with the environment a fresh machine has, plus `env` (TILL_DATA_DIR: a new directory):
 * through tsx as `npm start` runs it, or with NODE_ENV=production from the bundle, as production runs (its build).
 */
async function start(env: Record<string, string>): Promise<Running> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of ["NODE_ENV", "HOST", "TILL_LOG_FORMAT", "SMTP_URL", "DATABASE_URL", "TILL_BASE_URL", "PORT", "TILL_LOG_LEVEL", "TILL_TEST_PAYMENTS"]) delete base[name];
  const port = await freePort();
  const args = env.NODE_ENV === "production" ? serverArgs() : ["--import", "tsx", "server/main.ts"];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...base, PORT: String(port), TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-start-")), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  // until the banner's last line; a process that ends first fails at once, with its output
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${START_TIMEOUT_MS / 1000} s:\n${out}`)), START_TIMEOUT_MS);
    const check = () => {
      if (!/next {6}.*\n/.test(out)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", check);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before its banner:\n${out}`));
    });
  });
  return { child, port, output: () => out };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** An address of this machine other than loopback, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === "IPv4")?.address;

/** The first start's data directory, its PGlite database made (the second start opens it again: no initdb). */
let madeDataDir: string | undefined;

describe("npm start on its defaults", () => {
  it("listens on loopback only, prints the banner and one readable line per request", { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-start-"));
    const till = await start({ TILL_DATA_DIR: dataDir });
    madeDataDir = dataDir;
    const banner = till.output();
    expect(banner).toContain(`till is listening on http://localhost:${till.port} (version `);
    expect(banner).toMatch(/ {2}database {2}PGlite \(embedded\) in \/.*till-start-.*\/pglite\n/);
    expect(banner).toMatch(/ {2}mail {6}dev mailbox: nothing is sent; each message goes to .*\/mail and its links are printed here; read them at http:\/\/localhost:\d+\/dev\/mail\n/);
    expect(banner).toContain(
      `  next      \`npx till signup --server http://localhost:${till.port}\` (or create your account at http://localhost:${till.port}/sign-in?mode=sign-up, ` +
        `then \`npx till login --server http://localhost:${till.port}\`)`,
    );
    expect(banner).not.toContain("network");
    expect(banner).not.toContain("payments");

    expect(await accepts("127.0.0.1", till.port)).toBe(true);
    // every other interface refuses (a machine with no other interface has nothing more to check)
    expect(outsideAddress === undefined || !(await accepts(outsideAddress, till.port))).toBe(true);

    const res = await fetch(`http://127.0.0.1:${till.port}/healthz`);
    expect(res.status).toBe(200);
    // development with the dev mailbox: the mailbox page, to this loopback client
    const mailbox = await fetch(`http://127.0.0.1:${till.port}/dev/mail`);
    expect(mailbox.status).toBe(200);
    expect(await mailbox.text()).toContain("<h1>Dev mailbox</h1>");
    await expect.poll(() => till.output()).toMatch(/\n\d\d:\d\d:\d\d GET \/healthz 200 \d+ ms\n/);
    // one line for the request, not Fastify's two, and no JSON on a development log
    expect(till.output()).not.toContain("incoming request");
    expect(till.output()).not.toContain('{"level"');
  });

  it("NODE_ENV=production logs JSON lines; HOST=0.0.0.0 is said in the banner", { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    // stopped by SIGTERM, the first server left a database this one opens and migrates again (nothing to do)
    // SMTP_URL: production refuses the dev mailbox (nothing is mailed here: the peer is never reached)
    const till = await start({ NODE_ENV: "production", HOST: "0.0.0.0", SMTP_URL: "smtp://127.0.0.1:9", ...(madeDataDir ? { TILL_DATA_DIR: madeDataDir } : {}) });
    expect(till.output()).toContain("  network   bound to 0.0.0.0: reachable from other machines (HOST=127.0.0.1 keeps it on this one)");
    await fetch(`http://127.0.0.1:${till.port}/healthz`);
    await expect.poll(() => till.output()).toContain('"msg":"request completed"');
    // no mailbox page outside development
    expect((await fetch(`http://127.0.0.1:${till.port}/dev/mail`)).status).toBe(404);
    const line = till.output().split("\n").find((l) => l.includes('"request completed"'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, req: { method: "GET", url: "/healthz" }, res: { statusCode: 200 } });
  });
});

describe("the start-up banner's next step", () => {
  it("carries --server in both commands when the server is not where the CLI looks by default", () => {
    const next = (port: string) =>
      startupBanner(loadConfig({ PORT: port, TILL_DATA_DIR: os.tmpdir() }), "dev-mailbox", "0.1.0")
        .split("\n")
        .find((l) => l.startsWith("  next"));
    expect(next("3000")).toBe("  next      `npx till signup` (or create your account at http://localhost:3000/sign-in?mode=sign-up, then `npx till login`)");
    expect(next("4000")).toBe(
      "  next      `npx till signup --server http://localhost:4000` (or create your account at http://localhost:4000/sign-in?mode=sign-up, then `npx till login --server http://localhost:4000`)",
    );
  });
});

describe("the development log format", () => {
  it("colours statuses on a terminal, names levels other than info, and passes non-JSON through", () => {
    const t = Date.UTC(2026, 0, 2, 3, 4, 5);
    const req = JSON.stringify({ level: 30, time: t, req: { method: "POST", url: "/v1/products/" }, res: { statusCode: 422 }, responseTime: 3.4, msg: "request completed" });
    expect(formatLine(req, false)).toBe("03:04:05 POST /v1/products/ 422 3 ms");
    expect(formatLine(req, true)).toContain("\u001B[33m422\u001B[39m");
    expect(formatLine(JSON.stringify({ level: 40, time: t, msg: "slow", attempt: 2 }), false)).toBe('03:04:05 warn slow {"attempt":2}');
    expect(formatLine("[mail] hello", false)).toBe("[mail] hello");
  });
});
