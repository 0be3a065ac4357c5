// CSV exports (`/v1/customers|orders|subscriptions/export`). PostgreSQL builds every record: the cells, the
// CSV-injection guard and the RFC 4180 quoting are SQL (one expression per export, below), so Node never holds
// a row object. On PostgreSQL the records come from one `COPY (SELECT …) TO STDOUT (FORMAT binary)` on a
// reserved connection, streamed with backpressure into 64 KiB chunks (constant memory at any size); on PGlite,
// which has no COPY to the client, the same SELECT is read in keyset batches of EXPORT_BATCH. The same SQL
// builds the records on both, so their output is byte-identical.
import { Readable, Transform, type TransformCallback } from "node:stream";
import type { FastifyReply } from "fastify";
import type postgres from "postgres";
import type { Db } from "../db/client.js";
import { openReading } from "../db/replicas.js";
import { isUuid } from "../../shared/uuid.js";

/** Rows fetched per query on PGlite: large enough that the round trips don't dominate, small enough to stay flat. */
export const EXPORT_BATCH = 1000;

/**
 * One exported column: its header and the SQL of its cell before quoting (text or NULL). `guard: true` for text
 * a customer or seller chose (names, emails, JSON): a leading `=`, `+`, `-`, `@`, tab or carriage return gets a
 * leading `'` (OWASP's advice against CSV injection). Numbers, booleans and dates are written as they are.
 */
export interface CsvColumn {
  header: string;
  sql: string;
  guard: boolean;
}

