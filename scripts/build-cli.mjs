// Bundles cli/ into dist/cli with esbuild, so `till` starts without a TypeScript loader (tsx costs more
// than the rest of a `--json` command). Two builds:
// - main-<hash>.cjs: every command, as one CommonJS script. bin/till.js compiles it with node:vm and a V8
//   code cache (dist/cli/main-<hash>.cjs.<node version>-<arch>.cache, written by the first run on that Node),
//   which Node 20 offers for scripts but not for ES modules; and a CommonJS start never initialises Node's ES
//   module loader. (On Node 22+ the modules loaded on use go through Node's compile cache,
//   dist/cli/compile-cache.) Lazily imported cli/ modules (catalog/*) are inlined and only initialised on use. npm
//   packages stay external except commander, which every run needs. Node built-ins are reached with
//   process.getBuiltinModule.
// - ui-<name>-<hash>.js: the Ink screens (cli/ui/index, live, BarChart, ColumnChart) as ES modules with shared chunks,
//   loaded on use: Ink is an ES module. They import only ink, react and each other (the build checks),
//   so no module of cli/ exists twice.
// The main script's remaining `import()`s (the Ink screens, external packages, built-ins) become calls to
// `__tillImport` or `__tillRequire`, parameters bin/till.js passes: a script compiled by node:vm cannot
// `import()` by itself on Node 20 without --experimental-vm-modules.
// manifest.json names the entry and every input's mtime and size, which is how bin/till.js tells whether
// the bundle still matches the sources.
//
//   node scripts/build-cli.mjs        # clean build (npm run build:cli; "prepare" adds --if-possible)
//   bin/till.js rebuilds by itself when a source changed.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const OUT_DIR = path.join(ROOT, "dist", "cli");
/** Chunks of an older build may still be loading in another process: keep them a while. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** Packages loaded at every start, bundled in; all other packages are imported from node_modules. */
const INLINED = new Set(["commander"]);

/** The Ink screens: built as ES modules of their own, imported by the main script on use. */
const UI_ENTRIES = { "ui-index": "cli/ui/index.tsx", "ui-live": "cli/ui/live.tsx", "ui-bar-chart": "cli/ui/BarChart.tsx", "ui-column-chart": "cli/ui/ColumnChart.tsx" };

/** The main script is written wrapped in this function (a CommonJS module's, plus the two import helpers). */
const WRAPPER_PARAMS = ["exports", "require", "module", "__filename", "__dirname", "__tillImport", "__tillRequire"];

