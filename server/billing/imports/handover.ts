// Handing one subscription over from the processor to till, and back. Till's subscription waits `incomplete` (never
// renewed) until the processor has set its own to end at the period's end, marked with till's id; only then does
// till's become active, with its benefits and the usual events. Every step is safe to redo: the processor's update is
// idempotent by key and is read back first, so a crash at any point leaves the subscription the processor's or
// till's, and the next attempt finishes what was started.
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { BillingSourceError, type BillingSource, type SourceSubscription } from "../../payments/billing-import.js";
import { grantBenefits } from "../benefits/service.js";
import { orgNow } from "../clock.js";
import { findCustomerRow } from "../customers/service.js";
import { loadProducts } from "../products/service.js";
import { findSubscription, lockSubscription, writeSubscription } from "../subscriptions/service.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { priceKey } from "./plan-catalog.js";
import { toWires } from "../subscriptions/load.js";
import * as repo from "./repository.js";

export interface HandoverDeps {
  db: Db;
  baseURL: string;
  sourceOf(db: Queryable, organizationId: string): Promise<BillingSource | null>;
}

/** A subscription's item once till took it over, or once the hand-over was refused (`why`). */
const movedItem = (tillId: string) => ({ action: "moved" as const, tillId, reason: null });
const refusedItem = (why: string) => ({ action: "blocked" as const, reason: `${why} It stays Stripe's; run the import again to plan it anew.` });

/**
 * What a settled hand-over makes of its subscription's item (null: not settled). The run writes its items only once
 * its plan is applied, while hand-overs are due as soon as staged: one that settles first is written in by the run.
 */
export function settledItem(h: Pick<repo.HandoverRow, "state" | "subscriptionId" | "detail">) {
  if (h.state === "moved") return movedItem(h.subscriptionId);
  if (h.state === "refused") return refusedItem(h.detail ?? "");
  return null;
}

/** Waits between attempts the processor could not answer: 1, 2, 4 … minutes, at most an hour. */
const backoff = (attempts: number) => new Date(Date.now() + Math.min(60, 2 ** Math.min(attempts, 6)) * 60_000);

/** Why the processor's subscription no longer matches what was planned (it stays the processor's); null: it does. */
function changedSince(current: SourceSubscription, h: repo.HandoverRow): string | null {
  if (current.status !== "active" && current.status !== "trialing") return `It is ${current.status} at Stripe now.`;
  if (current.currentPeriodEnd.getTime() !== h.sourcePeriodEnd.getTime()) return "Its period changed at Stripe since the plan.";
  if (current.cancelAtPeriodEnd && current.movedTo !== h.subscriptionId) return "It was set to end at its period's end at Stripe.";
  if (current.movedTo && current.movedTo !== h.subscriptionId) return `It is marked as moved to another till subscription (${current.movedTo}).`;
  return null;
}

/**
 * Lets go of a hand-over whose state changed while its worker asked Stripe (an undo called it off): what Stripe did is
 * done, so the hand-back may start now rather than when the lease runs out.
 */
const letGo = (db: Queryable, h: repo.HandoverRow, token: string) => repo.updateHandover(db, h.subscriptionId, token, { lockedBy: null, lockedUntil: null });

/** Till's becomes active (or trialing) with its benefits; the processor ends its own at the period's end. */
async function activate(deps: HandoverDeps, h: repo.HandoverRow, token: string): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const moved = { state: "moved", movedAt: new Date(), nextAttemptAt: null, lockedBy: null, lockedUntil: null, detail: null };
    if (!(await repo.updateHandover(tx, h.subscriptionId, token, moved, "pending"))) {
      await letGo(tx, h, token);
      return false;
    }
    const row = await lockSubscription(tx, h.organizationId, h.subscriptionId);
    if (!row || row.status !== "incomplete") return true;
    const now = await orgNow(tx, h.organizationId);
    const status = row.trialEnd && row.trialEnd > now ? "trialing" : "active";
    const active = await writeSubscription(tx, h.organizationId, row.id, { status, modifiedAt: now });
    const product = (await loadProducts(tx, h.organizationId, [row.productId], deps.baseURL)).get(row.productId);
    const customer = await findCustomerRow(tx, h.organizationId, { id: row.customerId });
    const granted = await grantBenefits(tx, h.organizationId, { benefits: product?.benefits ?? [], customer, orderId: null, subscriptionId: row.id }, now);
    const [wire] = await toWires(tx, h.organizationId, [active], deps.baseURL);
    const events: OutboxEvent[] = wire ? [{ type: "subscription.created", organizationId: h.organizationId, data: { ...wire } }] : [];
    if (wire && status === "active") events.push({ type: "subscription.active", organizationId: h.organizationId, data: { ...wire } });
    events.push(...granted.map((g) => ({ type: "benefit_grant.created" as const, organizationId: h.organizationId, data: { ...g } })));
    events.push(customerStateChanged(h.organizationId, row.customerId));
    await enqueue(tx, events);
    await repo.setItem(tx, h.importId, "subscription", h.sourceSubscriptionId, movedItem(row.id));
    return true;
  });
}

/** Nothing moves: till's waiting subscription expires, the processor's goes on; the plan says why. */
async function refuse(deps: HandoverDeps, h: repo.HandoverRow, token: string, why: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    if (!(await repo.updateHandover(tx, h.subscriptionId, token, { state: "refused", detail: why, nextAttemptAt: null, lockedBy: null, lockedUntil: null }, "pending"))) {
      await letGo(tx, h, token);
      return;
    }
    const row = await lockSubscription(tx, h.organizationId, h.subscriptionId);
    if (row?.status === "incomplete") await writeSubscription(tx, h.organizationId, row.id, { status: "incomplete_expired", endedAt: new Date(), modifiedAt: new Date() });
    await repo.setItem(tx, h.importId, "subscription", h.sourceSubscriptionId, refusedItem(why));
  });
}

