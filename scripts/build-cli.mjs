// Bundles cli/ into dist/cli with esbuild, so `till` starts without a TypeScript loader (tsx costs more
// than the rest of a `--json` command). The Ink screens stay separate chunks, loaded on use. npm packages
// stay external except commander, which every run needs: inlined, it is one module to load instead of
// eight (each ES module costs about a millisecond at start-up). manifest.json names the entry and every
// input's mtime and size, which is how bin/till.js tells whether the bundle still matches the sources.
//
//   node scripts/build-cli.mjs        # clean build (npm run build:cli; "prepare" adds --if-possible)
//   bin/till.js rebuilds by itself when a source changed.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const OUT_DIR = path.join(ROOT, "dist", "cli");
/** Chunks of an older build may still be loading in another process: keep them a while. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** Packages loaded at every start, bundled in; all other packages are imported from node_modules. */
const INLINED = new Set(["commander"]);

function externalPackages() {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !INLINED.has(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/** Write-then-rename: a concurrent `till` never reads a half-written file. */
function writeAtomic(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

function removeStale(keep) {
  const now = Date.now();
  for (const name of readdirSync(OUT_DIR)) {
    const file = path.join(OUT_DIR, name);
    if (keep.has(file)) continue;
    try {
      if (now - statSync(file).mtimeMs > STALE_AFTER_MS) rmSync(file, { force: true });
    } catch {
      // another process removed it first
    }
  }
}

/** Builds the bundle; returns the file URL of its entry module. */
export async function buildCli({ clean = false } = {}) {
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "cli/main.ts" },
    outdir: OUT_DIR,
    // hashed names: a new build never overwrites a file an older `till` process may still import
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: externalPackages(),
    // commander is CommonJS and requires Node built-ins; an ES module has no `require` of its own
    banner: { js: 'import { createRequire as __tillCreateRequire } from "node:module"; const require = __tillCreateRequire(import.meta.url);' },
    jsx: "automatic",
    metafile: true,
    write: false,
    logLevel: "silent",
    legalComments: "none",
  });
  if (clean) rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  for (const file of result.outputFiles) writeAtomic(file.path, file.contents);

  const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === "cli/main.ts")?.[0];
  if (!entry) throw new Error("esbuild produced no entry for cli/main.ts");
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const s = statSync(path.join(ROOT, input));
    // edited while we were building: record nothing that matches, so the next run builds again
    inputs[input] = s.mtimeMs >= startedAt ? [0, -1] : [s.mtimeMs, s.size];
  }
  const entryName = path.basename(entry);
  writeAtomic(path.join(OUT_DIR, "manifest.json"), JSON.stringify({ entry: entryName, inputs }));
  if (!clean) removeStale(new Set([...result.outputFiles.map((f) => f.path), path.join(OUT_DIR, "manifest.json")]));
  return pathToFileURL(path.join(OUT_DIR, entryName));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const entry = await buildCli({ clean: true });
    console.log(`built ${path.relative(ROOT, fileURLToPath(entry))}`);
  } catch (err) {
    // as npm's "prepare" step a failure must not fail `npm install`: bin/till.js builds again on its first
    // run, or runs the sources through tsx, which then reports the error where it is
    console.error(`could not bundle the CLI: ${err instanceof Error ? err.message : String(err)}`);
    if (!process.argv.includes("--if-possible")) process.exitCode = 1;
  }
}
