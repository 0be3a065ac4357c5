// How bin/till.js runs the esbuild bundle on each Node line, with its fallbacks: the main script's V8 code cache
// (one per Node version; a cache V8 refuses is replaced, the run unaffected) and, on Node 22+, Node's compile
// cache for what is loaded on use (the Ink screens), turned on only then; on Node 20, or with that cache
// unusable, `till` runs without it. Each test runs a copy of the install (bin/ and dist/cli copied, the rest
// linked), so the caches it breaks are its own, and runs `till` on the `node` of PATH, as a user does (CI puts
// Node 24 or 22 there).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { person } from "../auth/key-fixtures.js";
import { login, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let server: TestServer;
let cli: TillOptions;
/** The Node that runs `till` (the first `node` on PATH): version, arch, and whether it has a compile cache. */
let node: { version: string; arch: string; compileCache: boolean };
const installs: string[] = [];

beforeAll(async () => {
  const probe = await execa("node", ["-p", 'JSON.stringify({ version: process.version, arch: process.arch, compileCache: typeof require("node:module").enableCompileCache === "function" })']);
  node = JSON.parse(probe.stdout) as typeof node;
  server = await startServer();
  const dana = await person(server, "dana");
  cli = { configDir: tempConfigDir() };
  // also builds dist/cli when the sources changed, before any copy is made
  const r = await login(server.url, dana.client, cli);
  if (r.exitCode !== 0) throw new Error(`login failed: ${r.stderr}`);
  const created = await till(["orgs", "create", "Acme Inc", "--json"], cli);
  if (created.exitCode !== 0) throw new Error(`orgs create failed: ${created.stderr}`);
});
afterAll(async () => {
  for (const dir of installs) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

/** A copy of the install: bin/ and dist/cli (the bundle, without any cache) copied, everything else linked. */
function copyInstall(): { root: string; dist: string; entry: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), "till-install-"));
  installs.push(root);
  for (const name of readdirSync(ROOT)) {
    if (name === "bin" || name === "dist" || name.startsWith(".")) continue;
    symlinkSync(path.join(ROOT, name), path.join(root, name));
  }
  cpSync(path.join(ROOT, "bin"), path.join(root, "bin"), { recursive: true });
  const dist = path.join(root, "dist", "cli");
  mkdirSync(dist, { recursive: true });
  for (const name of readdirSync(path.join(ROOT, "dist", "cli"))) {
    if (name.endsWith(".js") || name.endsWith(".cjs") || name === "manifest.json") cpSync(path.join(ROOT, "dist", "cli", name), path.join(dist, name), { preserveTimestamps: true });
  }
  const { entry } = JSON.parse(readFileSync(path.join(dist, "manifest.json"), "utf8")) as { entry: string };
  return { root, dist, entry: path.join(dist, entry) };
}