async function later(deps: HandoverDeps, h: repo.HandoverRow, token: string, detail: string): Promise<void> {
  const patch = { attempts: h.attempts + 1, nextAttemptAt: backoff(h.attempts + 1), detail, lockedBy: null, lockedUntil: null };
  // a hand-over an undo called off meanwhile is handed back now, not after this one's wait
  if (!(await repo.updateHandover(deps.db, h.subscriptionId, token, patch, h.state))) await letGo(deps.db, h, token);
}

/**
 * Whether Stripe's subscription was updated since the plan (another price, quantity or coupon) — what till's was made
 * from, through the links of the processor's prices and coupons to till's.
 */
async function updatedSince(deps: HandoverDeps, h: repo.HandoverRow, current: SourceSubscription, mine: SubscriptionRow): Promise<string | null> {
  const keys = [...current.items.map((i) => `price|${priceKey(i.priceId, current.currency)}`), ...current.couponIds.map((c) => `discount|${c}`)];
  const links = await repo.linkedTillIds(deps.db, h.organizationId, h.processor, keys);
  const items = current.items.map((i) => ({ ...i, tillPrice: links.get(`price|${priceKey(i.priceId, current.currency)}`) }));
  const addOnOf = new Map(mine.addOns.map((a) => [a.priceId, a]));
  const held = [...mine.priceIds, ...addOnOf.keys()];
  if (items.length !== held.length || items.some((i) => !i.tillPrice || !held.includes(i.tillPrice))) return "Its prices changed at Stripe since the plan.";
  const base = items.filter((i) => !addOnOf.has(i.tillPrice ?? ""));
  const seats = base.find((i) => i.quantity !== null)?.quantity ?? null;
  if (mine.seats !== null ? seats !== mine.seats : seats !== null && seats !== 1) return "Its quantity changed at Stripe since the plan.";
  if (items.some((i) => addOnOf.has(i.tillPrice ?? "") && (i.quantity ?? 1) !== addOnOf.get(i.tillPrice ?? "")?.quantity)) {
    return "Its quantity changed at Stripe since the plan.";
  }
  const coupon = current.couponIds[0] ? (links.get(`discount|${current.couponIds[0]}`) ?? "?") : null;
  if (coupon !== mine.discountId) return "Its coupon changed at Stripe since the plan.";
  return null;
}

async function moveOver(deps: HandoverDeps, source: BillingSource, h: repo.HandoverRow, token: string): Promise<void> {
  const current = await source.readSubscription(h.sourceSubscriptionId);
  if (!current) return refuse(deps, h, token, "It no longer exists at Stripe.");
  const mine = await findSubscription(deps.db, h.organizationId, h.subscriptionId);
  if (!mine) return refuse(deps, h, token, "till's subscription for it is gone.");
  // one that ends with its period at Stripe, as till's does: nothing to ask of Stripe while it still ends
  if (mine.cancelAtPeriodEnd) {
    if (!current.cancelAtPeriodEnd || current.movedTo) return refuse(deps, h, token, "It no longer ends with its period at Stripe.");
    if (current.status !== "active" && current.status !== "trialing") return refuse(deps, h, token, `It is ${current.status} at Stripe now.`);
    await activate(deps, h, token);
    return;
  }
  // already marked for this subscription: the update went through before a crash (or a lost answer)
  if (current.movedTo === h.subscriptionId && current.cancelAtPeriodEnd) {
    await activate(deps, h, token);
    return;
  }
  const changed = changedSince(current, h) ?? (await updatedSince(deps, h, current, mine));
  if (changed) return refuse(deps, h, token, changed);
  const moved = await source.handOver(h.sourceSubscriptionId, h.subscriptionId, current);
  if (moved.movedTo !== h.subscriptionId || !moved.cancelAtPeriodEnd) return later(deps, h, token, "Stripe did not keep the hand-over's mark.");
  await activate(deps, h, token);
}

async function giveBack(deps: HandoverDeps, source: BillingSource, h: repo.HandoverRow, token: string): Promise<void> {
  const current = await source.readSubscription(h.sourceSubscriptionId);
  // gone, or moved elsewhere since: there is nothing of till's to take back from it
  if (current && (current.movedTo === h.subscriptionId || current.movedTo === null)) await source.handBack(h.sourceSubscriptionId, h.subscriptionId);
  await deps.db.transaction(async (tx) => {
    const back = { state: "handed_back", handedBackAt: new Date(), nextAttemptAt: null, lockedBy: null, lockedUntil: null, detail: null };
    if (!(await repo.updateHandover(tx, h.subscriptionId, token, back, "handing_back"))) return;
    await repo.setItem(tx, h.importId, "subscription", h.sourceSubscriptionId, { action: "handed_back" });
  });
}

/** Works one leased hand-over: moves it, or gives it back. */
export async function workHandover(deps: HandoverDeps, h: repo.HandoverRow, token: string): Promise<void> {
  const source = await deps.sourceOf(deps.db, h.organizationId);
  if (!source) return later(deps, h, token, "Stripe is not connected any more.");
  try {
    if (h.state === "handing_back") await giveBack(deps, source, h, token);
    else await moveOver(deps, source, h, token);
  } catch (err) {
    if (!(err instanceof BillingSourceError)) throw err;
    if (err.retryable || h.state === "handing_back") return later(deps, h, token, err.message);
    return refuse(deps, h, token, err.message);
  } finally {
    await repo.settleRuns(deps.db, [h.importId]);
  }
}
