// SQL for license keys and their activations. Every function takes the caller's organization id and filters by
// it; activations are reached through their key, which is.
import { and, asc, count, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, licenseKey, licenseKeyActivation } from "../../db/schema/index.js";
import type { CustomerRow } from "../customers/wire.js";
import { keyLookup, type LicenseKeyRow } from "./issue.js";

export type ActivationRow = typeof licenseKeyActivation.$inferSelect;

export interface KeyWithCustomer {
  key: LicenseKeyRow;
  customer: CustomerRow;
}

export async function insertLicenseKeys(db: Queryable, rows: LicenseKeyRow[]): Promise<void> {
  if (rows.length > 0) await db.insert(licenseKey).values(rows);
}

/** The keys the revoked grants issued are revoked with them. */
export async function revokeKeysOfGrants(db: Queryable, organizationId: string, grantIds: string[], now: Date): Promise<void> {
  if (grantIds.length === 0) return;
  await db
    .update(licenseKey)
    .set({ status: "revoked", modifiedAt: now })
    .where(and(eq(licenseKey.organizationId, organizationId), inArray(licenseKey.benefitGrantId, grantIds), ne(licenseKey.status, "revoked")));
}

export interface LicenseKeyFilter {
  benefitIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  statuses?: string[] | undefined;
}

export async function listLicenseKeys(
  db: Queryable,
  organizationId: string,
  filter: LicenseKeyFilter,
  pageNo: number,
  limit: number,
): Promise<{ rows: KeyWithCustomer[]; total: number }> {
  const where = and(
    eq(licenseKey.organizationId, organizationId),
    filter.benefitIds ? inArray(licenseKey.benefitId, filter.benefitIds) : undefined,
    filter.customerIds ? inArray(licenseKey.customerId, filter.customerIds) : undefined,
    filter.statuses ? inArray(licenseKey.status, filter.statuses) : undefined,
  );
  const rows = await db
    .select({ key: licenseKey, customer, total: sql<number>`count(*) OVER ()`.mapWith(Number) })
    .from(licenseKey)
    .innerJoin(customer, eq(customer.id, licenseKey.customerId))
    .where(where)
    .orderBy(asc(licenseKey.createdAt), asc(licenseKey.id))
    .limit(limit)
    .offset((pageNo - 1) * limit);
  if (rows.length > 0 || pageNo === 1) return { rows: rows.map((r) => ({ key: r.key, customer: r.customer })), total: rows[0]?.total ?? 0 };
  const [total] = await db.select({ n: count() }).from(licenseKey).where(where);
  return { rows: [], total: total?.n ?? 0 };
}

/** One key with its customer; `forUpdate` locks the key's row (activation limits, usage). */
async function findKey(db: Queryable, organizationId: string, match: ReturnType<typeof eq>, forUpdate: boolean): Promise<KeyWithCustomer | null> {
  const q = db
    .select({ key: licenseKey, customer })
    .from(licenseKey)
    .innerJoin(customer, eq(customer.id, licenseKey.customerId))
    .where(and(eq(licenseKey.organizationId, organizationId), match));
  const [row] = forUpdate ? await q.for("update", { of: licenseKey }) : await q;
  return row ?? null;
}

export const findLicenseKey = (db: Queryable, organizationId: string, id: string, forUpdate = false) =>
  findKey(db, organizationId, eq(licenseKey.id, id), forUpdate);

export const findLicenseKeyByKey = (db: Queryable, organizationId: string, key: string, forUpdate = false) =>
  findKey(db, organizationId, eq(licenseKey.keyHash, keyLookup(key)), forUpdate);

export async function updateLicenseKey(db: Queryable, organizationId: string, id: string, values: Partial<LicenseKeyRow>): Promise<LicenseKeyRow | null> {
  const [row] = await db
    .update(licenseKey)
    .set(values)
    .where(and(eq(licenseKey.organizationId, organizationId), eq(licenseKey.id, id)))
    .returning();
  return row ?? null;
}

/** The key's live (not deactivated) activations, oldest first. */
export async function activationsOf(db: Queryable, licenseKeyId: string): Promise<ActivationRow[]> {
  return db
    .select()
    .from(licenseKeyActivation)
    .where(and(eq(licenseKeyActivation.licenseKeyId, licenseKeyId), isNull(licenseKeyActivation.deletedAt)))
    .orderBy(asc(licenseKeyActivation.createdAt), asc(licenseKeyActivation.id));
}

export async function findActivation(db: Queryable, licenseKeyId: string, activationId: string): Promise<ActivationRow | null> {
  const [row] = await db
    .select()
    .from(licenseKeyActivation)
    .where(
      and(eq(licenseKeyActivation.id, activationId), eq(licenseKeyActivation.licenseKeyId, licenseKeyId), isNull(licenseKeyActivation.deletedAt)),
    );
  return row ?? null;
}

export async function insertActivation(db: Queryable, row: typeof licenseKeyActivation.$inferInsert): Promise<ActivationRow> {
  const [inserted] = await db.insert(licenseKeyActivation).values(row).returning();
  if (!inserted) throw new Error("license key activation: insert returned nothing");
  return inserted;
}

export async function deactivate(db: Queryable, licenseKeyId: string, activationId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(licenseKeyActivation)
    .set({ deletedAt: now, modifiedAt: now })
    .where(
      and(eq(licenseKeyActivation.id, activationId), eq(licenseKeyActivation.licenseKeyId, licenseKeyId), isNull(licenseKeyActivation.deletedAt)),
    )
    .returning({ id: licenseKeyActivation.id });
  return rows.length > 0;
}
