// `npm start`.
// - Development (NODE_ENV unset or anything but `production`): what it always ran, the web app built into web/dist
//   when its sources changed (a process of its own), then server/main.ts through tsx in this process.
// - NODE_ENV=production: the compiled server, dist/server/main.js, with no TypeScript loader: `npm run build` makes
//   it (and web/dist). Production never compiles at start (the devDependencies that build may not be installed,
//   and a deploy builds once, before it starts anything): a missing build is one line and exit code 1; a build
//   older than its sources starts, with one line saying so.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER = path.join(ROOT, "dist", "server");

/** The sources edited since the build (by mtime and size), at most a few named. */
function changedSinceBuild() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(path.join(SERVER, "manifest.json"), "utf8")).inputs;
  } catch {
    return [];
  }
  const changed = [];
  for (const [file, [mtimeMs, size]] of Object.entries(inputs)) {
    const s = statSync(path.join(ROOT, file), { throwIfNoEntry: false });
    // a production install may ship dist/ without the sources: nothing to compare then
    if (s && (s.mtimeMs !== mtimeMs || s.size !== size)) changed.push(file);
  }
  return changed;
}

async function production() {
  const entry = path.join(SERVER, "main.js");
  const missing = [entry, path.join(ROOT, "web", "dist", "index.html")].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    const what = missing.map((f) => path.relative(ROOT, f)).join(" and ");
    console.error(`till: no production build (${what} missing): run \`npm run build\` first, then \`NODE_ENV=production npm start\``);
    process.exit(1);
  }
  const changed = changedSinceBuild();
  if (changed.length > 0) {
    const named = changed.slice(0, 3).join(", ") + (changed.length > 3 ? ` and ${changed.length - 3} more` : "");
    console.error(`till: starting the build of ${statSync(entry).mtime.toISOString()}, older than its sources (${named} changed): \`npm run build\` to run them`);
  }
  // Node 22.1+ keeps V8's compiled code of every module it loads (the bundle and the npm packages) in
  // dist/server/compile-cache, for the next start; Node 20 has no such cache, and an unwritable dist/ only
  // goes without it
  module.enableCompileCache?.(path.join(SERVER, "compile-cache"));
  await import(pathToFileURL(entry).href);
}

async function development() {
  const web = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "web", "build.ts")], { cwd: ROOT, stdio: "inherit" });
  if (web.status !== 0) process.exit(web.status ?? 1);
  await import("tsx");
  await import(pathToFileURL(path.join(ROOT, "server", "main.ts")).href);
}

await (process.env.NODE_ENV === "production" ? production() : development());
