// SQL of team members, always filtered by organization; members of a deleted customer are gone with it (every
// read joins the live customer).
import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, customerMember } from "../../db/schema/index.js";
import type { MemberRole, MemberRow } from "./wire.js";

const liveCustomer = and(eq(customer.id, customerMember.customerId), isNull(customer.deletedAt));

async function first(db: Queryable, where: SQL | undefined): Promise<MemberRow | undefined> {
  const [row] = await db.select({ m: customerMember }).from(customerMember).innerJoin(customer, liveCustomer).where(where).limit(1);
  return row?.m;
}

export const findMember = (db: Queryable, organizationId: string, id: string) =>
  first(db, and(eq(customerMember.organizationId, organizationId), eq(customerMember.id, id)));

export const findMemberOf = (db: Queryable, organizationId: string, customerId: string, id: string) =>
  first(db, and(eq(customerMember.organizationId, organizationId), eq(customerMember.customerId, customerId), eq(customerMember.id, id)));

export const findMemberByExternalId = (db: Queryable, organizationId: string, customerId: string, externalId: string) =>
  first(db, and(eq(customerMember.organizationId, organizationId), eq(customerMember.customerId, customerId), eq(customerMember.externalId, externalId)));

export const findMemberByEmail = (db: Queryable, organizationId: string, customerId: string, email: string) =>
  first(db, and(eq(customerMember.organizationId, organizationId), eq(customerMember.customerId, customerId), eq(customerMember.email, email)));

export const findOwner = (db: Queryable, organizationId: string, customerId: string) =>
  first(db, and(eq(customerMember.organizationId, organizationId), eq(customerMember.customerId, customerId), eq(customerMember.role, "owner")));

/** The first member (oldest) with this email among the organization's live team customers (portal sign-in by email). */
export async function memberByEmail(db: Queryable, organizationId: string, email: string): Promise<MemberRow | undefined> {
  const [row] = await db
    .select({ m: customerMember })
    .from(customerMember)
    .innerJoin(customer, liveCustomer)
    .where(and(eq(customerMember.organizationId, organizationId), eq(customerMember.email, email)))
    .orderBy(asc(customerMember.createdAt), asc(customerMember.id))
    .limit(1);
  return row?.m;
}

export interface MemberListFilter {
  customerId?: string;
  externalCustomerId?: string;
  role?: MemberRole;
}

export async function listMembers(
  db: Queryable,
  organizationId: string,
  filter: MemberListFilter,
  newestFirst: boolean,
  pageNo: number,
  limit: number,
): Promise<{ rows: MemberRow[]; total: number }> {
  const clauses: Array<SQL | undefined> = [eq(customerMember.organizationId, organizationId)];
  if (filter.customerId) clauses.push(eq(customerMember.customerId, filter.customerId));
  if (filter.externalCustomerId) clauses.push(eq(customer.externalId, filter.externalCustomerId));
  if (filter.role) clauses.push(eq(customerMember.role, filter.role));
  const where = and(...clauses);
  const order = newestFirst ? desc(customerMember.createdAt) : asc(customerMember.createdAt);
  const [rows, counted] = await Promise.all([
    db.select({ m: customerMember }).from(customerMember).innerJoin(customer, liveCustomer).where(where).orderBy(order, asc(customerMember.id)).limit(limit).offset((pageNo - 1) * limit),
    db.select({ n: sql<number>`count(*)::int` }).from(customerMember).innerJoin(customer, liveCustomer).where(where),
  ]);
  return { rows: rows.map((r) => r.m), total: counted[0]?.n ?? 0 };
}

export async function insertMember(db: Queryable, values: typeof customerMember.$inferInsert): Promise<MemberRow> {
  const [row] = await db.insert(customerMember).values(values).returning();
  if (!row) throw new Error("member insert returned nothing");
  return row;
}

export async function updateMember(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Pick<MemberRow, "name" | "role" | "modifiedAt">>,
): Promise<MemberRow | undefined> {
  const [row] = await db
    .update(customerMember)
    .set(patch)
    .where(and(eq(customerMember.organizationId, organizationId), eq(customerMember.id, id)))
    .returning();
  return row;
}

export async function deleteMember(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.delete(customerMember).where(and(eq(customerMember.organizationId, organizationId), eq(customerMember.id, id)));
}

/** Locks the customer's members until the caller's transaction ends: role changes of one team queue. */
export async function lockMembersOf(db: Queryable, organizationId: string, customerId: string): Promise<void> {
  await db
    .select({ id: customerMember.id })
    .from(customerMember)
    .where(and(eq(customerMember.organizationId, organizationId), eq(customerMember.customerId, customerId)))
    .for("update");
}

/** Members by id (of live customers), for the seats assigned to them. */
export async function membersByIds(db: Queryable, organizationId: string, ids: string[]): Promise<MemberRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ m: customerMember })
    .from(customerMember)
    .innerJoin(customer, liveCustomer)
    .where(and(eq(customerMember.organizationId, organizationId), inArray(customerMember.id, ids)));
  return rows.map((r) => r.m);
}
