// A fresh database per test server: a new PostgreSQL database when DATABASE_URL is set, else in-memory PGlite.
import { createHash, randomUUID } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import postgres from "postgres";
import { migrationsFolder, openDatabase, type Database, type Db, type Tx } from "../../server/db/client.js";

export const usingPostgres = Boolean(process.env.DATABASE_URL);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Today's migrations (their SQL and journal), into `hash`. */
function hashMigrations(hash: ReturnType<typeof createHash>) {
  for (const f of readdirSync(migrationsFolder).sort()) if (f.endsWith(".sql")) hash.update(f).update(readFileSync(path.join(migrationsFolder, f)));
  return hash.update(readFileSync(path.join(migrationsFolder, "meta", "_journal.json")));
}

/** What `look` finds in a transaction that is then rolled back (a statement's effect, seen and undone). */
export async function rolledBack<T>(db: Db, look: (tx: Tx) => Promise<T>): Promise<T> {
  const undo = new Error("rolled back");
  let seen: { value: T } | undefined;
  await db
    .transaction(async (tx) => {
      seen = { value: await look(tx) };
      throw undo;
    })
    .catch((err: unknown) => {
      if (err !== undo) throw err;
    });
  return seen!.value;
}

const urlOf = (base: string, name: string) => {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * A database migrated by today's migrations, made once per migrations folder and day (its name carries their
 * hash) and kept for the run: a test server's database is a copy of it (CREATE DATABASE … TEMPLATE, a file copy
 * of ~0.3 s) instead of an empty one migrated from scratch (2–3 s of statements on a busy machine); the server
 * still runs its migrations on open, finding them applied. Made under an advisory lock (test workers are
 * processes), under a temporary name renamed when complete, so a copy never starts from half a template.
 * `.ci/run` drops the `till_tpl_` databases of earlier runs with its other leftovers.
 */
