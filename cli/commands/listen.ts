// `till listen --forward-to <url>`: the organization's webhook events, live from the server's event stream
// (GET /v1/cli/listen), each signed the Standard Webhooks way with a secret of this machine and POSTed to a
// local app, one line per event with the app's answer (the forwarding: cli/listen-forward.ts). When the
// connection drops (a server restart, a laptop that slept) it reconnects with the last event id, and the server
// replays what came in meanwhile.
import { watch, type FSWatcher } from "node:fs";
import type { ClientRequest, IncomingMessage } from "node:http";
import { type Command } from "commander";
import { describeErrorBody, failFor } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context, type Credential } from "../context.js";
import { AuthRequiredError, CliError, UsageError } from "../errors.js";
import { readProfile } from "../config.js";
import { listenSecret } from "../listen-secret.js";
import { SANDBOX_HEADER } from "../mode.js";
import { interrupted, pause } from "../signals.js";
import { collectEvents } from "./webhooks.js";
import { forwarder, forwardTarget, printer, type StreamEvent } from "../listen-forward.js";

interface ListenOptions {
  forwardTo?: string;
  events?: string[];
  printSecret?: boolean;
}

/** Reconnect delays: from the first, doubling up to the last. */
const BACKOFF_MS = { first: 500, max: 10_000 };
/**
 * Three keep-alives missed means the connection is dead (a laptop that slept): the server names its interval in a
 * header (`till-keep-alive`, seconds; 15 by default); until the stream answers, and from a server that names none,
 * 45 s of silence.
 */
const SILENCE_MS = 45_000;
const silenceOf = (header: string | string[] | undefined): number => {
  const seconds = Number(typeof header === "string" ? header : undefined);
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 300 ? seconds * 3_000 : SILENCE_MS;
};

// ---- the signing secret ----------------------------------------------------------------------------------

/** The server's Standard Webhooks signing (both key derivations), loaded when needed: node:crypto costs start-up. */
const signing = () => import("../../server/billing/webhooks/signing.js");

/** This sign-in session's secret (cli/listen-secret.ts). */
const secretOf = (ctx: Context) =>
  listenSecret(ctx.env.configDir, ctx.profileName, ctx.server, async () => (await signing()).generateSecret());

// ---- the event stream ---------------------------------------------------------------------------------------

/** Splits the text/event-stream into events (comments and other fields ignored). */
function sseParser(onEvent: (e: StreamEvent) => void) {
  let buffer = "";
  return (chunk: string) => {
    buffer += chunk.replace(/\r\n?/g, "\n");
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        fields[name] = name === "data" && fields.data !== undefined ? `${fields.data}\n${value}` : value;
      }
      if (fields.id && fields.data !== undefined) onEvent({ cursor: fields.id, type: fields.event ?? "message", data: fields.data });
    }
  };
}

type Session = { kind: "ended"; why: string } | { kind: "forget-cursor"; why: string };

interface Connection {
  done: Promise<Session>;
  close(): void;
}

/** Whether a 422 names `field` (Polar's `detail: [{loc, msg}]`). */
function refuses(body: unknown, field: string): boolean {
  const detail = typeof body === "object" && body !== null ? (body as { detail?: unknown }).detail : undefined;
  return Array.isArray(detail) && detail.some((d: { loc?: unknown }) => Array.isArray(d.loc) && d.loc.includes(field));
}

