// NODE_ENV=production as an operator meets it: the server process refuses each unsafe setting with its own line
// (all of them listed, then a non-zero exit, before any database is opened), and a safe configuration starts
// with a banner that says what is on and carries no secret.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { unsafeInProduction } from "../../server/production-checks.js";
import { freePort } from "../helpers/ports.js";
import { serverArgs } from "../helpers/server-bundle.js";
import { stoppedAfterEach } from "../helpers/till-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A PGlite start (initdb and the migrations in WebAssembly) on a loaded 2-CPU machine: a bound for a hang. */
const START_TIMEOUT_MS = 240_000;
const SECRET = "production-secret-".padEnd(48, "s");
const SMTP_PASSWORD = "smtp-password-never-printed";

const running = stoppedAfterEach();

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The server's process (server-bundle.ts) with only `env` on top of a clean environment (no NODE_ENV, SMTP_URL… of
 * the runner's).
 */
function run(env: Record<string, string>): Run {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith("TILL_") || ["NODE_ENV", "HOST", "PORT", "SMTP_URL", "DATABASE_URL"].includes(name)) delete base[name];
  const child = spawn(process.execPath, serverArgs(), {
    cwd: ROOT,
    env: { ...base, TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-prod-")), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

const SAFE = { NODE_ENV: "production", TILL_BASE_URL: "https://till.example.com", SMTP_URL: `smtp://till:${SMTP_PASSWORD}@127.0.0.1:9` };

describe("NODE_ENV=production refuses unsafe settings", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["test payments for live organizations", { TILL_TEST_PAYMENTS: "live" }, /^ {2}- TILL_TEST_PAYMENTS=live: anyone could pay a live organization with a test card; .*$/m],
    ["an http:// base URL that is not loopback", { TILL_BASE_URL: "http://till.example.com" }, /^ {2}- TILL_BASE_URL=http:\/\/till\.example\.com: .*use https:\/\/.*$/m],
    [
      "no TILL_AUTH_SECRET with DATABASE_URL",
      { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/never_opened" },
      /^ {2}- TILL_AUTH_SECRET is not set while DATABASE_URL is: .*openssl rand -base64 32\)$/m,
    ],
    ["the dev mailbox", { SMTP_URL: "" }, /^ {2}- SMTP_URL is not set: mail would go to the dev mailbox \(.*\/mail\) and nobody would receive any; .*$/m],
  ];
  for (const [name, env, line] of cases) {
    it(`refuses ${name}, with its line`, { timeout: 120_000 }, async () => {
      const merged: Record<string, string> = { ...SAFE, PORT: String(await freePort()), ...env };
      if (merged.SMTP_URL === "") delete merged.SMTP_URL;
      const till = run(merged);
      expect(await till.exited).toBe(1);
      expect(till.output()).toMatch(/^till will not start with NODE_ENV=production and this unsafe setting:$/m);
      expect(till.output()).toMatch(line);
      expect(till.output()).not.toContain("till is listening");
    });
  }

  it("lists every unsafe setting at once", { timeout: 120_000 }, async () => {
    const till = run({
      NODE_ENV: "production",
      PORT: String(await freePort()),
      TILL_TEST_PAYMENTS: "live",
      TILL_BASE_URL: "http://203.0.113.7:3000",
      DATABASE_URL: "postgres://postgres:pw@127.0.0.1:5432/never_opened",
    });
    expect(await till.exited).toBe(1);
    const lines = till.output().split("\n").filter((l) => l.startsWith("  - "));
    expect(lines.map((l) => l.split(/[=: ]/)[3])).toEqual(["TILL_TEST_PAYMENTS", "TILL_BASE_URL", "TILL_AUTH_SECRET", "SMTP_URL"]);
    expect(till.output()).toContain("these 4 unsafe settings:");
  });

  it("takes http:// on loopback as safe", () => {
    const baseProblems = (url: string) =>
      unsafeInProduction(loadConfig({ ...SAFE, TILL_BASE_URL: url, TILL_DATA_DIR: os.tmpdir() })).filter((p) => p.startsWith("TILL_BASE_URL"));
    for (const url of ["http://localhost:3000", "http://127.0.0.1:3000", "http://127.1.2.3", "http://[::1]:3000", "http://till.localhost", "https://till.example.com"]) {
      expect(baseProblems(url), url).toEqual([]);
    }
    for (const url of ["http://10.0.0.1:3000", "http://till.example.com", "http://localhost.example.com", "http://[::2]"]) expect(baseProblems(url), url).toHaveLength(1);
    // the default base URL is loopback
    expect(unsafeInProduction(loadConfig({ ...SAFE, TILL_BASE_URL: undefined, TILL_DATA_DIR: os.tmpdir() }))).toEqual([]);
    expect(unsafeInProduction(loadConfig({ TILL_TEST_PAYMENTS: "live", TILL_BASE_URL: "http://till.example.com", TILL_DATA_DIR: os.tmpdir() }))).toEqual([]);
  });

  it("development starts with all of it, as before", { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    // development: the same settings start as before (no refusal, none of the production banner's lines)
    const port = await freePort();
    const dev = run({ PORT: String(port), TILL_TEST_PAYMENTS: "live", TILL_BASE_URL: `http://127.0.0.1:${port}` });
    await expect.poll(dev.output, { timeout: START_TIMEOUT_MS, interval: 200 }).toMatch(/next {6}.*\n/);
    expect(dev.output()).not.toContain("will not start");
    expect(dev.output()).not.toContain("  workers");
  });
});

describe("a safe production configuration", () => {
  it("starts, and its banner lists what is on without a secret", { timeout: START_TIMEOUT_MS + 60_000 }, async () => {
    const port = await freePort();
    const onPostgres = process.env.DATABASE_URL;
    const till = run({
      ...SAFE,
      PORT: String(port),
      ...(onPostgres ? { DATABASE_URL: onPostgres, TILL_AUTH_SECRET: SECRET } : {}),
      GITHUB_CLIENT_ID: "gh-client",
      GITHUB_CLIENT_SECRET: "gh-client-secret-never-printed",
      TILL_ORG_REVIEW: "required",
    });
    await expect.poll(till.output, { timeout: START_TIMEOUT_MS, interval: 200 }).toMatch(/next {6}.*\n/);
    const banner = till.output();
    expect(banner).toContain("till is listening on https://till.example.com (version ");
    expect(banner).toMatch(onPostgres ? /^ {2}database {2}PostgreSQL at 127\.0\.0\.1:5432\/\w+$/m : /^ {2}database {2}PGlite \(embedded\) in .*\/pglite$/m);
    expect(banner).toMatch(/^ {2}mail {6}SMTP via 127\.0\.0\.1:9 \(from till <no-reply@till\.localhost>\)$/m);
    expect(banner).toMatch(/^ {2}payments {2}each organization's own Stripe account once connected; the test processor for sandbox organizations only$/m);
    expect(banner).toMatch(/^ {2}sign-in {3}email and password, GitHub$/m);
    expect(banner).toMatch(onPostgres ? /^ {2}secret {4}TILL_AUTH_SECRET$/m : /^ {2}secret {4}generated once, kept in .*\/auth-secret$/m);
    expect(banner).toMatch(/^ {2}workers {3}outbox worker and schedules \(renewals, dunning, checkout expiry\) in this process, 1 renewal batch at a time$/m);
    expect(banner).toMatch(/^ {2}limits {4}100 requests per 60 s per address$/m);
    expect(banner).toMatch(/^ {2}log {7}json, level info$/m);
    expect(banner).toMatch(/^ {2}review {4}organizations wait for a platform admin's approval before going live$/m);
    for (const secret of [SECRET, SMTP_PASSWORD, "gh-client-secret-never-printed"]) expect(banner).not.toContain(secret);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});
