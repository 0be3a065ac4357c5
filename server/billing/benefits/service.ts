// Rules for benefits and their grants: the six (+ feature_flag) benefit types and their properties,
// soft deletion, and the read side of grants (the grant engine that creates them comes with checkout).
import { randomUUID } from "node:crypto";
import { assertNever, isBenefitType } from "../../../shared/kinds.js";
import type { Db, Queryable } from "../../db/client.js";
import { fileIdsExist } from "../files/service.js";
import { isUuid } from "../http.js";
import { invalid, notFound, notPermitted } from "../errors.js";
import type { LicenseKeyRow } from "../license-keys/issue.js";
import { insertLicenseKeys } from "../license-keys/service.js";
import type { SortKey } from "../listing.js";
import { meterIdsExist } from "../meters/service.js";
import { fulfilGrant } from "./fulfil.js";
import { BenefitCreateInput, BenefitUpdateInput, storedProperties } from "./properties.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import * as grantRepo from "./grants-repository.js";
import * as repo from "./repository.js";
import {
  toBenefitGrantWire,
  toBenefitWire,
  toCustomerStateGrantWire,
  wireProperties,
  type BenefitGrantWire,
  type BenefitRow,
  type BenefitWire,
  type CustomerStateGrantWire,
} from "./wire.js";
import type { CustomerRow } from "../customers/wire.js";
import type { MemberRow } from "../members/wire.js";

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

// ---- for other domains -------------------------------------------------------------------------

/**
 * The live benefits of each product (full `Benefit` shape), in the product's order; every requested product
 * gets an entry (possibly empty). Deleted benefits are left out: a product stops offering a deleted benefit.
 */
export async function loadBenefitsForProducts(
  db: Queryable,
  organizationId: string,
  productIds: string[],
): Promise<Map<string, BenefitWire[]>> {
  const ids = uniqueUuids(productIds);
  const out = new Map<string, BenefitWire[]>(ids.map((id) => [id, []]));
  for (const row of await repo.benefitsOfProducts(db, organizationId, ids)) {
    out.get(row.productId)?.push(toBenefitWire(row.benefit));
  }
  return out;
}

/** The ids among `ids` that are not live benefits of this organization (malformed, foreign or deleted). */
export async function benefitIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.existingBenefitIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/** `CustomerState.granted_benefits`: the customer's grants that are granted now (not revoked). */
export async function listGrantedBenefitsForCustomer(
  db: Queryable,
  organizationId: string,
  customerId: string,
): Promise<CustomerStateGrantWire[]> {
  if (!isUuid(customerId)) return [];
  const rows = await grantRepo.grantedOfCustomer(db, organizationId, customerId.toLowerCase());
  return rows.map((r) => toCustomerStateGrantWire(r.grant, r.benefit));
}

/**
 * The revoked grants in their `BenefitGrant` shape, with a `benefit_grant.revoked` event recorded for each, and
 * `customer.state_changed` for each customer who lost grants other than `buyerId` (whose the caller records): the
 * holders of the purchase's claimed seats.
 */
async function publishRevoked(tx: Queryable, organizationId: string, rows: Awaited<ReturnType<typeof grantRepo.revokeGrantsOfOrder>>, buyerId: string | null = null) {
  const wires = rows.map((r) => toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member));
  const others = buyerId === null ? [] : [...new Set(wires.map((g) => g.customer_id))].filter((id) => id !== buyerId);
  await enqueue(tx, [
    ...wires.map((g) => ({ type: "benefit_grant.revoked" as const, organizationId, data: { ...g } })),
    ...others.map((id) => customerStateChanged(organizationId, id)),
  ]);
  return wires;
}

/**
 * Revokes every grant of the subscription that is not revoked yet, in the caller's transaction (which should
 * hold the subscription row locked), and records a `benefit_grant.revoked` event for each. Returns the revoked
 * grants in their `BenefitGrant` shape. `customer.state_changed` of the subscriber (`subscriberId`) is left to the
 * caller (one per customer); its seat holders' are recorded here.
 */
export async function revokeGrantsOfSubscription(tx: Queryable, organizationId: string, subscriptionId: string, now: Date, subscriberId: string): Promise<BenefitGrantWire[]> {
  return publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfSubscription(tx, organizationId, subscriptionId, now), subscriberId);
}

/**
 * The same for a one-time purchase's order (a refund with revoke_benefits), in the caller's transaction,
 * which holds the order locked; the buyer's `customer.state_changed` is the caller's.
 */
export async function revokeGrantsOfOrder(tx: Queryable, organizationId: string, orderId: string, now: Date, buyerId: string): Promise<BenefitGrantWire[]> {
  return publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfOrder(tx, organizationId, orderId, now), buyerId);
}

