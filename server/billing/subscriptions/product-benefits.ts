// A product's benefits changed (POST /v1/products/{id}/benefits): its current subscribers get the benefits it
// now offers and lose the ones it no longer does, as Polar's update_product_benefits_grants job does. The
// products domain sits below subscriptions, so it only records `product.updated`; the jobs worker hands each
// batch of outbox events here, in the fan-out's transaction, so the grants exist exactly when the event counts
// as handled. Each subscription is locked and compared with its live grants (regrantSubscription), so running
// it twice grants nothing twice.
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxSubscriber } from "../../db/outbox.js";
import { loadBenefitsForProducts, regrantSubscription } from "../benefits/service.js";
import { findCustomerRow } from "../customers/service.js";
import { ApiError } from "../errors.js";
import { lockSubscription } from "./service.js";
import { subscriptionsToRegrant } from "./repository.js";

interface OutboxRowView {
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
}

const HOLDING = new Set(["trialing", "active", "past_due"]);

/**
 * The fan-out's subscriber: re-grants the subscribers of every product the batch's `product.updated` names. Each
 * product runs in a savepoint: one that fails (reported to `onError`) must not hold back the batch's webhooks.
 */
export async function regrantFromOutbox(tx: Queryable, rows: OutboxRowView[], onError: (err: unknown, productId: string) => void = () => {}): Promise<number> {
  const products = new Map<string, { organizationId: string; productId: string }>();
  for (const row of rows) {
    const id = row.payload.id;
    if (row.type === "product.updated" && typeof id === "string") products.set(`${row.organizationId}/${id}`, { organizationId: row.organizationId, productId: id });
  }
  let changed = 0;
  for (const { organizationId, productId } of products.values()) {
    try {
      changed += await tx.transaction((sp) => regrantSubscribersOfProduct(sp, organizationId, productId, new Date()));
    } catch (err) {
      onError(err, productId);
    }
  }
  return changed;
}

/** A product's benefits changed: the worker re-grants its subscribers (their events go out with the next batch). */
export const outboxSubscriber: OutboxSubscriber<OutboxRowView> = {
  name: "product-benefits",
  receive: (tx, rows, log) => regrantFromOutbox(tx, rows, (err, productId) => log.error(err, `re-granting the subscribers of product ${productId} failed`)),
};

/** Brings each subscription of the product whose grants differ from its live benefits in line; returns how many. */
export async function regrantSubscribersOfProduct(tx: Queryable, organizationId: string, productId: string, now: Date): Promise<number> {
  const ids = await subscriptionsToRegrant(tx, organizationId, productId);
  if (ids.length === 0) return 0;
  const benefits = (await loadBenefitsForProducts(tx, organizationId, [productId])).get(productId) ?? [];
  let changed = 0;
  for (const id of ids) {
    const sub = await lockSubscription(tx, organizationId, id);
    // changed plan or ended since the list was read
    if (!sub || sub.productId !== productId || !HOLDING.has(sub.status)) continue;
    const customer = await findCustomerRow(tx, organizationId, { id: sub.customerId }).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
    const { granted, revoked } = await regrantSubscription(tx, organizationId, { subscriptionId: sub.id, customer, benefits }, now);
    if (granted.length + revoked.length > 0) {
      await enqueue(tx, customerStateChanged(organizationId, sub.customerId));
      changed++;
    }
  }
  return changed;
}
