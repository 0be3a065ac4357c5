// SQL for customers. Every function takes the caller's organization id and filters by it; reads leave
// soft-deleted customers out unless they say otherwise.
import { and, asc, desc, eq, gt, ilike, inArray, isNotNull, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer } from "../../db/schema/index.js";
import { dateColumn, jsonColumn, textColumn, uuidLiteral, type CsvExport } from "../csv.js";
import { likePattern, metadataWhere, orderBy, type SortKey } from "../listing.js";
import { filteredTotal, listTotal } from "../list-counts.js";
import type { CustomerRow } from "./wire.js";

const live = (organizationId: string) => and(eq(customer.organizationId, organizationId), isNull(customer.deletedAt));

export async function findCustomer(db: Queryable, organizationId: string, id: string): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customer)
    .where(and(live(organizationId), eq(customer.id, id)))
    .limit(1);
  return row;
}

/**
 * The live customer, locked for the caller's transaction: a concurrent delete waits, then finds none. NO KEY UPDATE,
 * so rows inserted meanwhile that refer to the customer (a grant of a subscription change) do not deadlock with it.
 */
export async function lockLiveCustomer(db: Queryable, organizationId: string, id: string): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customer)
    .where(and(live(organizationId), eq(customer.id, id)))
    .for("no key update");
  return row;
}

export async function findCustomerByExternalId(
  db: Queryable,
  organizationId: string,
  externalId: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customer)
    .where(and(live(organizationId), eq(customer.externalId, externalId)))
    .limit(1);
  return row;
}

/** Whether a live customer other than `exceptId` already uses the (lower-cased) email. */
export async function emailTaken(db: Queryable, organizationId: string, email: string, exceptId?: string): Promise<boolean> {
  const rows = await db
    .select({ id: customer.id })
    .from(customer)
    .where(and(live(organizationId), eq(customer.email, email), exceptId ? ne(customer.id, exceptId) : undefined))
    .limit(1);
  return rows.length > 0;
}

export async function externalIdTaken(
  db: Queryable,
  organizationId: string,
  externalId: string,
  exceptId?: string,
): Promise<boolean> {
  const rows = await db
    .select({ id: customer.id })
    .from(customer)
    .where(and(live(organizationId), eq(customer.externalId, externalId), exceptId ? ne(customer.id, exceptId) : undefined))
    .limit(1);
  return rows.length > 0;
}

export async function insertCustomer(
  db: Queryable,
  values: Omit<typeof customer.$inferInsert, "id" | "createdAt">,
): Promise<CustomerRow> {
  const [row] = await db.insert(customer).values(values).returning();
  if (!row) throw new Error("insert customer returned no row");
  return row;
}

export async function updateCustomer(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<typeof customer.$inferInsert, "id" | "organizationId" | "createdAt">>,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .update(customer)
    .set(patch)
    .where(and(eq(customer.organizationId, organizationId), eq(customer.id, id)))
    .returning();
  return row;
}

export type CustomerSortKey = "created_at" | "email" | "name";

export interface CustomerListFilter {
  email?: string | undefined;
  query?: string | undefined;
  metadata?: Record<string, string[]> | undefined;
}

export async function listCustomers(
  db: Queryable,
  organizationId: string,
  filter: CustomerListFilter,
  sorting: Array<SortKey<CustomerSortKey>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: CustomerRow[]; total: number }> {
  const clauses: Array<SQL | undefined> = [live(organizationId)];
  if (filter.email) clauses.push(eq(customer.email, filter.email.toLowerCase()));
  if (filter.query) {
    const pattern = likePattern(filter.query);
    clauses.push(
      or(
        ilike(customer.email, pattern),
        ilike(customer.name, pattern),
        // external ids match by prefix, like Polar's
        ilike(customer.externalId, pattern.slice(1)),
      ),
    );
  }
  clauses.push(...metadataWhere(customer.metadata, filter.metadata));
  const where = and(...clauses);
  const unfiltered = clauses.length === 1;
  const order = orderBy(sorting, { created_at: customer.createdAt, email: customer.email, name: customer.name }, customer.id);
  const offset = (pageNo - 1) * limit;
  const [rows, maintained] = await Promise.all([
    offset === 0
      ? db.select().from(customer).where(where).orderBy(...order).limit(limit)
      : // a deeper page skips its offset in the index (ids only), then reads its own rows: see listing.ts
        db
          .select()
          .from(customer)
          .where(inArray(customer.id, db.select({ id: customer.id }).from(customer).where(where).orderBy(...order).limit(limit).offset(offset)))
          .orderBy(...order),
    unfiltered ? listTotal(db, organizationId, "customer") : undefined,
  ]);
  const total =
    maintained ??
    (await filteredTotal(pageNo, limit, rows.length, async () => {
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(customer).where(where);
      return count?.n ?? 0;
    }));
  return { rows, total };
}

