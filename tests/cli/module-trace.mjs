// Preloaded with `node --import` in CLI tests: records the URL of every module the process resolves into
// $TILL_TRACE_FILE, so a test can tell whether Ink or React were loaded.
import { register } from "node:module";

register("./module-trace-hooks.mjs", import.meta.url, { data: { file: process.env.TILL_TRACE_FILE } });
