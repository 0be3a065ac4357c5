// `till customers|orders|subscriptions export`: the server's CSV export streamed to stdout or a file as it
// arrives (node:http: an export may be large, and cli/http.ts reads whole answers), with a progress line on a
// terminal. Loaded only by the export commands.
import { createWriteStream } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Transform } from "node:stream";
import { failFor } from "./client.js";
import { requireCredential, type Context } from "./context.js";
import { CliError, ERROR_CODES } from "./errors.js";
import { SANDBOX_HEADER } from "./mode.js";
import { plural } from "./words.js";

export type ExportNoun = "customers" | "orders" | "subscriptions";

/** Counts CSV records (line ends outside quoted fields) as bytes pass, and reports progress. */
class RecordCounter extends Transform {
  records = 0;
  bytes = 0;
  private quoted = false;

  constructor(private readonly onProgress: (records: number, bytes: number) => void) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === 0x22) this.quoted = !this.quoted;
      else if (c === 0x0a && !this.quoted) this.records++;
    }
    this.onProgress(this.records, this.bytes);
    done(null, chunk);
  }
}

function get(ctx: Context, path: string): Promise<IncomingMessage> {
  const credential = requireCredential(ctx);
  const url = new URL(`${ctx.server}${path}`);
  const headers: Record<string, string> = { accept: "text/csv", authorization: `Bearer ${credential.token}` };
  if (ctx.sandbox) headers[SANDBOX_HEADER] = "true";
  const lib = url.protocol === "https:" ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http");
  return new Promise((resolve, reject) => {
    const req = lib.get(url, { headers }, resolve);
    req.on("error", (err) =>
      reject(new CliError(`cannot reach ${ctx.server}: ${err.message}`, { code: ERROR_CODES.network, hint: "is the server running? Choose another with --server or TILL_SERVER" })),
    );
  });
}

async function readAll(res: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** Streams `/v1/<noun>/export` into `output` (a file path) or stdout; the count goes to stderr. */
export async function exportCsv(ctx: Context, noun: ExportNoun, query: Record<string, string | undefined>, output?: string): Promise<void> {
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  const path = `/v1/${noun}/export${qs.size > 0 ? `?${qs}` : ""}`;
  const res = await get(ctx, path);
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    failFor({ status, body: await readAll(res), requestId: res.headers["x-request-id"] as string | undefined }, requireCredential(ctx), `GET /v1/${noun}/export`);
  }
  let shown = 0;
  const progress = (records: number, bytes: number) => {
    if (!ctx.out.interactiveErr || Date.now() - shown < 100) return;
    shown = Date.now();
    process.stderr.write(`\rExporting ${noun}… ${Math.max(records - 1, 0).toLocaleString("en-US")} so far (${megabytes(bytes)})`);
  };
  const counter = new RecordCounter(progress);
  const sink: Writable = output ? createWriteStream(output) : process.stdout;
  await pipeline(res, counter, sink, { end: output !== undefined });
  if (ctx.out.interactiveErr) process.stderr.write("\r\x1b[K");
  const rows = Math.max(counter.records - 1, 0);
  const where = output ? ` to ${output}` : "";
  ctx.out.info(`Exported ${plural(rows, noun.slice(0, -1))}${where} (${megabytes(counter.bytes)}).`);
}
