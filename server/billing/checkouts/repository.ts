// SQL for checkouts. Seller-side functions take the caller's organization id and filter by it; the client
// secret lookups serve the customer's page, where the secret itself is the credential.
import { and, asc, desc, eq, ilike, inArray, lte, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { preparedPerHandle } from "../../db/prepared.js";
import { billingOrganization, checkout, organization } from "../../db/schema/index.js";
import { likePattern, type SortKey } from "../listing.js";
import { connectionSql } from "../../payments/index.js";
import type { ProcessorConnection } from "../../payments/processor.js";
import { advancedClocks, clockOffsetSql, orgNowSql } from "../clock.js";
import type { BillingOrganizationRow, OrganizationRow } from "../organizations/wire.js";
import type { CheckoutRow } from "./wire.js";

export type CheckoutValues = Omit<typeof checkout.$inferInsert, "createdAt" | "modifiedAt">;
export type CheckoutPatchValues = Partial<Omit<CheckoutValues, "id" | "organizationId" | "clientSecret" | "clientSecretHash">>;

/** `createdAt`: the organization's now (its test clock's, in a sandbox), so the checkout is dated as its order is. */
export async function insertCheckout(db: Queryable, values: CheckoutValues, createdAt: Date): Promise<CheckoutRow> {
  const [row] = await db.insert(checkout).values({ ...values, createdAt }).returning();
  if (!row) throw new Error("insert checkout returned no row");
  return row;
}

export async function findCheckout(db: Queryable, organizationId: string, id: string): Promise<CheckoutRow | undefined> {
  const [row] = await db
    .select()
    .from(checkout)
    .where(and(eq(checkout.organizationId, organizationId), eq(checkout.id, id)))
    .limit(1);
  return row;
}

/**
 * A checkout with what its organization's hot paths need besides: the organization, its test clock's offset, its Stripe
 * connection.
 */
export interface CheckoutInContext {
  row: CheckoutRow;
  organization: OrganizationRow;
  billing: BillingOrganizationRow | null;
  clockOffsetMs: number | null;
  connection: ProcessorConnection | null;
}

/**
 * The customer's page reads its checkout on every call, with its organization and the organization's now (a
 * confirm also the connection): one prepared statement.
 */
const bySecretInContext = preparedPerHandle((db) =>
  db
    .select({
      row: checkout,
      organization,
      billing: billingOrganization,
      clockOffsetMs: clockOffsetSql(checkout.organizationId),
      connection: connectionSql(checkout.organizationId),
    })
    .from(checkout)
    .innerJoin(organization, eq(organization.id, checkout.organizationId))
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, checkout.organizationId))
    .where(eq(checkout.clientSecretHash, sql.placeholder("secretHash")))
    .limit(1)
    .prepare("checkout_by_secret_in_context"),
);

/** `clientSecretHash`: the client secret's keyed hash (wire.ts, clientSecretLookup). */
export async function findCheckoutBySecretInContext(db: Queryable, clientSecretHash: string): Promise<CheckoutInContext | undefined> {
  const [found] = await bySecretInContext(db).execute({ secretHash: clientSecretHash });
  return found;
}

/** The row locked for the rest of the transaction: concurrent updates and confirms of one checkout queue here. */
export async function lockCheckout(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  const [row] = await db.select().from(checkout).where(eq(checkout.id, id)).for("update");
  return row;
}

export interface CheckoutVersion {
  status: string;
  modifiedAt: Date | null;
  productId: string | null;
  discountId: string | null;
}

/** Locks the row and reads only what tells whether it changed since the caller read it. */
export async function lockCheckoutVersion(db: Queryable, id: string): Promise<CheckoutVersion | undefined> {
  const [row] = await db
    .select({ status: checkout.status, modifiedAt: checkout.modifiedAt, productId: checkout.productId, discountId: checkout.discountId })
    .from(checkout)
    .where(eq(checkout.id, id))
    .for("update")
    .prepare("checkout_lock_version")
    .execute();
  return row;
}

