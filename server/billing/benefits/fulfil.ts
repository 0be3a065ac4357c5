// What a grant gives at the moment it is made, by benefit type, for both places grants are made (the confirm's
// one statement and the grant engine): a license_keys benefit issues a key that the grant's properties name; a
// meter_credit benefit credits its units to its meter (the properties record the credit, which the customer's
// meter balances add up). Other types start with empty properties. A github_repository or discord grant is not
// granted yet: the jobs worker delivers it (billing/benefit-delivery) and marks it granted once it is.
import { accountOf } from "../../../shared/kinds.js";
import { grantPropertiesOf, issueLicenseKey, type GrantedBenefit, type LicenseKeyRow } from "../license-keys/issue.js";

export interface GrantFulfilment {
  properties: Record<string, unknown>;
  /** The key to insert with the grant (license_keys benefits). */
  licenseKey: LicenseKeyRow | null;
  /** Granted now (granted_at set), or only once delivered outside till (github_repository, discord). */
  granted: boolean;
}


export function fulfilGrant(benefit: GrantedBenefit, grant: { id: string; organizationId: string; customerId: string }, now: Date): GrantFulfilment {
  const key = issueLicenseKey(benefit, grant, now);
  if (key) return { properties: grantPropertiesOf(key), licenseKey: key, granted: true };
  const p = benefit.properties;
  if (benefit.type === "meter_credit" && typeof p.meter_id === "string" && typeof p.units === "number") {
    return { properties: { last_credited_meter_id: p.meter_id, last_credited_units: p.units, last_credited_at: now.toISOString() }, licenseKey: null, granted: true };
  }
  return { properties: {}, licenseKey: null, granted: accountOf(benefit.type) === undefined };
}
