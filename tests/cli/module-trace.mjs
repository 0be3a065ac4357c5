// Preloaded with `node --import` in CLI tests: records every module the process loads into $TILL_TRACE_FILE
// (ES modules as their resolved URL when resolved, CommonJS modules from require.cache at exit), so a test
// can tell whether Ink or React were loaded.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

const file = process.env.TILL_TRACE_FILE;
register("./module-trace-hooks.mjs", import.meta.url, { data: { file } });

const { cache } = createRequire(import.meta.url);
process.on("exit", () => {
  const loaded = Object.keys(cache).map((f) => `${pathToFileURL(f).href}\n`);
  if (file && loaded.length > 0) appendFileSync(file, loaded.join(""));
});
