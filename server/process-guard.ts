// The process's last net, for an error that no request path caught. Each path is made safe on its own (every log
// call guarded: http/request-log.ts; a body cut short: http/aborted-body.ts; hooks, handlers and serializers:
// Fastify answers their throws with a 500), so nothing a request does should arrive here.
// - An unhandled rejection is logged and the server keeps serving: a promise nobody awaited failed; no code was
//   unwound midway by it, and the request it came from (if any) was answered or failed already.
// - An uncaught exception is logged as fatal and the server stops with exit code 1: it was thrown through code
//   that did not expect it (an event listener, a library's callback), which may have left a pool connection, a
//   transaction or a stream half-done. Serving on would hide that corruption; the supervisor (systemd, Docker,
//   Kubernetes) starts a clean process, and the outbox makes sure nothing committed is lost.
import type { FastifyBaseLogger } from "fastify";

/**
 * How long the requests in flight may take to finish before a process stopping on an uncaught exception exits anyway.
 */
export const FATAL_STOP_TIMEOUT_MS = 10_000;

export function installProcessGuard(log: FastifyBaseLogger, stop: () => Promise<void>): void {
  process.on("unhandledRejection", (reason) => {
    log.error({ err: reason }, "unhandled promise rejection (logged; the server keeps serving)");
  });
  let stopping = false;
  process.on("uncaughtException", (err) => {
    log.fatal({ err }, "uncaught exception: stopping the server (exit code 1)");
    if (stopping) return;
    stopping = true;
    process.exitCode = 1;
    setTimeout(() => process.exit(1), FATAL_STOP_TIMEOUT_MS).unref();
    stop().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  });
}