function externalPackages() {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => !INLINED.has(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/** Write-then-rename: a concurrent `till` never reads a half-written file. */
export function writeAtomic(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/** Node's compile cache (bin/till.js, Node 22+): a directory removeStale leaves alone; a clean build empties it. */
const COMPILE_CACHE = "compile-cache";

function removeStale(keep, mainScript) {
  const now = Date.now();
  for (const name of readdirSync(OUT_DIR)) {
    const file = path.join(OUT_DIR, name);
    // the main script's code caches, one per Node version
    if (keep.has(file) || name === COMPILE_CACHE || (name.startsWith(`${path.basename(mainScript)}.`) && name.endsWith(".cache"))) continue;
    try {
      if (now - statSync(file).mtimeMs > STALE_AFTER_MS) rmSync(file, { force: true });
    } catch {
      // another process removed it first
    }
  }
}

const common = {
  absWorkingDir: ROOT,
  outdir: OUT_DIR,
  bundle: true,
  platform: "node",
  target: "node20",
  jsx: "automatic",
  metafile: true,
  write: false,
  logLevel: "silent",
  legalComments: "none",
};

async function buildUi() {
  const result = await build({
    ...common,
    entryPoints: UI_ENTRIES,
    // hashed names: a new build never overwrites a file an older `till` process may still import
    entryNames: "[name]-[hash]",
    chunkNames: "ui-chunk-[hash]",
    splitting: true,
    format: "esm",
    // Ink, React and their dependencies bundled in, React's production build: from node_modules they are
    // a few hundred modules to resolve, read and parse, which is most of a terminal rendering's time
    // and no `fetch` in them: yoga-layout's loader would otherwise fetch its WebAssembly from a data: URL,
    // which loads Node's bundled undici (a fifth of a rendering), where it can decode it in place
    define: { "process.env.NODE_ENV": '"production"', fetch: "undefined" },
    // only imported with DEV=true (Ink's React devtools), and not installed
    external: ["react-devtools-core"],
    // bundled CommonJS dependencies (React) require Node built-ins; an ES module has no `require` of its own
    banner: { js: 'import { createRequire as __tillCreateRequire } from "node:module"; const require = __tillCreateRequire(import.meta.url);' },
  });
  const entries = new Map();
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!output.entryPoint) continue;
    entries.set(output.entryPoint, `./${path.basename(file)}`);
    const foreign = Object.keys(output.inputs).filter((i) => i.startsWith("cli/") && !i.startsWith("cli/ui/"));
    if (foreign.length > 0) throw new Error(`${output.entryPoint} must import only ink, react and cli/ui/ (found ${foreign.join(", ")})`);
  }
  return { result, entries };
}

const requireFromRoot = createRequire(path.join(ROOT, "package.json"));

/** Whether `require(specifier)` from the bundle loads a built-in or a CommonJS file (not an ES module). */
function isCommonJs(specifier) {
  if (isBuiltin(specifier)) return true;
  if (specifier.startsWith(".")) return false;
  let file;
  try {
    file = requireFromRoot.resolve(specifier);
  } catch {
    return false; // no "require" export: an ES module only
  }
  if (file.endsWith(".cjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).type !== "module";
    } catch {
      // no package.json here: look further up
    }
  }
  return true;
}

/** Resolves the main script's `import("./ui/…")` to the ui build's file, as an external import. */
function uiExternal(entries) {
  return {
    name: "till-ui-external",
    setup(b) {
      b.onResolve({ filter: /\/ui\/[A-Za-z]+\.js$/ }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const source = path.relative(ROOT, path.resolve(args.resolveDir, args.path)).replace(/\.js$/, ".tsx");
        const out = entries.get(source);
        if (!out) throw new Error(`${args.importer} imports ${args.path}: not an entry of the ui build (${Object.values(UI_ENTRIES).join(", ")})`);
        return { path: out, external: true };
      });
    },
  };
}

/** Built-ins Node has loaded before any user code runs: requiring them costs nothing. */
const PRELOADED_BUILTINS = new Set(["events", "buffer", "path", "querystring", "async_hooks", "timers", "util", "fs", "url", "module", "process"]);

/**
 * Every other built-in the main script imports statically (commander's child_process, a command's crypto
 * or readline) is loaded on first use instead of at start-up: the import resolves to a stand-in module
 * whose properties are getters onto the real one. A new command's imports thus cost nothing until it runs.
 */
function lazyBuiltins() {
  return {
    name: "till-lazy-builtins",
    setup(b) {
      b.onResolve({ filter: /^[a-z_/:]+$/ }, (args) => {
        if (args.kind !== "import-statement" && args.kind !== "require-call") return undefined;
        if (!isBuiltin(args.path) || args.namespace === "lazy-builtin") return undefined;
        const name = args.path.replace(/^node:/, "");
        if (PRELOADED_BUILTINS.has(name)) return undefined;
        return { path: `node:${name}`, namespace: "lazy-builtin" };
      });
      b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
        const keys = Object.keys(requireFromRoot(args.path)).filter((k) => k !== "default" && k !== "__esModule");
        const contents = [
          `let loaded;`,
          `const load = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(args.path)}));`,
          `for (const key of ${JSON.stringify(keys)}) Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] });`,
        ].join("\n");
        return { contents, loader: "js" };
      });
    },
  };
}

