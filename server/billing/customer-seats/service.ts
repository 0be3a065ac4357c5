// Customer seats (Polar's customer_seat): the buyer of a seat-based purchase hands its seats to people. A seat
// is assigned to an email (pending: an invitation is mailed with a token), claimed with that token (the person
// becomes — or is matched by email to — a customer of the seller, and gets the product's benefits as grants of
// the seat), or revoked (its grants are revoked). Seats never outnumber the purchase's `seats`: every change
// locks the subscription or order first, so concurrent assignments queue and count exactly.
//
// Here: listing, assigning, revoking and resending; the purchase a seat belongs to is owner.ts, the invitation
// token and the claim are claim.ts. Functions taking `Db` open their own transaction. The seller acts with an
// organization token; the buyer from the customer portal acts only on their own subscriptions and orders
// (anything else is 404).
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import { revokeGrantsOfSeat } from "../benefits/service.js";
import { requestEmail } from "../customer-emails/service.js";
import { findCustomerRow } from "../customers/service.js";
import { emailInput, isUuid } from "../http.js";
import { ApiError, invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import { ownerOfCheckout } from "../orders/service.js";
import { memberOfCustomer, memberWires } from "../members/service.js";
import type { MemberRow } from "../members/wire.js";
import { loadProductSummaries } from "../products/service.js";
import { claimLocked, newInvitation } from "./claim.js";
import { loadOwner, notSeatBased, notUsable, ownerFor, seatOwnerRef, type Owner, type SeatActor } from "./owner.js";
import * as repo from "./repository.js";
import { toCustomerSeatWire, type CustomerSeatRow, type CustomerSeatWire, type SeatsListWire } from "./wire.js";

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

/**
 * Who gets the seat: an email, an existing customer of the seller (then its email), or a member of the buyer's team.
 */
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
      const field = input.email ? "email" : input.customer_id ? "customer_id" : input.member_id ? "member_id"
        : input.external_member_id ? "external_member_id" : "external_customer_id";
      issues.push({ loc: ["body", field], msg: `${holder.email} already has a seat of this purchase.`, type: "seat_already_assigned" });
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

/**
 * Revokes a seat: its invitation stops working and the grants its claim made are revoked. Revoking a revoked seat
 * changes nothing.
 */
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
