// The restore drill's PostgreSQL side: scratch clusters under one directory (initdb, pg_ctl, as the `postgres`
// user when we are root), and the repository's scripts and pgBackRest run against them. Loopback only.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const PG_BIN = process.env.TILL_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Runs a command as `postgres` when we are root; its stdout. */
export async function asPostgres(file: string, args: string[]): Promise<string> {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  try {
    const { stdout } = await run(cmd, argv, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(file)} ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** Runs one of this folder's scripts (as root it switches user itself). */
export async function script(name: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(path.join(HERE, name), args, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    throw new Error(`${name} ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/** A directory the servers' user owns. */
export function ownedDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (asRoot) {
    const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
    if (!line) throw new Error("running as root needs a `postgres` user to run the clusters as");
    const [, , uid, gid] = line.split(":");
    chownSync(dir, Number(uid), Number(gid));
  }
  return dir;
}

export interface ScratchCluster {
  port: number;
  data: string;
  /** The directory of its Unix socket (the scratch root). */
  socket: string;
  url(database?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A cluster whose data directory is `data` (made by initdb or a restore), served on `port`. */
export function scratchCluster(data: string, port: number, socket: string): ScratchCluster {
  const log = `${data}.log`;
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${socket}`;
  return {
    port,
    data,
    socket,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      // -t: a point-in-time restore replays the archived WAL before it accepts connections
      await asPostgres(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-l", log, "-o", options, "-w", "-t", "600", "start"]);
    },
    async stop() {
      if (!existsSync(path.join(data, "postmaster.pid"))) return;
      await asPostgres(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "120", "stop"]);
    },
  };
}

/** A new cluster: initdb (trust on loopback) in `data`. */
export async function initCluster(data: string, port: number, socket: string): Promise<ScratchCluster> {
  await asPostgres(path.join(PG_BIN, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"]);
  return scratchCluster(data, port, socket);
}

/** Stops whatever a previous drill left running in `root` and removes it. */
export async function clearScratch(root: string, clusters: ScratchCluster[]): Promise<void> {
  for (const c of clusters) await c.stop().catch(() => {});
  rmSync(root, { recursive: true, force: true });
}

export interface BackupInfo {
  label: string;
  type: string;
  /** The database's size and what the backup takes in the repository (compressed), in bytes. */
  size: number;
  repoSize: number;
  seconds: number;
}

interface InfoJson {
  backup?: Array<{ label: string; type: string; info: { size: number; repository: { size: number } }; timestamp: { start: number; stop: number } }>;
}

/** pgBackRest's own record of the stanza's backups, oldest first. */
export async function backups(config: string, stanza: string): Promise<BackupInfo[]> {
  const out = await asPostgres("pgbackrest", [`--config=${config}`, `--stanza=${stanza}`, "--output=json", "info"]);
  const [info] = JSON.parse(out) as InfoJson[];
  return (info?.backup ?? []).map((b) => ({
    label: b.label,
    type: b.type,
    size: b.info.size,
    repoSize: b.info.repository.size,
    seconds: b.timestamp.stop - b.timestamp.start,
  }));
}

/** The repository's size on disk (backups and archived WAL), in bytes. */
export async function diskBytes(dir: string): Promise<number> {
  const { stdout } = await run("du", ["-sb", dir]);
  return Number(stdout.split(/\s/)[0]);
}