async function buildMain(entries) {
  const result = await build({
    ...common,
    entryPoints: { main: "cli/main.ts" },
    entryNames: "[name]-[hash]",
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    external: externalPackages(),
    plugins: [uiExternal(entries), lazyBuiltins()],
  });
  const [file] = result.outputFiles;
  const output = Object.values(result.metafile.outputs)[0];
  if (!file || !output || result.outputFiles.length !== 1) throw new Error("esbuild produced no single main script");
  // a package imported at a command module's top level would load on every run, whichever the command
  const eager = /^var \w+ = (?:__toESM\()?require\("(?!node:)([^"]+)"\)/m.exec(file.text);
  if (eager) throw new Error(`the main script loads ${eager[1]} at start-up: import it inside the action (await import("${eager[1]}"))`);
  const ui = output.imports.filter((i) => /^(ink|react|ink-spinner)(\/|$)/.test(i.path));
  if (ui.length > 0) throw new Error(`the main script imports ${ui[0].path}: only cli/ui/* may, loaded on use (output.ts's ui()/live())`);
  // `import("x")` of an external module, exactly as esbuild prints it → `__tillRequire("x")` when x is a
  // built-in or has a CommonJS build (as the script's static imports, so one copy of a package is loaded),
  // else `__tillImport("x")` (ES-module-only packages, the Ink screens)
  let text = file.text;
  const dynamic = new Set(output.imports.filter((i) => i.kind === "dynamic-import" && i.external).map((i) => i.path));
  for (const specifier of dynamic) {
    const call = `import(${JSON.stringify(specifier)})`;
    if (!text.includes(call)) throw new Error(`cannot find ${call} in the main script`);
    const helper = isCommonJs(specifier) ? "__tillRequire" : "__tillImport";
    text = text.split(call).join(`${helper}(${JSON.stringify(specifier)})`);
  }
  if (/\bimport\(/.test(text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, ""))) {
    throw new Error("the main script still has an import() that bin/till.js cannot serve: import modules statically or by a literal specifier");
  }
  return { result, path: file.path, text: `(function (${WRAPPER_PARAMS.join(", ")}) {${text}\n})` };
}

/**
 * What stands for a bundled file of node_modules in the manifest, which bin/till.js stats on every run: npm's
 * hidden lockfile (rewritten by every install), else the package's package.json. Hundreds of files of Ink's
 * dependencies are then one stat.
 */
function packageStamp(input) {
  if (!input.startsWith("node_modules/")) return input;
  if (statSync(path.join(ROOT, "node_modules", ".package-lock.json"), { throwIfNoEntry: false })) return "node_modules/.package-lock.json";
  const parts = input.split("/");
  return [...parts.slice(0, parts[1]?.startsWith("@") ? 3 : 2), "package.json"].join("/");
}

/** Builds the bundle; returns the path of its main script. */
export async function buildCli({ clean = false } = {}) {
  const startedAt = Date.now();
  const ui = await buildUi();
  const main = await buildMain(ui.entries);
  if (clean) rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  for (const file of ui.result.outputFiles) writeAtomic(file.path, file.contents);
  writeAtomic(main.path, main.text);

  const inputs = {};
  // this script too: a bundle built by an older version of it may not be what bin/till.js expects
  const sources = [...Object.keys(main.result.metafile.inputs), ...Object.keys(ui.result.metafile.inputs), "scripts/build-cli.mjs"];
  for (const input of new Set(sources.filter((i) => !i.startsWith("lazy-builtin:")).map(packageStamp))) {
    const s = statSync(path.join(ROOT, input));
    // edited while we were building: record nothing that matches, so the next run builds again
    inputs[input] = s.mtimeMs >= startedAt ? [0, -1] : [s.mtimeMs, s.size];
  }
  const entryName = path.basename(main.path);
  writeAtomic(path.join(OUT_DIR, "manifest.json"), JSON.stringify({ entry: entryName, inputs }));
  if (!clean) {
    const keep = [...ui.result.outputFiles.map((f) => f.path), main.path, path.join(OUT_DIR, "manifest.json")];
    removeStale(new Set(keep), main.path);
  }
  return main.path;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const entry = await buildCli({ clean: true });
    console.log(`built ${path.relative(ROOT, entry)}`);
  } catch (err) {
    // as npm's "prepare" step a failure must not fail `npm install`: bin/till.js builds again on its first
    // run, or runs the sources through tsx, which then reports the error where it is
    console.error(`could not bundle the CLI: ${err instanceof Error ? err.message : String(err)}`);
    if (!process.argv.includes("--if-possible")) process.exitCode = 1;
  }
}
