// The server as one bundled module for the tests that start it as a process (tests/helpers/till-process.ts):
// under tsx a start cost about 6 s of CPU, mostly its loader resolving and loading every module through hooks;
// the bundle about 2 s (measured on PostgreSQL, tsx's cache warm). vitest's global setup builds it when the
// sources changed (scripts/build-server.mjs, into .tmp/test-server: dist/server is the production build's, which
// tests/api/production-build.test.ts rebuilds while others run); a bundle older than its sources or migrations is
// never started, the process runs the sources through tsx instead.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Two levels below the root, as dist/server is: the bundle finds web/ as `../../web/` from there. */
const BUNDLE_DIR = path.join(ROOT, ".tmp", "test-server");
const MIGRATIONS = path.join(ROOT, "server", "db", "migrations");
const MIGRATIONS_HASH = "migrations.sha256";

/** What the server reads of its migrations (the SQL and the journal); the bundle holds a copy made at its build. */
function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const f of readdirSync(MIGRATIONS).sort()) if (f.endsWith(".sql")) hash.update(f).update(readFileSync(path.join(MIGRATIONS, f)));
  return hash.update(readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"))).digest("hex");
}

/** Whether the bundle was built from the sources as they are now (each input's mtime and size, the migrations). */
function fresh(): boolean {
  try {
    const manifest = JSON.parse(readFileSync(path.join(BUNDLE_DIR, "manifest.json"), "utf8")) as { inputs: Record<string, [number, number]> };
    for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
      const s = statSync(path.join(ROOT, file), { throwIfNoEntry: false });
      if (!s || s.mtimeMs !== mtimeMs || s.size !== size) return false;
    }
    return readFileSync(path.join(BUNDLE_DIR, MIGRATIONS_HASH), "utf8") === migrationsHash();
  } catch {
    return false;
  }
}

/** The bundle's entry when it is as fresh as the sources, else undefined (run server/main.ts through tsx). */
export function serverBundle(): string | undefined {
  const entry = path.join(BUNDLE_DIR, "main.js");
  return existsSync(entry) && fresh() ? entry : undefined;
}

/** Builds the bundle unless it is fresh (vitest's global setup, once per run). */
export async function ensureServerBundle(): Promise<"fresh" | "built"> {
  if (serverBundle()) return "fresh";
  const hash = migrationsHash();
  // a plain module without types of its own: imported by URL, its one export typed here
  const script = pathToFileURL(path.join(ROOT, "scripts", "build-server.mjs")).href;
  const { buildServer } = (await import(script)) as { buildServer(out: string): Promise<unknown> };
  await buildServer(BUNDLE_DIR);
  writeFileSync(path.join(BUNDLE_DIR, MIGRATIONS_HASH), hash);
  return "built";
}

/** The arguments of `node` that start this checkout's server: the fresh bundle, else server/main.ts through tsx. */
export function serverArgs(): string[] {
  const bundle = serverBundle();
  return bundle ? [bundle] : ["--import", "tsx", "server/main.ts"];
}
