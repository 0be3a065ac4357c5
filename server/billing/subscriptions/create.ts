// POST /v1/subscriptions/ (`subscriptions.create`): a subscription the seller creates for an existing customer
// without a checkout — on a free recurring product (active at once), or on a paid one with a trial (trialing
// until the trial ends; nothing is charged and no payment method is saved, so its first renewal goes past_due
// unless the customer subscribes through a checkout). Any other product is 422: the customer pays through a
// checkout. The product's benefits are granted now; subscription.created (and .active), benefit_grant.created and
// customer.state_changed go to the outbox in the same transaction.
import { randomUUID } from "node:crypto";
import type { Db } from "../../db/client.js";
import type { Metadata } from "../../db/schema/index.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import { grantBenefits } from "../benefits/service.js";
import { addInterval } from "./period.js";
import { isFree, isMetered, isStatic, priceCurrency } from "../products/pricing.js";
import { findCustomerRow } from "../customers/service.js";
import { ApiError, invalid } from "../errors.js";
import { loadProducts } from "../products/service.js";
import { orgNow } from "../clock.js";
import { toWires } from "./load.js";
import * as repo from "./repository.js";
import { newSubscriptionFromCheckout } from "./service.js";
import type { SubscriptionWire } from "./wire.js";

export interface SubscriptionCreate {
  productId: string;
  customer: { id: string } | { externalId: string };
  metadata: Metadata;
}

export async function createSubscription(db: Db, organizationId: string, input: SubscriptionCreate, baseURL: string): Promise<SubscriptionWire> {
  return db.transaction(async (tx) => {
    const customerLoc = ["body", "id" in input.customer ? "customer_id" : "external_customer_id"];
    const customer = await findCustomerRow(tx, organizationId, input.customer).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) throw invalid(customerLoc, "Customer does not exist.");
      throw err;
    });
    const bad = (msg: string) => invalid(["body", "product_id"], msg);
    const product = (await loadProducts(tx, organizationId, [input.productId], baseURL)).get(input.productId);
    if (!product || product.is_archived) throw bad("Product does not exist.");
    if (!product.is_recurring || !product.recurring_interval) throw bad("Product is not a subscription product.");
    const price = product.prices.find((p) => !p.is_archived && isStatic(p));
    if (!price) throw bad("Product has no price.");
    const free = isFree(price);
    const trial = product.trial_interval && product.trial_interval_count ? { interval: product.trial_interval, count: product.trial_interval_count } : null;
    if (!free && !trial) {
      throw bad("Product is not free and has no trial: the customer subscribes through a checkout.");
    }
    if (!free && price.amount_type !== "fixed") throw bad("Only a fixed price can be subscribed to without a checkout.");
    const currency = priceCurrency(price) ?? "usd";
    const metered = product.prices.filter((p) => !p.is_archived && isMetered(p) && priceCurrency(p) === currency);
    // a sandbox's test clock: the subscription starts at its now (its period ends on the clock)
    const now = await orgNow(tx, organizationId);
    const trialEnd = !free && trial ? addInterval(now, trial.interval, trial.count) : null;
    const id = randomUUID();
    const row = await repo.insertSubscription(tx, {
      ...newSubscriptionFromCheckout({
        id,
        organizationId,
        checkoutId: "",
        customerId: customer.id,
        productId: product.id,
        priceIds: [price, ...metered].map((p) => p.id),
        amount: free || price.amount_type !== "fixed" ? 0 : price.price_amount,
        currency,
        recurringInterval: product.recurring_interval,
        recurringIntervalCount: product.recurring_interval_count ?? 1,
        trialEnd,
        periodEnd: addInterval(now, product.recurring_interval, product.recurring_interval_count ?? 1),
        discountId: null,
        seats: null,
        metadata: input.metadata,
        customFieldData: {},
        now,
      }),
      checkoutId: null,
    });
    const granted = await grantBenefits(tx, organizationId, { benefits: product.benefits, customer, orderId: null, subscriptionId: id }, now);
    const [wire] = await toWires(tx, organizationId, [row], baseURL);
    if (!wire) throw new Error("created subscription vanished");
    const events: OutboxEvent[] = [{ type: "subscription.created", organizationId, data: { ...wire } }];
    if (row.status === "active") events.push({ type: "subscription.active", organizationId, data: { ...wire } });
    events.push(...granted.map((g) => ({ type: "benefit_grant.created" as const, organizationId, data: { ...g } })));
    events.push(customerStateChanged(organizationId, customer.id));
    await enqueue(tx, events);
    return wire;
  });
}
