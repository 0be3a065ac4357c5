// The columns most tables share, written once: the uuid key, the owning organization, a cascading reference,
// the timestamps and the metadata document. Helpers only (no tables), so index.ts does not export this file.
import { jsonb, timestamp, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";
import { organization } from "./auth.js";

export type Metadata = Record<string, string | number | boolean>;

export const id = () => uuid("id").defaultRandom().primaryKey();
/** A uuid column that must point at a row of another table and goes when that row goes. */
export const cascadeRef = (name: string, target: () => AnyPgColumn) => uuid(name).notNull().references(target, { onDelete: "cascade" });
/** The owning organization (every tenant row). */
export const org = () => cascadeRef("organization_id", () => organization.id);
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true });
export const createdAt = () => timestamptz("created_at").defaultNow().notNull();
export const modifiedAt = () => timestamptz("modified_at");
export const metadata = (name = "metadata") => jsonb(name).$type<Metadata>().default({}).notNull();
