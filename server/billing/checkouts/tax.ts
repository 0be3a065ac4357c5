// A checkout's tax (billing/tax): the chosen price after its discount, taxed for the billing address and the
// business tax id once the address tells where the buyer is; recomputed by every change (applyPatch).
import { afterDiscount, inclusiveOf, sellerTaxOf, taxOf, type BuyerTax } from "../tax/service.js";
import type { TaxResult } from "../tax/compute.js";
import type { PriceWire } from "../products/wire.js";
import type { OrganizationWire } from "../organizations/wire.js";
import type { DiscountWire } from "../discounts/wire.js";
import { discountAmount } from "../discounts/amount.js";
import type { CheckoutRow } from "./wire.js";

/** The buyer as the checkout knows them: a tax id makes a business customer of them. */
export function checkoutBuyer(row: CheckoutRow): BuyerTax {
  return {
    address: row.customerBillingAddress,
    business: row.isBusinessCustomer || row.customerTaxId !== null,
    taxId: row.customerTaxId ?? null,
  };
}

/** The tax of lines charging `amounts` (before discount) of `price`, with `discount` spread over them. */
export function checkoutTax(
  organization: OrganizationWire | null,
  row: CheckoutRow,
  price: PriceWire | null,
  amounts: number[],
  discount: number,
  now: Date,
): TaxResult | null {
  const lines = afterDiscount(amounts, amounts.map(() => true), discount).map((amount) => ({ amount, inclusive: inclusiveOf(price) }));
  return taxOf(sellerTaxOf(organization), checkoutBuyer(row), lines, now);
}

/** Sets the row's tax for its current price, discount, address and tax id (null while the address does not tell). */
export function applyTax(
  view: { organization: OrganizationWire | null; price: PriceWire | null; discount: DiscountWire | null },
  row: CheckoutRow,
  now: Date,
): void {
  const tax = checkoutTax(view.organization, row, view.price, [row.amount], discountAmount(view.discount, row.amount, row.currency), now);
  row.taxAmount = tax?.taxAmount ?? null;
  row.taxInclusive = tax?.lines[0]?.inclusive ?? false;
}
