// CustomerState: a customer with what it holds now — active subscriptions (subscriptions domain),
// the benefits granted to it (benefits domain) and its usage per meter (meters domain).
import type { Queryable } from "../../db/client.js";
import { listGrantedBenefitsForCustomer } from "../benefits/service.js";
import { customerMeters } from "../meters/service.js";
import { activeSubscriptionsForCustomerState } from "../subscriptions/service.js";
import { findCustomerRow, type CustomerRef } from "./service.js";
import { toCustomerWire } from "./wire.js";

export async function getCustomerState(db: Queryable, organizationId: string, ref: CustomerRef) {
  const row = await findCustomerRow(db, organizationId, ref);
  const grants = await listGrantedBenefitsForCustomer(db, organizationId, row.id);
  const activeMeters = await customerMeters(db, organizationId, row, grants);
  const subscriptions = await activeSubscriptionsForCustomerState(db, organizationId, { id: row.id, external_id: row.externalId ?? null });
  return { ...toCustomerWire(row), active_subscriptions: subscriptions, granted_benefits: grants, active_meters: activeMeters };
}
