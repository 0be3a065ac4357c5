// Runs the real `till` (node bin/till.js) as a child process against a test server, with a config
// directory of its own and a clean environment (no CI, no TILL_* from the outer shell, no terminal).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
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

/**
 * Starts `till …` in a pseudo-terminal, as a person runs it: script(1) from util-linux gives it a terminal on
 * stdin, stdout and stderr (what piped stdio never shows: the Ink screens, the browser opener). Its output
 * (stdout and stderr together, as the terminal shows them) is the child's stdout; read it with `screenText`.
 */
export function spawnTillInTerminal(args: string[], opts: TillOptions): ResultPromise<{ reject: false; extendEnv: false; stripFinalNewline: false }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = ["node", ...(opts.nodeArgs ?? []), BIN, ...args].map(quote).join(" ");
  return execa("script", ["-qfec", command, "/dev/null"], {
    env: { ...environment(opts), SHELL: "/bin/sh", TERM: "xterm-256color" },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    input: opts.input,
    cwd: opts.cwd,
    timeout: 60_000,
  });
}

/** A terminal's output as text: escape sequences (colours, cursor moves) and carriage returns removed. */
export function screenText(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|\r/g, "");
}

/** A person at the terminal of `spawnTillInTerminal`'s child: waits for text on the screen, types. */
export interface Terminal {
  /** The next match of `pattern` after the previous one found (escape sequences removed). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Keys typed: "\r" is Enter. */
  type(keys: string): void;
  /** All of the screen so far, as text. */
  text(): string;
}

export function terminal(child: { stdout: NodeJS.ReadableStream | null; stdin: NodeJS.WritableStream | null }): Terminal {
  let seen = "";
  let from = 0;
  let ended = false;
  const waiters = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    seen += chunk.toString();
    for (const w of waiters) w();
  });
  child.stdout?.on("end", () => {
    ended = true;
    for (const w of waiters) w();
  });
  return {
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const rest = screenText(seen).slice(from);
          const m = pattern.exec(rest);
          if (m) {
            from += m.index + m[0].length;
            done();
            resolve(m);
          } else if (ended) {
            done();
            reject(new Error(`${pattern} never appeared before the output ended; got: ${rest}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${pattern} never appeared; got: ${screenText(seen).slice(from)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    type(keys) {
      child.stdin?.write(keys);
    },
    text: () => screenText(seen),
  };
}

/** Resolves with the first match of `pattern` in what `stream` has written so far (escape sequences removed). */
export function waitForText(stream: NodeJS.ReadableStream | null, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`${pattern} never appeared; got: ${screenText(seen)}`)), timeoutMs);
    stream?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const m = pattern.exec(screenText(seen));
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    stream?.on("end", () => {
      clearTimeout(timer);
      reject(new Error(`${pattern} never appeared before the output ended; got: ${screenText(seen)}`));
    });
  });
}

/**
 * A stand-in for the person's browser, reached the way xdg-open reaches one on a machine with no desktop
 * (through $BROWSER): it records the URL it was asked to open and exits with `exitCode`.
 */
export function fakeBrowser(exitCode: number): { env: Record<string, string>; opened: () => string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-browser-"));
  const log = path.join(dir, "opened.txt");
  const bin = path.join(dir, "browser");
  writeFileSync(log, "");
  writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\nexit ${exitCode}\n`);
  chmodSync(bin, 0o755);
  return { env: { BROWSER: bin }, opened: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== "") };
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

/**
 * What is left on a terminal's screen once the output is played: lines erased (`ESC[2K`) and the cursor moved up
 * (`ESC[nA`) or to the line's start (`ESC[G`, `\r`) as a terminal does, so a spinner that was drawn and erased
 * is not there; other escape sequences are dropped. Trailing empty lines are kept as output ends with them.
 */
export function finalScreen(raw: string): string {
  const lines: string[] = [""];
  let row = 0;
  let col = 0;
  // eslint-disable-next-line no-control-regex
  const tokens = raw.match(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|\r|\n|[^\u001b\r\n]+/g) ?? [];
  for (const t of tokens) {
    if (t === "\n") {
      row += 1;
      col = 0;
      if (lines.length <= row) lines.push("");
    } else if (t === "\r") col = 0;
    else if (t.startsWith("\u001b[")) {
      const n = Number(t.slice(2, -1)) || 1;
      const op = t.at(-1);
      if (op === "K") lines[row] = "";
      else if (op === "A") row = Math.max(0, row - n);
      else if (op === "G") col = 0;
    } else if (!t.startsWith("\u001b")) {
      const line = lines[row]!;
      lines[row] = line.slice(0, col) + t + line.slice(col + t.length);
      col += t.length;
    }
  }
  return lines.filter((l, i) => l !== "" || i === lines.length - 1 || lines.slice(i + 1).some((x) => x !== "")).join("\n");
}
