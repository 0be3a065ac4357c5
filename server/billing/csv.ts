// CSV exports (`/v1/customers|orders|subscriptions/export`): RFC 4180 lines streamed from keyset-paged batches,
// so an export of any size holds one batch in memory at a time and the client's pace sets the database's.
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

export type CsvValue = string | number | boolean | Date | null | undefined;

/** Rows fetched per query: large enough that the round trips don't dominate, small enough to stay flat. */
export const EXPORT_BATCH = 1000;

/**
 * The position after the last row sent: rows are walked in (created_at, id) order. `at` is created_at as the
 * database's text (microseconds; a JavaScript Date would round them off and send a row twice).
 */
export interface KeysetCursor {
  at: string;
  id: string;
}

/**
 * A text cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a
 * leading `'` (OWASP's advice against CSV injection): customers choose their own names. Numbers, booleans and
 * dates are written as they are.
 */
function cell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(cell).join(",")}\r\n`;
}

/**
 * Every row of a keyset-paged source as CSV text, batch by batch: `fetch(after)` answers the next rows after
 * the cursor (at most EXPORT_BATCH, in (created_at, id) order).
 */
async function* csvChunks<R extends KeysetCursor>(
  header: readonly string[],
  fetch: (after: KeysetCursor | null) => Promise<R[]>,
  toCells: (row: R) => CsvValue[],
): AsyncGenerator<string> {
  yield csvLine(header);
  let after: KeysetCursor | null = null;
  for (;;) {
    const rows = await fetch(after);
    if (rows.length === 0) return;
    yield rows.map((r) => csvLine(toCells(r))).join("");
    const last = rows[rows.length - 1]!;
    after = { at: last.at, id: last.id };
    if (rows.length < EXPORT_BATCH) return;
  }
}

/** What a domain's service hands the route for an export: the columns and how to read the rows. */
export interface CsvExport<R extends KeysetCursor> {
  name: string;
  header: readonly string[];
  fetch: (after: KeysetCursor | null) => Promise<R[]>;
  toCells: (row: R) => CsvValue[];
}

/** Sends the export as `text/csv` (an attachment named `<name>.csv`), streamed with backpressure. */
export function sendCsv<R extends KeysetCursor>(reply: FastifyReply, csv: CsvExport<R>): FastifyReply {
  return reply
    .header("content-type", "text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${csv.name}.csv"`)
    .header("cache-control", "no-store")
    .send(Readable.from(csvChunks(csv.header, csv.fetch, csv.toCells), { objectMode: false }));
}

/** Columns holding JSON (metadata, addresses) are written as one JSON text cell; an empty object is empty. */
export function jsonCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object" && Object.keys(value).length === 0) return "";
  return JSON.stringify(value);
}

/** The same export with no rows (the header only): a query's `organization_id` that leaves the caller's out. */
export function withoutRows<R extends KeysetCursor>(csv: CsvExport<R>): CsvExport<R> {
  return { ...csv, fetch: async () => [] };
}

/** Whether a query's `organization_id` filter (if any) includes the caller's organization. */
export function organizationSelected(filter: string[] | undefined, organizationId: string): boolean {
  return !filter?.length || filter.some((id) => id.toLowerCase() === organizationId);
}