/** `patch.modifiedAt` may be given when the caller needs to know the row it writes before it is written. */
export async function updateCheckout(db: Queryable, id: string, patch: CheckoutPatchValues & { modifiedAt?: Date }): Promise<CheckoutRow> {
  // prepared: on postgres.js an unprepared statement with parameters costs a describe round trip first
  const [row] = await db
    .update(checkout)
    .set({ modifiedAt: new Date(), ...patch })
    .where(eq(checkout.id, id))
    .returning()
    .prepare("checkout_update")
    .execute();
  if (!row) throw new Error("update checkout returned no row");
  return row;
}

/**
 * Up to `limit` open checkouts past their expiry at their organization's now (`wall` plus its test clock),
 * not yet announced (an announced one is stored as expired), earliest expiry first, locked for the caller's
 * transaction. SKIP LOCKED: a checkout being confirmed or updated is left alone; if that leaves it open, a
 * later pass takes it. Across organizations (the schedule serves them all), or one (a test clock's advance).
 */
export async function claimExpiredCheckouts(
  db: Queryable,
  wall: Date,
  limit: number,
  skipIds: string[],
  organizationId?: string,
): Promise<CheckoutRow[]> {
  return db
    .select()
    .from(checkout)
    .where(
      and(
        sql`${checkout.status} = 'open'`,
        or(lte(checkout.expiresAt, wall), and(inArray(checkout.organizationId, advancedClocks), lte(checkout.expiresAt, orgNowSql(checkout.organizationId, wall)))),
        organizationId ? eq(checkout.organizationId, organizationId) : undefined,
        skipIds.length > 0 ? notInArray(checkout.id, skipIds) : undefined,
      ),
    )
    .orderBy(asc(checkout.expiresAt), asc(checkout.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

export type CheckoutSort = "created_at" | "expires_at" | "status";

export interface CheckoutFilter {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  statuses?: string[] | undefined;
  query?: string | undefined;
}

/**
 * Status as the API shows it: an open checkout past its expiry is expired — at the organization's now (its test
 * clock, as `get` reads it), not the database's.
 */
const effectiveStatus = (wall: Date) =>
  sql`(CASE WHEN ${checkout.status} = 'open' AND ${checkout.expiresAt} <= ${orgNowSql(checkout.organizationId, wall)} THEN 'expired' ELSE ${checkout.status} END)`;

function statusWhere(statuses: string[], wall: Date): SQL | undefined {
  if (statuses.length === 0) return undefined;
  return inArray(effectiveStatus(wall), statuses);
}

export async function listCheckouts(
  db: Queryable,
  organizationId: string,
  filter: CheckoutFilter,
  sorting: Array<SortKey<CheckoutSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: CheckoutRow[]; total: number }> {
  const wall = new Date();
  const where = and(
    eq(checkout.organizationId, organizationId),
    filter.productIds?.length ? inArray(checkout.productId, filter.productIds) : undefined,
    filter.customerIds?.length ? inArray(checkout.customerId, filter.customerIds) : undefined,
    filter.externalCustomerIds?.length ? inArray(checkout.externalCustomerId, filter.externalCustomerIds) : undefined,
    filter.statuses ? statusWhere(filter.statuses, wall) : undefined,
    filter.query ? or(ilike(checkout.customerEmail, likePattern(filter.query)), ilike(checkout.customerName, likePattern(filter.query))) : undefined,
  );
  const columns = { created_at: checkout.createdAt, expires_at: checkout.expiresAt, status: effectiveStatus(wall) };
  const order = [...sorting.map((s) => (s.desc ? desc(columns[s.key]) : asc(columns[s.key]))), asc(checkout.id)];
  const [rows, count] = await Promise.all([
    db
      .select()
      .from(checkout)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(checkout).where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}
