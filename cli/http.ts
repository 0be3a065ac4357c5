// One HTTP/1.1 exchange written straight onto a TCP (or TLS) socket: the request with `Connection: close`,
// then the whole answer read until the server closes, then parsed. The CLI makes one or two requests per
// run, and node:http costs more than that at start-up (its module graph, the agent, the parser: about a
// tenth of a `--json` command); fetch() more still (Node's bundled undici). No keep-alive, no redirects,
// no proxies: neither did the CLI's node:http requests.
import type { Socket } from "node:net";

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as UTF-8 text (chunked transfer coding removed). */
  text: string;
}

export interface HttpExchange {
  method: string;
  headers: Record<string, string>;
  /** JSON as text, or raw bytes (a file part of `till files upload`). */
  body?: string | Buffer | undefined;
  timeoutMs: number;
}

const CRLF = "\r\n";
/** A field name or value we could not send as is: a line break would smuggle another header. */
const UNSAFE = /[\r\n\0]/;

function connect(url: URL): Socket {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (url.protocol === "https:") {
    const port = Number(url.port || 443);
    return process.getBuiltinModule("node:tls").connect({ host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host });
  }
  return process.getBuiltinModule("node:net").connect({ host, port: Number(url.port || 80) });
}

/** Removes the chunked transfer coding (RFC 9112 §7.1); trailers are ignored. */
export function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf(CRLF, at);
    if (eol < 0) throw new Error("malformed chunked body");
    const size = Number.parseInt(body.subarray(at, eol).toString("latin1").split(";")[0] ?? "", 16);
    if (!Number.isFinite(size) || size < 0) throw new Error("malformed chunk size");
    if (size === 0) return Buffer.concat(parts);
    const start = eol + 2;
    if (start + size > body.length) throw new Error("truncated chunked body");
    parts.push(body.subarray(start, start + size));
    at = start + size + 2;
  }
}

/** Parses a whole HTTP/1.1 response (the connection closed after it). */
export function parseResponse(raw: Buffer, method: string): HttpAnswer {
  const end = raw.indexOf(`${CRLF}${CRLF}`);
  if (end < 0) throw new Error(raw.length === 0 ? "the server closed the connection without answering" : "malformed HTTP response");
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split(CRLF);
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!m) throw new Error(`malformed HTTP status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
  const status = Number(m[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = raw.subarray(end + 4);
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) body = Buffer.alloc(0);
  else if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(body);
  else if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"]);
    if (!Number.isSafeInteger(length) || length < 0) throw new Error("malformed Content-Length");
    if (body.length < length) throw new Error("the server closed the connection before the end of its answer");
    body = body.subarray(0, length);
  }
  return { status, headers, text: body.toString("utf8") };
}

let sent = 0;

/** How many requests this process has sent (bin/till.js: whether this run's code cache covers a request). */
export function requestsSent(): number {
  return sent;
}

/** Sends one request to `url` and resolves with the server's whole answer. */
export function exchange(url: URL, req: HttpExchange): Promise<HttpAnswer> {
  sent++;
  const head = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, "connection: close"];
  for (const [name, value] of Object.entries(req.headers)) {
    if (UNSAFE.test(name) || UNSAFE.test(value)) return Promise.reject(new Error(`header ${name}: line breaks are not allowed`));
    if (name.toLowerCase() !== "host" && name.toLowerCase() !== "connection") head.push(`${name}: ${value}`);
  }
  // as node:http: a length for every request that may carry a body, 0 when it has none
  if (!Object.keys(req.headers).some((n) => n.toLowerCase() === "content-length") && (req.body !== undefined || !/^(GET|HEAD)$/.test(req.method))) {
    head.push(`content-length: ${Buffer.byteLength(req.body ?? "")}`);
  }
  const headText = `${head.join(CRLF)}${CRLF}${CRLF}`;
  const message = Buffer.isBuffer(req.body) ? Buffer.concat([Buffer.from(headText, "latin1"), req.body]) : `${headText}${req.body ?? ""}`;
  return new Promise((resolve, reject) => {
    const socket = connect(url);
    const chunks: Buffer[] = [];
    socket.setNoDelay(true);
    socket.setTimeout(req.timeoutMs, () => socket.destroy(new Error(`no answer within ${req.timeoutMs / 1000} s`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      socket.destroy();
      try {
        resolve(parseResponse(Buffer.concat(chunks), req.method));
      } catch (err) {
        reject(err);
      }
    });
    // not end(): a server that sees our side closed may take the request for abandoned
    socket.write(message);
  });
}
