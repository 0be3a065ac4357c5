// SQL for benefit grants: listing, granting, revoking (by subscription, order, seat, member or customer), a
// renewal's cycling and the meter credits they carry. Every function takes the caller's organization id and
// filters by it; the benefits' own SQL is repository.ts.
import { and, asc, eq, inArray, isNotNull, isNull, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { benefit, benefitGrant, customer, customerMember, customerSeat } from "../../db/schema/index.js";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { SortKey } from "../listing.js";
import type { CustomerRow } from "../customers/wire.js";
import type { MemberRow } from "../members/wire.js";
import { revokeKeysOfGrants } from "../license-keys/service.js";
import type { BenefitGrantRow, BenefitRow } from "./wire.js";

export type GrantSort = "created_at" | "granted_at" | "revoked_at";

export interface GrantFilter {
  ids?: string[] | undefined;
  benefitIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  isGranted?: boolean | undefined;
  /** Grants made for these team members (their claimed seats). */
  memberIds?: string[] | undefined;
  /** A plain member's portal: the customer's own grants (no member) and this member's, not other members'. */
  visibleToMember?: string | undefined;
}

/** A grant with what its wire embeds: its benefit, its customer and the member it was made for (if any). */
export interface GrantWithEmbeds {
  grant: BenefitGrantRow;
  benefit: BenefitRow;
  customer: CustomerRow;
  member: MemberRow | null;
}
const withEmbeds = { grant: benefitGrant, benefit, customer, member: customerMember };
/** The member a grant names, in the grant's organization (the FK keeps it so; the organization is said again). */
const memberOfGrant = and(eq(customerMember.id, benefitGrant.memberId), eq(customerMember.organizationId, benefitGrant.organizationId));

const grantedWhere = and(isNotNull(benefitGrant.grantedAt), isNull(benefitGrant.revokedAt));
const notGrantedWhere = or(isNull(benefitGrant.grantedAt), isNotNull(benefitGrant.revokedAt));
/** Not revoked: granted, or waiting for its delivery (a github_repository or discord grant not delivered yet). */
const liveWhere = isNull(benefitGrant.revokedAt);

export async function listGrants(
  db: Queryable,
  organizationId: string,
  filter: GrantFilter,
  sorting: Array<SortKey<GrantSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: GrantWithEmbeds[]; total: number }> {
  const where = and(
    eq(benefitGrant.organizationId, organizationId),
    filter.ids ? (filter.ids.length > 0 ? inArray(benefitGrant.id, filter.ids) : sql`false`) : undefined,
    filter.benefitIds?.length ? inArray(benefitGrant.benefitId, filter.benefitIds) : undefined,
    filter.customerIds?.length ? inArray(benefitGrant.customerId, filter.customerIds) : undefined,
    filter.externalCustomerIds?.length ? inArray(customer.externalId, filter.externalCustomerIds) : undefined,
    filter.memberIds?.length ? inArray(benefitGrant.memberId, filter.memberIds) : undefined,
    filter.visibleToMember ? or(isNull(benefitGrant.memberId), eq(benefitGrant.memberId, filter.visibleToMember)) : undefined,
    filter.isGranted === undefined ? undefined : filter.isGranted ? grantedWhere : notGrantedWhere,
  );
  const columns = { created_at: benefitGrant.createdAt, granted_at: benefitGrant.grantedAt, revoked_at: benefitGrant.revokedAt };
  const order = [
    ...sorting.map((s) => (s.desc ? sql`${columns[s.key]} desc nulls last` : sql`${columns[s.key]} asc nulls last`)),
    asc(benefitGrant.id),
  ];
  // the joins are inner: a grant always has its benefit and customer (FKs), both in the same organization
  const base = () =>
    db
      .select(withEmbeds)
      .from(benefitGrant)
      .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
      .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
      .leftJoin(customerMember, memberOfGrant);
  const [rows, count] = await Promise.all([
    base()
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset((pageNo - 1) * limit),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(benefitGrant)
      .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
      .where(where),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

/** Grants of the customer that are currently granted, with their benefit. */
export async function grantedOfCustomer(db: Queryable, organizationId: string, customerId: string) {
  return db
    .select({ grant: benefitGrant, benefit })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.customerId, customerId), grantedWhere))
    .orderBy(asc(benefitGrant.grantedAt), asc(benefitGrant.id));
}

export async function insertGrants(db: Queryable, values: Array<typeof benefitGrant.$inferInsert>): Promise<BenefitGrantRow[]> {
  if (values.length === 0) return [];
  return db.insert(benefitGrant).values(values).returning().prepare("benefit_grants_insert").execute();
}

/** Revokes the grants matched by `owner` that are not revoked yet (granted_at cleared, revoked_at set, as
 * Polar's `set_revoked`) and the license keys they issued, with each grant's benefit (deleted ones too) and
 * customer, in grant order. */
async function revokeGrants(db: Queryable, organizationId: string, owner: SQL, now: Date) {
  const revoked = await db
    .update(benefitGrant)
    .set({ grantedAt: null, revokedAt: now, modifiedAt: now })
    .where(and(eq(benefitGrant.organizationId, organizationId), owner, isNull(benefitGrant.revokedAt)))
    .returning({ id: benefitGrant.id });
  if (revoked.length === 0) return [];
  await revokeKeysOfGrants(db, organizationId, revoked.map((r) => r.id), now);
  // granted_at is cleared: in the order they were made
  return grantsWithEmbeds(db, organizationId, revoked.map((r) => r.id), benefitGrant.createdAt);
}

/** Revokes the subscription's grants that are not revoked yet (see revokeGrants). */
export const revokeGrantsOfSubscription = (db: Queryable, organizationId: string, subscriptionId: string, now: Date) =>
  revokeGrants(db, organizationId, eq(benefitGrant.subscriptionId, subscriptionId), now);

/** Revokes the subscription's grants of benefits other than `keep` (a product change; see revokeGrants). */
export const revokeGrantsOfSubscriptionExcept = (db: Queryable, organizationId: string, subscriptionId: string, keep: string[], now: Date) =>
  revokeGrants(
    db,
    organizationId,
    and(eq(benefitGrant.subscriptionId, subscriptionId), keep.length > 0 ? notInArray(benefitGrant.benefitId, keep) : undefined) ?? sql`false`,
    now,
  );

/** The benefits the subscription's grants currently give or are delivering (not revoked). */
export async function grantedBenefitIdsOfSubscription(db: Queryable, organizationId: string, subscriptionId: string): Promise<string[]> {
  const rows = await db
    .select({ benefitId: benefitGrant.benefitId })
    .from(benefitGrant)
    // the subscriber's own grants: a seat holder's grant of a benefit does not give it to the subscriber
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.subscriptionId, subscriptionId), isNull(benefitGrant.customerSeatId), liveWhere));
  return rows.map((r) => r.benefitId);
}

