// SQL of customer seats, always filtered by organization (the claim's token lookup names its organization).
import { and, asc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { customer, customerSeat } from "../../db/schema/index.js";
import type { CustomerSeatRow } from "./wire.js";

/** What a seat belongs to: a subscription or a one-time order. */
export type SeatOwnerRef = { subscriptionId: string } | { orderId: string };

const ownerWhere = (ref: SeatOwnerRef) =>
  "subscriptionId" in ref ? eq(customerSeat.subscriptionId, ref.subscriptionId) : eq(customerSeat.orderId, ref.orderId);

const withCustomerEmail = { seat: customerSeat, customerEmail: customer.email };

export interface SeatWithEmail {
  seat: CustomerSeatRow;
  customerEmail: string | null;
}

/** Every seat of the subscription or order (revoked ones too), oldest first, with the holder's customer email. */
export async function seatsOf(db: Queryable, organizationId: string, ref: SeatOwnerRef): Promise<SeatWithEmail[]> {
  return db
    .select(withCustomerEmail)
    .from(customerSeat)
    .leftJoin(customer, eq(customer.id, customerSeat.customerId))
    .where(and(eq(customerSeat.organizationId, organizationId), ownerWhere(ref)))
    .orderBy(asc(customerSeat.createdAt), asc(customerSeat.id));
}

/** Seats that hold one of the purchased places: pending and claimed. */
export async function countActive(db: Queryable, organizationId: string, ref: SeatOwnerRef): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(customerSeat)
    .where(and(eq(customerSeat.organizationId, organizationId), ownerWhere(ref), ne(customerSeat.status, "revoked")));
  return row?.n ?? 0;
}

/** Whether an active seat of the owner already goes to this (lower-cased) email. */
export async function activeSeatFor(db: Queryable, organizationId: string, ref: SeatOwnerRef, email: string): Promise<boolean> {
  const [row] = await db
    .select({ id: customerSeat.id })
    .from(customerSeat)
    .where(and(eq(customerSeat.organizationId, organizationId), ownerWhere(ref), ne(customerSeat.status, "revoked"), eq(customerSeat.email, email)))
    .limit(1);
  return row !== undefined;
}

export async function insertSeat(db: Queryable, values: typeof customerSeat.$inferInsert): Promise<CustomerSeatRow> {
  const [row] = await db.insert(customerSeat).values(values).returning();
  if (!row) throw new Error("customer seat insert returned nothing");
  return row;
}

/** The seat, locked FOR UPDATE until the caller's transaction ends. */
export async function lockSeat(db: Queryable, organizationId: string, id: string): Promise<CustomerSeatRow | undefined> {
  const [row] = await db
    .select()
    .from(customerSeat)
    .where(and(eq(customerSeat.organizationId, organizationId), eq(customerSeat.id, id)))
    .for("update");
  return row;
}

export async function findSeat(db: Queryable, organizationId: string, id: string): Promise<CustomerSeatRow | undefined> {
  const [row] = await db
    .select()
    .from(customerSeat)
    .where(and(eq(customerSeat.organizationId, organizationId), eq(customerSeat.id, id)));
  return row;
}

/** The seat whose pending invitation has this token hash (any organization: the token names it), optionally locked. */
export async function seatByTokenHash(db: Queryable, tokenHash: string, lock: boolean): Promise<CustomerSeatRow | undefined> {
  const query = db.select().from(customerSeat).where(and(eq(customerSeat.invitationTokenHash, tokenHash), eq(customerSeat.status, "pending")));
  const [row] = lock ? await query.for("update") : await query;
  return row;
}

export async function updateSeat(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Omit<typeof customerSeat.$inferInsert, "id" | "organizationId">>,
): Promise<CustomerSeatRow> {
  const [row] = await db
    .update(customerSeat)
    .set(patch)
    .where(and(eq(customerSeat.organizationId, organizationId), eq(customerSeat.id, id)))
    .returning();
  if (!row) throw new Error("customer seat update matched nothing");
  return row;
}

/**
 * The subscriptions in which the customer holds a claimed seat (a team member's seat is the member's, not the team's).
 */
export async function claimedSubscriptionIds(db: Queryable, organizationId: string, customerId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: customerSeat.subscriptionId })
    .from(customerSeat)
    .where(
      and(eq(customerSeat.organizationId, organizationId), eq(customerSeat.customerId, customerId), eq(customerSeat.status, "claimed"), isNull(customerSeat.memberId)),
    );
  return rows.flatMap((r) => (r.id ? [r.id] : []));
}

/** The seats of a team member that are not revoked (pending or claimed). */
export async function liveSeatsOfMember(db: Queryable, organizationId: string, memberId: string): Promise<CustomerSeatRow[]> {
  return db
    .select()
    .from(customerSeat)
    .where(and(eq(customerSeat.organizationId, organizationId), eq(customerSeat.memberId, memberId), ne(customerSeat.status, "revoked")))
    .orderBy(asc(customerSeat.createdAt), asc(customerSeat.id));
}

/** The customer emails of these customers (the seat's holder), by id. */
export async function customerEmails(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: customer.id, email: customer.email })
    .from(customer)
    .where(and(eq(customer.organizationId, organizationId), inArray(customer.id, ids)));
  return new Map(rows.map((r) => [r.id, r.email]));
}
