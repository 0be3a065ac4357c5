// The purchase a seat belongs to (a subscription or an order), as the seat rules see it: who bought it, how many
// seats, whether they can be handed out now; loaded (and locked, when asked) as the actor may see it.
import type { Queryable } from "../../db/client.js";
import { invalid, notFound } from "../errors.js";
import { findOrder, lockOrderRow } from "../orders/service.js";
import { findSubscription, lockSubscription } from "../subscriptions/service.js";
import type { SeatOwnerRef } from "./repository.js";
import type { CustomerSeatRow } from "./wire.js";

/** Who acts: the seller (organization token) or the buyer in the customer portal. */
export type SeatActor = { kind: "seller" } | { kind: "customer"; customerId: string };

export interface Owner {
  ref: SeatOwnerRef;
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

export async function loadOwner(tx: Queryable, organizationId: string, ref: SeatOwnerRef, lock: boolean): Promise<Owner | undefined> {
  if ("subscriptionId" in ref) {
    const s = lock ? await lockSubscription(tx, organizationId, ref.subscriptionId) : await findSubscription(tx, organizationId, ref.subscriptionId);
    if (!s) return undefined;
    return { ref, field: "subscription_id", buyerId: s.customerId, productId: s.productId, seats: s.seats, usable: LIVE_SUBSCRIPTION.has(s.status) && s.endedAt === null };
  }
  const o = lock ? await lockOrderRow(tx, organizationId, ref.orderId) : await findOrder(tx, organizationId, ref.orderId);
  if (!o) return undefined;
  return { ref, field: "order_id", buyerId: o.customerId, productId: o.productId, seats: o.seats, usable: PAID_ORDER.has(o.status) };
}

const ownerMissing = (ref: SeatOwnerRef) => notFound("subscriptionId" in ref ? "Subscription not found" : "Order not found");

/** The owner, locked when asked, as the actor may see it: a buyer sees only their own purchases. */
export async function ownerFor(tx: Queryable, organizationId: string, ref: SeatOwnerRef, actor: SeatActor, lock: boolean): Promise<Owner> {
  const owner = await loadOwner(tx, organizationId, ref, lock);
  if (!owner || (actor.kind === "customer" && owner.buyerId !== actor.customerId)) throw ownerMissing(ref);
  return owner;
}

export const seatOwnerRef = (seat: CustomerSeatRow): SeatOwnerRef =>
  seat.subscriptionId ? { subscriptionId: seat.subscriptionId } : { orderId: seat.orderId ?? "" };

export function notSeatBased(owner: Owner, where: "body" | "query") {
  const what = owner.field === "subscription_id" ? "subscription" : "order";
  return invalid([where, owner.field], `This ${what} has no seats: its product is not sold per seat.`, "seat_based_pricing_required");
}

export function notUsable(owner: Owner, where: "body" | "query" | "path") {
  const msg = owner.field === "subscription_id" ? "The subscription is not active: its seats cannot be assigned or claimed." : "The order is not paid: its seats cannot be assigned or claimed.";
  // only the subscription's wording has a customer message (shared/customer-errors.ts)
  return invalid([where, where === "path" ? "seat_id" : owner.field], msg, "seat_not_available", owner.field === "subscription_id" ? "seats_inactive" : undefined);
}
