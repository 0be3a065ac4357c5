// Where `till listen` sends each event of the stream: printed as it comes (without --forward-to), or POSTed, signed
// the Standard Webhooks way, to the local app one after another, in the order they came, one line per answer.
import type { Context } from "./context.js";
import { UsageError } from "./errors.js";

/** The stream's events as commands/listen.ts parses them. */
export interface StreamEvent {
  /** The stream's resume cursor, `<transaction>-<event id>`. */
  cursor: string;
  type: string;
  /** The webhook body, sent byte for byte. */
  data: string;
}

/** One attempt per event, cut off after this long (like the server's deliveries). */
const FORWARD_TIMEOUT_MS = 10_000;

/** Standard Webhooks headers for an event (commands/listen.ts builds it from this session's secret). */
export type Sign = (id: string, body: string) => Record<string, string>;

export function forwardTarget(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: expected an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--forward-to: expected an http(s) URL, got "${value}"`);
  return url;
}

interface Forwarded {
  time: string;
  type: string;
  id: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** POSTs one event, once; the outcome is the app's status or the reason it could not be reached. */
async function forward(target: URL, sign: Sign, event: StreamEvent, signal: AbortSignal): Promise<Forwarded> {
  // the event's id (stable across replays and sessions: receivers deduplicate on webhook-id)
  const id = eventId(event);
  const headers = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(event.data)),
    "user-agent": "till-listen",
    ...sign(id, event.data),
  };
  const started = Date.now();
  const outcome = (status: number | null, error: string | null): Forwarded => ({
    time: new Date(started).toISOString(),
    type: event.type,
    id,
    status,
    error,
    duration_ms: Date.now() - started,
  });
  const { request } = target.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve) => {
    const req = request(target, { method: "POST", headers, agent: false, timeout: FORWARD_TIMEOUT_MS, signal }, (res) => {
      res.resume();
      res.on("end", () => resolve(outcome(res.statusCode ?? 0, null)));
      res.on("error", (err) => resolve(outcome(res.statusCode ?? 0, err.message)));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)));
    req.on("error", (err: NodeJS.ErrnoException) => resolve(outcome(null, err.code ?? err.message)));
    req.end(event.data);
  });
}

function printForwarded(ctx: Context, f: Forwarded): void {
  if (ctx.json) {
    process.stdout.write(`${JSON.stringify(f)}\n`);
    return;
  }
  const s = ctx.out.style;
  const ok = f.status !== null && f.status >= 200 && f.status < 300;
  const answer = f.status !== null ? `${f.status}` : `error: ${f.error}`;
  const time = f.time.slice(11, 19);
  process.stdout.write(`${s.dim(time)}  ${f.type.padEnd(24)}  ${f.id}  → ${ok ? s.green(answer) : s.red(answer)}  ${s.dim(`${f.duration_ms} ms`)}\n`);
}

/** The event's id (= webhook-id): the cursor ends with the outbox row's id, a UUID (`<xid>-<µs>-<id>`). */
const eventId = (e: StreamEvent) => e.cursor.slice(-36);

/**
 * Without --forward-to: each event printed as it comes (the Stripe CLI's default), a line with its time,
 * type and id, or under --json one object per line with the webhook body as `data`.
 */
export function printer(ctx: Context) {
  return {
    push(e: StreamEvent) {
      const time = new Date().toISOString();
      if (ctx.json) {
        let data: unknown = e.data;
        try {
          data = JSON.parse(e.data) as unknown;
        } catch {
          // not JSON (a chat-formatted body): the text as it came
        }
        process.stdout.write(`${JSON.stringify({ time, type: e.type, id: eventId(e), data })}\n`);
        return;
      }
      const s = ctx.out.style;
      process.stdout.write(`${s.dim(time.slice(11, 19))}  ${e.type.padEnd(24)}  ${eventId(e)}\n`);
    },
    stop() {},
  };
}

/** Forwards events one after another, in the order they came. */
export function forwarder(ctx: Context, target: URL, sign: Sign) {
  const queue: StreamEvent[] = [];
  const abort = new AbortController();
  let running = false;
  const run = async () => {
    running = true;
    while (!abort.signal.aborted && queue.length > 0) {
      const done = await forward(target, sign, queue.shift()!, abort.signal);
      if (!abort.signal.aborted) printForwarded(ctx, done);
    }
    running = false;
  };
  return {
    push(e: StreamEvent) {
      queue.push(e);
      if (!running) void run();
    },
    /** Drops what is queued and cuts the attempt in flight (Ctrl-C). */
    stop() {
      abort.abort();
    },
  };
}