async function readAll(res: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One connection to the stream, until it ends. Refusals that retrying cannot fix (credentials, scope, a bad
 * filter) reject with the CliError; everything else (network, restarts, 5xx) ends the session for a retry.
 */
/** What a non-200 answer means: a session to retry, or an error that retrying cannot fix. */
function refusal(status: number, body: unknown, credential: Credential, lastId: string | undefined): Session | CliError {
  if (status === 422 && lastId && refuses(body, "last-event-id")) {
    // e.g. the server's database was reset: resuming from that event cannot work
    return { kind: "forget-cursor", why: describeErrorBody(status, body).message };
  }
  if (status === 422 && refuses(body, "events")) {
    return new UsageError(`--events: ${describeErrorBody(status, body).message}`, "see the event types in till webhooks endpoints create --help");
  }
  if (status < 400 || status >= 500 || status === 408 || status === 429) return { kind: "ended", why: `the server answered ${status}` };
  try {
    failFor({ status, body }, credential, "GET /v1/cli/listen");
  } catch (err) {
    return err instanceof CliError ? err : new CliError(String(err));
  }
}

async function connect(
  ctx: Context,
  credential: Credential,
  opts: { events: string[] | undefined; lastId: string | undefined; onOpen: () => void; onEvent: (e: StreamEvent) => void },
): Promise<Connection> {
  const url = new URL(`${ctx.server}/v1/cli/listen`);
  if (opts.events) url.searchParams.set("events", opts.events.join(","));
  const headers: Record<string, string> = { accept: "text/event-stream", authorization: `Bearer ${credential.token}` };
  if (ctx.sandbox) headers[SANDBOX_HEADER] = "true";
  if (opts.lastId) headers["last-event-id"] = opts.lastId;
  const { request } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  let req: ClientRequest | undefined;
  const done = new Promise<Session>((resolve, reject) => {
    const end = (why: string) => resolve({ kind: "ended", why });
    // the socket's idle timeout covers connecting and the stream: keep-alives come as often as the server says
    let silence = SILENCE_MS;
    req = request(url, { method: "GET", headers, agent: false, timeout: SILENCE_MS }, (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        readAll(res).then(
          (body) => {
            const outcome = refusal(status, body, credential, opts.lastId);
            if (outcome instanceof CliError) reject(outcome);
            else resolve(outcome);
          },
          () => end(`the server answered ${status}`),
        );
        return;
      }
      silence = silenceOf(res.headers["till-keep-alive"]);
      req?.setTimeout(silence);
      opts.onOpen();
      res.setEncoding("utf8");
      res.on("data", sseParser(opts.onEvent));
      res.on("end", () => end("the server closed the stream"));
      res.on("error", (err) => end(err.message));
    });
    req.on("timeout", () => req?.destroy(new Error(`nothing from the server for ${silence / 1000} s`)));
    req.on("error", (err: NodeJS.ErrnoException) => end(err.code ?? err.message));
    req.end();
  });
  return { done, close: () => req?.destroy() };
}

// ---- the profile's sign-in ----------------------------------------------------------------------------------

/**
 * A stream signed in through the profile follows it: `till login` again switches the stream to the new session,
 * `till logout` stops it. The profile's file is watched (its folder: the file is replaced, not written in place).
 */
function followProfile(ctx: Context, inUse: () => string) {
  const token = () => readProfile(ctx.env.configDir, ctx.profileName).token;
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(ctx.env.configDir, () => {
      if (token() !== inUse()) wake?.();
    });
    watcher.on("error", () => watcher?.close());
  } catch {
    // no folder to watch (nothing stored): a change is still seen at the next reconnect
  }
  return {
    token,
    /** Resolves when the profile's sign-in is no longer the one in use. */
    changed: () => new Promise<"switch">((resolve) => (wake = () => resolve("switch"))),
    close: () => watcher?.close(),
  };
}

// ---- the command ---------------------------------------------------------------------------------------------

