// A UUID as till's ids are written (any version, any case): the one pattern for the server, the CLI and the pages.

/** A UUID in any case (its `source` is also PostgreSQL's pattern for `~*`: server/billing/events/rollups.ts). */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `v` is a UUID (narrowing an unknown to a string; a string argument stays a string either way). */
export function isUuid(v: string): boolean;
export function isUuid(v: unknown): v is string;
export function isUuid(v: unknown): boolean {
  return typeof v === "string" && UUID_RE.test(v);
}
