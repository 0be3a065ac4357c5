// The checkout page's rules without I/O, besides what a price costs (products/pricing.ts) and whether a discount
// applies (discounts/refusal.ts): which billing address fields the page asks for.

export type FieldMode = "required" | "optional" | "disabled";
export interface BillingAddressFields {
  country: FieldMode;
  state: FieldMode;
  city: FieldMode;
  postal_code: FieldMode;
  line1: FieldMode;
  line2: FieldMode;
}

// ---- the page -------------------------------------------------------------------------------------

/**
 * Polar's rules: the country is asked whenever a payment form is shown; a required billing address (asked
 * by the seller, a business customer, or a US address) makes line1/city/postal code required and line2
 * optional; the state is required for US and CA. A checkout without a payment form asks for nothing else.
 */
export function billingAddressFields(opts: {
  country: string | null;
  requireBillingAddress: boolean;
  isBusinessCustomer: boolean;
  paymentFormRequired: boolean;
}): BillingAddressFields {
  const full = opts.requireBillingAddress || opts.isBusinessCustomer || opts.country === "US";
  const asked = opts.paymentFormRequired || full;
  const detail: FieldMode = full ? "required" : "disabled";
  return {
    country: asked ? "required" : "optional",
    state: opts.country === "US" || opts.country === "CA" ? (asked ? "required" : "optional") : full ? "optional" : "disabled",
    city: detail,
    postal_code: detail,
    line1: detail,
    line2: full ? "optional" : "disabled",
  };
}