// ---- lookups for other domains ----------------------------------------------------------------------

/** Customers by id, soft-deleted ones included (rows that refer to them keep showing them). */
export async function findCustomersByIds(db: Queryable, organizationId: string, ids: string[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(customer)
    .where(and(eq(customer.organizationId, organizationId), inArray(customer.id, ids)));
}

/** Live customers carrying these external ids. */
export async function findCustomersByExternalIds(
  db: Queryable,
  organizationId: string,
  externalIds: string[],
): Promise<CustomerRow[]> {
  if (externalIds.length === 0) return [];
  return db
    .select()
    .from(customer)
    .where(and(live(organizationId), inArray(customer.externalId, externalIds)));
}

/** Every live customer of the organization, oldest first (customer meters computed without a customer filter). */
/** The organization's newest live customers, at most `limit` (customer_org_live_created_idx). */
export async function newestLiveCustomerRows(db: Queryable, organizationId: string, limit: number): Promise<CustomerRow[]> {
  return db.select().from(customer).where(live(organizationId)).orderBy(desc(customer.createdAt), asc(customer.id)).limit(limit);
}

/**
 * A chunk of the organization's live customers' ids, newest first, after the customer `afterId` (keyset;
 * customer_org_live_created_idx). The cursor's created_at is read in SQL: a JavaScript Date would drop its
 * microseconds.
 */
export async function liveCustomerIdsAfter(db: Queryable, organizationId: string, afterId: string | null, limit: number): Promise<string[]> {
  const at = sql`(SELECT c.created_at FROM ${customer} c WHERE c.id = ${afterId})`;
  const rest = afterId ? or(lt(customer.createdAt, at), and(eq(customer.createdAt, at), gt(customer.id, afterId))) : undefined;
  const rows = await db
    .select({ id: customer.id })
    .from(customer)
    .where(and(live(organizationId), rest))
    .orderBy(desc(customer.createdAt), asc(customer.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

export async function liveCustomerIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: customer.id })
    .from(customer)
    .where(and(live(organizationId), inArray(customer.id, ids)));
  return rows.map((r) => r.id);
}

/**
 * The same as SQL, ids as one uuid[] parameter (one statement for any number of ids): the ids must be UUIDs.
 * early-insert.ts sends it in its own transaction, behind the batch's INSERT.
 */
export const liveCustomerIdsSql = (organizationId: string, ids: readonly string[]): SQL =>
  sql`SELECT ${customer.id} AS id FROM ${customer} WHERE ${live(organizationId)} AND ${customer.id} = ANY(${`{${ids.join(",")}}`}::uuid[])`;

/** Ids of live customers whose id, external id, name or email contains the text (event search). */
export async function searchCustomerIds(db: Queryable, organizationId: string, text: string, limit: number): Promise<string[]> {
  const pattern = likePattern(text);
  const rows = await db
    .select({ id: customer.id })
    .from(customer)
    .where(
      and(
        live(organizationId),
        or(
          sql`${customer.id}::text ILIKE ${pattern}`,
          and(isNotNull(customer.externalId), ilike(customer.externalId, pattern)),
          ilike(customer.name, pattern),
          ilike(customer.email, pattern),
        ),
      ),
    )
    .orderBy(asc(customer.createdAt))
    .limit(limit);
  return rows.map((r) => r.id);
}


/**
 * Inserts a customer unless a live one already has its email or external id (a concurrent checkout got
 * there first): undefined then, and the caller reads the winner.
 */
export async function insertCustomerIfAbsent(
  db: Queryable,
  values: Omit<typeof customer.$inferInsert, "id" | "createdAt">,
): Promise<CustomerRow | undefined> {
  const [row] = await db.insert(customer).values(values).onConflictDoNothing().returning().prepare("customer_insert_if_absent").execute();
  return row;
}

/** A live customer by (lower-cased) email. */
export async function findCustomerByEmail(db: Queryable, organizationId: string, email: string): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(customer)
    .where(and(live(organizationId), eq(customer.email, email)))
    .limit(1);
  return row;
}

/** The organization's live customers for the CSV export (`GET /v1/customers/export`), oldest first. */
export function customersExport(organizationId: string): CsvExport {
  return {
    name: "customers",
    columns: [
      textColumn("id", "t.id::text"),
      textColumn("external_id", "t.external_id"),
      dateColumn("created_at", "t.created_at"),
      textColumn("email", "t.email"),
      textColumn("name", "t.name"),
      textColumn("type", "t.type"),
      jsonColumn("billing_address", "t.billing_address"),
      textColumn("tax_id", "t.tax_id ->> 0"),
      textColumn("locale", "t.locale"),
      jsonColumn("metadata", "t.metadata"),
    ],
    from: "FROM customer t",
    where: [`t.organization_id = ${uuidLiteral(organizationId)}`, "t.deleted_at IS NULL"],
  };
}
