// Runs the real `till` (node bin/till.js) as a child process against a test server, with a config
// directory of its own and a clean environment (no CI, no TILL_* from the outer shell, no terminal).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import type { Client } from "../helpers/client.js";

export const BIN = fileURLToPath(new URL("../../bin/till.js", import.meta.url));
export const TRACE_HOOK = fileURLToPath(new URL("./module-trace.mjs", import.meta.url));

export interface TillResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface TillOptions {
  configDir: string;
  env?: Record<string, string>;
  input?: string;
  nodeArgs?: string[];
  /** The working directory (default: the test runner's). */
  cwd?: string;
}

export function tempConfigDir(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), "till-cli-")), "config");
}

function environment(opts: TillOptions): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), TILL_CONFIG_DIR: opts.configDir, ...opts.env };
}

/** Starts `till …`; await the result, or read its streams while it runs. */
export function spawnTill(args: string[], opts: TillOptions): ResultPromise<{ reject: false; extendEnv: false; stripFinalNewline: false }> {
  return execa("node", [...(opts.nodeArgs ?? []), BIN, ...args], {
    env: environment(opts),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    input: opts.input,
    cwd: opts.cwd,
    timeout: 60_000,
  });
}

export async function till(args: string[], opts: TillOptions): Promise<TillResult> {
  const r = await spawnTill(args, opts);
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The user code `till login` prints to stderr ("Your one-time code: ABCD-EFGH"), as the server knows it. */
export function waitForUserCode(child: { stderr: NodeJS.ReadableStream | null }): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no user code on stderr; got: ${seen}`)), 30_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /one-time code: ([A-Z0-9]{4})-([A-Z0-9]{4})/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(`${m[1]}${m[2]}`);
      }
    });
  });
}

/** What the person does in the browser: open the verification page (claims the code), then approve. */
export async function approve(browser: Client, userCode: string): Promise<void> {
  const claim = await browser.get(`/api/auth/device?user_code=${userCode}`);
  if (claim.status !== 200) throw new Error(`GET /device: ${claim.status} ${claim.text}`);
  const res = await browser.post("/api/auth/device/approve", { userCode });
  if (res.status !== 200) throw new Error(`device/approve: ${res.status} ${res.text}`);
}

/** `till login` through the device flow, approved by `browser`'s user; returns the CLI's result. */
export async function login(server: string, browser: Client, opts: TillOptions, extraArgs: string[] = []): Promise<TillResult> {
  const child = spawnTill(["login", "--server", server, ...extraArgs], opts);
  const code = await waitForUserCode(child);
  await approve(browser, code);
  const r = await child;
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

export function parseJson<T = unknown>(stdout: string): T {
  return JSON.parse(stdout) as T;
}
