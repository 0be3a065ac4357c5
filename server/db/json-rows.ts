// Rows as one JSON parameter: a statement whose text depends only on the table (and the columns given), whatever
// the number of rows, which jsonb_populate_record(set) turns into the table's row type. For the hottest writes
// (a checkout's confirm, a billing run's batch), where building an INSERT per row with the query builder costs
// more than running it, and where one prepared statement per table replaces a round trip per row.
import { getTableColumns, getTableName, type Table } from "drizzle-orm";

/** A quoted SQL identifier. */
export const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface Shape {
  table: string;
  /** [property, column] */
  columns: Array<[string, string]>;
}

export function shapeOf(table: Table): Shape {
  return { table: q(getTableName(table)), columns: Object.entries(getTableColumns(table)).map(([key, c]) => [key, c.name]) };
}

/** The row keyed by column name, as jsonb_populate_record reads it (Dates become ISO strings in JSON). */
export function record(shape: Shape, row: object): Record<string, unknown> {
  const values = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, column] of shape.columns) out[column] = values[key] ?? null;
  return out;
}

/** `INSERT INTO t (every column) SELECT … FROM jsonb_populate_recordset(NULL::t, <json>)`, some columns computed. */
export function insertFrom(shape: Shape, json: string, computed: Record<string, string> = {}, fn = "jsonb_populate_recordset"): string {
  const names = shape.columns.map(([, c]) => q(c));
  const values = shape.columns.map(([, c]) => computed[c] ?? `r.${q(c)}`);
  return `INSERT INTO ${shape.table} (${names.join(", ")}) SELECT ${values.join(", ")} FROM ${fn}(NULL::${shape.table}, ${json}) AS r`;
}