/**
 * The claimed seats of the subscription with their holders (live customers; a member's seat: the team customer and
 * the member), and what each seat's grants give now.
 */
export async function claimedSeatsOfSubscription(db: Queryable, organizationId: string, subscriptionId: string) {
  const seats = await db
    .select({ seatId: customerSeat.id, customer, member: customerMember })
    .from(customerSeat)
    .innerJoin(customer, eq(customer.id, customerSeat.customerId))
    .leftJoin(customerMember, and(eq(customerMember.id, customerSeat.memberId), eq(customerMember.organizationId, customerSeat.organizationId)))
    .where(
      and(
        eq(customerSeat.organizationId, organizationId),
        eq(customerSeat.subscriptionId, subscriptionId),
        eq(customerSeat.status, "claimed"),
        isNull(customer.deletedAt),
      ),
    )
    .orderBy(asc(customerSeat.createdAt), asc(customerSeat.id));
  if (seats.length === 0) return [];
  const grants = await db
    .select({ seatId: benefitGrant.customerSeatId, benefitId: benefitGrant.benefitId })
    .from(benefitGrant)
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.subscriptionId, subscriptionId), isNotNull(benefitGrant.customerSeatId), liveWhere));
  return seats.map((s) => ({ ...s, held: new Set(grants.filter((g) => g.seatId === s.seatId).map((g) => g.benefitId)) }));
}

/**
 * The units the subscriptions' granted meter_credit grants credited, by subscription and meter (the credit each
 * grant recorded in its properties when it was made; see fulfil.ts).
 */
