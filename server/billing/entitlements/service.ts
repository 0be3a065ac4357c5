// Entitlement checks: may this customer use this feature (and this many units of it) now? Answered from the
// customer's facts (facts.ts) by shared/entitlements.ts's `answer`, the function a snapshot's verifier runs too.
// Nothing is written. A customer unknown to till is an answer (`customer_not_found`); a feature that names no
// feature_flag benefit and no live meter of the organization is the seller's mistake, a 422.
import type { Db, Queryable } from "../../db/client.js";
import { answer, findFeature } from "../../../shared/entitlements.js";
import { featureFlagExists } from "../benefits/features.js";
import type { CustomerRef } from "../customers/service.js";
import { invalid } from "../errors.js";
import { liveMeterNamed } from "../meters/service.js";
import { entitlementFacts, type CustomerFacts } from "./facts.js";
import { keepFacts, keptFacts } from "./facts-cache.js";
import { heldUnitsOfCustomer } from "./reservations-repository.js";
import { toCheckWire, type EntitlementCheckInput, type EntitlementCheckWire } from "./wire.js";

export const UNKNOWN_FEATURE = "No feature_flag benefit (by id or metadata.key) and no live meter (by id or name) of this organization is this feature.";

export const customerRefOf = (input: { customer_id?: string | null | undefined; external_customer_id?: string | null | undefined }): CustomerRef =>
  input.customer_id ? { id: input.customer_id } : { externalId: input.external_customer_id ?? "" };

/** Whether the organization has a feature named so (only asked when the customer has none: the refusal path). */
async function featureExists(db: Queryable, organizationId: string, feature: string): Promise<boolean> {
  const [flag, meter] = await Promise.all([featureFlagExists(db, organizationId, feature), liveMeterNamed(db, organizationId, feature)]);
  return flag || meter !== undefined;
}

/**
 * The facts read in one snapshot: a reservation's commit landing between the reads of the units held and of the
 * usage would be counted twice (the balance lower by its units, below zero for a customer who used it all).
 */
export const ONE_SNAPSHOT = { isolationLevel: "repeatable read", accessMode: "read only" } as const;

/**
 * The facts as one moment saw them. Most answers need no transaction: a flag, or meters without open holds, are read
 * in one statement and their usage in a second that no commit can skew (a hold committed after the first was not
 * counted as held). Only when a measured meter has holds is the read repeated in one snapshot. Facts read before at
 * the customer's current entitlement stamps are reused (facts-cache.ts): then the stamps are the only read.
 */
export async function consistentFacts(db: Db, organizationId: string, ref: CustomerRef, feature?: string): Promise<CustomerFacts | null> {
  const kept = await keptFacts(db, organizationId, ref, feature);
  if (kept.found === "none") return null;
  if (kept.found === "kept") return kept.facts;
  let found = await entitlementFacts(db, organizationId, ref, feature);
  if (found?.heldMeasured) found = await db.transaction((tx) => entitlementFacts(tx, organizationId, ref, feature), ONE_SNAPSHOT);
  if (found) keepFacts(kept.key, found);
  return found;
}

export async function checkEntitlement(db: Db, organizationId: string, input: EntitlementCheckInput): Promise<EntitlementCheckWire> {
  const found = await consistentFacts(db, organizationId, customerRefOf(input), input.feature);
  const result = answer(found?.facts ?? null, input.feature, input.units ?? null);
  if (result.reason === "no_benefit" || result.reason === "customer_not_found") {
    if (!(await featureExists(db, organizationId, input.feature))) throw invalid(["body", "feature"], UNKNOWN_FEATURE);
  }
  const hit = found ? findFeature(found.facts, input.feature) : null;
  const overage = hit && "meter" in hit ? hit.meter.overage : null;
  return toCheckWire(result, input.feature, found?.customerId ?? null, overage);
}

/** Units open reservations hold per meter (lower-case id) for the customer: what balances shown elsewhere subtract. */
export const heldUnitsOf = (db: Queryable, organizationId: string, customerId: string) => heldUnitsOfCustomer(db, organizationId, customerId);

/** A customer meter's balance with the held units taken off (customer state, customer meters). */
export function withHeld<T extends { meter_id: string; balance: number }>(meters: T[], held: Map<string, number>): T[] {
  return meters.map((m) => {
    const h = held.get(m.meter_id.toLowerCase()) ?? 0;
    return h === 0 ? m : { ...m, balance: m.balance - h };
  });
}
