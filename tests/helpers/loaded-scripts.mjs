// Preloaded into a server process (`NODE_OPTIONS=--import=<this file>`) by tests/api/production-build.test.ts, to
// see what that process has loaded: on SIGUSR2 it writes the URL of every script V8 has compiled in it so far
// (ES modules and CommonJS alike: the inspector's Debugger domain lists each once it is enabled), its
// execArgv and NODE_OPTIONS, to `${TILL_LOADED_SCRIPTS}.<pid>.json`. Plain JavaScript: nothing may load a
// TypeScript loader for it.
import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const out = process.env.TILL_LOADED_SCRIPTS;
if (out) {
  process.on("SIGUSR2", () => {
    const session = new Session();
    session.connect();
    const urls = [];
    session.on("Debugger.scriptParsed", (message) => urls.push(message.params.url));
    session.post("Debugger.enable", () => {
      session.post("Debugger.disable", () => {
        session.disconnect();
        const loaded = { pid: process.pid, execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS ?? "", urls };
        const file = `${out}.${process.pid}.json`;
        writeFileSync(`${file}.tmp`, JSON.stringify(loaded));
        renameSync(`${file}.tmp`, file);
      });
    });
  });
}
