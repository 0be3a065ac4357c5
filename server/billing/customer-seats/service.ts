// Customer seats (Polar's customer_seat): the buyer of a seat-based purchase hands its seats to people. A seat
// is assigned to an email (pending: an invitation is mailed with a token), claimed with that token (the person
// becomes — or is matched by email to — a customer of the seller, and gets the product's benefits as grants of
// the seat), or revoked (its grants are revoked). Seats never outnumber the purchase's `seats`: every change
// locks the subscription or order first, so concurrent assignments queue and count exactly.
//
// Functions taking `Db` open their own transaction. The seller acts with an organization token; the buyer from
// the customer portal acts only on their own subscriptions and orders (anything else is 404).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { grantBenefits, loadBenefitsForProducts, revokeGrantsOfSeat } from "../benefits/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { startCustomerSession } from "../customer-portal/sessions.js";
import { findCustomerRow, upsertCheckoutCustomer } from "../customers/service.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { emailInput, isUuid } from "../http.js";
import { ApiError, invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import { findOrder, lockOrderRow, ownerOfCheckout } from "../orders/service.js";
import { memberOfCustomer, memberWires } from "../members/service.js";
import { toMemberWire, type MemberRow } from "../members/wire.js";

import { getOrganization } from "../organizations/service.js";
import { loadProductSummaries } from "../products/service.js";
import { findSubscription, lockSubscription } from "../subscriptions/service.js";
import * as repo from "./repository.js";
import { toCustomerSeatWire, type CustomerSeatRow, type CustomerSeatWire, type SeatClaimInfoWire, type SeatsListWire } from "./wire.js";

/** How long an invitation can be claimed; a resend makes a new one (and the old link stops working). */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const TOKEN_PREFIX = "till_seat_";
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Who acts: the seller (organization token) or the buyer in the customer portal. */
export type SeatActor = { kind: "seller" } | { kind: "customer"; customerId: string };

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const METADATA_MAX_KEYS = 10;
const METADATA_MAX_BYTES = 1024;
const seatMetadata = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, { message: `Seat metadata can have at most ${METADATA_MAX_KEYS} keys` })
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, { message: `Seat metadata can be at most ${METADATA_MAX_BYTES} bytes` });

/** SeatAssign (0.47.1) / CustomerSeatAssign (0.49.0): where the seat comes from, and who gets it. */
export const SeatAssignInput = z
  .object({
    subscription_id: uuid.nullish(),
    order_id: uuid.nullish(),
    checkout_id: uuid.nullish(),
    checkout_client_secret: z.string().max(200).nullish(),
    // bounded before the address pattern runs (as the customers' email)
    email: emailInput.nullish(),
    external_customer_id: z.string().min(1).max(256).nullish(),
    customer_id: uuid.nullish(),
    external_member_id: z.string().max(256).nullish(),
    member_id: uuid.nullish(),
    metadata: seatMetadata.nullish(),
    immediate_claim: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    const sources = [v.subscription_id, v.order_id, v.checkout_id].filter((x) => x != null).length;
    if (sources !== 1) ctx.addIssue({ code: "custom", path: ["subscription_id"], message: "Give exactly one of subscription_id, order_id or checkout_id" });
    const holders = [v.email, v.customer_id, v.external_customer_id, v.member_id, v.external_member_id].filter((x) => x != null).length;
    if (holders !== 1) ctx.addIssue({ code: "custom", path: ["email"], message: "Give exactly one of email, customer_id, external_customer_id, member_id or external_member_id" });
  });
export type SeatAssignInput = z.output<typeof SeatAssignInput>;

export const SeatClaimInput = z.object({ invitation_token: z.string().min(1).max(200) });

// ---- the purchase a seat belongs to ----------------------------------------------------------------

interface Owner {
  ref: repo.SeatOwnerRef;
  /** ["body" | "query", "subscription_id" | "order_id"] */
  field: "subscription_id" | "order_id";
  buyerId: string;
  productId: string | null;
  seats: number | null;
  /** Whether its seats can be handed out and claimed now: a live subscription, a paid order. */
  usable: boolean;
}