/** A text column as it is (guarded). */
export const textColumn = (header: string, sql: string): CsvColumn => ({ header, sql, guard: true });
/** A number or boolean column (`1000`, `true`). */
export const plainColumn = (header: string, sql: string): CsvColumn => ({ header, sql: `(${sql})::text`, guard: false });
/** A timestamptz column as JavaScript's `toISOString()` writes it: UTC, milliseconds (truncated), `Z`. */
export const dateColumn = (header: string, sql: string): CsvColumn => ({
  header,
  sql: `to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  guard: false,
});
/**
 * A jsonb column (metadata, addresses) as one JSON text cell, compact as `JSON.stringify` writes it (jsonb's
 * text with the space after each `,` and `:` outside strings taken out); an empty object or array, or null, is
 * an empty cell. Keys come in jsonb's order (shorter keys first).
 */
export const jsonColumn = (header: string, sql: string): CsvColumn => ({
  header,
  sql:
    `CASE WHEN (${sql}) IS NULL OR (${sql}) IN ('{}'::jsonb, '[]'::jsonb, 'null'::jsonb) THEN NULL ` +
    `ELSE regexp_replace((${sql})::text, '("(?:[^"\\\\]|\\\\.)*")|([,:]) ', '\\1\\2', 'g') END`,
  guard: true,
});

/** A quoted SQL literal of a UUID; anything else throws (COPY takes no parameters, so ids are inlined). */
export function uuidLiteral(id: string): string {
  if (!isUuid(id)) throw new Error(`not a uuid: ${id}`);
  return `'${id.toLowerCase()}'::uuid`;
}

/** What a domain's service hands the route for an export: the columns and where the rows are. */
export interface CsvExport {
  name: string;
  columns: readonly CsvColumn[];
  /** `FROM …` with its joins; the exported table's alias is `t` (with `created_at` and `id`). */
  from: string;
  /** The rows' conditions (tenancy first), ANDed; values inlined through uuidLiteral. */
  where: readonly string[];
  /** No rows at all (the header only): a query's `organization_id` that leaves the caller's out. */
  empty?: boolean;
}

/** One cell, quoted when it holds `"`, `,`, CR or LF (RFC 4180), empty for NULL. */
function quoted(column: string, guard: boolean): string {
  // numbers, booleans and dates hold none of the characters that need quoting
  if (!guard) return `coalesce(${column}, '')`;
  const value = `CASE WHEN left(${column}, 1) IN ('=', '+', '-', '@', chr(9), chr(13)) THEN '''' || ${column} ELSE ${column} END`;
  return `CASE WHEN ${column} IS NULL THEN '' WHEN ${column} ~ '[",\\r\\n]' THEN '"' || replace(${value}, '"', '""') || '"' ELSE ${value} END`;
}

/**
 * The SELECT answering `line` (one CSV record with its CRLF), `at` (created_at as text, µs) and `id` in
 * (created_at, id) order. The cells are computed once in a subquery (OFFSET 0 or the LIMIT keeps PostgreSQL
 * from pulling it up and evaluating each cell's SQL once per reference), then guarded and quoted.
 */
function recordsQuery(csv: CsvExport, keyset: string | null, limit: number | null): string {
  const cells = csv.columns.map((c, i) => `${c.sql} AS c${i}`).join(", ");
  const line = csv.columns.map((c, i) => quoted(`s.c${i}`, c.guard)).join(" || ',' || ");
  const where = [...csv.where, ...(keyset ? [keyset] : [])].map((w) => `(${w})`).join(" AND ");
  return (
    `SELECT ${line} || chr(13) || chr(10) AS line, s.at, s.id FROM (` +
    `SELECT ${cells}, t.created_at AS ts, t.id AS key, t.created_at::text AS at, t.id::text AS id ${csv.from} WHERE ${where} ` +
    `ORDER BY t.created_at, t.id ${limit === null ? "OFFSET 0" : `LIMIT ${limit}`}) s ORDER BY s.ts, s.key`
  );
}

export function csvHeader(csv: CsvExport): string {
  return `${csv.columns.map((c) => c.header).join(",")}\r\n`;
}

const CHUNK = 64 * 1024;

/**
 * `COPY … (FORMAT binary)` of one text column → the text, coalesced into CHUNK-sized buffers. The binary format:
 * a 19-byte header, then per row a 16-bit field count (1) and a 32-bit length before the bytes; a count of -1
 * ends it. Frames may be split across chunks anywhere.
 */
class CopyLines extends Transform {
  private skip = 19;
  private remaining = 0;
  private rest: Buffer | null = null;
  private out = Buffer.allocUnsafe(CHUNK);
  private used = 0;

  constructor(first: string) {
    super();
    this.append(Buffer.from(first, "utf8"), 0, Buffer.byteLength(first, "utf8"));
  }

  private append(buf: Buffer, start: number, length: number): void {
    let from = start;
    let left = length;
    while (left > 0) {
      const n = Math.min(left, CHUNK - this.used);
      buf.copy(this.out, this.used, from, from + n);
      this.used += n;
      from += n;
      left -= n;
      if (this.used === CHUNK) {
        this.push(this.out);
        this.out = Buffer.allocUnsafe(CHUNK);
        this.used = 0;
      }
    }
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    let i = 0;
    for (;;) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, buf.length - i);
        this.skip -= n;
        i += n;
        if (this.skip > 0) break;
      }
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, buf.length - i);
        this.append(buf, i, n);
        this.remaining -= n;
        i += n;
        if (this.remaining > 0) break;
      }
      if (buf.length - i < 2) break;
      const fields = buf.readInt16BE(i);
      if (fields === -1) {
        i = buf.length;
        break;
      }
      if (fields !== 1) return callback(new Error(`COPY answered a row of ${fields} fields`));
      if (buf.length - i < 6) break;
      const length = buf.readInt32BE(i + 2);
      if (length < 0) return callback(new Error("COPY answered a NULL record"));
      this.remaining = length;
      i += 6;
    }
    if (i < buf.length) this.rest = Buffer.from(buf.subarray(i));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.used > 0) this.push(this.out.subarray(0, this.used));
    callback();
  }
}

