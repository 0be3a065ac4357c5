// What a grant gives at the moment it is made, by benefit type, for both places grants are made (the confirm's
// one statement and the grant engine): a license_keys benefit issues a key that the grant's properties name; a
// meter_credit benefit credits its units to its meter (the properties record the credit, which the customer's
// meter balances add up). Other types start with empty properties. A github_repository or discord grant is not
// granted yet: the jobs worker delivers it (billing/benefit-delivery) and marks it granted once it is.
import { accountOf } from "../../../shared/kinds.js";
import { creditUnits, meterCreditTerms, nextMonthlyCredit, type MeterCreditTerms } from "./meter-credit.js";
import { grantPropertiesOf, issueLicenseKey, type GrantedBenefit, type LicenseKeyRow } from "../license-keys/issue.js";

export interface GrantFulfilment {
  properties: Record<string, unknown>;
  /** The key to insert with the grant (license_keys benefits). */
  licenseKey: LicenseKeyRow | null;
  /** Granted now (granted_at set), or only once delivered outside till (github_repository, discord). */
  granted: boolean;
}


/** What the purchase tells a meter credit: the amount paid (minor units, before tax) and the period's end. */
export interface GrantContext {
  amountPaid?: number | null;
  periodEnd?: Date | null;
}

export function fulfilGrant(
  benefit: GrantedBenefit,
  grant: { id: string; organizationId: string; customerId: string },
  now: Date,
  context: GrantContext = {},
): GrantFulfilment {
  const key = issueLicenseKey(benefit, grant, now);
  if (key) return { properties: grantPropertiesOf(key), licenseKey: key, granted: true };
  const terms = benefit.type === "meter_credit" ? meterCreditTerms(benefit.properties) : null;
  if (terms) return { properties: firstCredit(terms, now, context), licenseKey: null, granted: true };
  return { properties: {}, licenseKey: null, granted: accountOf(benefit.type) === undefined };
}

/**
 * A meter credit's first credit, at purchase: the units (in proportion to the amount paid with `per_amount`, kept as
 * `credit_units` for the credits after it), the pool it fills, and with a monthly schedule when the next month's
 * credit comes (none when the period ends first: the renewal credits then).
 */
function firstCredit(t: MeterCreditTerms, now: Date, context: GrantContext): Record<string, unknown> {
  const units = creditUnits(t, context.amountPaid ?? null);
  return {
    last_credited_meter_id: t.meterId,
    last_credited_units: units,
    last_credited_at: now.toISOString(),
    ...(t.perAmount !== null ? { credit_units: units } : {}),
    ...(t.pool === "subscription" ? { credit_pool: "subscription" } : {}),
    ...(t.schedule === "monthly" ? { next_credit_at: nextMonthlyCredit(now, now, context.periodEnd ?? null)?.toISOString() ?? null } : {}),
  };
}