async function tillIn(root: string, args: string[], env: Record<string, string> = {}): Promise<TillResult> {
  const r = await execa("node", [path.join(root, "bin", "till.js"), ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), TILL_CONFIG_DIR: cli.configDir, ...env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    timeout: 60_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** A terminal run's stderr holds at most the spinner (shown while a request is slow), no warning or error. */
function expectQuiet(stderr: string): void {
  expect(stderr).not.toMatch(/warn|error|deprecat|cache/i);
}

/** Whether this Node's V8 takes `cache` (bin/till.js's format: one byte, then V8's data) for the script `file`. */
async function v8Accepts(file: string, cache: string): Promise<boolean> {
  const check = `const fs = require("node:fs"); const vm = require("node:vm");
    const data = fs.readFileSync(process.argv[2]).subarray(1);
    const script = new vm.Script(fs.readFileSync(process.argv[1], "utf8"), { filename: process.argv[1], cachedData: data });
    process.stdout.write(String(data.length > 0 && !script.cachedDataRejected));`;
  return (await execa("node", ["-e", check, file, cache])).stdout === "true";
}

describe("the main script's V8 code cache", () => {
  it("is one file per Node version; a cache V8 refuses is replaced by one it takes, the run unaffected", async () => {
    const { root, dist, entry } = copyInstall();
    const expected = await till(["--help"], cli);
    expect(expected.exitCode).toBe(0);

    // the first run writes this Node's cache, named after it
    const mine = `${entry}.${node.version}-${node.arch}.cache`;
    const first = await tillIn(root, ["--help"]);
    expect(first).toEqual({ exitCode: 0, stdout: expected.stdout, stderr: "" });
    expect(await v8Accepts(entry, mine)).toBe(true);

    // another Node's cache beside it is left alone; a damaged (or foreign) one of ours is refused by V8 and replaced
    const other = `${entry}.v0.0.0-${node.arch}.cache`;
    writeFileSync(other, Buffer.from([1, 2, 3, 4]));
    const garbage = Buffer.concat([Buffer.from([1]), Buffer.alloc(4096, 7)]);
    writeFileSync(mine, garbage);
    expect(await v8Accepts(entry, mine)).toBe(false);
    const second = await tillIn(root, ["--help"]);
    expect(second).toEqual(first);
    expect(readFileSync(mine).equals(garbage)).toBe(false);
    expect(await v8Accepts(entry, mine)).toBe(true);
    expect(readFileSync(other)).toEqual(Buffer.from([1, 2, 3, 4]));

    // a request run after a --help run (byte 0) replaces the cache once, so that it covers the request path too
    expect(readFileSync(mine)[0]).toBe(0);
    const json = await tillIn(root, ["orgs", "list", "--json"]);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.stderr).toBe("");
    expect(readFileSync(mine)[0]).toBe(1);
    expect(await v8Accepts(entry, mine)).toBe(true);
    // runs that load nothing on use do not turn Node's compile cache on (it would cost them time)
    expect(existsSync(path.join(dist, "compile-cache"))).toBe(false);
  });
});

describe("Node's compile cache for the modules loaded on use", () => {
  it("holds the Ink screens on Node 22+; Node 20 runs without it", async () => {
    const { root, dist } = copyInstall();
    const env = { TILL_FORCE_TTY: "1", NO_COLOR: "1" };
    const expected = await till(["orgs", "list"], { ...cli, env });
    expect(expected.exitCode, expected.stderr).toBe(0);
    const cold = await tillIn(root, ["orgs", "list"], env);
    expect(cold.exitCode, cold.stderr).toBe(0);
    expect(cold.stdout).toBe(expected.stdout);
    expectQuiet(cold.stderr);
    const cacheDir = path.join(dist, "compile-cache");
    if (node.compileCache) {
      // Node keeps one directory per Node version, each entry named by a hash of the module's path
      const versions = readdirSync(cacheDir);
      expect(versions.some((v) => v.startsWith(`${node.version}-${node.arch}-`))).toBe(true);
      const entries = versions.flatMap((v) => readdirSync(path.join(cacheDir, v)));
      expect(entries.length).toBeGreaterThan(0);
    } else {
      expect(existsSync(cacheDir)).toBe(false);
    }
    const warm = await tillIn(root, ["orgs", "list"], env);
    expect(warm.exitCode, warm.stderr).toBe(0);
    expect(warm.stdout).toBe(expected.stdout);
    expectQuiet(warm.stderr);
  });

  it("a compile cache Node cannot use (not a directory) or turned off changes nothing but the speed", async () => {
    const { root, dist } = copyInstall();
    writeFileSync(path.join(dist, "compile-cache"), "not a directory");
    const env = { TILL_FORCE_TTY: "1", NO_COLOR: "1" };
    const expected = await till(["orgs", "list"], { ...cli, env });
    for (const extra of [{}, { NODE_DISABLE_COMPILE_CACHE: "1" }] as Record<string, string>[]) {
      const r = await tillIn(root, ["orgs", "list"], { ...env, ...extra });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
      expectQuiet(r.stderr);
    }
  });
});
