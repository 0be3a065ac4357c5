// `till admin backup <file>` and `till admin restore <file>`: the embedded server's data directory (TILL_DATA_DIR,
// default ./.till: the PGlite database, the generated server secret, the stored files) in one file and back, for a
// stopped server. A running server holds the directory (shared/data-dir-lock.ts) and both refuse while it does:
// PGlite has one writer, and a copy taken under it would not be consistent. A server on PostgreSQL is backed up
// with PostgreSQL's own tools (docs/operations.md).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { CliError, EXIT, UsageError } from "../errors.js";
import { BadBackupError, DATABASE_ENTRY, FILES_DIR, SECRET_ENTRY, filesUnder, openBackup, writeBackup, type OpenedBackup } from "../embedded-backup.js";
import { DataDirBusyError, lockDataDir } from "../../shared/data-dir-lock.js";
import pkg from "../../package.json" with { type: "json" };

interface Options {
  dataDir?: string;
  force?: boolean;
}

/** What a data directory holds that a restore replaces (the dev mailbox and the lock file stay). */
const RESTORED = ["pglite", FILES_DIR, SECRET_ENTRY] as const;

const dataDirOf = (ctx: Context, opts: Options) => path.resolve(opts.dataDir ?? ctx.env.dataDir ?? ".till");

function lock(dataDir: string, owner: string): () => void {
  try {
    return lockDataDir(dataDir, owner);
  } catch (err) {
    if (!(err instanceof DataDirBusyError)) throw err;
    throw new CliError(`${err.message}`, { code: "data_dir_in_use", hint: "stop the server first: a backup or restore works on a stopped server's data directory" });
  }
}

function present(dataDir: string, name: string): boolean {
  const p = path.join(dataDir, name);
  if (!existsSync(p)) return false;
  return !statSync(p).isDirectory() || readdirSync(p).length > 0;
}

async function dumpDatabase(dbDir: string): Promise<Uint8Array> {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite({ dataDir: dbDir });
  try {
    // dumpDataDir before the database is ready never settles
    await db.waitReady;
    return new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer());
  } finally {
    await db.close();
  }
}

async function backup(ctx: Context, opts: Options, [file = ""]: string[]): Promise<void> {
  const dataDir = dataDirOf(ctx, opts);
  if (!existsSync(path.join(dataDir, "pglite", "PG_VERSION"))) {
    throw new UsageError(
      `no embedded database in ${dataDir}`,
      "give the server's data directory with --data-dir or TILL_DATA_DIR (default ./.till); a server on PostgreSQL is backed up with PostgreSQL's tools",
    );
  }
  const target = path.resolve(file);
  if (existsSync(target) && !opts.force) throw new UsageError(`${file} exists`, "add --force to replace it, or give another name");
  const release = lock(dataDir, "till admin backup");
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    const dump = await ctx.out.loading("Copying the database", dumpDatabase(path.join(dataDir, "pglite")));
    const paths = [...(existsSync(path.join(dataDir, SECRET_ENTRY)) ? [SECRET_ENTRY] : []), ...filesUnder(dataDir, FILES_DIR)];
    // the server secret is in it: readable by its owner only, like the data directory's own copy
    const fd = openSync(tmp, "w", 0o600);
    let manifest;
    try {
      manifest = writeBackup(fd, { dump, dataDir, paths, tillVersion: pkg.version });
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    const bytes = statSync(target).size;
    const secret = paths.includes(SECRET_ENTRY);
    const files = paths.filter((p) => p.startsWith(`${FILES_DIR}/`)).length;
    ctx.out.done(
      { file: target, data_dir: dataDir, bytes, created_at: manifest.created_at, till_version: manifest.till_version, files, auth_secret: secret },
      `Backed up ${dataDir} to ${target} (${(bytes / 1e6).toFixed(1)} MB: the database, ${files} stored file${files === 1 ? "" : "s"}` +
        (secret
          ? ", and the server secret: keep the file as safe as the secret itself)."
          : "; no server secret: this server runs with TILL_AUTH_SECRET, which a restored server needs too)."),
    );
  } finally {
    rmSync(tmp, { force: true });
    release();
  }
}

/** Writes the backup's contents under `staging` (pglite/, files/, auth-secret) and checks the database opens. */
async function stage(opened: OpenedBackup, staging: string): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  const [database, ...rest] = opened.manifest.entries;
  if (!database || database.path !== DATABASE_ENTRY) throw new BadBackupError("it holds no database");
  mkdirSync(staging, { recursive: true });
  try {
    const db = new PGlite({ dataDir: path.join(staging, "pglite"), loadDataDir: new Blob([new Uint8Array(opened.read(database))]) });
    try {
      const found = await db.query<{ t: string | null }>("select to_regclass('drizzle.__drizzle_migrations')::text as t");
      if (!found.rows[0]?.t) throw new BadBackupError("its database is not a till database (no migrations table)");
    } finally {
      await db.close();
    }
  } catch (err) {
    throw err instanceof BadBackupError ? err : new BadBackupError(`its database does not open (${err instanceof Error ? err.message : String(err)})`);
  }
  for (const entry of rest) {
    const target = path.join(staging, ...entry.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, opened.read(entry), { mode: entry.path === SECRET_ENTRY ? 0o600 : 0o644 });
  }
}

