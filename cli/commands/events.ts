// `till events ingest [file|-]`: usage events as NDJSON (one JSON object per line, the /v1 event shape:
// name, customer_id or external_customer_id, optional timestamp, external_id, metadata…) from a file or
// stdin, sent in batches of up to 1000 (the API's limit).
//
// The whole input is checked before the first batch is sent, so a malformed line (named by its number)
// leaves nothing half-ingested. What only the server can check (unknown customers, parents) refuses that
// batch alone; the message names the line and says which lines are already in. Events with an
// external_id are deduplicated by the server, so sending the same file again is safe.
import { createReadStream } from "node:fs";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { InvalidArgumentError, Option, type Command } from "commander";
import { describeErrorBody, failFor, request } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context } from "../context.js";
import { ApiError, CliError, EXIT, UsageError } from "../errors.js";
import { isEmail, isRecord, isUuid, parseDateTime } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";

/** The most events /v1/events/ingest takes in one request. */
export const MAX_BATCH = 1000;

interface Line {
  /** 1-based line number in the input. */
  no: number;
  text: string;
}

/** Lines of the input, numbered; blank lines are skipped (but counted). */
type Source = () => AsyncIterable<Line>;

async function* numbered(lines: AsyncIterable<string> | Iterable<string>): AsyncIterable<Line> {
  let no = 0;
  for await (const text of lines) {
    no++;
    if (text.trim() !== "") yield { no, text };
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

/** A file is read twice (check, then send) instead of held in memory; stdin can only be read once. */
async function openSource(file: string | undefined): Promise<{ source: Source; name: string }> {
  if (file === undefined || file === "-") {
    if (file === undefined && process.stdin.isTTY) {
      throw new UsageError("events ingest: pass an NDJSON file, or pipe the events on stdin (`till events ingest - < events.ndjson`)");
    }
    const lines = (await readStdin()).split(/\r?\n/);
    return { source: () => numbered(lines), name: "stdin" };
  }
  try {
    await access(file, constants.R_OK);
    if ((await stat(file)).isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
  } catch (err) {
    throw new UsageError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const source = () => numbered(createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity }));
  return { source, name: file };
}

const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/;
const nonEmptyString = (v: unknown) => typeof v === "string" && v.trim() !== "";

/** Why a line is not an event the API could take, or null. */
export function checkEvent(text: string): string | null {
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (err) {
    return `not JSON (${err instanceof Error ? err.message : String(err)})`;
  }
  if (!isRecord(event)) return "expected a JSON object (one event per line)";
  if (!nonEmptyString(event.name)) return '"name" must be a non-empty string';
  const hasCustomer = event.customer_id !== undefined;
  const hasExternal = event.external_customer_id !== undefined;
  if (!hasCustomer && !hasExternal) return 'needs "customer_id" or "external_customer_id"';
  if (hasCustomer && !nonEmptyString(event.customer_id)) return '"customer_id" must be a string';
  if (hasExternal && !nonEmptyString(event.external_customer_id)) return '"external_customer_id" must be a non-empty string';
  if (event.timestamp !== undefined && (typeof event.timestamp !== "string" || !DATETIME.test(event.timestamp) || Number.isNaN(Date.parse(event.timestamp)))) {
    return '"timestamp" must be a datetime with an offset, such as 2025-01-31T09:00:00Z';
  }
  if (event.metadata !== undefined && !isRecord(event.metadata)) return '"metadata" must be an object';
  if (event.external_id !== undefined && event.external_id !== null && !nonEmptyString(event.external_id)) return '"external_id" must be a non-empty string';
  return null;
}

interface Totals {
  events: number;
  batches: number;
  inserted: number;
  duplicates: number;
}

/** "1 duplicate", "2 duplicates". */
const duplicates = (n: number) => `${n} duplicate${n === 1 ? "" : "s"}`;

/** One line on stderr per batch, rewritten in place on a terminal. */
function progress(ctx: Context, total: number, batches: number) {
  const tty = ctx.out.interactiveErr;
  return {
    batch(t: Totals) {
      if (ctx.json) return;
      const line = `Batch ${t.batches}/${batches}: ${t.events}/${total} events sent, ${t.inserted} inserted, ${duplicates(t.duplicates)}`;
      process.stderr.write(tty ? `\r\u001B[K${line}` : `${line}\n`);
    },
    end() {
      if (tty && !ctx.json) process.stderr.write("\r\u001B[K");
    },
  };
}

/** The server's 422 for a batch, with each event's position turned back into its line number. */
function refusal(status: number, body: unknown, lines: Line[], sent: Totals, first: Line | undefined): ApiError {
  const issues = isRecord(body) && Array.isArray(body.detail) ? body.detail.filter(isRecord) : [];
  const located = issues.map((d) => {
    const loc = Array.isArray(d.loc) ? d.loc : [];
    const i = loc[0] === "body" && loc[1] === "events" && typeof loc[2] === "number" ? loc[2] : -1;
    const line = lines[i];
    const field = loc.slice(3).join(".");
    return `${line ? `line ${line.no}` : loc.join(".")}${field ? `: ${field}` : ""}: ${String(d.msg)}`;
  });
  const message = located.length > 0 ? located.slice(0, 5).join("; ") + (located.length > 5 ? ` (and ${located.length - 5} more)` : "") : describeErrorBody(status, body).message;
  const already = sent.events > 0 && first ? `lines before ${first.no} are in (${sent.inserted} inserted, ${duplicates(sent.duplicates)}); ` : "";
  return new ApiError(
    status,
    `the server refused batch ${sent.batches + 1}: ${message}`,
    "RequestValidationError",
    `${already}nothing of this batch or after it was sent. Events with an external_id are deduplicated: fix the lines and send the file again.`,
    { exitCode: EXIT.usage },
  );
}

async function ingest(ctx: Context, opts: { batchSize: number }, [file]: string[]) {
  const { source, name } = await openSource(file);
  // first pass: every line must be an event before anything is sent
  let count = 0;
  const bad: string[] = [];
  for await (const line of source()) {
    count++;
    const why = checkEvent(line.text);
    if (why) bad.push(`line ${line.no}: ${why}`);
  }
  if (bad.length > 0) {
    const more = bad.length > 1 ? ` (and ${bad.length - 1} more bad line${bad.length > 2 ? "s" : ""})` : "";
    throw new UsageError(`${name}: ${bad[0]}${more}`, "nothing was sent: fix the input and run the command again");
  }
  if (count === 0) throw new UsageError(`${name}: no events (expected one JSON object per line)`);

  const credential = requireCredential(ctx);
  const batches = Math.ceil(count / opts.batchSize);
  const totals: Totals = { events: 0, batches: 0, inserted: 0, duplicates: 0 };
  const shown = progress(ctx, count, batches);
  const send = async (lines: Line[]) => {
    const events = lines.map((l) => JSON.parse(l.text) as unknown);
    const res = await request(ctx, "POST", "/v1/events/ingest", { body: { events }, credential });
    if (res.status === 422) {
      shown.end();
      throw refusal(res.status, res.body, lines, totals, lines[0]);
    }
    if (res.status < 200 || res.status >= 300) {
      shown.end();
      failFor(res, credential, `POST /v1/events/ingest (batch ${totals.batches + 1} of ${batches})`);
    }
    const r = res.body as { inserted: number; duplicates?: number };
    totals.events += lines.length;
    totals.batches++;
    totals.inserted += r.inserted;
    totals.duplicates += r.duplicates ?? lines.length - r.inserted;
    shown.batch(totals);
  };
  let batch: Line[] = [];
  for await (const line of source()) {
    batch.push(line);
    if (batch.length === opts.batchSize) {
      await send(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await send(batch);
  shown.end();
  ctx.out.done(
    totals,
    `Ingested ${totals.events} event${totals.events === 1 ? "" : "s"} in ${totals.batches} batch${totals.batches === 1 ? "" : "es"}: ${totals.inserted} inserted, ${duplicates(totals.duplicates)}.`,
  );
}

function parseBatchSize(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_BATCH) throw new InvalidArgumentError(`expected a number of events from 1 to ${MAX_BATCH}.`);
  return n;
}

/** `--since 2h`, `7d`, `30m`, `1w` before now, or a date or datetime (flags.ts's parseDateTime). */
export function parseSince(value: string, now = Date.now()): string {
  const m = /^\s*(\d+)\s*(m|min|h|d|w)\s*$/i.exec(value);
  if (m) {
    const unit = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[(m[2] ?? "").toLowerCase() as "m" | "min" | "h" | "d" | "w"];
    return new Date(now - Number(m[1]) * unit).toISOString();
  }
  try {
    return parseDateTime(value);
  } catch {
    throw new InvalidArgumentError("expected a time back from now (30m, 2h, 7d, 1w), a date (2025-01-31, midnight UTC) or a datetime with an offset.");
  }
}

interface WireEvent {
  id: string;
  timestamp: string;
  name: string;
  source: string;
  customer_id: string | null;
  external_customer_id: string | null;
  metadata: Record<string, unknown>;
}

interface EventListOptions extends ListOptions {
  customer?: string;
  name?: string;
  since?: string;
  until?: string;
  source?: string;
}

/** `--customer`: an email names the customer with it when there is one, else it is an external id. */
async function eventCustomer(ctx: Context, value: string | undefined): Promise<string | undefined> {
  if (value === undefined || !isEmail(value)) return value;
  try {
    return await customerIdOf(ctx, value);
  } catch (err) {
    if (err instanceof CliError && err.code === "ResourceNotFound") return value;
    throw err;
  }
}

async function list(ctx: Context, opts: EventListOptions) {
  // a UUID is till's customer id, an email the customer's (else the seller's own id for them, which may
  // look like an email too); anything else is the seller's own id for the customer
  const customer = await eventCustomer(ctx, opts.customer?.trim());
  const byId = customer !== undefined && isUuid(customer);
  await listResource<WireEvent>(ctx, opts, {
    path: "/events/",
    noun: "events",
    query: {
      customer_id: byId ? customer?.toLowerCase() : undefined,
      external_customer_id: byId ? undefined : customer,
      name: opts.name,
      source: opts.source,
      start_timestamp: opts.since,
      end_timestamp: opts.until,
    },
    empty: "No events match.",
    columns: [
      { header: "TIME", value: (e) => e.timestamp.slice(0, 19).replace("T", " ") },
      { header: "NAME", value: (e) => e.name },
      { header: "CUSTOMER", value: (e) => e.external_customer_id ?? e.customer_id ?? "" },
      { header: "METADATA", value: (e) => describeMetadata(e.metadata) },
      { header: "ID", value: (e) => e.id },
    ],
  });
}

export function register(program: Command): void {
  const events = program
    .command("events")
    .description("send and list usage events (what meters count)")
    .addHelpText("after", examples(["till events ingest usage.ndjson", "my-exporter | till events ingest -", "till events list --customer user_42 --since 1d"]));

  listOptions(
    events
      .command("list")
      .alias("ls")
      .description("list events, newest first")
      .option("--customer <id>", "only this customer's: till's customer id, its email, or your own id for them (external id)")
      .option("--name <name>", "only events with this name, such as api_call")
      .option("--since <when>", "only events from then on: 30m, 2h, 7d, 1w back from now, or a date or datetime", (v: string) => parseSince(v))
      .option("--until <when>", "only events before then (same forms as --since)", (v: string) => parseSince(v))
      .addOption(new Option("--source <source>", "user (ingested) or system (till's own)").choices(["user", "system"])),
  )
    .addHelpText(
      "after",
      examples(["till events list", "till events list --customer user_42 --name api_call --since 7d", "till events list --since 2025-01-01 --all --json"]),
    )
    .action(withContext(list));

  events
    .command("ingest")
    .description("send usage events from an NDJSON file or stdin, in batches")
    .argument("[file]", "NDJSON file, one event per line; - or nothing for stdin")
    .option("--batch-size <n>", `events per request, 1 to ${MAX_BATCH}`, parseBatchSize, MAX_BATCH)
    .addHelpText(
      "after",
      examples([
        "till events ingest usage.ndjson",
        "till events ingest - < usage.ndjson",
        `echo '{"name":"api_call","external_customer_id":"user_42","metadata":{"tokens":120}}' | till events ingest`,
        "till events ingest usage.ndjson --json",
      ]) +
        "\nEach line is a /v1 event: name, customer_id or external_customer_id, and optionally timestamp\n" +
        "(RFC 3339 with an offset), external_id (deduplicates), parent_id and metadata. Every line is checked\n" +
        "before the first batch is sent; a bad line stops the command with its number, exit 2.\n",
    )
    .action(withContext(ingest));
}
