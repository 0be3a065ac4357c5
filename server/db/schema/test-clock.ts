// The test clock of a sandbox organization (docs/architecture.md, "Test clock"): how far its "now" is ahead of
// the wall clock. Only sandbox twins have one; an organization without a row runs on the wall clock.
import { sql } from "drizzle-orm";
import { bigint, check, pgTable, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { modifiedAt, timestamptz } from "./columns.js";

export const testClock = pgTable(
  "test_clock",
  {
    /** The sandbox twin whose clock this is. */
    organizationId: uuid("organization_id")
      .primaryKey()
      .references(() => organization.id, { onDelete: "cascade" }),
    /** Milliseconds added to the wall clock: the organization's now is wall clock + offset (never negative). */
    offsetMs: bigint("offset_ms", { mode: "number" }).notNull().default(0),
    createdAt: timestamptz("created_at")
      .defaultNow()
      .notNull(),
    modifiedAt: modifiedAt(),
  },
  (t) => [check("test_clock_offset_not_negative", sql`${t.offsetMs} >= 0`)],
);
