// Deleting a customer (DELETE /v1/customers/{id} and /external/{id}): an orchestrator above the subscriptions'
// changes and the benefits, since the customer's open subscriptions and its grants are revoked in the deleting
// transaction. customers/ stays below them (events, meters, payments and orders read customers).
import { createHash } from "node:crypto";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { revokeGrantsOfCustomer } from "../benefits/service.js";
import { notFound } from "../errors.js";
import { revokeSubscriptionsOfCustomer } from "../subscription-changes/lifecycle.js";
import { findCustomerRow, lockLiveCustomer, writeCustomerRow, type CustomerRef, type CustomerRowPatch } from "../customers/service.js";
import { toCustomerWire } from "../customers/wire.js";

const NOT_FOUND = "Customer not found.";

const ANONYMIZED_EMAIL_DOMAIN = "anonymized.invalid";
const anonymized = (value: string, salt: Date) =>
  createHash("sha256").update(`${value}:${salt.toISOString()}`).digest("hex").slice(0, 32);

/**
 * Soft deletion: the row stays (orders and events keep pointing at it) with deleted_at set, which frees
 * its email and external id. `anonymize` also replaces the personal data (email, name unless it is a
 * business with a tax id, billing address); external_id and tax_id are kept for legal reasons, like Polar.
 * As Polar, the customer's subscriptions that have not ended are revoked and all its benefit grants revoked,
 * in the same transaction (their events before `customer.deleted`; no `customer.state_changed` for a
 * customer that is gone).
 */
export async function deleteCustomer(db: Db, organizationId: string, ref: CustomerRef, anonymize: boolean, baseURL: string): Promise<void> {
  await db.transaction(async (tx) => {
    // two deletes at once: the second waits here and then finds no live customer (404), deleting and recording nothing
    const current = await lockLiveCustomer(tx, organizationId, (await findCustomerRow(tx, organizationId, ref)).id);
    if (!current) throw notFound(NOT_FOUND);
    const now = new Date();
    await revokeSubscriptionsOfCustomer(tx, organizationId, current.id, now, baseURL);
    // what is left: one-time purchases' grants
    await revokeGrantsOfCustomer(tx, organizationId, current.id, now);
    const patch: CustomerRowPatch = { deletedAt: now, modifiedAt: now };
    if (anonymize) {
      patch.email = `${anonymized(current.email, current.createdAt)}@${ANONYMIZED_EMAIL_DOMAIN}`;
      patch.emailVerified = false;
      if (!current.taxId && current.name) patch.name = anonymized(current.name, current.createdAt);
      patch.billingAddress = null;
      if (!current.taxId) patch.billingName = null;
      patch.metadata = { ...current.metadata, __anonymized_at: now.toISOString() };
    }
    const row = await writeCustomerRow(tx, organizationId, current.id, patch);
    if (row) await enqueue(tx, { type: "customer.deleted", organizationId, data: { ...toCustomerWire(row) } });
  });
}
