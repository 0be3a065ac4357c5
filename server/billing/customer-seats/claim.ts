// The invitation token and the claim it buys: the token (only its hash is stored) names a pending seat; claiming
// it makes the holder a customer of the seller (or, for a member of the buyer's team, names the member) and grants
// the product's benefits as the seat's grants. `claimLocked` is also the seller's immediate claim (service.ts).
//
// Functions taking `Db` open their own transaction; `claimLocked` joins the caller's.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { grantBenefits, loadBenefitsForProducts } from "../benefits/service.js";
import { startCustomerSession } from "../customer-sessions/service.js";
import { findCustomerRow, upsertCheckoutCustomer } from "../customers/service.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { invalid, notFound } from "../errors.js";
import { memberOfCustomer } from "../members/service.js";
import { toMemberWire, type MemberRow } from "../members/wire.js";
import { getOrganization } from "../organizations/service.js";
import { loadProductSummaries } from "../products/service.js";
import { loadOwner, notUsable, seatOwnerRef, type Owner } from "./owner.js";
import * as repo from "./repository.js";
import { toCustomerSeatWire, type CustomerSeatRow, type CustomerSeatWire, type SeatClaimInfoWire } from "./wire.js";

/** How long an invitation can be claimed; a resend makes a new one (and the old link stops working). */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const TOKEN_PREFIX = "till_seat_";
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export const SeatClaimInput = z.object({ invitation_token: z.string().min(1).max(200) });

/** A new invitation: the token (mailed, never stored), its hash, its expiry and its id (the email's cause). */
export function newInvitation(now: Date) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, invitationTokenHash: hashToken(token), invitationTokenExpiresAt: new Date(now.getTime() + INVITATION_TTL_MS), invitationId: randomUUID() };
}

/**
 * The claim itself, in the caller's transaction (owner and seat locked): the holder becomes a customer of the
 * seller (matched by the seat's customer, else by email, else created), the seat is claimed, and the product's
 * benefits are granted to the holder as the seat's grants, with their events.
 */
export async function claimLocked(tx: Queryable, seat: CustomerSeatRow, owner: Owner, now: Date): Promise<{ seat: CustomerSeatRow; customer: CustomerRow; member: MemberRow | null }> {
  const member = seat.memberId ? await memberOfCustomer(tx, seat.organizationId, owner.buyerId, { id: seat.memberId }) : undefined;
  if (member) return claimForMember(tx, seat, owner, member, now);
  const organizationId = seat.organizationId;
  const events: OutboxEvent[] = [];
  let holder = seat.customerId ? await findCustomerRow(tx, organizationId, { id: seat.customerId }).catch(() => undefined) : undefined;
  if (!holder || holder.deletedAt) {
    const { customer, created } = await upsertCheckoutCustomer(tx, organizationId, {
      customerId: null,
      externalId: null,
      email: seat.email ?? "",
      name: null,
      billingName: null,
      billingAddress: null,
      taxId: null,
      metadata: {},
    });
    holder = customer;
    if (created) events.push({ type: "customer.created", organizationId, data: { ...toCustomerWire(customer) } });
  }
  const claimed = await repo.updateSeat(tx, organizationId, seat.id, {
    status: "claimed",
    customerId: holder.id,
    claimedAt: now,
    invitationTokenHash: null,
    invitationTokenExpiresAt: null,
    modifiedAt: now,
  });
  events.push({ type: "customer_seat.claimed", organizationId, data: { ...toCustomerSeatWire(claimed, holder.email) } });
  const benefits = owner.productId ? ((await loadBenefitsForProducts(tx, organizationId, [owner.productId])).get(owner.productId) ?? []) : [];
  const grants = await grantBenefits(tx, organizationId, { benefits, customer: holder, orderId: claimed.orderId, subscriptionId: claimed.subscriptionId, customerSeatId: claimed.id }, now);
  for (const g of grants) events.push({ type: "benefit_grant.created", organizationId, data: { ...g } });
  events.push(customerStateChanged(organizationId, holder.id));
  await enqueue(tx, events);
  return { seat: claimed, customer: holder, member: null };
}

