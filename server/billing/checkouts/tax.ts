// A checkout's tax (billing/tax): the chosen price after its discount, taxed for the billing address and the
// business tax id once the address tells where the buyer is; recomputed by every change (applyPatch).
import { afterDiscount, inclusiveOf, sellerTaxOf, taxOf, type BuyerTax } from "../tax/service.js";
import type { TaxResult } from "../tax/compute.js";
import type { PriceWire } from "../products/wire.js";
import type { OrganizationWire } from "../organizations/wire.js";
import type { DiscountWire } from "../discounts/wire.js";
import { discountAmount } from "../discounts/amount.js";
import type { CheckoutRow } from "./wire.js";

/** What the chosen add-ons add to the checkout's amount (per period). */
export const addOnsAmount = (row: Pick<CheckoutRow, "addOns">) => row.addOns.reduce((sum, a) => sum + a.amount, 0);

/** The amounts the checkout charges before discount and tax: the product's price, then each add-on's. */
export const lineAmounts = (row: Pick<CheckoutRow, "amount" | "addOns">) => [row.amount, ...row.addOns.map((a) => a.amount)];

/** The buyer as the checkout knows them: a tax id makes a business customer of them. */
export function checkoutBuyer(row: CheckoutRow): BuyerTax {
  return {
    address: row.customerBillingAddress,
    business: row.isBusinessCustomer || row.customerTaxId !== null,
    taxId: row.customerTaxId ?? null,
  };
}

/**
 * The tax of lines charging `amounts` (before discount) of `price`, with `discount` on the first (the product's
 * price: an add-on after it is not discounted).
 */
export function checkoutTax(
  organization: OrganizationWire | null,
  row: CheckoutRow,
  price: PriceWire | null,
  amounts: number[],
  discount: number,
  now: Date,
): TaxResult | null {
  const lines = afterDiscount(amounts, amounts.map((_, i) => i === 0), discount).map((amount) => ({ amount, inclusive: inclusiveOf(price) }));
  return taxOf(sellerTaxOf(organization), checkoutBuyer(row), lines, now);
}

/** Sets the row's tax for its current price, discount, address and tax id (null while the address does not tell). */
export function applyTax(
  view: { organization: OrganizationWire | null; price: PriceWire | null; discount: DiscountWire | null },
  row: CheckoutRow,
  now: Date,
): void {
  const tax = checkoutTax(view.organization, row, view.price, lineAmounts(row), discountAmount(view.discount, row.amount, row.currency), now);
  row.taxAmount = tax?.taxAmount ?? null;
  row.taxInclusive = tax?.lines[0]?.inclusive ?? false;
}
