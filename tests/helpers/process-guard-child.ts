// A process with the server's last net installed (server/process-guard.ts) that then fails as argv[2] says:
// `rejection` (a promise nobody awaits), or `exception` (a throw from an event listener). It prints "alive" once
// the failure has been logged and the event loop goes on; its log lines go to stdout as JSON.
import { EventEmitter } from "node:events";
import type { FastifyBaseLogger } from "fastify";
import { installProcessGuard } from "../../server/process-guard.js";

const line = (level: string) => (obj: unknown, msg?: string) => console.log(JSON.stringify({ level, msg, err: String((obj as { err?: unknown }).err) }));
const log = { error: line("error"), fatal: line("fatal") } as unknown as FastifyBaseLogger;
installProcessGuard(log, async () => console.log("stopping"));
const keepAlive = setInterval(() => {}, 1000);
if (process.argv[2] === "rejection") {
  void Promise.reject(new Error("nobody awaited this"));
  setTimeout(() => {
    console.log("alive");
    clearInterval(keepAlive);
  }, 0);
} else {
  const emitter = new EventEmitter();
  emitter.on("data", () => {
    throw new Error("thrown from a listener");
  });
  setImmediate(() => emitter.emit("data"));
}