async function migratedTemplate(admin: postgres.Sql, base: string): Promise<string> {
  const hash = hashMigrations(createHash("sha256").update(new Date().toISOString().slice(0, 10)));
  const name = `till_tpl_${hash.digest("hex").slice(0, 16)}`;
  const exists = async () => (await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`).length > 0;
  if (await exists()) return name;
  // a session lock: `admin` is one connection (max 1), and CREATE DATABASE cannot run in a transaction
  await admin`SELECT pg_advisory_lock(hashtext('till test template'))`;
  try {
    if (await exists()) return name;
    const building = `${name}_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
    await admin.unsafe(`CREATE DATABASE ${building}`);
    const migrated = await openDatabase({ url: urlOf(base, building), max: 1 });
    await migrated.close();
    // the lock is the base database's own (advisory locks are per database): a run on another base database
    // (a second checkout's) may have made the template meanwhile, which is as good as this one
    const renamed = await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`).catch((err: unknown) => {
      if ((err as { code?: string }).code !== "42P04") throw err;
      return null;
    });
    if (renamed === null) await admin.unsafe(`DROP DATABASE ${building}`);
  } finally {
    await admin`SELECT pg_advisory_unlock(hashtext('till test template'))`;
  }
  return name;
}

let dump: Promise<Blob> | undefined;
/**
 * PGlite's counterpart of `migratedTemplate`: an in-memory database migrated once, dumped (`dumpDataDir`,
 * uncompressed) and loaded by each test server's PGlite instead of running initdb and every migration in
 * WebAssembly again (measured: 7.4 s for a fresh migrated instance on a busy machine). The dump is kept in .tmp/,
 * named by PGlite's version and the migrations' hash, so the other test processes and runs (CI's smoke runs on
 * three Node lines) load it too; written under a temporary name and renamed, so no process reads half of one.
 */
function migratedDump(): Promise<Blob> {
  dump ??= (async () => {
    const version = readFileSync(path.join(ROOT, "node_modules", "@electric-sql", "pglite", "package.json"));
    const file = path.join(ROOT, ".tmp", `pglite-migrated-${hashMigrations(createHash("sha256").update(version)).digest("hex").slice(0, 16)}.tar`);
    try {
      return new Blob([readFileSync(file)], { type: "application/x-tar" });
    } catch {
      // none yet: made below
    }
    const client = new PGlite();
    await migrate(drizzle(client), { migrationsFolder });
    const blob = await client.dumpDataDir("none");
    await client.close();
    mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, file);
    // earlier migrations' dumps (46 MB each) are of no more use
    for (const f of readdirSync(path.dirname(file))) if (/^pglite-migrated-[0-9a-f]{16}\.tar$/.test(f) && f !== path.basename(file)) rmSync(path.join(path.dirname(file), f), { force: true });
    return blob;
  })();
  return dump;
}

/** A new PostgreSQL database next to DATABASE_URL's — empty, or (`migrated`) a copy of today's migrated template. */
export async function createPostgresDatabase(base: string, migrated = false): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `till_test_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    const template = migrated ? ` TEMPLATE ${await migratedTemplate(admin, base)}` : "";
    await admin.unsafe(`CREATE DATABASE ${name}${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(urlOf(base, name));
  return {
    url: url.toString(),
    // DROP DATABASE waits for a checkpoint, which takes seconds to minutes while other processes write a lot
    // (seen: hooks over 180 s at a load of 20): the hook waits 10 s at most and the drop goes on without it;
    // one cut short by the process's exit is a leftover that .ci/run removes before its next run
    async drop() {
      const dropper = postgres(base, { max: 1, onnotice: () => {} });
      const dropped = dropper
        .unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        .catch(() => {})
        .then(() => dropper.end());
      await Promise.race([dropped, new Promise((r) => setTimeout(r, 10_000).unref())]);
    },
  };
}

/** `max`: the PostgreSQL pool's size (5 unless a bench wants the server's own default). */
export async function freshDatabase(options: { max?: number } = {}): Promise<Database & { url: string | undefined }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { ...(await openDatabase({ loadDataDir: await migratedDump() })), url: undefined };
  const created = await createPostgresDatabase(base, true);
  const database = await openDatabase({ url: created.url, max: options.max ?? 5 });
  return {
    ...database,
    url: created.url,
    async close() {
      await database.close();
      await created.drop();
    },
  };
}

/**
 * A database as an upgrade finds it: migrated only by `olderMigrations` (a migrations folder holding the older
 * ones), given rows by `seed` as the code of that time wrote them, then migrated by every migration, as the
 * server does when it boots on it.
 */
export async function upgradedDatabase(olderMigrations: string, seed: (db: Database["db"]) => Promise<void>): Promise<Database> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-upgrade-"));
    const older = await openDatabase({ dataDir, migrationsFolder: olderMigrations });
    await seed(older.db);
    await older.close();
    return openDatabase({ dataDir });
  }
  const created = await createPostgresDatabase(base);
  const older = await openDatabase({ url: created.url, max: 1, migrationsFolder: olderMigrations });
  await seed(older.db);
  await older.close();
  const database = await openDatabase({ url: created.url, max: 5 });
  return {
    ...database,
    async close() {
      await database.close();
      await created.drop();
    },
  };
}

/**
 * A copy of the migrations folder without the migration whose tag ends with `tagSuffix` and those after it: the
 * schema an upgrade to that migration starts from (for `upgradedDatabase`).
 */
export function migrationsBefore(tagSuffix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-migrations-"));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
    entries: Array<{ idx: number; tag: string }>;
  };
  const cut = journal.entries.findIndex((e) => e.tag.endsWith(tagSuffix));
  if (cut <= 0) throw new Error(`no migration after the first ends with ${tagSuffix}`);
  const entries = journal.entries.slice(0, cut);
  writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  const tags = new Set(entries.map((e) => `${e.tag}.sql`));
  for (const f of readdirSync(migrationsFolder)) if (tags.has(f)) copyFileSync(path.join(migrationsFolder, f), path.join(dir, f));
  return dir;
}