async function listen(ctx: Context, opts: ListenOptions): Promise<void> {
  if (opts.printSecret) {
    process.stdout.write(`${await secretOf(ctx)}\n`);
    return;
  }
  const target = opts.forwardTo === undefined ? null : forwardTarget(opts.forwardTo);
  let credential = requireCredential(ctx);
  let out: { push(e: StreamEvent): void; stop(): void };
  if (target) {
    const secret = await secretOf(ctx);
    ctx.out.notice(`Your webhook signing secret is ${secret} (till listen --print-secret prints it)`);
    const { signHeaders, signingKeys } = await signing();
    const keys = signingKeys(secret);
    out = forwarder(ctx, target, (id, body) => ({ ...signHeaders(keys, id, body) }));
  } else {
    out = printer(ctx);
  }
  const stop = interrupted();
  const profile = credential.source === "profile" ? followProfile(ctx, () => credential.token) : null;
  let lastId: string | undefined;
  let delay = BACKOFF_MS.first;
  let opened = false;
  try {
    for (;;) {
      const token = profile?.token();
      if (profile && !token) {
        throw new AuthRequiredError(`signed out of ${ctx.server} (\`till logout\`): till listen stopped`, {
          hint: "run `till login`, then `till listen` again",
        });
      }
      if (token && token !== credential.token) {
        credential = { ...credential, token };
        ctx.out.notice("The profile was signed in again (`till login`): following the new sign-in.");
      }
      const conn = await connect(ctx, credential, {
        events: opts.events,
        lastId,
        onOpen() {
          delay = BACKOFF_MS.first;
          const side = ctx.sandbox ? "sandbox" : "live";
          const ready = target
            ? `Ready: forwarding ${side} events from ${ctx.server} to ${target.href} (Ctrl-C to stop).`
            : `Ready: printing ${side} events from ${ctx.server} as they happen (Ctrl-C to stop; --forward-to <url> sends them to your app).`;
          ctx.out.notice(opened ? `Reconnected to ${ctx.server}${lastId ? ", replaying what was missed" : ""}.` : ready);
          opened = true;
        },
        onEvent(e) {
          lastId = e.cursor;
          out.push(e);
        },
      });
      const session = await Promise.race([conn.done, stop.promise, ...(profile ? [profile.changed()] : [])]);
      if (session === "stop") {
        conn.close();
        return;
      }
      if (session === "switch") {
        // the next turn connects with the profile's sign-in now, or stops if there is none
        conn.close();
        continue;
      }
      if (session.kind === "forget-cursor") {
        ctx.out.warn(`The server does not know the last event (${session.why}); going on with new events only.`);
        lastId = undefined;
        continue;
      }
      ctx.out.warn(`Lost the connection to ${ctx.server} (${session.why}); reconnecting in ${delay / 1000} s.`);
      if ((await pause(delay, stop.promise)) === "stop") return;
      delay = Math.min(delay * 2, BACKOFF_MS.max);
    }
  } finally {
    out.stop();
    stop.dispose();
    profile?.close();
  }
}

export function register(program: Command): void {
  program
    .command("listen")
    .description("print your organization's webhook events (its sandbox's unless --live) as they happen, or forward them to a local app, signed")
    .option("--forward-to <url>", "POST each event there, signed, e.g. http://localhost:3000/webhooks (default: print them)")
    .option("--events <types>", "only these event types, comma-separated or repeated (e.g. order.paid,subscription.active)", collectEvents)
    .option("--print-secret", "print the webhook signing secret and exit")
    .addHelpText(
      "after",
      examples([
        "till listen",
        "till listen --events order.paid --json | jq .data.data.id",
        "till listen --forward-to http://localhost:3000/api/webhooks",
        "till listen --forward-to http://localhost:3000/api/webhooks --events order.paid,subscription.active",
        "POLAR_WEBHOOK_SECRET=$(till listen --print-secret) npm run dev",
        "till listen --forward-to http://localhost:8000/webhooks --json | jq .status",
      ]) +
        "\nEach event is POSTed with the headers webhook-id (the event's id), webhook-timestamp and webhook-signature,\n" +
        "signed with a random secret made for this sign-in session (a new one after `till login` or `till logout`):\n" +
        "validateEvent(body, headers, secret) of @polar-sh/sdk/webhooks accepts them. One line per event shows the\n" +
        "app's status and how long it took (--json: one JSON object per line).\n" +
        "\nEach event is sent once: an app that is down or answers an error is not retried (the line says so) and\n" +
        "the stream goes on. When the connection drops (a server restart, a laptop that slept), till listen\n" +
        "reconnects (0.5 s, doubling up to 10 s) and the server replays the events since the last one received\n" +
        "(up to 24 hours back). Ctrl-C stops it (exit 0).\n" +
        "\nIt listens to the organization's sandbox (where `till trigger` makes events) unless told --live.\n" +
        "Signed in through the profile, it follows the profile: after `till login` it goes on with the new sign-in,\n" +
        "after `till logout` it stops (exit 4), and so it does when the server no longer accepts the credential\n" +
        "(a revoked session or key; the server ends the stream).\n",
    )
    .action(withContext(listen, { sandboxByDefault: true, name: "till listen" }));
}