const LIVE_SUBSCRIPTION = new Set(["active", "trialing", "past_due"]);
const PAID_ORDER = new Set(["paid", "partially_refunded"]);

async function loadOwner(tx: Queryable, organizationId: string, ref: repo.SeatOwnerRef, lock: boolean): Promise<Owner | undefined> {
  if ("subscriptionId" in ref) {
    const s = lock ? await lockSubscription(tx, organizationId, ref.subscriptionId) : await findSubscription(tx, organizationId, ref.subscriptionId);
    if (!s) return undefined;
    return { ref, field: "subscription_id", buyerId: s.customerId, productId: s.productId, seats: s.seats, usable: LIVE_SUBSCRIPTION.has(s.status) && s.endedAt === null };
  }
  const o = lock ? await lockOrderRow(tx, organizationId, ref.orderId) : await findOrder(tx, organizationId, ref.orderId);
  if (!o) return undefined;
  return { ref, field: "order_id", buyerId: o.customerId, productId: o.productId, seats: o.seats, usable: PAID_ORDER.has(o.status) };
}

const ownerMissing = (ref: repo.SeatOwnerRef) => notFound("subscriptionId" in ref ? "Subscription not found" : "Order not found");

/** The owner, locked when asked, as the actor may see it: a buyer sees only their own purchases. */
async function ownerFor(tx: Queryable, organizationId: string, ref: repo.SeatOwnerRef, actor: SeatActor, lock: boolean): Promise<Owner> {
  const owner = await loadOwner(tx, organizationId, ref, lock);
  if (!owner || (actor.kind === "customer" && owner.buyerId !== actor.customerId)) throw ownerMissing(ref);
  return owner;
}

const seatOwnerRef = (seat: CustomerSeatRow): repo.SeatOwnerRef =>
  seat.subscriptionId ? { subscriptionId: seat.subscriptionId } : { orderId: seat.orderId ?? "" };

function notSeatBased(owner: Owner, where: "body" | "query") {
  const what = owner.field === "subscription_id" ? "subscription" : "order";
  return invalid([where, owner.field], `This ${what} has no seats: its product is not sold per seat.`, "seat_based_pricing_required");
}

function notUsable(owner: Owner, where: "body" | "query" | "path") {
  const msg = owner.field === "subscription_id" ? "The subscription is not active: its seats cannot be assigned or claimed." : "The order is not paid: its seats cannot be assigned or claimed.";
  // only the subscription's wording has a customer message (shared/customer-errors.ts)
  return invalid([where, where === "path" ? "seat_id" : owner.field], msg, "seat_not_available", owner.field === "subscription_id" ? "seats_inactive" : undefined);
}

// ---- reading --------------------------------------------------------------------------------------

async function wiresOf(db: Queryable, organizationId: string, rows: CustomerSeatRow[]): Promise<CustomerSeatWire[]> {
  const [emails, members] = await Promise.all([
    repo.customerEmails(db, organizationId, [...new Set(rows.flatMap((r) => (r.customerId ? [r.customerId] : [])))]),
    memberWires(db, organizationId, rows.flatMap((r) => (r.memberId ? [r.memberId] : []))),
  ]);
  return rows.map((r) => toCustomerSeatWire(r, r.customerId ? (emails.get(r.customerId) ?? null) : null, r.memberId ? (members.get(r.memberId) ?? null) : null));
}

const seatWire = async (db: Queryable, organizationId: string, row: CustomerSeatRow) => (await wiresOf(db, organizationId, [row]))[0] as CustomerSeatWire;

