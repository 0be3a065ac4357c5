// Bundles server/ into dist/server/main.js with esbuild, so production runs the server with no TypeScript
// loader in the process (`NODE_ENV=production npm start`, scripts/start.mjs). One ES module holds every file of
// server/ and shared/ (and the JSON they import); npm packages stay imports from node_modules, as under tsx.
// What the server reads at run time beside its code:
// - its migrations: copied to dist/server/migrations, where server/db/client.ts looks for them beside the
//   module that holds it; the build's code and its migrations are then of the same commit, whatever the
//   checkout holds later;
// - web/dist and web/src/styles.css, found as `../../web/…` from the module: dist/server/main.js is as deep
//   in the tree as server/http/web.ts and server/auth/error-page.ts, so the same relative paths hold;
// - fonts, the tax rates' JSON: resolved as packages (createRequire), from node_modules either way.
// The build checks that these paths resolve from the bundle. manifest.json records every input's mtime and
// size, so the start script can say that sources changed since the build.
//
//   node scripts/build-server.mjs       # npm run build:server (part of npm run build)
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const SERVER_OUT = path.join(ROOT, "dist", "server");
export const SERVER_ENTRY = path.join(SERVER_OUT, "main.js");

/** Files and folders the bundle reads relative to itself: each must exist from dist/server/. */
const RUNTIME_PATHS = ["migrations/meta/_journal.json", "../../web/src/styles.css"];

/**
 * Builds into a temporary folder and swaps it in: a running server never sees half a build. `out`: the folder, two
 * levels below the root as dist/server is (the tests' own copy: tests/helpers/server-bundle.ts).
 */
export async function buildServer(out = SERVER_OUT) {
  const tmp = path.join(path.dirname(out), `.server-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "server/main.ts" },
    outdir: tmp,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    packages: "external",
    jsx: "automatic",
    // a stack trace names the TypeScript file and line when source maps are on (NODE_OPTIONS=--enable-source-maps)
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
    legalComments: "none",
  });
  cpSync(path.join(ROOT, "server", "db", "migrations"), path.join(tmp, "migrations"), { recursive: true });
  const inputs = {};
  for (const input of [...Object.keys(result.metafile.inputs), "scripts/build-server.mjs"]) {
    const s = statSync(path.join(ROOT, input));
    inputs[input] = [s.mtimeMs, s.size];
  }
  writeFileSync(path.join(tmp, "manifest.json"), JSON.stringify({ entry: "main.js", builtAt: new Date().toISOString(), inputs }));
  for (const rel of RUNTIME_PATHS) {
    if (!existsSync(path.join(tmp, rel))) throw new Error(`the bundle would not find ${rel} (from dist/server/)`);
  }
  mkdirSync(path.dirname(out), { recursive: true });
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(tmp, out);
  rmSync(old, { recursive: true, force: true });
  const entry = path.join(out, "main.js");
  return { entry, bytes: statSync(entry).size, inputs: Object.keys(inputs).length };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  try {
    const built = await buildServer();
    const kb = Math.round(built.bytes / 1024);
    console.log(`server built into ${path.relative(ROOT, built.entry)} (${built.inputs} sources, ${kb} KiB) in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  } catch (err) {
    console.error(`could not build the server: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
