// The sandbox twin of each organization (docs/architecture.md, "Sandbox"): a second organization row that
// holds the organization's test objects, linked here to its live organization. A delete trigger on this
// table (migration) deletes the twin's row when the link goes with its live organization.
import { pgTable, uuid } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";
import { createdAt } from "./columns.js";

export const organizationSandbox = pgTable("organization_sandbox", {
  /** The twin: an organization row with no members of its own. */
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  /** The organization whose members, roles and API keys act on the twin. */
  liveOrganizationId: uuid("live_organization_id")
    .notNull()
    .unique("organization_sandbox_live_uq")
    .references(() => organization.id, { onDelete: "cascade" }),
  createdAt: createdAt(),
});
