// License keys on the wire: LicenseKeyRead, LicenseKeyWithActivations, ValidatedLicenseKey and the activation
// shapes of Polar's API. `customer` is the full Customer shape (LicenseKeyCustomer has the same fields).
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { displayKeyOf, plainKeyOf, type LicenseKeyRow } from "./issue.js";
import type { ActivationRow } from "./repository.js";

export function toLicenseKeyWire(k: LicenseKeyRow, c: CustomerRow) {
  const key = plainKeyOf(k);
  return {
    id: k.id,
    created_at: k.createdAt.toISOString(),
    modified_at: k.modifiedAt?.toISOString() ?? null,
    organization_id: k.organizationId,
    customer_id: k.customerId,
    customer: toCustomerWire(c),
    benefit_id: k.benefitId,
    key,
    display_key: displayKeyOf(key),
    status: k.status,
    limit_activations: k.limitActivations,
    usage: k.usage,
    limit_usage: k.limitUsage,
    validations: k.validations,
    last_validated_at: k.lastValidatedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
  };
}
export type LicenseKeyWire = ReturnType<typeof toLicenseKeyWire>;

/** LicenseKeyActivationBase. */
export function toActivationWire(a: ActivationRow) {
  return {
    id: a.id,
    license_key_id: a.licenseKeyId,
    label: a.label,
    meta: a.meta,
    created_at: a.createdAt.toISOString(),
    modified_at: a.modifiedAt?.toISOString() ?? null,
  };
}

/** LicenseKeyActivationRead: the activation with its key. */
export const toActivationReadWire = (a: ActivationRow, k: LicenseKeyRow, c: CustomerRow) => ({
  ...toActivationWire(a),
  license_key: toLicenseKeyWire(k, c),
});
