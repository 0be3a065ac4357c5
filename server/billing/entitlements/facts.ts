// A customer's entitlements as facts (shared/entitlements.ts): the feature flags it holds, and each meter it has
// credit on or is billed for with its balance — credited − consumed over the current period (customer state's
// numbers, meters/service.ts customerMeters) − the units open reservations hold. The check answers from these, and
// a snapshot signs them. Past due: with the organization's `plan_settings.access_while_past_due` off, what the
// customer holds only through past-due subscriptions is marked so (refused as `subscription_past_due`); and what an
// unpaid subscription's product would give (its grants were revoked when dunning gave up) is listed marked the same
// way, so the customer hears why rather than `no_benefit`.
import type { Queryable } from "../../db/client.js";
import type { EntitlementFacts, FeatureFact, MeterFact, OverageMode } from "../../../shared/entitlements.js";
import { grantsOfCustomerWithSubscription, loadBenefitsForProducts } from "../benefits/service.js";
import { findCustomersByExternalIds, findCustomersByIds, type CustomerRef } from "../customers/service.js";
import { isUuid } from "../http.js";
import { customerMeters, liveMetersOfOrganization } from "../meters/service.js";
import { getOrganization } from "../organizations/service.js";
import { loadPrices } from "../products/service.js";
import { isMetered } from "../products/pricing.js";
import { liveSubscriptionRows } from "../subscriptions/service.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { heldUnitsOfCustomer } from "./reservations-repository.js";

export interface CustomerFacts {
  customerId: string;
  externalId: string | null;
  facts: EntitlementFacts;
}

export async function liveCustomer(db: Queryable, organizationId: string, ref: CustomerRef) {
  if ("id" in ref) {
    if (!isUuid(ref.id)) return undefined;
    const [row] = await findCustomersByIds(db, organizationId, [ref.id.toLowerCase()]);
    return row && row.deletedAt === null ? row : undefined;
  }
  const rows = await findCustomersByExternalIds(db, organizationId, [ref.externalId]);
  return rows.find((r) => r.deletedAt === null);
}

const flagKey = (metadata: Record<string, unknown>) => (typeof metadata.key === "string" && metadata.key.length > 0 ? metadata.key : null);

/** Whether every source named is a past-due subscription (a grant of an order or a seat is never past due). */
const onlyPastDue = (sources: Array<string | null>, pastDue: Set<string>) => sources.length > 0 && sources.every((s) => s !== null && pastDue.has(s));

/** The metered prices of the live subscriptions: each meter's overage and the subscriptions billing it. */
async function meteredPrices(db: Queryable, organizationId: string, subs: SubscriptionRow[]) {
  const prices = await loadPrices(db, organizationId, [...new Set(subs.flatMap((s) => s.priceIds))]);
  const out = new Map<string, { overage: OverageMode; subscriptions: string[] }>();
  for (const sub of subs) {
    for (const id of sub.priceIds) {
      const price = prices.get(id);
      if (!price || !isMetered(price)) continue;
      const meterId = price.meter_id.toLowerCase();
      const seen = out.get(meterId) ?? { overage: "credit_only" as OverageMode, subscriptions: [] };
      // one price billing past the credits is enough for the usage to go on
      if (price.overage !== "credit_only") seen.overage = "credit_then_invoice";
      seen.subscriptions.push(sub.id);
      out.set(meterId, seen);
    }
  }
  return out;
}

/** What the products of unpaid subscriptions would give: features and meters refused as past due. */
async function lapsed(db: Queryable, organizationId: string, unpaid: SubscriptionRow[]) {
  const features: FeatureFact[] = [];
  const meterIds = new Set<string>();
  if (unpaid.length === 0) return { features, meterIds };
  const benefits = await loadBenefitsForProducts(db, organizationId, unpaid.map((s) => s.productId));
  for (const list of benefits.values()) {
    for (const b of list) {
      if (b.type === "feature_flag") features.push({ benefit_id: b.id, key: flagKey(b.metadata), past_due: true });
      const meterId = b.type === "meter_credit" ? (b.properties as { meter_id?: unknown }).meter_id : undefined;
      if (typeof meterId === "string") meterIds.add(meterId.toLowerCase());
    }
  }
  return { features, meterIds };
}

