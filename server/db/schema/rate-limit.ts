// Request counters shared by every replica: better-auth's per-address limits, failed sign-ins per account,
// and the customer portal's code requests and guesses. One row per key and fixed window.
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";

export const rateLimit = pgTable(
  "rate_limit",
  {
    /** What is counted, e.g. "auth:203.0.113.7|/sign-in/email" or "sign-in:email:ada@example.com". */
    key: text("key").primaryKey(),
    /** Hits in the current window (it may pass the limit: refused hits count too). */
    count: integer("count").notNull(),
    /** When the current window ends (and the count starts again). */
    resetAt: timestamptz("reset_at").notNull(),
  },
  (t) => [index("rate_limit_reset_at_idx").on(t.resetAt)],
);