/**
 * The claim of a seat assigned to a member of the buyer's team (Polar's member model): no customer is made; the
 * seat and its grants stay the team customer's (customer_id the buyer's) and name the member (member_id), so the
 * member's access is the team's, seen in the team's portal and state.
 */
async function claimForMember(tx: Queryable, seat: CustomerSeatRow, owner: Owner, member: MemberRow, now: Date): Promise<{ seat: CustomerSeatRow; customer: CustomerRow; member: MemberRow }> {
  const organizationId = seat.organizationId;
  const team = await findCustomerRow(tx, organizationId, { id: owner.buyerId });
  const claimed = await repo.updateSeat(tx, organizationId, seat.id, {
    status: "claimed",
    customerId: team.id,
    claimedAt: now,
    invitationTokenHash: null,
    invitationTokenExpiresAt: null,
    modifiedAt: now,
  });
  const events: OutboxEvent[] = [{ type: "customer_seat.claimed", organizationId, data: { ...toCustomerSeatWire(claimed, team.email, toMemberWire(member)) } }];
  const benefits = owner.productId ? ((await loadBenefitsForProducts(tx, organizationId, [owner.productId])).get(owner.productId) ?? []) : [];
  const grant = { benefits, customer: team, member, orderId: claimed.orderId, subscriptionId: claimed.subscriptionId, customerSeatId: claimed.id };
  for (const g of await grantBenefits(tx, organizationId, grant, now)) events.push({ type: "benefit_grant.created", organizationId, data: { ...g } });
  events.push(customerStateChanged(organizationId, team.id));
  await enqueue(tx, events);
  return { seat: claimed, customer: team, member };
}

const invitationGone = () => notFound("Invitation not found: it was claimed, revoked or replaced by a newer one.");

/** SeatClaimInfo: what the invitation is for, whether it can still be claimed (public: the token is the credential). */
export async function getClaimInfo(db: Db, token: string): Promise<SeatClaimInfoWire> {
  const seat = token.startsWith(TOKEN_PREFIX) ? await repo.seatByTokenHash(db, hashToken(token), false) : undefined;
  if (!seat?.email) throw invitationGone();
  const owner = await loadOwner(db, seat.organizationId, seatOwnerRef(seat), false);
  if (!owner) throw invitationGone();
  const [products, organization] = await Promise.all([
    loadProductSummaries(db, seat.organizationId, owner.productId ? [owner.productId] : []),
    getOrganization(db, seat.organizationId),
  ]);
  const product = owner.productId ? products.get(owner.productId) : undefined;
  const expired = !seat.invitationTokenExpiresAt || seat.invitationTokenExpiresAt.getTime() <= Date.now();
  return {
    product_name: product?.name ?? "",
    product_id: owner.productId ?? "",
    organization_name: organization.name,
    organization_slug: organization.slug,
    customer_email: seat.email,
    can_claim: !expired && owner.usable,
  };
}

/** Claims the seat an invitation token names; answers the seat and a customer session for the new holder's portal. */
export async function claimSeat(db: Db, token: string): Promise<{ seat: CustomerSeatWire; customer_session_token: string }> {
  if (!token.startsWith(TOKEN_PREFIX)) throw invitationGone();
  const hash = hashToken(token);
  return db.transaction(async (tx) => {
    const found = await repo.seatByTokenHash(tx, hash, false);
    if (!found) throw invitationGone();
    // owner first, then the seat: the order every seat change takes its locks in
    const owner = await loadOwner(tx, found.organizationId, seatOwnerRef(found), true);
    const seat = await repo.seatByTokenHash(tx, hash, true);
    if (!owner || !seat) throw invitationGone();
    const now = new Date();
    if (!seat.invitationTokenExpiresAt || seat.invitationTokenExpiresAt <= now) {
      throw invalid(["body", "invitation_token"], "The invitation has expired: ask for a new one.", "invitation_expired");
    }
    if (!owner.usable) throw notUsable(owner, "body");
    const claimed = await claimLocked(tx, seat, owner, now);
    // a member's seat opens the team's portal as that member
    const session = await startCustomerSession(tx, seat.organizationId, claimed.customer.id, now, claimed.member?.id ?? null);
    return { seat: toCustomerSeatWire(claimed.seat, claimed.customer.email, claimed.member ? toMemberWire(claimed.member) : null), customer_session_token: session };
  });
}