/** The customer's entitlements, or null when no live customer of the organization is `ref`. */
export async function entitlementFacts(db: Queryable, organizationId: string, ref: CustomerRef): Promise<CustomerFacts | null> {
  const customer = await liveCustomer(db, organizationId, ref);
  if (!customer) return null;
  const [grants, subs, live, held] = await Promise.all([
    grantsOfCustomerWithSubscription(db, organizationId, customer.id),
    liveSubscriptionRows(db, organizationId, customer.id),
    liveMetersOfOrganization(db, organizationId),
    heldUnitsOfCustomer(db, organizationId, customer.id),
  ]);
  const lapsedSubs = subs.filter((s) => s.status === "unpaid");
  const [usage, billed, refusePastDue, gone] = await Promise.all([
    customerMeters(db, organizationId, customer, grants.map((g) => g.grant), live),
    meteredPrices(db, organizationId, subs.filter((s) => s.status !== "unpaid")),
    subs.some((s) => s.status === "past_due")
      ? getOrganization(db, organizationId).then((o) => !o.plan_settings.access_while_past_due)
      : Promise.resolve(false),
    lapsed(db, organizationId, lapsedSubs),
  ]);
  const pastDue = new Set(refusePastDue ? subs.filter((s) => s.status === "past_due").map((s) => s.id) : []);

  const features: FeatureFact[] = [];
  const flagSources = new Map<string, Array<string | null>>();
  const creditSources = new Map<string, Array<string | null>>();
  for (const { grant, subscriptionId } of grants) {
    if (grant.benefit_type === "feature_flag") {
      if (!flagSources.has(grant.benefit_id)) features.push({ benefit_id: grant.benefit_id, key: flagKey(grant.benefit_metadata) });
      flagSources.set(grant.benefit_id, [...(flagSources.get(grant.benefit_id) ?? []), subscriptionId]);
    }
    const meterId = grant.properties.last_credited_meter_id;
    if (grant.benefit_type === "meter_credit" && typeof meterId === "string") {
      creditSources.set(meterId.toLowerCase(), [...(creditSources.get(meterId.toLowerCase()) ?? []), subscriptionId]);
    }
  }
  for (const f of features) if (onlyPastDue(flagSources.get(f.benefit_id) ?? [], pastDue)) f.past_due = true;
  for (const f of gone.features) if (!flagSources.has(f.benefit_id)) features.push(f);

  const byMeter = new Map(usage.map((u) => [u.meter_id.toLowerCase(), u]));
  const meters: MeterFact[] = [];
  for (const m of live.meters) {
    const id = m.id.toLowerCase();
    const u = byMeter.get(id);
    const price = billed.get(id);
    const credited = creditSources.has(id);
    if (!u && !price && !credited && !gone.meterIds.has(id)) continue;
    const hold = held.get(id) ?? 0;
    const creditedUnits = u?.credited_units ?? 0;
    const sources = [...(creditSources.get(id) ?? []), ...(price?.subscriptions ?? [])];
    const fact: MeterFact = {
      meter_id: m.id,
      name: m.name,
      balance: creditedUnits - (u?.consumed_units ?? 0) - hold,
      limit: credited ? creditedUnits : null,
      held: hold,
      overage: price?.overage ?? null,
    };
    if (sources.length === 0 ? gone.meterIds.has(id) : onlyPastDue(sources, pastDue)) fact.past_due = true;
    meters.push(fact);
  }
  return { customerId: customer.id, externalId: customer.externalId ?? null, facts: { features, meters } };
}
