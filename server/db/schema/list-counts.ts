// The unfiltered lists' total_count, kept exact by triggers (migration 0032): append-only delta rows per
// organization and list ('order', 'subscription', 'event', 'customer' — live customers only), summed on read and
// compacted by billing/list-counts.ts. No foreign key: an organization's deletion cascades into its rows, whose
// triggers add the matching negative deltas in that same statement.
import { bigint, index, pgTable, text, uuid } from "drizzle-orm/pg-core";

export const listCount = pgTable(
  "list_count",
  {
    organizationId: uuid("organization_id").notNull(),
    list: text("list").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [index("list_count_org_list_idx").on(t.organizationId, t.list)],
);
