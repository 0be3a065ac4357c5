// A customer's entitlements as facts (shared/entitlements.ts): the feature flags it holds, and each meter it has
// credit on or is billed for with its balance — credited − consumed over the current period (customer state's
// numbers, meters/service.ts customerMeters) − the units open reservations hold. The check answers from these, and
// a snapshot signs them. Past due: with the organization's `plan_settings.access_while_past_due` off, what the
// customer holds only through past-due subscriptions is marked so (refused as `subscription_past_due`); and what an
// unpaid subscription's product would give (its grants were revoked when dunning gave up) is listed marked the same
// way, so the customer hears why rather than `no_benefit`.
import type { Queryable } from "../../db/client.js";
import type { Aggregation, Filter } from "../../../shared/meter-filter.js";
import type { EntitlementFacts, FeatureFact, MeterFact, OverageMode } from "../../../shared/entitlements.js";
import { loadBenefitsForProducts } from "../benefits/service.js";
import { findCustomersByExternalIds, findCustomersByIds, type CustomerRef } from "../customers/service.js";
import { consumedByCustomerOfMeters } from "../events/service.js";
import { isUuid } from "../http.js";
import { customerEntitlementRows, type CustomerEntitlementRows, type SubscriptionFact } from "./facts-repository.js";

export interface CustomerFacts {
  customerId: string;
  externalId: string | null;
  facts: EntitlementFacts;
  /**
   * A meter with open holds was measured: its holds and its usage are two reads, and a hold committed between them
   * would count twice — read again in one snapshot (service.ts `consistentFacts`) unless already in one.
   */
  heldMeasured: boolean;
  /** The entitlement stamps read with the facts (facts-repository.ts ENTITLEMENT_STAMP_SQL). */
  stamp: string;
  /**
   * Until when (epoch ms) these facts are the answer of every read at the same stamp: the first open hold's expiry
   * (it stops counting by itself, no write moves a stamp); null when a later read could differ at the same stamp
   * (a measured meter whose usage has no stamp: rollups not ready, or a `unique` count).
   */
  reusableUntil: number | null;
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
function meteredPrices(subs: SubscriptionFact[]) {
  const out = new Map<string, { overage: OverageMode; subscriptions: string[] }>();
  for (const sub of subs) {
    for (const price of sub.metered) {
      const seen = out.get(price.meter_id) ?? { overage: "credit_only" as OverageMode, subscriptions: [] };
      // one price billing past the credits is enough for the usage to go on
      if (price.overage !== "credit_only") seen.overage = "credit_then_invoice";
      seen.subscriptions.push(sub.id);
      out.set(price.meter_id, seen);
    }
  }
  return out;
}

/**
 * The current period of each meter the live subscriptions bill or credit (meters/service.ts customerMeters' rule):
 * from the earliest current period start to the latest end when several name the meter.
 */
function meterPeriods(rows: CustomerEntitlementRows): Map<string, { start: Date; end: Date }> {
  const out = new Map<string, { start: Date; end: Date }>();
  const add = (meterId: string | null, s: SubscriptionFact) => {
    if (!meterId) return;
    const start = new Date(s.start);
    const end = new Date(s.end);
    const had = out.get(meterId);
    out.set(meterId, had ? { start: had.start < start ? had.start : start, end: had.end > end ? had.end : end } : { start, end });
  };
  const byId = new Map(rows.subscriptions.map((s) => [s.id, s]));
  for (const s of rows.subscriptions) for (const p of s.metered) add(p.meter_id, s);
  for (const g of rows.grants) {
    const s = g.subscription_id ? byId.get(g.subscription_id) : undefined;
    if (s && g.type === "meter_credit") add(g.meter_id, s);
  }
  return out;
}

/** What the products of unpaid subscriptions would give: features and meters refused as past due. */
async function lapsed(db: Queryable, organizationId: string, unpaid: SubscriptionFact[]) {
  const features: FeatureFact[] = [];
  const meterIds = new Set<string>();
  if (unpaid.length === 0) return { features, meterIds };
  const benefits = await loadBenefitsForProducts(db, organizationId, unpaid.map((s) => s.product_id));
  for (const list of benefits.values()) {
    for (const b of list) {
      if (b.type === "feature_flag") features.push({ benefit_id: b.id, key: flagKey(b.metadata), past_due: true });
      const meterId = b.type === "meter_credit" ? (b.properties as { meter_id?: unknown }).meter_id : undefined;
      if (typeof meterId === "string") meterIds.add(meterId.toLowerCase());
    }
  }
  return { features, meterIds };
}

/** Whether `feature` may name this meter (by id or name): the check measures only those. */
const names = (feature: string | undefined, m: { id: string; name: string }) => feature === undefined || m.id.toLowerCase() === feature.toLowerCase() || m.name === feature;

/**
 * The customer's entitlements, or null when no live customer of the organization is `ref`. `feature`: only what a
 * check of it needs (a feature flag it names needs no meter measured; a meter, only that one).
 */
export async function entitlementFacts(db: Queryable, organizationId: string, ref: CustomerRef, feature?: string): Promise<CustomerFacts | null> {
  if ("id" in ref && !isUuid(ref.id)) return null;
  const rows = await customerEntitlementRows(db, organizationId, ref, feature);
  if (!rows) return null;
  const subs = rows.subscriptions;
  // past due: the customer's own subscriptions, and those its grants came from (a seat holder's team's)
  const pastDueIds = [...subs.filter((s) => s.status === "past_due").map((s) => s.id), ...rows.grants.filter((g) => g.subscription_status === "past_due").map((g) => g.subscription_id ?? "")];
  const pastDue = new Set(rows.past_due_access ? [] : pastDueIds.filter((id) => id !== ""));
  const gone = await lapsed(db, organizationId, subs.filter((s) => s.status === "unpaid"));

  const features: FeatureFact[] = [];
  const flagSources = new Map<string, Array<string | null>>();
  const creditSources = new Map<string, Array<string | null>>();
  const credited = new Map<string, number>();
  for (const g of rows.grants) {
    if (g.type === "feature_flag") {
      if (!flagSources.has(g.benefit_id)) features.push({ benefit_id: g.benefit_id, key: g.key && g.key.length > 0 ? g.key : null });
      flagSources.set(g.benefit_id, [...(flagSources.get(g.benefit_id) ?? []), g.subscription_id]);
    } else if (g.meter_id) {
      creditSources.set(g.meter_id, [...(creditSources.get(g.meter_id) ?? []), g.subscription_id]);
      if (g.units !== null) credited.set(g.meter_id, (credited.get(g.meter_id) ?? 0) + Math.trunc(g.units));
    }
  }
  for (const f of features) if (onlyPastDue(flagSources.get(f.benefit_id) ?? [], pastDue)) f.past_due = true;
  for (const f of gone.features) if (!flagSources.has(f.benefit_id)) features.push(f);
  const flagged = feature !== undefined && features.some((f) => f.benefit_id.toLowerCase() === feature.toLowerCase() || f.key === feature);

  const billed = meteredPrices(subs.filter((s) => s.status !== "unpaid"));
  const held = new Map(rows.held.map((h) => [h.meter_id, Number(h.units)]));
  const wanted = flagged
    ? []
    : rows.meters.filter((m) => {
        const id = m.id.toLowerCase();
        return names(feature, m) && (billed.has(id) || creditSources.has(id) || gone.meterIds.has(id));
      });
  const periods = meterPeriods(rows);
  const consumed = await consumedByCustomerOfMeters(
    db,
    organizationId,
    wanted.map((m) => ({ id: m.id, filter: m.filter as unknown as Filter, aggregation: m.aggregation as unknown as Aggregation })),
    { id: rows.customer_id, externalId: rows.external_id },
    wanted.map((m) => periods.get(m.id.toLowerCase()) ?? null),
    new Set(rows.meters.filter((m) => m.ready).map((m) => m.id)),
    wanted.map((m) => m.stamp ?? null),
  );
  const meters = wanted.map((m, i): MeterFact => {
    const id = m.id.toLowerCase();
    const hold = held.get(id) ?? 0;
    const credit = credited.get(id) ?? 0;
    const price = billed.get(id);
    const sources = [...(creditSources.get(id) ?? []), ...(price?.subscriptions ?? [])];
    const fact: MeterFact = {
      meter_id: m.id,
      name: m.name,
      balance: credit - (consumed[i] ?? 0) - hold,
      limit: creditSources.has(id) ? credit : null,
      held: hold,
      overage: price?.overage ?? null,
    };
    if (sources.length === 0 ? gone.meterIds.has(id) : onlyPastDue(sources, pastDue)) fact.past_due = true;
    return fact;
  });
  const heldMeasured = wanted.some((m) => (held.get(m.id.toLowerCase()) ?? 0) > 0);
  const stamped = wanted.every((m) => m.stamp !== null && (m.aggregation as { func?: unknown }).func !== "unique");
  const reusableUntil = stamped ? Math.min(Infinity, ...rows.held.map((h) => Number(h.expires))) : null;
  return { customerId: rows.customer_id, externalId: rows.external_id, facts: { features, meters }, heldMeasured, stamp: rows.stamp, reusableUntil };
}
