// Rules for benefits and their grants: the six (+ feature_flag) benefit types and their properties,
// soft deletion, and the read side of grants (the grant engine that creates them comes with checkout).
import type { Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import * as repo from "./repository.js";
import {
  toBenefitWire,
  toCustomerStateGrantWire,
  type BenefitWire,
  type CustomerStateGrantWire,
} from "./wire.js";

export { toBenefitPublicWire, type BenefitPublicWire, type BenefitWire } from "./wire.js";

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

// ---- for other domains -------------------------------------------------------------------------

/**
 * The live benefits of each product (full `Benefit` shape), in the product's order; every requested product
 * gets an entry (possibly empty). Deleted benefits are left out: a product stops offering a deleted benefit.
 */
export async function loadBenefitsForProducts(
  db: Queryable,
  organizationId: string,
  productIds: string[],
): Promise<Map<string, BenefitWire[]>> {
  const ids = uniqueUuids(productIds);
  const out = new Map<string, BenefitWire[]>(ids.map((id) => [id, []]));
  for (const row of await repo.benefitsOfProducts(db, organizationId, ids)) {
    out.get(row.productId)?.push(toBenefitWire(row.benefit));
  }
  return out;
}

/** The ids among `ids` that are not live benefits of this organization (malformed, foreign or deleted). */
export async function benefitIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.existingBenefitIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/** `CustomerState.granted_benefits`: the customer's grants that are granted now (not revoked). */
export async function listGrantedBenefitsForCustomer(
  db: Queryable,
  organizationId: string,
  customerId: string,
): Promise<CustomerStateGrantWire[]> {
  if (!isUuid(customerId)) return [];
  const rows = await repo.grantedOfCustomer(db, organizationId, customerId.toLowerCase());
  return rows.map((r) => toCustomerStateGrantWire(r.grant, r.benefit));
}
