// A subscription's collection terms and purchase order number (till's own PATCH /v1/subscriptions/{id}/terms; the
// portal sets the purchase order only): written under the subscription's lock, with its subscription.updated event.
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { notFound, validationError } from "../errors.js";
import { patchTerms, purchaseOrderInput, storedPurchaseOrder, termsInput } from "../terms.js";
import { toWires } from "./load.js";
import * as repo from "./repository.js";
import type { SubscriptionWire } from "./wire.js";

export const SubscriptionTermsInput = z.object({ ...termsInput, purchase_order: purchaseOrderInput });
export type SubscriptionTermsInput = z.output<typeof SubscriptionTermsInput>;

/**
 * Sets what the body names: `collection_method` null or absent keeps the terms (null after a value: the customer's
 * terms again, as `charge_automatically` sets the subscription's own), `purchase_order` null clears it.
 */
export async function updateSubscriptionTerms(
  db: Db,
  organizationId: string,
  id: string,
  input: SubscriptionTermsInput,
  baseURL: string,
  customerId?: string,
): Promise<SubscriptionWire> {
  return db.transaction(async (tx) => {
    const current = await repo.lockSubscription(tx, organizationId, id);
    // a portal session sees its own customer's subscriptions only
    if (!current || (customerId && current.customerId !== customerId)) throw notFound("Subscription not found");
    const terms = patchTerms(current, input);
    if ("loc" in terms) throw validationError([terms]);
    const purchaseOrder = input.purchase_order === undefined ? current.purchaseOrder : storedPurchaseOrder(input.purchase_order);
    const row = await repo.patchSubscriptionInvoicing(tx, organizationId, id, { ...terms, purchaseOrder }, new Date());
    const [wire] = await toWires(tx, organizationId, [row], baseURL);
    if (!wire) throw notFound("Subscription not found");
    await enqueue(tx, { type: "subscription.updated", organizationId, data: wire });
    return wire;
  });
}