export async function meterCreditsOfSubscriptions(db: Queryable, organizationId: string, subscriptionIds: string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select({ subscriptionId: benefitGrant.subscriptionId, properties: benefitGrant.properties })
    .from(benefitGrant)
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        inArray(benefitGrant.subscriptionId, subscriptionIds),
        grantedWhere,
        sql`${benefitGrant.properties} ? 'last_credited_meter_id'`,
      ),
    );
  for (const r of rows) {
    const meterId = r.properties.last_credited_meter_id;
    const units = r.properties.last_credited_units;
    if (!r.subscriptionId || typeof meterId !== "string" || typeof units !== "number") continue;
    const byMeter = out.get(r.subscriptionId) ?? new Map<string, number>();
    byMeter.set(meterId.toLowerCase(), (byMeter.get(meterId.toLowerCase()) ?? 0) + Math.trunc(units));
    out.set(r.subscriptionId, byMeter);
  }
  return out;
}

/**
 * The meters on which each subscription holds a credit pool of its own (granted meter_credit grants whose benefit
 * says `pool: "subscription"`, recorded on the grant as `credit_pool`), by subscription id.
 */
export async function subscriptionPools(db: Queryable, organizationId: string, subscriptionIds: string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select({ subscriptionId: benefitGrant.subscriptionId, meterId: sql<string | null>`${benefitGrant.properties}->>'last_credited_meter_id'` })
    .from(benefitGrant)
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        inArray(benefitGrant.subscriptionId, subscriptionIds),
        grantedWhere,
        sql`${benefitGrant.properties}->>'credit_pool' = 'subscription'`,
      ),
    );
  for (const r of rows) {
    if (!r.subscriptionId || !r.meterId) continue;
    out.set(r.subscriptionId, (out.get(r.subscriptionId) ?? new Set()).add(r.meterId.toLowerCase()));
  }
  return out;
}

/** Revokes the order's grants that are not revoked yet: a refunded one-time purchase (see revokeGrants). */
export const revokeGrantsOfOrder = (db: Queryable, organizationId: string, orderId: string, now: Date) =>
  revokeGrants(db, organizationId, eq(benefitGrant.orderId, orderId), now);

/**
 * The order's own grants (not a seat holder's) revoked at `revokedAt` (one refund's revocation, which revokes them
 * all at its time), with their benefit and customer: live benefits and customers only, in grant order.
 */
export async function grantsOfOrderRevokedAt(db: Queryable, organizationId: string, orderId: string, revokedAt: Date) {
  return db
    .select(withEmbeds)
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
    .leftJoin(customerMember, memberOfGrant)
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        eq(benefitGrant.orderId, orderId),
        eq(benefitGrant.revokedAt, revokedAt),
        isNull(benefitGrant.customerSeatId),
        eq(benefit.isDeleted, false),
        isNull(customer.deletedAt),
      ),
    )
    .orderBy(asc(benefitGrant.createdAt), asc(benefitGrant.id));
}

/** Revokes the grants a customer seat's claim made: the seat was revoked (see revokeGrants). */
export const revokeGrantsOfSeat = (db: Queryable, organizationId: string, seatId: string, now: Date) =>
  revokeGrants(db, organizationId, eq(benefitGrant.customerSeatId, seatId), now);

/** Revokes the grants made for a team member: the member is being removed (see revokeGrants). */
export const revokeGrantsOfMember = (db: Queryable, organizationId: string, memberId: string, now: Date) =>
  revokeGrants(db, organizationId, eq(benefitGrant.memberId, memberId), now);

/** Revokes every grant of the customer that is not revoked yet: a deleted customer (see revokeGrants). */
export const revokeGrantsOfCustomer = (db: Queryable, organizationId: string, customerId: string, now: Date) =>
  revokeGrants(db, organizationId, eq(benefitGrant.customerId, customerId), now);

/**
 * Refreshes the properties of the benefit's live grants (granted or being delivered) in one statement:
 * previous_properties keeps what they were and `mirror` (the grant's copies of the benefit's properties) is merged in.
 * Returns the grants with their customers, in grant order.
 */
export async function refreshGrantProperties(db: Queryable, organizationId: string, benefitId: string, mirror: Record<string, unknown>, now: Date) {
  const grants = await db
    .update(benefitGrant)
    .set({
      previousProperties: sql`${benefitGrant.properties}`,
      properties: sql`${benefitGrant.properties} || ${JSON.stringify(mirror)}::jsonb`,
      modifiedAt: now,
    })
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.benefitId, benefitId), liveWhere))
    .returning();
  if (grants.length === 0) return [];
  // one parameter whatever the number of customers
  const ids = JSON.stringify([...new Set(grants.map((g) => g.customerId))]);
  const customers = await db
    .select()
    .from(customer)
    .where(and(eq(customer.organizationId, organizationId), sql`${customer.id} IN (SELECT jsonb_array_elements_text(${ids}::jsonb)::uuid)`));
  const byId = new Map(customers.map((c) => [c.id, c]));
  const memberIds = [...new Set(grants.flatMap((g) => (g.memberId ? [g.memberId] : [])))];
  const members = memberIds.length === 0 ? [] : await db.select().from(customerMember).where(and(eq(customerMember.organizationId, organizationId), inArray(customerMember.id, memberIds)));
  const memberById = new Map(members.map((m) => [m.id, m]));
  return grants
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
    .flatMap((grant) => {
      const c = byId.get(grant.customerId);
      return c ? [{ grant, customer: c, member: grant.memberId ? (memberById.get(grant.memberId) ?? null) : null }] : [];
    });
}