/** SeatsList: every seat of the subscription or order, and how many of its purchased seats are still free. */
export async function listSeats(db: Db, organizationId: string, ref: repo.SeatOwnerRef, actor: SeatActor): Promise<SeatsListWire> {
  const owner = await ownerFor(db, organizationId, ref, actor, false);
  if (owner.seats === null) throw notSeatBased(owner, "query");
  const rows = await repo.seatsOf(db, organizationId, ref);
  const active = rows.filter((r) => r.seat.status !== "revoked").length;
  const members = await memberWires(db, organizationId, rows.flatMap((r) => (r.seat.memberId ? [r.seat.memberId] : [])));
  return {
    seats: rows.map((r) => toCustomerSeatWire(r.seat, r.customerEmail, r.seat.memberId ? (members.get(r.seat.memberId) ?? null) : null)),
    available_seats: Math.max(0, owner.seats - active),
    total_seats: owner.seats,
  };
}

// ---- assigning ------------------------------------------------------------------------------------

/** The purchase a checkout made (`checkout_id`): its subscription, else its order. */
async function refOf(tx: Queryable, organizationId: string, input: SeatAssignInput): Promise<repo.SeatOwnerRef> {
  if (input.subscription_id) return { subscriptionId: input.subscription_id.toLowerCase() };
  if (input.order_id) return { orderId: input.order_id.toLowerCase() };
  const found = await ownerOfCheckout(tx, organizationId, (input.checkout_id ?? "").toLowerCase());
  if (!found) throw invalid(["body", "checkout_id"], "The checkout has no purchase yet: it is not completed.");
  return found.subscriptionId ? { subscriptionId: found.subscriptionId } : { orderId: found.orderId };
}

/** Who gets the seat: an email, an existing customer of the seller (then its email), or a member of the buyer's team. */
async function holderOf(tx: Queryable, organizationId: string, input: SeatAssignInput, buyerId: string): Promise<{ email: string; customerId: string | null; memberId: string | null }> {
  if (input.email) return { email: input.email.trim().toLowerCase(), customerId: null, memberId: null };
  if (input.member_id || input.external_member_id) {
    const m = await memberOfCustomer(tx, organizationId, buyerId, input.member_id ? { id: input.member_id.toLowerCase() } : { externalId: input.external_member_id ?? "" });
    if (!m) throw invalid(["body", input.member_id ? "member_id" : "external_member_id"], "Member does not exist: a seat goes to a member of the buyer's team.");
    return { email: m.email, customerId: null, memberId: m.id };
  }
  const field = input.customer_id ? "customer_id" : "external_customer_id";
  const ref = input.customer_id ? { id: input.customer_id.toLowerCase() } : { externalId: input.external_customer_id ?? "" };
  const found = await findCustomerRow(tx, organizationId, ref).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  });
  if (!found || found.deletedAt) throw invalid(["body", field], "Customer does not exist.");
  return { email: found.email.toLowerCase(), customerId: found.id, memberId: null };
}

function newInvitation(now: Date) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, invitationTokenHash: hashToken(token), invitationTokenExpiresAt: new Date(now.getTime() + INVITATION_TTL_MS), invitationId: randomUUID() };
}

/** The invitation email, in the caller's transaction: once per invitation (its id is the email's cause). */
async function mailInvitation(tx: Queryable, seat: CustomerSeatRow, owner: Owner, token: string): Promise<void> {
  if (!seat.email || !seat.invitationId || !seat.invitationTokenExpiresAt) return;
  const [products, buyer] = await Promise.all([
    loadProductSummaries(tx, seat.organizationId, owner.productId ? [owner.productId] : []),
    findCustomerRow(tx, seat.organizationId, { id: owner.buyerId }).catch(() => undefined),
  ]);
  const product = owner.productId ? products.get(owner.productId) : undefined;
  await requestEmail(tx, {
    organizationId: seat.organizationId,
    causeId: seat.invitationId,
    type: "seat_invitation",
    recipient: seat.email,
    data: {
      seat_id: seat.id,
      email: seat.email,
      token,
      expires_at: seat.invitationTokenExpiresAt.toISOString(),
      product: { name: product?.name ?? "your seat" },
      invited_by: buyer ? (buyer.name ?? buyer.email) : null,
    },
  });
}

