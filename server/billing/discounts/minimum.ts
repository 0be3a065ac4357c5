// A discount set up so that it can only produce totals the payment processor refuses (Stripe's minimum charge per
// currency, server/payments/minimum-charge.ts) is refused when made: one restricted to products whose every
// price it brings strictly between 0 and the currency's minimum. A price it brings to 0 (a 100 % discount) is
// fine, and so is a product with a custom or seat-based price (the buyer's amount or seats can reach the
// minimum); an unrestricted discount may still apply to a dearer product, and a checkout under the minimum is
// refused on its own (checkouts/minimum.ts).
import { formatMoney } from "../../../shared/money.js";
import { minimumChargeAmount } from "../../payments/minimum-charge.js";
import type { ValidationIssue } from "../errors.js";
import { isDiscountable } from "../products/pricing.js";
import type { ProductWire } from "../products/wire.js";
import { discountAmount, type DiscountTerms } from "./amount.js";

/** A discounted fixed price the processor could not charge: its product, currency, amount after the discount. */
interface Stranded {
  product: string;
  currency: string;
  after: number;
}

/** Each restricted product's prices the discount applies to, and whether every one ends up uncharged-able. */
function stranded(discount: DiscountTerms, products: ProductWire[]): Stranded[] | null {
  const found: Stranded[] = [];
  for (const product of products) {
    for (const price of product.prices.filter((p) => !p.is_archived && isDiscountable(p))) {
      // the buyer's amount (custom) or seat count (seat_based) decides the total: it can reach the minimum
      if (price.amount_type !== "fixed") return null;
      const amount = price.price_amount;
      const after = amount - discountAmount(discount, amount, price.price_currency);
      if (after <= 0 || after >= minimumChargeAmount(price.price_currency)) return null;
      found.push({ product: product.name, currency: price.price_currency, after });
    }
  }
  return found.length > 0 ? found : null;
}

/** The 422 issue when the discount, restricted to `products`, can only produce totals under the minimum. */
export function discountMinimumIssue(discount: DiscountTerms, products: ProductWire[]): ValidationIssue | null {
  if (products.length === 0) return null;
  const all = stranded(discount, products);
  const first = all?.[0];
  if (!first) return null;
  const least = minimumChargeAmount(first.currency);
  return {
    loc: ["body", discount.type === "fixed" ? "amounts" : "basis_points"],
    msg:
      `The discount brings every price of the products it is restricted to under the smallest amount that can be charged ` +
      `(${first.product}: ${formatMoney(first.after, first.currency, "en")}, under ${formatMoney(least, first.currency, "en")}): ` +
      "no checkout with it could be paid. Make it take the whole price (100 %), or less.",
    type: "value_error",
  };
}