/** Puts the staged contents in place of the data directory's, putting the old ones back if a move fails. */
function swap(dataDir: string, staging: string): void {
  const replaced = path.join(dataDir, `.replaced-${process.pid}`);
  mkdirSync(replaced, { recursive: true });
  const movedOut: string[] = [];
  const movedIn: string[] = [];
  try {
    for (const name of RESTORED) {
      if (!existsSync(path.join(dataDir, name))) continue;
      renameSync(path.join(dataDir, name), path.join(replaced, name));
      movedOut.push(name);
    }
    for (const name of RESTORED) {
      if (!existsSync(path.join(staging, name))) continue;
      renameSync(path.join(staging, name), path.join(dataDir, name));
      movedIn.push(name);
    }
  } catch (err) {
    for (const name of movedIn) renameSync(path.join(dataDir, name), path.join(staging, name));
    for (const name of movedOut) renameSync(path.join(replaced, name), path.join(dataDir, name));
    throw err;
  }
  rmSync(replaced, { recursive: true, force: true });
}

function openOrRefuse(file: string): OpenedBackup {
  try {
    return openBackup(path.resolve(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new UsageError(`${file}: no such file`);
    if (err instanceof BadBackupError) throw new CliError(`${file} cannot be restored: ${err.message}. Nothing was changed.`, { exitCode: EXIT.usage, code: "bad_backup" });
    throw err;
  }
}

async function restore(ctx: Context, opts: Options, [file = ""]: string[]): Promise<void> {
  const dataDir = dataDirOf(ctx, opts);
  const opened = openOrRefuse(file);
  try {
    const existing = RESTORED.filter((name) => present(dataDir, name));
    if (existing.length > 0 && !opts.force) {
      throw new UsageError(
        `${dataDir} already holds data (${existing.join(", ")})`,
        `a restore replaces it: add --force (keep a copy first: till admin backup <file> --data-dir ${dataDir})`,
      );
    }
    const created = !existsSync(dataDir);
    const release = lock(dataDir, "till admin restore");
    const staging = path.join(dataDir, `.restore-${process.pid}`);
    try {
      await ctx.out.loading("Restoring the database", stage(opened, staging));
      swap(dataDir, staging);
    } catch (err) {
      if (err instanceof BadBackupError) throw new CliError(`${file} cannot be restored: ${err.message}. Nothing was changed.`, { exitCode: EXIT.usage, code: "bad_backup" });
      throw err;
    } finally {
      rmSync(staging, { recursive: true, force: true });
      release();
      if (created && !present(dataDir, "pglite")) rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    opened.close();
  }
  const { manifest } = opened;
  const secret = manifest.entries.some((e) => e.path === SECRET_ENTRY);
  ctx.out.done(
    { file: path.resolve(file), data_dir: dataDir, created_at: manifest.created_at, till_version: manifest.till_version, auth_secret: secret },
    `Restored ${dataDir} from the backup of ${manifest.created_at} (till ${manifest.till_version}). ` +
      (secret ? "Start the server on it." : "Start the server on it with the TILL_AUTH_SECRET it ran with (the backup holds none)."),
  );
}

export function registerBackup(admin: Command): void {
  const dataDirOption = ["--data-dir <dir>", "the server's data directory (default: TILL_DATA_DIR, else ./.till)"] as const;
  admin
    .command("backup")
    .description("copy a stopped embedded server's data (database, server secret, stored files) to one file")
    .argument("<file>", "the backup file to write")
    .option(...dataDirOption)
    .option("--force", "replace <file> if it exists")
    .addHelpText(
      "after",
      examples(["till admin backup till-2026-01-31.backup", "till admin backup /backups/till.backup --data-dir /var/lib/till --force"]) +
        "\nFor the embedded database (PGlite); stop the server first. The file holds the generated server secret:\n" +
        "keep it as safe as the secret. A server on PostgreSQL is backed up with PostgreSQL's tools.\n",
    )
    .action(withContext(backup));
  admin
    .command("restore")
    .description("put a backup in place of a stopped embedded server's data")
    .argument("<file>", "a file written by till admin backup")
    .option(...dataDirOption)
    .option("--force", "replace the data directory's database, secret and stored files if it holds any")
    .addHelpText(
      "after",
      examples(["till admin restore till-2026-01-31.backup --data-dir ./restored", "till admin restore till.backup --force"]) +
        "\nThe file is checked whole (format, sizes, SHA-256, the database opens) before anything changes; the dev\n" +
        "mailbox is left as it is. Stop the server first; it migrates a backup of an older till when it starts.\n",
    )
    .action(withContext(restore));
}
