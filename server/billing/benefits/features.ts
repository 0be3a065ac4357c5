// What entitlement checks read of benefits: the customer's grants with the subscription that made each (a past-due
// subscription's grants may be refused), and whether a feature_flag benefit is named by a feature.
import type { Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import * as grantRepo from "./grants-repository.js";
import * as repo from "./repository.js";
import { toCustomerStateGrantWire, type CustomerStateGrantWire } from "./wire.js";

/** The customer's grants granted now, each with the subscription that made it (null: an order's, a seat's …). */
export async function grantsOfCustomerWithSubscription(
  db: Queryable,
  organizationId: string,
  customerId: string,
): Promise<Array<{ grant: CustomerStateGrantWire; subscriptionId: string | null }>> {
  if (!isUuid(customerId)) return [];
  const rows = await grantRepo.grantedOfCustomer(db, organizationId, customerId.toLowerCase());
  return rows.map((r) => ({ grant: toCustomerStateGrantWire(r.grant, r.benefit), subscriptionId: r.grant.subscriptionId }));
}

/** Whether a live feature_flag benefit of the organization is named by `feature` (its id or `metadata.key`). */
export const featureFlagExists = (db: Queryable, organizationId: string, feature: string) =>
  repo.featureFlagExists(db, organizationId, feature, isUuid(feature) ? feature.toLowerCase() : null);