/**
 * Grants again, in the caller's transaction (holding the order locked), what a refund revoked at `revokedAt`:
 * the refund failed at the processor, so the purchase stands. New grants (a revoked grant's license key and
 * delivery are over; fulfilment starts afresh, as at purchase), `benefit_grant.created` for each. Benefits
 * deleted since are not given back. `customer.state_changed` is left to the caller.
 */
export async function regrantRevokedOfOrder(tx: Queryable, organizationId: string, orderId: string, revokedAt: Date, now: Date): Promise<BenefitGrantWire[]> {
  const revoked = await grantRepo.grantsOfOrderRevokedAt(tx, organizationId, orderId, revokedAt);
  const first = revoked[0];
  if (!first) return [];
  const granted = await grantBenefits(
    tx,
    organizationId,
    { benefits: revoked.map((r) => toBenefitWire(r.benefit)), customer: first.customer, orderId, subscriptionId: first.grant.subscriptionId },
    now,
  );
  await enqueue(
    tx,
    granted.map((g) => ({ type: "benefit_grant.created" as const, organizationId, data: { ...g } })),
  );
  return granted;
}

/** The same for the grants a customer seat's claim made (the seat is being revoked), in the caller's transaction. */
export async function revokeGrantsOfSeat(tx: Queryable, organizationId: string, seatId: string, now: Date): Promise<BenefitGrantWire[]> {
  return publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfSeat(tx, organizationId, seatId, now));
}

/** The same for the grants made for a team member being removed, in the caller's transaction. */
export async function revokeGrantsOfMember(tx: Queryable, organizationId: string, memberId: string, now: Date): Promise<BenefitGrantWire[]> {
  return publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfMember(tx, organizationId, memberId, now));
}

/** The same for every grant of a customer being deleted (its orders' and subscriptions'), in the caller's
 * transaction. */
export async function revokeGrantsOfCustomer(tx: Queryable, organizationId: string, customerId: string, now: Date): Promise<BenefitGrantWire[]> {
  return publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfCustomer(tx, organizationId, customerId, now));
}

/**
 * After a subscription's product changed, in the caller's transaction (holding the subscription locked): the
 * grants of benefits the new product does not offer are revoked and its benefits the subscription does not give
 * yet are granted, with `benefit_grant.revoked` / `benefit_grant.created` recorded for each (as Polar re-runs
 * its grant jobs on a product change); a deleted customer (null) is granted nothing. Each claimed seat's holder
 * gets the new benefits too (grants of the seat). `customer.state_changed` of the subscriber is left to the
 * caller; the seat holders' are recorded here.
 */
export async function regrantSubscription(
  tx: Queryable,
  organizationId: string,
  s: { subscriptionId: string; customer: CustomerRow | null; benefits: BenefitWire[] },
  now: Date,
): Promise<{ granted: BenefitGrantWire[]; revoked: BenefitGrantWire[] }> {
  const keep = s.benefits.map((b) => b.id);
  const revoked = await publishRevoked(tx, organizationId, await grantRepo.revokeGrantsOfSubscriptionExcept(tx, organizationId, s.subscriptionId, keep, now));
  const held = new Set(await grantRepo.grantedBenefitIdsOfSubscription(tx, organizationId, s.subscriptionId));
  const missing = s.customer ? s.benefits.filter((b) => !held.has(b.id)) : [];
  const granted = s.customer
    ? await grantBenefits(tx, organizationId, { benefits: missing, customer: s.customer, orderId: null, subscriptionId: s.subscriptionId }, now)
    : [];
  // each claimed seat's holder gets the new product's benefits too, as grants of that seat
  const seatGranted: BenefitGrantWire[] = [];
  for (const seat of await grantRepo.claimedSeatsOfSubscription(tx, organizationId, s.subscriptionId)) {
    const seatMissing = s.benefits.filter((b) => !seat.held.has(b.id));
    if (seatMissing.length === 0) continue;
    const grant = { benefits: seatMissing, customer: seat.customer, member: seat.member, orderId: null, subscriptionId: s.subscriptionId, customerSeatId: seat.seatId };
    seatGranted.push(...(await grantBenefits(tx, organizationId, grant, now)));
  }
  await enqueue(
    tx,
    [...granted, ...seatGranted].map((g) => ({ type: "benefit_grant.created" as const, organizationId, data: { ...g } })),
  );
  // the buyer's state is the caller's; the seat holders whose grants changed are these
  const holders = new Set([...revoked, ...seatGranted].map((g) => g.customer_id).filter((id) => id !== s.customer?.id));
  await enqueue(tx, [...holders].map((id) => customerStateChanged(organizationId, id)));
  return { granted, revoked };
}

// ---- benefits ----------------------------------------------------------------------------------