type PgliteClient = { query(text: string, params: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> };
const clientOf = (db: Db) => (db as unknown as { session: { client: postgres.Sql | PgliteClient } }).session.client;

/**
 * The export as a byte stream (header first). On PostgreSQL the COPY has started when this resolves (a bad
 * statement rejects here, before any answer is sent). A stream destroyed early (the client went away) cancels
 * the COPY, reads what is still in flight and only then gives the connection back.
 */
export async function csvStream(db: Db, csv: CsvExport): Promise<Readable> {
  const header = csvHeader(csv);
  if (csv.empty) return Readable.from([Buffer.from(header, "utf8")], { objectMode: false });
  const client = clientOf(db);
  if (!("reserve" in client)) return Readable.from(keysetChunks(client, csv, header), { objectMode: false });

  // a reserved connection: the pool pipelines other queries onto busy connections, and one in COPY refuses them
  const statement = `COPY (SELECT line FROM (${recordsQuery(csv, null, null)}) r) TO STDOUT (FORMAT binary)`;
  const {
    conn,
    value: { query, source },
  } = await openReading(client, async (c) => {
    const query = c.unsafe(statement);
    return { query, source: await query.readable() };
  });
  const lines = new CopyLines(header);
  // the COPY's stream ended or closed: nothing is left to cancel
  let finished = false;
  let cancelled: Promise<unknown> = Promise.resolve();
  source.once("end", () => {
    finished = true;
  });
  const closed = new Promise<void>((resolve) =>
    source.once("close", () => {
      finished = true;
      resumeSocket(source);
      resolve();
    }),
  );
  source.on("error", (err) => {
    if (!lines.destroyed) lines.destroy(err);
  });
  lines.once("close", () => {
    if (finished) return;
    // given up early: stop the COPY, drain the socket (a paused one never sees the COPY's end), then release
    source.unpipe(lines);
    source.on("data", () => undefined);
    // unpipe leaves it paused (explicitly): a 'data' listener alone would not start it
    source.resume();
    cancelled = Promise.resolve(query.cancel()).catch(() => undefined);
  });
  // the one release: once the COPY is over and, if it was cancelled, once the cancel has reached the server (a
  // cancel still on its way when the connection runs its next query would cancel that query instead)
  void closed.then(() => cancelled).then(() => conn.release());
  source.pipe(lines);
  return lines;
}

/**
 * postgres.js (3.4.9) pauses the connection's socket when a COPY chunk fills the stream's buffer and resumes it
 * only when the stream asks for more. When the COPY's last messages (CopyDone, or the ErrorResponse of a cancel)
 * came in the chunk that paused it, the stream ends without asking, and the socket stays paused: the next query
 * on that connection never gets its answer (porsager/postgres#499, fix proposed in #1016). The stream's read()
 * is what resumes the socket; calling it once the stream has closed leaves the connection readable.
 */
function resumeSocket(source: Readable): void {
  (source as Readable & { _read(size: number): void })._read(0);
}

/** PGlite: the same records in keyset batches, cursor (created_at as text, id) after each batch's last row. */
async function* keysetChunks(client: PgliteClient, csv: CsvExport, header: string): AsyncGenerator<string> {
  yield header;
  const first = recordsQuery(csv, null, EXPORT_BATCH);
  const next = recordsQuery(csv, "t.created_at >= $1::timestamptz AND (t.created_at, t.id) > ($1::timestamptz, $2::uuid)", EXPORT_BATCH);
  let after: [string, string] | null = null;
  for (;;) {
    const result: { rows: Array<Record<string, unknown>> } = after ? await client.query(next, after) : await client.query(first, []);
    const rows = result.rows;
    if (rows.length === 0) return;
    yield rows.map((r) => r.line as string).join("");
    const last = rows[rows.length - 1]!;
    after = [last.at as string, last.id as string];
    if (rows.length < EXPORT_BATCH) return;
  }
}

/** Sends the export as `text/csv` (an attachment named `<name>.csv`), streamed with backpressure. */
export async function sendCsv(reply: FastifyReply, db: Db, csv: CsvExport): Promise<FastifyReply> {
  const body = await csvStream(db, csv);
  return reply
    .header("content-type", "text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${csv.name}.csv"`)
    .header("cache-control", "no-store")
    .send(body);
}

/** The same export with no rows (the header only): a query's `organization_id` that leaves the caller's out. */
export function withoutRows(csv: CsvExport): CsvExport {
  return { ...csv, empty: true };
}

/** Whether a query's `organization_id` filter (if any) includes the caller's organization. */
export function organizationSelected(filter: string[] | undefined, organizationId: string): boolean {
  return !filter?.length || filter.some((id) => id.toLowerCase() === organizationId);
}
