// What the other domains call to tax a sale: the seller's side from its organization, the buyer's from the
// checkout or the customer, and the price lines after their discount, through the one function of compute.ts.
import type { OrderItemTax } from "../../db/schema/index.js";
import { computeTax, type TaxLine, type TaxLineInput, type TaxResult } from "./compute.js";
import { taxSettingsOf, type TaxSettings } from "./settings.js";

export interface SellerTax {
  settings: TaxSettings;
  /** The organization's `country`: where it is established. */
  country: string | null;
}

export interface BuyerTax {
  address: { country?: string | null | undefined; state?: string | null | undefined } | null;
  business: boolean;
  taxId: readonly [string, string] | null;
}

/** The seller's side of the tax from its organization (the `Organization` wire shape). */
export function sellerTaxOf(org: { tax_settings?: unknown; country?: string | null } | null): SellerTax {
  return { settings: taxSettingsOf(org?.tax_settings), country: org?.country ?? null };
}

/** A price's own `tax_behavior` decides inclusive/exclusive; without one, the seller's setting does. */
export function inclusiveOf(price: { tax_behavior?: string | null | undefined } | null): boolean | undefined {
  const behavior = price?.tax_behavior;
  return behavior === "inclusive" ? true : behavior === "exclusive" ? false : undefined;
}

export function taxOf(seller: SellerTax, buyer: BuyerTax, lines: TaxLineInput[], at: Date): TaxResult | null {
  return computeTax({
    registrations: seller.settings.registrations,
    sellerCountry: seller.country,
    pricesIncludeTax: seller.settings.prices_include_tax,
    address: buyer.address,
    business: buyer.business,
    taxId: buyer.taxId,
    lines,
    at,
  });
}

/** How an order item's tax was computed, as stored on it (null for an untaxed line). */
export function itemTax(line: TaxLine | undefined): OrderItemTax | null {
  if (!line || (line.tax === 0 && !line.reverseCharge && line.jurisdiction === null)) return null;
  return { rate: line.rate, jurisdiction: line.jurisdiction, reverse_charge: line.reverseCharge, components: line.components };
}

/**
 * A discount spread over the lines it applies to, in proportion to their amounts (rounded down, the rest
 * to the last such line): what each line charges after it.
 */
export function afterDiscount(amounts: readonly number[], discountable: readonly boolean[], discount: number): number[] {
  const base = amounts.reduce((sum, a, i) => sum + (discountable[i] ? a : 0), 0);
  if (discount <= 0 || base <= 0) return [...amounts];
  const last = discountable.lastIndexOf(true);
  let given = 0;
  return amounts.map((a, i) => {
    if (!discountable[i]) return a;
    const share = i === last ? discount - given : Math.floor((discount * a) / base);
    given += share;
    return a - share;
  });
}