/** Property ids that must name rows of the organization: a meter for meter_credit, downloadable files. */
async function checkReferences(db: Queryable, organizationId: string, type: string, properties: Record<string, unknown>) {
  if (type === "meter_credit") {
    const meterId = properties.meter_id as string;
    if ((await meterIdsExist(db, organizationId, [meterId])).length > 0) {
      throw invalid(["body", "properties", "meter_id"], `Meter ${meterId} does not exist.`);
    }
  }
  if (type === "downloadables") {
    const files = properties.files as string[];
    const missing = await fileIdsExist(db, organizationId, files, "downloadable");
    if (missing.length > 0) {
      throw invalid(["body", "properties", "files"], `Files do not exist or are not downloadable: ${missing.join(", ")}.`);
    }
  }
}

export async function createBenefit(db: Db, organizationId: string, input: BenefitCreateInput): Promise<BenefitWire> {
  return db.transaction(async (tx) => {
    const properties = storedProperties(input.type, input.properties);
    await checkReferences(tx, organizationId, input.type, properties);
    const row = await repo.insertBenefit(tx, {
      organizationId,
      type: input.type,
      description: input.description,
      properties,
      metadata: input.metadata ?? {},
    });
    const wire = toBenefitWire(row);
    await enqueue(tx, { type: "benefit.created", organizationId, data: { ...wire } });
    return wire;
  });
}

export async function getBenefit(db: Queryable, organizationId: string, id: string): Promise<BenefitWire> {
  const row = await repo.findBenefit(db, organizationId, id);
  if (!row) throw notFound("Benefit not found");
  return toBenefitWire(row);
}

export async function listBenefits(
  db: Queryable,
  organizationId: string,
  filter: repo.BenefitFilter,
  sorting: Array<SortKey<repo.BenefitSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listBenefits(db, organizationId, filter, sorting, pageNo, limit);
  return { items: rows.map(toBenefitWire), total };
}

/** The type of a benefit cannot change: an update names the type it expects, and must match. */
export async function updateBenefit(
  db: Db,
  organizationId: string,
  id: string,
  input: BenefitUpdateInput,
): Promise<BenefitWire> {
  return db.transaction(async (tx) => {
    const current = await repo.findBenefit(tx, organizationId, id);
    if (!current) throw notFound("Benefit not found");
    if (current.type !== input.type) {
      throw invalid(["body", "type"], `The benefit is of type ${current.type}; its type cannot be changed.`);
    }
    let properties: Record<string, unknown> | undefined;
    if (input.properties) {
      properties = storedProperties(input.type, input.properties);
      await checkReferences(tx, organizationId, input.type, properties);
    }
    const row = await repo.updateBenefit(tx, organizationId, id, {
      ...(input.description ? { description: input.description } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
      ...(properties ? { properties } : {}),
    });
    if (!row) throw notFound("Benefit not found");
    const wire = toBenefitWire(row);
    await enqueue(tx, { type: "benefit.updated", organizationId, data: { ...wire } });
    if (properties && JSON.stringify(properties) !== JSON.stringify(current.properties)) {
      await refreshGrants(tx, organizationId, row);
    }
    return wire;
  });
}

/** The properties a grant copies from its benefit (what Polar's strategies keep on the grant), by type. */
function grantMirror(b: BenefitRow): Record<string, unknown> {
  if (!isBenefitType(b.type)) return {};
  const p = wireProperties(b.type, b.properties);
  switch (b.type) {
    case "github_repository":
      return { repository_owner: p.repository_owner, repository_name: p.repository_name, permission: p.permission };
    case "discord":
      return { guild_id: p.guild_id, role_id: p.role_id };
    case "custom":
    case "downloadables":
    case "license_keys":
    case "meter_credit":
    case "feature_flag":
      return {};
    default:
      return assertNever(b.type, "benefit type");
  }
}

/**
 * After a benefit's properties changed: every granted grant of it gets its properties refreshed (the previous
 * ones kept in previous_properties) and a `benefit_grant.updated` event, all in the caller's transaction.
 */
async function refreshGrants(tx: Queryable, organizationId: string, b: BenefitRow): Promise<void> {
  const rows = await grantRepo.refreshGrantProperties(tx, organizationId, b.id, grantMirror(b), b.modifiedAt ?? new Date());
  const benefitWire = toBenefitWire(b);
  await enqueue(
    tx,
    rows.map((r) => ({ type: "benefit_grant.updated" as const, organizationId, data: { ...toBenefitGrantWire(r.grant, benefitWire, r.customer, r.member) } })),
  );
  if (rows.length > 0) {
    await enqueue(tx, [...new Set(rows.map((r) => r.customer.id))].map((id) => customerStateChanged(organizationId, id)));
  }
}

/**
 * Soft delete: the row stays (is_deleted) so existing grants keep their benefit; it disappears from get, list
 * and products. Benefits marked deletable:false (reserved for benefits till manages itself) are refused.
 */
export async function deleteBenefit(db: Db, organizationId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await repo.findBenefit(tx, organizationId, id);
    if (!current) throw notFound("Benefit not found");
    if (!current.deletable) throw notPermitted("This benefit cannot be deleted.");
    await repo.updateBenefit(tx, organizationId, id, { isDeleted: true });
  });
}

