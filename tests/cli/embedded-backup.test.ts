// `till admin backup|restore` round trip, through the real CLI and the real server process on an embedded data
// directory: data made over the API, the server stopped, backed up, the directory wiped, restored, the server
// started again, and the data (and the seller's session) still there. Refusals: a running server, a bad file, a
// directory that holds data without --force; none of them changes anything.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createProduct } from "../helpers/checkout.js";
import { freePort } from "../helpers/ports.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { serverArgs } from "../helpers/server-bundle.js";
import { spawnTill, tempConfigDir } from "./till.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** A PGlite start (initdb and the migrations in WebAssembly) on a loaded 2-CPU machine: a bound for a hang. */
const START_TIMEOUT_MS = 240_000;

interface Server {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

const started: Server[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

/** The server process on the embedded database in `dataDir`, in a clean environment; resolves once it listens. */
async function startServer(dataDir: string): Promise<Server> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith("TILL_") || ["NODE_ENV", "HOST", "PORT", "SMTP_URL", "DATABASE_URL"].includes(name)) delete base[name];
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs(), {
    cwd: ROOT,
    env: { ...base, PORT: String(port), TILL_BASE_URL: `http://127.0.0.1:${port}`, TILL_DATA_DIR: dataDir, TILL_RATE_LIMIT: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  let how = "";
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      how = String(code ?? signal);
      resolve();
    }),
  );
  const server: Server = {
    child,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
  started.push(server);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${out}`)), START_TIMEOUT_MS);
    child.stdout!.on("data", () => {
      if (!/next {6}.*\n/.test(out)) return;
      clearTimeout(timer);
      resolve();
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${how}) before its banner:\n${out}`));
    });
  });
  return server;
}

const configDir = tempConfigDir();
const till = (args: string[]) => spawnTill(["admin", ...args], { configDir });

/** Each file under `dir` with its size, to show that a refused command changed nothing. */
function snapshot(dir: string): Record<string, number> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const p = path.join(e.parentPath, e.name);
        return [path.relative(dir, p), statSync(p).size];
      }),
  );
}

describe("till admin backup and restore", () => {
  it("round-trips a stopped embedded server's data, and refuses what would harm it", { timeout: 3 * START_TIMEOUT_MS }, async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), "till-backup-"));
    const dataDir = path.join(work, "data");
    const file = path.join(work, "till.backup");

    const first = await startServer(dataDir);
    const seller = await createSeller(first, "backup");
    const product = await createProduct(seller, "fixed");

    // a running server holds its data directory
    const busy = await till(["backup", file, "--data-dir", dataDir]);
    expect(busy.exitCode).toBe(1);
    expect(busy.stderr).toMatch(/is in use by the till server \(http:\/\/127\.0\.0\.1:\d+\) \(process \d+, since .*\)/);
    expect(busy.stderr).toContain("stop the server first");
    expect(existsSync(file)).toBe(false);
    await first.stop();
    // a stored file (product downloads and invoices are kept under files/)
    const stored = path.join(dataDir, "files", "org", "download.bin");
    mkdirSync(path.dirname(stored), { recursive: true });
    writeFileSync(stored, Buffer.from([0, 1, 2, 254, 255]));

    const made = await till(["backup", file, "--data-dir", dataDir, "--json"]);
    expect(made.exitCode, made.stderr).toBe(0);
    const report = JSON.parse(made.stdout) as { file: string; bytes: number; auth_secret: boolean };
    expect(report).toMatchObject({ file, auth_secret: true, files: 1 });
    expect(statSync(file).size).toBe(report.bytes);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // no replacing a backup by accident
    expect((await till(["backup", file, "--data-dir", dataDir])).stderr).toContain("exists");

    // a directory that holds data is not replaced without --force
    const before = snapshot(dataDir);
    const held = await till(["restore", file, "--data-dir", dataDir]);
    expect(held.exitCode).toBe(2);
    expect(held.stderr).toContain("already holds data (pglite, files, auth-secret)");
    // a bad file changes nothing, even with --force: not a backup, a damaged one, one cut short
    const garbage = path.join(work, "garbage.backup");
    writeFileSync(garbage, "hello\n");
    const damaged = path.join(work, "damaged.backup");
    const bytes = readFileSync(file);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    writeFileSync(damaged, bytes);
    const short = path.join(work, "short.backup");
    writeFileSync(short, readFileSync(file));
    truncateSync(short, statSync(short).size - 10);
    for (const [bad, reason] of [
      [garbage, "it is not a till backup"],
      [damaged, "pglite.tar.gz does not match its SHA-256 (the file is damaged)"],
      [short, "the file ends early"],
    ] as const) {
      const refused = await till(["restore", bad, "--data-dir", dataDir, "--force"]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(`cannot be restored: ${reason}`);
      expect(refused.stderr).toContain("Nothing was changed.");
    }
    expect((await till(["restore", garbage, "--data-dir", path.join(work, "fresh")])).exitCode).toBe(2);
    expect(existsSync(path.join(work, "fresh"))).toBe(false);
    expect(snapshot(dataDir)).toEqual(before);

    rmSync(dataDir, { recursive: true, force: true });
    const restored = await till(["restore", file, "--data-dir", dataDir]);
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/^Restored .*data from the backup of .* \(till \d+\.\d+\.\d+\)\. Start the server on it\.\n$/);
    expect(statSync(path.join(dataDir, "auth-secret")).mode & 0o777).toBe(0o600);
    expect([...readFileSync(stored)]).toEqual([0, 1, 2, 254, 255]);

    const second = await startServer(dataDir);
    // the seller's session (signed with the restored secret) and the product are there
    const again = await sdkFor(second, seller.token).products.get({ id: product.id }).catch((err: unknown) => err);
    expect(again).toMatchObject({ id: product.id, name: product.name });
    await second.stop();

    // --force replaces a directory that holds data
    const forced = await till(["restore", file, "--data-dir", dataDir, "--force"]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readdirSync(dataDir).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("says what they do in --help", async () => {
    const help = await till(["backup", "--help"]);
    expect(help.stdout).toContain("Usage: till admin backup [options] <file>");
    expect(help.stdout).toContain("--data-dir <dir>");
    expect(help.stdout).toContain("stop the server first");
    const restore = await till(["restore", "--help"]);
    expect(restore.stdout).toContain("--force");
    expect(restore.stdout).toContain("before anything changes");
  });
});
