// Pieces every /v1 list shares: the `sorting` query (`-created_at`, repeatable), `query` substring matching
// and `metadata[key]=value` filters. Domains build their own WHERE/ORDER BY from these.
import { asc, desc, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";
import { queryArray } from "./http.js";

export interface SortKey<K extends string> {
  key: K;
  desc: boolean;
}

/** `sorting=name&sorting=-created_at` → [{key:"name",desc:false}, …]; unknown keys are a 422 like any enum. */
export function sortingQuery<K extends string>(keys: readonly [K, ...K[]], fallback: Array<SortKey<K>>) {
  const values = keys.flatMap((k) => [k, `-${k}`]) as [string, ...string[]];
  return queryArray(z.enum(values))
    .optional()
    .transform((list): Array<SortKey<K>> =>
      list && list.length > 0
        ? list.map((v) => (v.startsWith("-") ? { key: v.slice(1) as K, desc: true } : { key: v as K, desc: false }))
        : fallback,
    );
}

/** ORDER BY for a parsed sorting list over the domain's columns, with `tieBreak` last so pages are stable. */
export function orderBy<K extends string>(
  sorting: Array<SortKey<K>>,
  columns: Record<K, AnyColumn | SQL>,
  tieBreak: AnyColumn,
): SQL[] {
  return [...sorting.map((s) => (s.desc ? desc(columns[s.key]) : asc(columns[s.key]))), asc(tieBreak)];
}

/*
 * Deep pages. Polar's wire pages by number (page, limit), so page n must skip (n − 1) × limit rows: OFFSET, no
 * cursor. The list repositories skip them in a subquery that selects ids only, which the default orders'
 * indexes answer without reading the table (an index-only scan: (organization_id, created_at DESC, id) and the
 * like), and then read the page's own rows; page 1 is the plain query. total_count: list-counts.ts.
 */

/** `%q%` for ILIKE with the client's own `%`, `_` and `\` taken literally. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `metadata[key]=v` filters: each key must match one of its values (compared as text). */
export function metadataWhere(column: AnyColumn, filter: Record<string, string[]> | undefined): SQL[] {
  if (!filter) return [];
  return Object.entries(filter).map(([key, values]) => inArray(sql`${column} ->> ${key}`, values));
}