// ---- a renewal's grants cycled -----------------------------------------------------------------------

const grantedNow = and(isNotNull(benefitGrant.grantedAt), isNull(benefitGrant.revokedAt));

/** Touches (modified_at) the subscription's granted grants and returns them with their benefit and customer. */
export async function cycleGrants(db: Queryable, organizationId: string, subscriptionId: string, now: Date) {
  const touched = await db
    .update(benefitGrant)
    .set({ modifiedAt: now })
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.subscriptionId, subscriptionId), grantedNow))
    .returning({ id: benefitGrant.id });
  return grantsWithEmbeds(db, organizationId, touched.map((g) => g.id));
}

/** The customers holding live grants of the subscription through a claimed seat (its seat holders). */
export async function seatHolderIdsOf(db: Queryable, organizationId: string, subscriptionId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: benefitGrant.customerId })
    .from(benefitGrant)
    .where(and(eq(benefitGrant.organizationId, organizationId), eq(benefitGrant.subscriptionId, subscriptionId), isNotNull(benefitGrant.customerSeatId), grantedNow));
  return rows.map((r) => r.id);
}

/**
 * cycleGrants of many subscriptions of one organization: the grants by subscription id, each list in cycleGrants'
 * order.
 */
export async function cycleGrantsOf(db: Queryable, organizationId: string, subscriptionIds: string[], now: Date) {
  const out = new Map<string, Awaited<ReturnType<typeof grantsWithEmbeds>>>();
  if (subscriptionIds.length === 0) return out;
  const touched = await db
    .update(benefitGrant)
    .set({ modifiedAt: now })
    .where(and(eq(benefitGrant.organizationId, organizationId), inArray(benefitGrant.subscriptionId, subscriptionIds), grantedNow))
    .returning({ id: benefitGrant.id });
  for (const row of await grantsWithEmbeds(db, organizationId, touched.map((g) => g.id))) {
    const id = row.grant.subscriptionId;
    if (id) out.set(id, [...(out.get(id) ?? []), row]);
  }
  return out;
}

/** The grants `ids` with their benefit (deleted ones too), customer and member, ordered by `order`, then id. */
export async function grantsWithEmbeds(db: Queryable, organizationId: string, ids: string[], order: AnyPgColumn = benefitGrant.grantedAt) {
  if (ids.length === 0) return [];
  return db
    .select(withEmbeds)
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .innerJoin(customer, eq(customer.id, benefitGrant.customerId))
    .leftJoin(customerMember, memberOfGrant)
    .where(and(eq(benefitGrant.organizationId, organizationId), inArray(benefitGrant.id, ids)))
    .orderBy(asc(order), asc(benefitGrant.id));
}

/**
 * Each subscription's granted meter_credit grants with their benefit's properties, by subscription id (a renewal
 * batch).
 */
export async function meterCreditGrantsOf(db: Queryable, organizationId: string, subscriptionIds: string[]) {
  const out = new Map<string, Array<{ id: string; properties: Record<string, unknown>; benefit: Record<string, unknown> }>>();
  if (subscriptionIds.length === 0) return out;
  const rows = await db
    .select({ subscriptionId: benefitGrant.subscriptionId, id: benefitGrant.id, properties: benefitGrant.properties, benefit: benefit.properties })
    .from(benefitGrant)
    .innerJoin(benefit, eq(benefit.id, benefitGrant.benefitId))
    .where(
      and(
        eq(benefitGrant.organizationId, organizationId),
        inArray(benefitGrant.subscriptionId, subscriptionIds),
        eq(benefit.type, "meter_credit"),
        grantedWhere,
      ),
    );
  for (const { subscriptionId, ...g } of rows) if (subscriptionId) out.set(subscriptionId, [...(out.get(subscriptionId) ?? []), g]);
  return out;
}
