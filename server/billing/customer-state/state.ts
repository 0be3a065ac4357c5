// CustomerState: a customer with what it holds now — active subscriptions (subscriptions domain),
// the benefits granted to it (benefits domain) and its usage per meter (meters domain).
// Read on every request of a seller's app (access checks), so the reads run side by side: by id, the customer,
// its grants, its active subscriptions and the organization's meters (with their rollups' readiness) are one
// round of queries; the usage totals are the second (a customer with metered subscriptions adds theirs).
import type { Queryable } from "../../db/client.js";
import { listGrantedBenefitsForCustomer } from "../benefits/service.js";
import { isUuid } from "../http.js";
import { customerMeters, liveMetersOfOrganization } from "../meters/service.js";
import { activeSubscriptionRows, activeSubscriptionsForCustomerState } from "../subscriptions/service.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import { toCustomerWire } from "../customers/wire.js";
import { heldUnitsOf, withHeld } from "../entitlements/service.js";

export async function getCustomerState(db: Queryable, organizationId: string, ref: CustomerRef) {
  const ofCustomer = (id: string) =>
    Promise.all([listGrantedBenefitsForCustomer(db, organizationId, id), activeSubscriptionRows(db, organizationId, id), heldUnitsOf(db, organizationId, id)]);
  const live = liveMetersOfOrganization(db, organizationId);
  // by id, what needs only the id starts beside the customer's own read (a missing customer is a 404 all the same:
  // these reads are of this organization's rows for that id, and their answers are then dropped)
  const early = "id" in ref && isUuid(ref.id) ? ofCustomer(ref.id.toLowerCase()) : null;
  // handled now: a 404 below must not leave them rejected with no one listening
  live.catch(() => undefined);
  early?.catch(() => undefined);
  const row = await findCustomerRow(db, organizationId, ref);
  const [grants, active, held] = await (early ?? ofCustomer(row.id));
  const [activeMeters, subscriptions] = await Promise.all([
    live.then((meters) => customerMeters(db, organizationId, row, grants, meters)),
    activeSubscriptionsForCustomerState(db, organizationId, { id: row.id, external_id: row.externalId ?? null }, active),
  ]);
  // units held by open reservations are not there to spend: the balance shown is what a check would answer
  return { ...toCustomerWire(row), active_subscriptions: subscriptions, granted_benefits: grants, active_meters: withHeld(activeMeters, held) };
}
