#!/usr/bin/env node
// The `till` command. It runs cli/ from the esbuild bundle in dist/cli, rebuilding that bundle first when
// a source file changed since it was built (see scripts/build-cli.mjs): loading the TypeScript through tsx
// would cost more than the rest of a `--json` command. Without esbuild, or with dist/ not writable, it
// falls back to tsx.
import { readFileSync, statSync } from "node:fs";

const root = new URL("../", import.meta.url);
const dist = new URL("dist/cli/", root);

/** The bundle's entry if every source it was built from is unchanged, else null. */
function freshBundle() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL("manifest.json", dist), "utf8"));
  } catch {
    return null;
  }
  for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
    try {
      const s = statSync(new URL(file, root));
      if (s.mtimeMs !== mtimeMs || s.size !== size) return null;
    } catch {
      return null;
    }
  }
  return new URL(manifest.entry, dist);
}

async function loadCli() {
  const bundle = freshBundle();
  if (bundle) return import(bundle.href);
  let built;
  try {
    const { buildCli } = await import("../scripts/build-cli.mjs");
    built = await buildCli();
  } catch {
    const { register } = await import("tsx/esm/api");
    register();
    return import("../cli/main.ts");
  }
  return import(built.href);
}

const { main } = await loadCli();
process.exitCode = await main(process.argv);