// ---- grants ------------------------------------------------------------------------------------

export async function listGrants(
  db: Queryable,
  organizationId: string,
  filter: grantRepo.GrantFilter,
  sorting: Array<SortKey<grantRepo.GrantSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await grantRepo.listGrants(db, organizationId, filter, sorting, pageNo, limit);
  return { items: rows.map((r) => toBenefitGrantWire(r.grant, r.benefit, r.customer, r.member)), total };
}

/** GET /v1/benefits/{id}/grants: the benefit must be a live benefit of the organization. */
export async function listGrantsOfBenefit(
  db: Queryable,
  organizationId: string,
  benefitId: string,
  filter: Omit<grantRepo.GrantFilter, "benefitIds">,
  pageNo: number,
  limit: number,
) {
  if (!(await repo.findBenefit(db, organizationId, benefitId))) throw notFound("Benefit not found");
  return listGrants(db, organizationId, { ...filter, benefitIds: [benefitId] }, [{ key: "created_at", desc: true }], pageNo, limit);
}

/**
 * The grant engine's first step, in the caller's transaction: grants `benefits` (the live benefits of the
 * product bought, as the products domain embeds them) to the customer of an order or subscription, granted
 * now, with what each grant gives (fulfil.ts: a license key, a meter credit) in the same transaction; other
 * types' properties start empty (repository invitations and the like would fill them when their workers run).
 * `member`: the team member the grants are made for (a claimed seat of theirs); the customer stays the team.
 */
export async function grantBenefits(
  tx: Queryable,
  organizationId: string,
  grant: { benefits: BenefitWire[]; customer: CustomerRow; member?: MemberRow | null; orderId: string | null; subscriptionId: string | null; customerSeatId?: string | null },
  now = new Date(),
): Promise<BenefitGrantWire[]> {
  const keys: LicenseKeyRow[] = [];
  const rows = await grantRepo.insertGrants(
    tx,
    grant.benefits.map((b) => {
      const id = randomUUID();
      const given = fulfilGrant(b, { id, organizationId, customerId: grant.customer.id }, now);
      if (given.licenseKey) keys.push(given.licenseKey);
      return {
        id,
        organizationId,
        benefitId: b.id,
        customerId: grant.customer.id,
        orderId: grant.orderId,
        subscriptionId: grant.subscriptionId,
        customerSeatId: grant.customerSeatId ?? null,
        memberId: grant.member?.id ?? null,
        grantedAt: given.granted ? now : null,
        properties: given.properties,
      };
    }),
  );
  await insertLicenseKeys(tx, keys);
  const byId = new Map(grant.benefits.map((b) => [b.id, b]));
  return rows.flatMap((g) => {
    const b = byId.get(g.benefitId);
    return b ? [toBenefitGrantWire(g, b, grant.customer, grant.member ?? null)] : [];
  });
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** The meter credits each subscription's grants give, by lower-cased meter id (subscriptions' usage). */
export const meterCreditsOfSubscriptions: typeof grantRepo.meterCreditsOfSubscriptions = (...args) => grantRepo.meterCreditsOfSubscriptions(...args);
/** Grants by id with benefit, customer and member (monthly credits' events); each subscription's own credit pools. */
export const grantsWithEmbeds: typeof grantRepo.grantsWithEmbeds = (...args) => grantRepo.grantsWithEmbeds(...args);
export const subscriptionPools: typeof grantRepo.subscriptionPools = (...args) => grantRepo.subscriptionPools(...args);
/** Touches (modified_at) the subscription's granted grants, returned with benefit and customer (renewal, dunning). */
export const cycleGrants: typeof grantRepo.cycleGrants = (...args) => grantRepo.cycleGrants(...args);
/** Each subscription's granted meter_credit grants with their benefit's properties, by subscription id. */
export const meterCreditGrantsOf: typeof grantRepo.meterCreditGrantsOf = (...args) => grantRepo.meterCreditGrantsOf(...args);
/** cycleGrants of many subscriptions of one organization, by subscription id. */
export const cycleGrantsOf: typeof grantRepo.cycleGrantsOf = (...args) => grantRepo.cycleGrantsOf(...args);
/** customer.state_changed of a seat-based subscription's holders: their access follows it (past due, active again). */
export const seatHoldersChanged = async (db: Queryable, org: string, sub: { id: string; seats?: number | null }) =>
  sub.seats === null || sub.seats === undefined ? [] : (await grantRepo.seatHolderIdsOf(db, org, sub.id)).map((id) => customerStateChanged(org, id));
