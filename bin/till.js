#!/usr/bin/env node
// The `till` command. It runs cli/ from the esbuild bundle in dist/cli (see scripts/build-cli.mjs), first
// rebuilding it when a source file changed since it was built: loading the TypeScript through tsx would cost
// more than the rest of a `--json` command. Without esbuild, or with dist/ not writable, it falls back to tsx.
//
// This file is CommonJS (bin/package.json): a `--help` or `--json` run never starts Node's ES module loader.
// The bundle's main script is compiled with node:vm and a V8 code cache beside it, one per Node version
// (main-<hash>.cjs.<version>-<arch>.cache: runs on two Node lines do not overwrite each other's), written at
// the end of the first run that has none (or whose cache V8 refused), so later runs skip parsing and compiling
// what they execute. Anything the script imports on use (the Ink screens, conf, open, the SDK) goes through
// `__tillImport`, the import() of this module; on Node 22+ those modules are compiled with Node's own compile
// cache (module.enableCompileCache, in dist/cli/compile-cache), which Node 20 does not have. Node's cache is
// not used for the main script: it is made when a module is compiled, before the run, so it lacks the
// functions a command compiles lazily, and is slower there than ours (docs/decisions.md has the figures).
/* global __dirname */
"use strict";

const fs = process.getBuiltinModule("node:fs");
const path = process.getBuiltinModule("node:path");
const vm = process.getBuiltinModule("node:vm");
const nodeModule = process.getBuiltinModule("node:module");
const { createRequire } = nodeModule;
const { pathToFileURL } = process.getBuiltinModule("node:url");

const root = path.join(__dirname, "..");
const dist = path.join(root, "dist", "cli");

/** The bundle's main script if every source it was built from is unchanged, else null. */
function freshBundle() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dist, "manifest.json"), "utf8"));
  } catch {
    return null;
  }
  if (typeof manifest.entry !== "string" || !manifest.entry.endsWith(".cjs")) return null; // an older layout
  for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
    const s = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
    if (!s || s.mtimeMs !== mtimeMs || s.size !== size) return null;
  }
  return path.join(dist, manifest.entry);
}

/** Write-then-rename: a concurrent `till` never reads a half-written cache. */
function writeCache(file, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch {
    // dist/ not writable: every run compiles from source, which is only slower
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Runs the main script; returns its exports. The cache file is one byte, 1 if the run that wrote it sent a
 * request (so its cache holds the request path too), then V8's data. A cache from a run that sent none
 * (`--help`) is replaced once by the first run that sends one.
 */
function runBundle(file) {
  const dir = path.dirname(file);
  let compileCache = false;
  /**
   * Node's compile cache, turned on before the first module loaded on use (Node 22.1+; on Node 20 those modules
   * are compiled from source): not at start, where it costs a run that loads nothing more (`--help`, `--json`)
   * about 2 ms of CPU. A cache Node cannot create or write (dist/ not writable) is Node's to skip, and
   * NODE_DISABLE_COMPILE_CACHE=1 turns it off.
   */
  const useCompileCache = () => {
    if (compileCache) return;
    compileCache = true;
    if (typeof nodeModule.enableCompileCache === "function") nodeModule.enableCompileCache(path.join(dir, "compile-cache"));
  };
  const cacheFile = `${file}.${process.version}-${process.arch}.cache`;
  let cached;
  try {
    cached = fs.readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const cachedData = cached && cached.length > 1 ? cached.subarray(1) : undefined;
  // the file is a function expression: (exports, require, module, __filename, __dirname, __tillImport, __tillRequire)
  const script = new vm.Script(fs.readFileSync(file, "utf8"), { filename: file, cachedData });
  const mod = { exports: {} };
  // after the run: the cache then holds the functions this run compiled, not only the top level, and every
  // command's definition (a run registers only the command it names)
  process.once("exit", () => {
    const requested = typeof mod.exports.requestsSent === "function" && mod.exports.requestsSent() > 0;
    if (cachedData === undefined || script.cachedDataRejected || (cached[0] !== 1 && requested)) {
      try {
        if (typeof mod.exports.compileCommands === "function") mod.exports.compileCommands();
      } catch {
        // the cache then lacks some definitions, compiled on use
      }
      writeCache(cacheFile, Buffer.concat([Buffer.from([requested ? 1 : 0]), script.createCachedData()]));
    }
  });
  const require = createRequire(file);
  /** import() of an ES module: the Ink screens beside the script (./ui-…), or a package. */
  const tillImport = (specifier) => {
    useCompileCache();
    return import(specifier.startsWith("./") ? pathToFileURL(path.join(dir, specifier)).href : specifier);
  };
  /** import() of a built-in or a package with a CommonJS build, as a namespace (`default` is module.exports). */
  const tillRequire = async (specifier) => {
    if (!specifier.startsWith("node:")) useCompileCache();
    const exports = require(specifier);
    return exports && exports.__esModule ? exports : { ...exports, default: exports };
  };
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, file, dir, tillImport, tillRequire);
  return mod.exports;
}

async function loadCli() {
  const bundle = freshBundle();
  if (bundle) return runBundle(bundle);
  let built;
  try {
    const { buildCli } = await import("../scripts/build-cli.mjs");
    built = await buildCli();
  } catch (err) {
    // esbuild not installed is expected (tsx then runs the sources); any other failure is worth a line
    if (err?.code !== "ERR_MODULE_NOT_FOUND") process.stderr.write(`till: running from the sources: ${err?.message ?? err}\n`);
    const { register } = await import("tsx/esm/api");
    register();
    return import("../cli/main.ts");
  }
  return runBundle(built);
}

// A command whose work never settles (a promise nothing resolves) would end with an empty event loop and exit 0,
// as if it had succeeded: a script must not read that as success. Such an end is a bug of till's: exit 1, saying so.
// ("beforeExit": the event loop ran empty; an explicit process.exit, `till … | head -1`'s included, never emits it.)
let settled = false;
let told = false;
process.on("beforeExit", () => {
  if (settled || told) return;
  told = true;
  process.stderr.write("till: the command stopped before it finished (nothing left to wait for): a bug of till's, please report it\n");
  process.exitCode = 1;
});

loadCli()
  .then(({ main }) => main(process.argv))
  .then((code) => {
    settled = true;
    process.exitCode = code;
  });
