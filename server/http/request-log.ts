// The server's log: one line per request (method, redacted URL, status, time taken) instead of Fastify's
// two, written as pino's JSON lines in production (TILL_LOG_FORMAT=json, or NODE_ENV=production) or as
// readable text in development ("12:01:02 GET /v1/products/ 200 3 ms"), coloured when stdout is a terminal.
import { Writable } from "node:stream";
import { LogController, type FastifyBaseLogger, type FastifyLogFn, type FastifyServerOptions } from "fastify";
import type { Config } from "../config.js";
import { requestSerializer } from "./log-redaction.js";

/** Fastify's `logger` option for the config; `stream` replaces stdout (tests read it). */
export function loggerOptions(config: Config, stream?: NodeJS.WritableStream): FastifyServerOptions["logger"] {
  const out = stream ?? (config.logFormat === "pretty" ? prettyStream(process.stdout, process.stdout.isTTY === true) : undefined);
  return { level: config.logLevel, serializers: { req: requestSerializer }, hooks: { logMethod: guardedLogMethod }, ...(out ? { stream: out } : {}) };
}

/**
 * Every log call goes through here, and none may throw. Fastify writes a request's lines from the response's
 * `finish` and the request's `close` listeners, outside any promise it awaits: a throw there (a serializer, a
 * value's toJSON or getter, the stream) would be an uncaught exception ending the process for every tenant. The
 * line that cannot be written is replaced by a bare one that says so.
 */
function guardedLogMethod(this: FastifyBaseLogger, args: Parameters<FastifyLogFn>, method: FastifyLogFn): void {
  try {
    method.apply(this, args);
  } catch (err) {
    try {
      method.call(this, { logFailure: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, "log line failed");
    } catch {
      // nothing more to tell, and nowhere safe to tell it
    }
  }
}

/** Fastify's request log lines: nothing when a request comes in, one line (request and outcome) when answered. */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(...[error, req, reply]: Parameters<LogController["requestCompleted"]>): void {
    const line = { req, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** What pino writes, as far as the pretty format reads it. */
interface LogLine {
  level?: number;
  time?: number;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { stack?: string; message?: string };
  [key: string]: unknown;
}

const HIDDEN = new Set(["level", "time", "pid", "hostname", "msg", "reqId", "req", "res", "responseTime", "err"]);

/** One pino JSON line as readable text (exported for the unit test). */
export function formatLine(raw: string, color: boolean): string {
  let line: LogLine;
  try {
    line = JSON.parse(raw) as LogLine;
  } catch {
    return raw;
  }
  const paint = (code: number, s: string) => (color ? `\u001B[${code}m${s}\u001B[39m` : s);
  const dim = (s: string) => (color ? `\u001B[2m${s}\u001B[22m` : s);
  const time = dim(new Date(line.time ?? Date.now()).toISOString().slice(11, 19));
  if (line.req && line.res && typeof line.res.statusCode === "number") {
    const status = line.res.statusCode;
    const shown = paint(status >= 500 ? 31 : status >= 400 ? 33 : 32, String(status));
    const ms = typeof line.responseTime === "number" ? ` ${dim(`${Math.round(line.responseTime)} ms`)}` : "";
    return `${time} ${line.req.method ?? "?"} ${line.req.url ?? "?"} ${shown}${ms}`;
  }
  const level = LEVELS[line.level ?? 30] ?? "info";
  const label = level === "info" ? "" : `${paint(level === "warn" ? 33 : level === "error" || level === "fatal" ? 31 : 36, level)} `;
  const extra = Object.entries(line).filter(([k]) => !HIDDEN.has(k));
  const rest = extra.length > 0 ? ` ${dim(JSON.stringify(Object.fromEntries(extra)))}` : "";
  const err = line.err ? `\n${line.err.stack ?? line.err.message ?? ""}` : "";
  return `${time} ${label}${line.msg ?? ""}${rest}${err}`;
}

/** A stream pino can write its JSON lines to, writing them readable to `out`. */
export function prettyStream(out: NodeJS.WritableStream, color: boolean): Writable {
  let pending = "";
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) if (l.trim() !== "") out.write(`${formatLine(l, color)}\n`);
      done();
    },
  });
}
