// The arithmetic of a checkout, without I/O, besides what a price costs (products/pricing.ts): what a discount
// takes off, when a trial ends, which billing address fields the page asks for.
import { isDiscountable, priceCurrency } from "../products/pricing.js";
import type { PriceWire, ProductWire } from "../products/wire.js";
import type { DiscountWire } from "../discounts/wire.js";
import type { CustomerErrorCode } from "../../../shared/customer-errors.js";

export type FieldMode = "required" | "optional" | "disabled";
export interface BillingAddressFields {
  country: FieldMode;
  state: FieldMode;
  city: FieldMode;
  postal_code: FieldMode;
  line1: FieldMode;
  line2: FieldMode;
}

// ---- discounts ------------------------------------------------------------------------------------

/** Why a discount cannot apply: the 422 message and its machine code (shared/customer-errors.ts); null when it can. */
/** A discount past its end or its redemptions (the confirm's last check says the same). */
export const DISCOUNT_OVER = { msg: "Discount is no longer redeemable.", code: "discount_over" } as const;

export type DiscountRefusal = { msg: string; code: CustomerErrorCode } | null;

const notApplicable = (msg: string): DiscountRefusal => ({ msg, code: "discount_not_applicable" });

/** Why `discount` cannot apply to this product and price (the 422 message), or null when it can. */
export function discountRefusal(discount: DiscountWire, product: ProductWire, price: PriceWire | null, now = new Date()): DiscountRefusal {
  if (!product.prices.some(isDiscountable)) return notApplicable("Discounts are not applicable to this product.");
  if (discount.products.length > 0 && !discount.products.some((p) => p.id === product.id)) {
    return notApplicable("Discount is not applicable to this product.");
  }
  if (discount.duration === "repeating" && !product.is_recurring) return notApplicable("Discount is not applicable to this product.");
  if (discount.type === "fixed" && price) {
    const amounts = (discount as { amounts?: Record<string, number> }).amounts ?? {};
    if (amounts[priceCurrency(price)] === undefined) return notApplicable("Discount is not applicable to this currency.");
  }
  if (discount.starts_at && new Date(discount.starts_at).getTime() > now.getTime()) return { msg: "Discount is not yet redeemable.", code: "discount_not_yet" };
  if (discount.ends_at && new Date(discount.ends_at).getTime() <= now.getTime()) return DISCOUNT_OVER;
  if (discount.max_redemptions !== null && discount.redemptions_count >= discount.max_redemptions) return DISCOUNT_OVER;
  return null;
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