/**
 * Assigns one seat of a subscription or order: refused (422) when every purchased seat is taken, when the
 * email already holds one, or when the purchase is not seat-based or no longer live. `immediate_claim` (seller
 * only) claims it at once without an invitation.
 */
export async function assignSeat(db: Db, organizationId: string, input: SeatAssignInput, actor: SeatActor): Promise<CustomerSeatWire> {
  if (input.immediate_claim && actor.kind !== "seller") {
    throw invalid(["body", "immediate_claim"], "Only the seller can claim a seat on someone's behalf; the buyer assigns it and an invitation is sent.");
  }
  return db.transaction(async (tx) => {
    const ref = await refOf(tx, organizationId, input);
    // the lock every seat change of this purchase takes: concurrent assignments count one after another
    const owner = await ownerFor(tx, organizationId, ref, actor, true);
    if (owner.seats === null) throw notSeatBased(owner, "body");
    if (!owner.usable) throw notUsable(owner, "body");
    const holder = await holderOf(tx, organizationId, input, owner.buyerId);
    const issues: ValidationIssue[] = [];
    if (await repo.activeSeatFor(tx, organizationId, ref, holder.email)) {
      issues.push({ loc: ["body", input.email ? "email" : input.customer_id ? "customer_id" : input.member_id ? "member_id" : input.external_member_id ? "external_member_id" : "external_customer_id"], msg: `${holder.email} already has a seat of this purchase.`, type: "seat_already_assigned" });
    }
    const taken = await repo.countActive(tx, organizationId, ref);
    if (taken >= owner.seats) {
      issues.push({ loc: ["body", owner.field], msg: `No seats available: all ${owner.seats} seats are assigned. Revoke one or buy more seats.`, type: "seat_not_available" });
    }
    if (issues.length > 0) throw validationError(issues);
    const now = new Date();
    const invitation = input.immediate_claim ? null : newInvitation(now);
    let seat = await repo.insertSeat(tx, {
      organizationId,
      subscriptionId: "subscriptionId" in ref ? ref.subscriptionId : null,
      orderId: "orderId" in ref ? ref.orderId : null,
      status: "pending",
      email: holder.email,
      customerId: holder.customerId,
      memberId: holder.memberId,
      invitationTokenHash: invitation?.invitationTokenHash ?? null,
      invitationTokenExpiresAt: invitation?.invitationTokenExpiresAt ?? null,
      invitationId: invitation?.invitationId ?? null,
      seatMetadata: input.metadata ?? {},
      createdAt: now,
    });
    await enqueue(tx, { type: "customer_seat.assigned", organizationId, data: { ...(await seatWire(tx, organizationId, seat)) } });
    if (invitation) await mailInvitation(tx, seat, owner, invitation.token);
    else seat = (await claimLocked(tx, seat, owner, now)).seat;
    return seatWire(tx, organizationId, seat);
  });
}

// ---- claiming -------------------------------------------------------------------------------------

/**
 * The claim itself, in the caller's transaction (owner and seat locked): the holder becomes a customer of the
 * seller (matched by the seat's customer, else by email, else created), the seat is claimed, and the product's
 * benefits are granted to the holder as the seat's grants, with their events.
 */
