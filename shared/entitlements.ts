// What a customer may do, in one shape for the server's check (`POST /v1/entitlements/check`), the signed
// snapshot (`ent` of its payload) and the verifier a seller's app runs: the same facts and the same pure
// `answer`, so a check answered locally from a snapshot says what the server would have said when it was signed.
// No imports: the verifier is built from this file with nothing else.

/** Why a check refused. */
export const ENTITLEMENT_REASONS = ["customer_not_found", "no_benefit", "insufficient_balance", "subscription_past_due"] as const;
export type EntitlementReason = (typeof ENTITLEMENT_REASONS)[number];

/**
 * What happens on a meter at zero balance, per metered price: `credit_only` refuses (checks say
 * `insufficient_balance`, reservations are refused, the renewal bills nothing beyond the credits);
 * `credit_then_invoice` lets usage go on and bills the overage at the meter price.
 */
export const OVERAGE_MODES = ["credit_only", "credit_then_invoice"] as const;
export type OverageMode = (typeof OVERAGE_MODES)[number];

/** A feature_flag benefit the customer holds: `key` is the benefit's `metadata.key` (null when it has none). */
export interface FeatureFact {
  benefit_id: string;
  key: string | null;
  /** Held only through past-due subscriptions of an organization that refuses access while past due. */
  past_due?: boolean;
}

/** A meter the customer has credit on, or is billed for. */
export interface MeterFact {
  meter_id: string;
  name: string;
  /** Credited − consumed − held, in the meter's units (negative when usage went past the credits). */
  balance: number;
  /** The period's credited units (rolled-over units included); null when nothing is credited. */
  limit: number | null;
  /** Units held by open reservations (already taken from `balance`). */
  held: number;
  /**
   * `credit_then_invoice` when some live metered price of the customer bills usage past the credits;
   * `credit_only` when one bills nothing past them; null when no price bills the meter (credits only).
   */
  overage: OverageMode | null;
  past_due?: boolean;
}

/** A customer's entitlements: what a snapshot carries under `ent`. */
export interface EntitlementFacts {
  features: FeatureFact[];
  meters: MeterFact[];
}

export interface EntitlementAnswer {
  allowed: boolean;
  reason: EntitlementReason | null;
  /** `feature_flag` or `meter`; null when the feature names nothing the customer has. */
  kind: "feature_flag" | "meter" | null;
  benefit_id: string | null;
  meter_id: string | null;
  /** A meter's balance before the units asked; null for a feature flag. */
  balance: number | null;
  limit: number | null;
  held: number | null;
  /** The units asked (a meter); null when none were. */
  units: number | null;
}

const refused = (reason: EntitlementReason, units: number | null): EntitlementAnswer => ({
  allowed: false,
  reason,
  kind: null,
  benefit_id: null,
  meter_id: null,
  balance: null,
  limit: null,
  held: null,
  units,
});

/** A feature flag by benefit id or key, else a meter by id or name (ids compare without case). */
export function findFeature(facts: EntitlementFacts, feature: string): { flag: FeatureFact } | { meter: MeterFact } | null {
  const lower = feature.toLowerCase();
  const flag = facts.features.find((f) => f.benefit_id.toLowerCase() === lower) ?? facts.features.find((f) => f.key === feature);
  if (flag) return { flag };
  const meter = facts.meters.find((m) => m.meter_id.toLowerCase() === lower) ?? facts.meters.find((m) => m.name === feature);
  return meter ? { meter } : null;
}

/**
 * May the customer use `feature` (and `units` of it, for a meter)? A flag: allowed when held. A meter billed
 * past its credits (`credit_then_invoice`): allowed whatever the balance. Otherwise the balance must cover the
 * units asked (any positive balance when none are). `facts` null: a customer unknown to till.
 */
export function answer(facts: EntitlementFacts | null, feature: string, units?: number | null): EntitlementAnswer {
  const asked = units ?? null;
  if (!facts) return refused("customer_not_found", asked);
  const found = findFeature(facts, feature);
  if (!found) return refused("no_benefit", asked);
  if ("flag" in found) {
    const f = found.flag;
    const base = { ...refused("no_benefit", asked), kind: "feature_flag" as const, benefit_id: f.benefit_id };
    return f.past_due ? { ...base, reason: "subscription_past_due" } : { ...base, allowed: true, reason: null };
  }
  const m = found.meter;
  const base = { ...refused("no_benefit", asked), kind: "meter" as const, meter_id: m.meter_id, balance: m.balance, limit: m.limit, held: m.held };
  if (m.past_due) return { ...base, reason: "subscription_past_due" };
  const covered = m.overage === "credit_then_invoice" || (asked === null ? m.balance > 0 : m.balance >= asked);
  return covered ? { ...base, allowed: true, reason: null } : { ...base, reason: "insufficient_balance" };
}

// ---- the signed snapshot -----------------------------------------------------------------------------------------

/** The payload of a snapshot (a compact JWS, ES256, `kid` naming the organization's key in its JWKS). */
export interface SnapshotPayload {
  /** The till server that signed it (its public URL). */
  iss: string;
  /** The customer's id. */
  sub: string;
  /** The organization's id. */
  org: string;
  /** The customer's external id. */
  ext: string | null;
  iat: number;
  exp: number;
  ent: EntitlementFacts;
}
