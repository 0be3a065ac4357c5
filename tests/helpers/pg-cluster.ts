// PostgreSQL servers of a test's own on loopback: a primary (initdb in a temp dir), a streaming replica of it
// (pg_basebackup -R) and PgBouncer in front of one, each started and stopped by the test. They need the server's
// binaries (Debian: postgresql-15, pgbouncer); `missingBinaries()` says which are missing so a test can skip.
// As root the servers run as the `postgres` user (PostgreSQL and PgBouncer refuse to run as root).
import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { reservePort } from "./ports.js";

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

/** The directory of initdb, pg_ctl and pg_basebackup: TILL_PG_BIN, else Debian's newest /usr/lib/postgresql/N/bin. */
function pgBin(): string | undefined {
  if (process.env.TILL_PG_BIN) return process.env.TILL_PG_BIN;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, "bin", "pg_basebackup"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : undefined;
}

const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => existsSync(p));

/** What is missing to run PostgreSQL clusters (and PgBouncer when asked) here; empty when nothing is. */
export function missingBinaries(opts: { pgbouncer?: boolean } = {}): string[] {
  const missing: string[] = [];
  const bin = pgBin();
  if (!bin || !["initdb", "pg_ctl", "pg_basebackup"].every((b) => existsSync(path.join(bin, b)))) missing.push("PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup)");
  if (opts.pgbouncer && !PGBOUNCER) missing.push("pgbouncer");
  return missing;
}

/** Runs a server binary, as `postgres` when we are root. */
async function exec(file: string, args: string[]): Promise<string> {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  const { stdout } = await run(cmd, argv, { maxBuffer: 4 * 1024 * 1024 });
  return stdout;
}

/** A temp dir the servers' user owns. */
function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

let postgresIds: { uid: number; gid: number } | undefined;
function postgresUser(): { uid: number; gid: number } {
  if (postgresIds) return postgresIds;
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("running as root needs a `postgres` user to run the test's servers as");
  const [, , uid, gid] = line.split(":");
  postgresIds = { uid: Number(uid), gid: Number(gid) };
  return postgresIds;
}

export interface Cluster {
  port: number;
  dir: string;
  /** A postgres:// URL of one of its databases. */
  url(database?: string): string;
  /**
   * Stops it (fast: open connections are ended; immediate: as a crash, no shutdown checkpoint); `start` starts it again
   * (nothing when it runs).
   */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

function makeCluster(dir: string, port: number): Cluster {
  const data = path.join(dir, "data");
  const log = path.join(dir, "log");
  // fsync off: a test's throw-away data, and the machine is shared
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c full_page_writes=off`;
  let running = false;
  const cluster: Cluster = {
    port,
    dir,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      if (running) return;
      await exec(path.join(pgBin()!, "pg_ctl"), ["-D", data, "-l", log, "-o", options, "-w", "-t", "120", "start"]);
      running = true;
    },
    async stop(mode: "fast" | "immediate" = "fast") {
      if (!running) return;
      await exec(path.join(pgBin()!, "pg_ctl"), ["-D", data, "-m", mode, "-w", "-t", "120", "stop"]);
      running = false;
    },
    async destroy() {
      await cluster.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** A new primary on a free loopback port: trust for 127.0.0.1, replication allowed. */
export async function startPrimary(): Promise<Cluster> {
  const dir = ownedTempDir("till-pg-primary-");
  const data = path.join(dir, "data");
  await exec(path.join(pgBin()!, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  // initdb --auth=trust already trusts local and 127.0.0.1 connections, replication included
  const { port, release } = await reservePort();
  await release();
  const cluster = makeCluster(dir, port);
  await cluster.start();
  return cluster;
}

/** A hot standby of `primary` streaming from it (pg_basebackup -R), on a free loopback port. */
export async function startReplica(primary: Cluster): Promise<Cluster> {
  const dir = ownedTempDir("till-pg-replica-");
  const data = path.join(dir, "data");
  await exec(path.join(pgBin()!, "pg_basebackup"), ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", data, "-R", "-X", "stream", "--no-sync"]);
  const { port, release } = await reservePort();
  await release();
  const cluster = makeCluster(dir, port);
  await cluster.start();
  return cluster;
}

/** Creates a database on a cluster (it reaches its replicas by streaming). */
export async function createDatabase(cluster: Cluster, name: string): Promise<string> {
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return cluster.url(name);
}

export interface Pooler {
  port: number;
  /** The pooled URL of `database`, with till's `pgbouncer=true`. */
  url(database: string): string;
  stop(): Promise<void>;
}

/** PgBouncer in transaction mode on a free loopback port, in front of `cluster` (any database, trust). */
export async function startPgBouncer(cluster: Cluster): Promise<Pooler> {
  const dir = ownedTempDir("till-pgbouncer-");
  const { port, release } = await reservePort();
  const ini = path.join(dir, "pgbouncer.ini");
  const pidfile = path.join(dir, "pgbouncer.pid");
  writeFileSync(path.join(dir, "users.txt"), `"postgres" ""\n`);
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=127.0.0.1 port=${cluster.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 500",
      "default_pool_size = 8",
      "ignore_startup_parameters = extra_float_digits",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      `pidfile = ${pidfile}`,
      "",
    ].join("\n"),
  );
  if (asRoot) {
    const { uid, gid } = postgresUser();
    for (const f of ["pgbouncer.ini", "users.txt"]) chownSync(path.join(dir, f), uid, gid);
  }
  await release();
  // -d: it forks into the background once it listens; the pidfile says which process to stop
  await exec(PGBOUNCER!, ["-d", ini]);
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}?pgbouncer=true`,
    async stop() {
      const pid = Number(readFileSync(pidfile, "utf8").trim());
      if (pid > 0) process.kill(pid, "SIGTERM");
      for (let i = 0; i < 100 && existsSync(pidfile); i++) await new Promise((r) => setTimeout(r, 50));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs teardown steps in order, each given at most `ms`: a step that hangs (a server closing on a broken
 * database) must not keep the clusters and the pooler, which come last, running after the test.
 */
export async function teardown(steps: Array<(() => Promise<unknown> | undefined) | undefined>, ms = 20_000): Promise<void> {
  for (const step of steps) {
    if (!step) continue;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.resolve(step()).catch(() => {}), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }
}
