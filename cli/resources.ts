// What the /v1 resource commands (products, benefits, discounts, meters, custom fields, customers) share:
// list pagination (--limit, --page, --all), "nothing to update" checks, and how amounts, dates and
// metadata read on a terminal. Requests go through client.ts's v1(): plain JSON on Polar's wire, so
// --json prints exactly what the API returns (snake_case), and no SDK is loaded at start-up.
import type { Command } from "commander";
import { v1, type Page } from "./client.js";
import type { Context } from "./context.js";
import { UsageError } from "./errors.js";
import { parseLimit, parsePage } from "./flags.js";
import type { Column } from "./output.js";

export type Query = Record<string, string | number | undefined>;

export interface ListOptions {
  limit?: number;
  page?: number;
  all?: boolean;
}

/** --limit, --page and --all on a list command. */
export function listOptions(cmd: Command): Command {
  return cmd
    .option("--limit <n>", "items per page, 1 to 100 (default 10)", parseLimit)
    .option("--page <n>", "page to show (default 1)", parsePage)
    .option("--all", "every item, page after page (ignores --limit and --page)");
}

/**
 * A page of `path` (or every page with --all) as a table; --json prints the items themselves. When more
 * items exist than shown, a note on stderr says how to see them.
 */
export async function listResource<T>(
  ctx: Context,
  opts: ListOptions,
  spec: { path: string; query?: Query; noun: string; columns: Column<T>[]; empty: string },
): Promise<void> {
  if (opts.all && (opts.page !== undefined || opts.limit !== undefined)) {
    throw new UsageError("--all: lists every page; leave out --page and --limit");
  }
  const client = v1(ctx);
  let items: T[];
  if (opts.all) {
    items = await ctx.out.loading(`Loading ${spec.noun}`, client.listAll<T>(spec.path, spec.query));
  } else {
    const page = opts.page ?? 1;
    const limit = opts.limit ?? 10;
    const res = await ctx.out.loading(`Loading ${spec.noun}`, client.get<Page<T>>(spec.path, { ...spec.query, page, limit }));
    items = res.items;
    const total = res.pagination.total_count;
    if (total > 0 && items.length < total) {
      const first = (page - 1) * limit + 1;
      const next = page < res.pagination.max_page ? `--page ${page + 1} for more, ` : "";
      if (items.length > 0) ctx.out.info(`Showing ${first}–${first + items.length - 1} of ${total} ${spec.noun}: ${next}--all for every one.`);
      else ctx.out.info(`Page ${page} is past the last one (${res.pagination.max_page}); ${total} ${spec.noun} in all.`);
    }
  }
  await ctx.out.table(items, spec.columns, { empty: spec.empty });
}

/** The request body without the keys no flag set; "nothing to update" when it is empty and nothing else happens. */
export function changes(body: Record<string, unknown>, hint: string, otherwise = false): Record<string, unknown> {
  const out = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  if (Object.keys(out).length === 0 && !otherwise) throw new UsageError(`nothing to update: pass ${hint}`);
  return out;
}

// ---- how values read on a terminal ----------------------------------------------------------------

export { exponent, money, plural } from "./words.js";

/** "2025-01-31" of an ISO datetime; "" for none. */
export const day = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : "");

/** "plan=pro, seats=5" */
export function describeMetadata(metadata: Record<string, unknown> | null | undefined): string {
  const entries = Object.entries(metadata ?? {});
  return entries.length > 0 ? entries.map(([k, v]) => `${k}=${String(v)}`).join(", ") : "none";
}

/** "every month", "every 3 months", "one-time". */
export function describeInterval(interval: string | null | undefined, count?: number | null): string {
  if (!interval) return "one-time";
  return count && count > 1 ? `every ${count} ${interval}s` : `every ${interval}`;
}

/** `till customers|orders|subscriptions export`: the server's CSV, streamed (cli/export.ts loads only here). */
export async function exportRows(
  ctx: Context,
  noun: "customers" | "orders" | "subscriptions",
  query: Record<string, string | undefined>,
  output?: string,
): Promise<void> {
  const { exportCsv } = await import("./export.js");
  await exportCsv(ctx, noun, query, output);
}
