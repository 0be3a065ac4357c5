// Whether a discount applies to a product and price, without I/O: a checkout (create, update, confirm) and a
// subscription's plan change ask the same.
import { isDiscountable, priceCurrency } from "../products/pricing.js";
import type { PriceWire, ProductWire } from "../products/wire.js";
import type { DiscountWire } from "./wire.js";
import type { CustomerErrorCode } from "../../../shared/customer-errors.js";

/** A discount past its end or its redemptions (the confirm's last check says the same). */
export const DISCOUNT_OVER = { msg: "Discount is no longer redeemable.", code: "discount_over" } as const;

/** Why a discount cannot apply: the 422 message and its machine code (shared/customer-errors.ts); null when it can. */
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
