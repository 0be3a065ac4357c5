// Builds the web app into web/dist, but only when its sources changed since the last build: a hash of the
// sources (and of the build tools' versions) is kept in web/dist/.build-hash, so an unchanged tree costs one
// hash and `npm start` stays fast. `node --import tsx web/build.ts [--force]` is `npm run build:web`.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const WEB_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = path.join(WEB_DIR, "dist");
const HASH_FILE = ".build-hash";
const SOURCES = ["index.html", "vite.config.ts", "src"];
/** Bumped when buildWeb() changes what the same sources build into. */
const BUILD_RECIPE = 2;
const TOOLS = ["vite", "@vitejs/plugin-react", "react", "react-dom", "esbuild"];

function filesUnder(rel: string): string[] {
  const abs = path.join(WEB_DIR, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs)
    .sort()
    .flatMap((name) => filesUnder(path.join(rel, name)));
}

function toolVersion(name: string): string {
  try {
    const pkg = path.join(WEB_DIR, "..", "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(pkg, "utf8")) as { version?: string }).version ?? "?";
  } catch {
    return "missing";
  }
}

/** What the build depends on: every source file's path and bytes, and the build tools' versions. */
export function sourceHash(): string {
  const h = createHash("sha256");
  for (const rel of SOURCES.flatMap(filesUnder)) {
    h.update(rel.split(path.sep).join("/")).update("\0").update(readFileSync(path.join(WEB_DIR, rel))).update("\0");
  }
  for (const tool of TOOLS) h.update(`${tool}@${toolVersion(tool)}\0`);
  // how it is built: a build made another way (before React's production build was forced) is not fresh
  h.update(`recipe ${BUILD_RECIPE}\0`);
  return h.digest("hex");
}

export function isWebBuildFresh(): boolean {
  try {
    return existsSync(path.join(DIST_DIR, "index.html")) && readFileSync(path.join(DIST_DIR, HASH_FILE), "utf8") === sourceHash();
  } catch {
    return false;
  }
}

/** The embed script for sellers' pages (web/src/embed): a plain script (embed.js) and an ES module (embed.mjs),
 *  built apart from the app because they run on other sites' pages and must not share its chunks. */
async function buildEmbed(outDir: string): Promise<void> {
  const { build } = await import("esbuild");
  const common = { bundle: true, minify: true, target: "es2019", logLevel: "warning" as const, legalComments: "none" as const };
  await build({ ...common, entryPoints: [path.join(WEB_DIR, "src/embed/global.ts")], format: "iife", outfile: path.join(outDir, "embed.js") });
  await build({ ...common, entryPoints: [path.join(WEB_DIR, "src/embed/esm.ts")], format: "esm", target: "es2020", outfile: path.join(outDir, "embed.mjs") });
}

/**
 * Builds the app and the embed script into `outDir` (made or emptied), as they ship: React's production build
 * whoever builds. Under vitest (NODE_ENV=test: the e2e tests' global setup) vite and its React plugin would
 * otherwise make React's development build, whose StrictMode runs each effect twice (the portal loaded itself
 * twice, and a test's expiry raced the second load).
 */
export async function buildWebInto(outDir: string): Promise<void> {
  const { build } = await import("vite");
  const { webConfig } = await import("./vite.config.js");
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      ...webConfig,
      configFile: false,
      logLevel: "warn",
      mode: "production",
      build: { ...webConfig.build, outDir, emptyOutDir: true },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  await buildEmbed(outDir);
}

/** Builds into a temporary folder and swaps it in, so a server or a parallel test run never sees half a build. */
export async function buildWeb(): Promise<void> {
  const hash = sourceHash();
  const tmp = path.join(WEB_DIR, `.dist-${process.pid}`);
  await buildWebInto(tmp);
  writeFileSync(path.join(tmp, HASH_FILE), hash);
  const old = path.join(WEB_DIR, `.dist-old-${process.pid}`);
  try {
    renameSync(DIST_DIR, old);
  } catch {
    // no previous build, or a parallel build moved it first
  }
  try {
    renameSync(tmp, DIST_DIR);
  } catch {
    // a parallel build put its (identical) result in place between the two renames
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/** Builds when the sources changed; says what it did. */
export async function ensureWebBuild(opts: { force?: boolean } = {}): Promise<"fresh" | "built"> {
  if (!opts.force && isWebBuildFresh()) return "fresh";
  if (toolVersion("vite") === "missing" && existsSync(path.join(DIST_DIR, "index.html"))) {
    // an install without devDependencies cannot build; it serves the build it was given
    console.warn("web/build.ts: vite is not installed, serving web/dist as it is");
    return "fresh";
  }
  await buildWeb();
  return "built";
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  ensureWebBuild({ force: process.argv.includes("--force") }).then(
    (what) => {
      if (what === "built") console.log(`web app built into web/dist in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    },
    (err: unknown) => {
      console.error("web app build failed:", err);
      process.exit(1);
    },
  );
}