async function claimLocked(tx: Queryable, seat: CustomerSeatRow, owner: Owner, now: Date): Promise<{ seat: CustomerSeatRow; customer: CustomerRow; member: MemberRow | null }> {
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

// ---- revoking and resending -----------------------------------------------------------------------

/** The seat and its owner, both locked (owner first), as the actor may see them. */
async function lockSeatFor(tx: Queryable, organizationId: string, seatId: string, actor: SeatActor): Promise<{ seat: CustomerSeatRow; owner: Owner }> {
  const missing = () => notFound("Customer seat not found");
  const found = await repo.findSeat(tx, organizationId, seatId);
  if (!found) throw missing();
  const owner = await loadOwner(tx, organizationId, seatOwnerRef(found), true);
  if (!owner || (actor.kind === "customer" && owner.buyerId !== actor.customerId)) throw missing();
  const seat = await repo.lockSeat(tx, organizationId, seatId);
  if (!seat) throw missing();
  return { seat, owner };
}

/** Revokes a seat: its invitation stops working and the grants its claim made are revoked. Revoking a revoked seat changes nothing. */
export async function revokeSeat(db: Db, organizationId: string, seatId: string, actor: SeatActor): Promise<CustomerSeatWire> {
  return db.transaction(async (tx) => {
    const { seat } = await lockSeatFor(tx, organizationId, seatId, actor);
    if (seat.status === "revoked") return seatWire(tx, organizationId, seat);
    return revokeLocked(tx, seat, new Date());
  });
}

/** The revocation of a seat locked with its owner, with its webhook and its grants' revocation. */
async function revokeLocked(tx: Queryable, seat: CustomerSeatRow, now: Date): Promise<CustomerSeatWire> {
  const organizationId = seat.organizationId;
  const revoked = await repo.updateSeat(tx, organizationId, seat.id, { status: "revoked", revokedAt: now, invitationTokenHash: null, invitationTokenExpiresAt: null, modifiedAt: now });
  const wire = await seatWire(tx, organizationId, revoked);
  await enqueue(tx, { type: "customer_seat.revoked", organizationId, data: { ...wire } });
  await revokeGrantsOfSeat(tx, organizationId, seat.id, now);
  if (seat.status === "claimed" && seat.customerId) await enqueue(tx, customerStateChanged(organizationId, seat.customerId));
  return wire;
}

/**
 * A member leaves the team (in the removal's transaction, before the member's row goes): each seat of theirs that is
 * not revoked is revoked as `revokeSeat` does (its grants revoked; the webhooks name the member while it exists).
 */
export async function revokeSeatsOfMember(tx: Queryable, member: MemberRow): Promise<void> {
  const now = new Date();
  for (const found of await repo.liveSeatsOfMember(tx, member.organizationId, member.id)) {
    // owner first, then the seat: the order every seat change takes its locks in
    await loadOwner(tx, member.organizationId, seatOwnerRef(found), true);
    const seat = await repo.lockSeat(tx, member.organizationId, found.id);
    if (seat && seat.status !== "revoked") await revokeLocked(tx, seat, now);
  }
}

/** Sends a pending seat's invitation again, with a new token and expiry (the previous link stops working). */
export async function resendInvitation(db: Db, organizationId: string, seatId: string, actor: SeatActor): Promise<CustomerSeatWire> {
  return db.transaction(async (tx) => {
    const { seat, owner } = await lockSeatFor(tx, organizationId, seatId, actor);
    if (seat.status !== "pending") {
      throw invalid(["path", "seat_id"], `Only a pending seat's invitation can be sent again; this seat is ${seat.status}.`, "seat_not_pending");
    }
    if (!owner.usable) throw notUsable(owner, "path");
    const now = new Date();
    const invitation = newInvitation(now);
    const updated = await repo.updateSeat(tx, organizationId, seat.id, {
      invitationTokenHash: invitation.invitationTokenHash,
      invitationTokenExpiresAt: invitation.invitationTokenExpiresAt,
      invitationId: invitation.invitationId,
      modifiedAt: now,
    });
    await mailInvitation(tx, updated, owner, invitation.token);
    return seatWire(tx, organizationId, updated);
  });
}

// ---- for the customer portal ----------------------------------------------------------------------

/** The subscriptions in which this customer holds a claimed seat, newest first. */
export async function claimedSubscriptionIds(db: Queryable, organizationId: string, customerId: string): Promise<string[]> {
  return repo.claimedSubscriptionIds(db, organizationId, customerId);
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** The active seats of a subscription or order (plan changes). */
export const countActive: typeof repo.countActive = (...args) => repo.countActive(...args);
