// The real server as its own process (the bundle of server/main.ts, or the sources through tsx: server-bundle.ts),
// for tests that need a second replica beside an in-process one, or a process they can kill.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { freshDatabase, usingPostgres } from "./db.js";
import { freePort } from "./ports.js";
import { serverArgs } from "./server-bundle.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface Till {
  child: ChildProcess;
  exited: Promise<void>;
  output: string[];
}

export { freePort } from "./ports.js";

/**
 * How long a server process may take to listen. Its start costs about 2 s of CPU on PostgreSQL from the bundle,
 * 4–6 s through tsx (compiling the sources, the migrations' check), which a process gets in 20–30 s on 2 CPUs
 * under a load of 20 (measured), against a few seconds on a quiet machine: the bound is for a process that hangs.
 */
export const START_TIMEOUT_MS = 120_000;

/**
 * Starts the server as its own process with this environment; resolves once it listens and its worker runs.
 * `cwd`: another checkout's root (the previous release's sources), this one by default.
 */
export async function startTill(env: Record<string, string>, cwd: string = ROOT): Promise<Till> {
  const base = { ...process.env };
  delete base.SMTP_URL;
  // another checkout (the previous release's sources) has no bundle: it runs through tsx
  const args = cwd === ROOT ? serverArgs() : ["--import", "tsx", "server/main.ts"];
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`till did not start:\n${output.join("")}`)), START_TIMEOUT_MS);
    child.stdout!.on("data", (chunk: Buffer) => {
      output.push(chunk.toString("utf8"));
      if (output.join("").includes("till is listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`till exited before listening:\n${output.join("")}`));
    });
  });
  return { child, exited, output };
}

/** A server process of a test file's own: on a fresh database (PostgreSQL when the suite runs there), a data dir. */
export interface OwnTill {
  till: Till;
  baseUrl: string;
  /** Stops the process (SIGTERM, or `signal`) if it still runs, then drops its database. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the server as its own process on a free loopback port, a fresh database and a data dir of its own
 * (`tag` names the dir and the secret), with `env` on top.
 */
export async function startOwnTill(tag: string, env: Record<string, string> = {}): Promise<OwnTill> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const database = usingPostgres ? await freshDatabase() : undefined;
  const till = await startTill({
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    PORT: String(port),
    HOST: "127.0.0.1",
    TILL_BASE_URL: baseUrl,
    TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), `till-${tag}-`)),
    TILL_AUTH_SECRET: `${tag}-test-secret-`.padEnd(40, "x"),
    ...env,
  });
  return {
    till,
    baseUrl,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (till.child.exitCode === null && till.child.signalCode === null) {
        till.child.kill(signal);
        await till.exited;
      }
      await database?.close();
    },
  };
}

/** Children a test started, stopped (SIGTERM) and awaited after each test. */
export function stoppedAfterEach(): ChildProcess[] {
  const running: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of running.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  });
  return running;
}
