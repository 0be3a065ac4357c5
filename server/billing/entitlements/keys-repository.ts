// SQL of the entitlement signing keys (org-scoped): the organization's signing key (one: a partial unique index),
// the keys it publishes (the signing one and those not yet retired), and the rotation's retire.
import { and, asc, eq, gt, isNull, lte, or, sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { entitlementSigningKey } from "../../db/schema/index.js";
import type { PublicEcJwk } from "../../db/schema/entitlements.js";

export type SigningKeyRow = typeof entitlementSigningKey.$inferSelect;

const signing = (organizationId: string) => and(eq(entitlementSigningKey.organizationId, organizationId), isNull(entitlementSigningKey.retiresAt));

export async function findSigningKey(db: Queryable, organizationId: string): Promise<SigningKeyRow | undefined> {
  const [row] = await db.select().from(entitlementSigningKey).where(signing(organizationId));
  return row;
}

/** Inserts the organization's signing key unless it has one already (then nothing: undefined). */
export async function insertSigningKey(db: Queryable, values: typeof entitlementSigningKey.$inferInsert): Promise<SigningKeyRow | undefined> {
  const [row] = await db
    .insert(entitlementSigningKey)
    .values(values)
    .onConflictDoNothing({ target: entitlementSigningKey.organizationId, where: sql`${entitlementSigningKey.retiresAt} IS NULL` })
    .returning();
  return row;
}

/** The signing key gets `retiresAt`: it stops signing (the row is locked until the caller's transaction ends). */
export async function retireSigningKey(db: Queryable, organizationId: string, retiresAt: Date): Promise<SigningKeyRow | undefined> {
  const [row] = await db.update(entitlementSigningKey).set({ retiresAt }).where(signing(organizationId)).returning();
  return row;
}

/** Keys whose every snapshot has expired. */
export async function deleteRetiredKeys(db: Queryable, organizationId: string, now: Date): Promise<void> {
  await db.delete(entitlementSigningKey).where(and(eq(entitlementSigningKey.organizationId, organizationId), lte(entitlementSigningKey.retiresAt, now)));
}

/** The keys the organization publishes at `now`, oldest first. */
export async function publishedKeys(db: Queryable, organizationId: string, now: Date): Promise<SigningKeyRow[]> {
  return db
    .select()
    .from(entitlementSigningKey)
    .where(and(eq(entitlementSigningKey.organizationId, organizationId), or(isNull(entitlementSigningKey.retiresAt), gt(entitlementSigningKey.retiresAt, now))))
    .orderBy(asc(entitlementSigningKey.createdAt), asc(entitlementSigningKey.kid));
}

/**
 * The public keys an organization publishes at `now`, in one statement with whether it exists at all (null: no
 * such organization; a key-less one answers an empty list).
 */
export async function publishedJwks(db: Queryable, organizationId: string, now: Date): Promise<Array<{ kid: string; jwk: PublicEcJwk }> | null> {
  const rows = await rowsOf<{ kid: string | null; x: string | null; y: string | null }>(
    db,
    sql`SELECT k.kid, k.public_jwk->>'x' AS x, k.public_jwk->>'y' AS y FROM organization o
      LEFT JOIN entitlement_signing_key k ON k.organization_id = o.id AND (k.retires_at IS NULL OR k.retires_at > ${now.toISOString()}::timestamptz)
      WHERE o.id = ${organizationId}
      ORDER BY k.created_at, k.kid`,
  );
  if (rows.length === 0) return null;
  return rows.flatMap((r) => (r.kid && r.x && r.y ? [{ kid: r.kid, jwk: { kty: "EC" as const, crv: "P-256" as const, x: r.x, y: r.y } }] : []));
}
