// One HTTP attempt: POST the signed body, wait at most `timeoutMs` for the whole answer, keep the first 2 KB of
// the body. Redirects are not followed (a 3xx is a failure): a redirect could lead to an address the checks refused.
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, hostOf, isPrivateAddress, PrivateTargetError } from "./address.js";

/** The response body kept in the delivery log. */
export const RESPONSE_LIMIT_BYTES = 2048;
/** Bodies longer than this are not read to the end (the connection is dropped). */
const READ_LIMIT_BYTES = 64 * 1024;

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export interface AttemptResult {
  succeeded: boolean;
  httpCode: number | null;
  /** The response body (≤ 2 KB), or null when there was no answer. */
  response: string | null;
  /** Why there was no (good) answer: unreachable, timed out, refused target. */
  error: string | null;
  durationMs: number;
  startedAt: Date;
}

/** At most `limit` bytes of UTF-8 text, cut on a character boundary, without NUL (PostgreSQL text refuses it). */
export function truncateUtf8(buf: Buffer, limit = RESPONSE_LIMIT_BYTES): string {
  let text = buf.subarray(0, limit).toString("utf8");
  while (Buffer.byteLength(text) > limit || (buf.length > limit && text.endsWith("\uFFFD"))) text = text.slice(0, -1);
  return text.replaceAll("\u0000", "");
}

function describe(err: unknown): string {
  if (err instanceof PrivateTargetError) return err.message;
  const e = err as { code?: string; message?: string };
  return (e.code ? `${e.code}: ${e.message ?? ""}` : (e.message ?? String(err))).slice(0, 500);
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

export function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: SendOptions,
): Promise<AttemptResult> {
  const startedAt = new Date();
  const started = performance.now();
  const done = (r: Omit<AttemptResult, "durationMs" | "startedAt">): AttemptResult => ({
    ...r,
    durationMs: Math.round(performance.now() - started),
    startedAt,
  });
  const fail = (error: string) => done({ succeeded: false, httpCode: null, response: null, error });

  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return Promise.resolve(fail("Invalid URL"));
  }
  const secure = url.protocol === "https:";
  if (!secure && url.protocol !== "http:") return Promise.resolve(fail("Unsupported URL scheme"));
  // an IP literal never reaches `lookup`: check it here
  if (!opts.allowPrivate && isIP(hostOf(url)) && isPrivateAddress(hostOf(url))) {
    return Promise.resolve(fail(new PrivateTargetError().message));
  }

  if (opts.signal?.aborted) return Promise.resolve(fail("aborted: the worker stopped"));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      resolve(r);
    };
    const payload = Buffer.from(body);
    const req = (secure ? https : http).request(url, {
      method: "POST",
      agent: secure ? agents.https : agents.http,
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(payload.length),
        "user-agent": "till-webhooks/1",
      },
      ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    const onAbort = () => req.destroy(new Error("aborted: the worker stopped"));
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (err) => finish(fail(describe(err))));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const complete = () => {
        const code = res.statusCode ?? 0;
        const ok = code >= 200 && code < 300;
        finish(
          done({
            succeeded: ok,
            httpCode: code,
            response: truncateUtf8(Buffer.concat(chunks)),
            error: ok ? null : `HTTP ${code}`,
          }),
        );
      };
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size - c.length < RESPONSE_LIMIT_BYTES + 4) chunks.push(c);
        if (size > READ_LIMIT_BYTES) {
          complete();
          res.destroy();
        }
      });
      res.on("end", complete);
      res.on("error", (err) => finish(fail(describe(err))));
    });
    req.end(payload);
  });
}
