// The one tax function (DESIGN.md, "Tax"): from the seller's registrations, whether prices include tax, the
// buyer's address, business status and tax id, and the price lines to tax lines — a rate, a jurisdiction,
// an amount and the reverse-charge flag per line. Pure: no I/O, the rates come from the offline dataset.
// Checkout, confirm, renewal (metered lines too) and later proration all call it; refunds give back its
// result in proportion (refunds/service.ts). Rounding: per line and per tax, half away from zero, in integer
// minor units (docs/decisions.md, "Tax rates and rounding").
import { euVatCountry, isEuMemberState, REVERSE_CHARGE_ID_FORMATS, subdivisionCode } from "./regions.js";
import { hasRegionalRate, ratesAt, type RateComponent } from "./rates.js";
import { divRound } from "../../../shared/refund-tax.js";

export interface TaxRegistration {
  country: string;
  /** A US state or Canadian province (codes without the country prefix). */
  state?: string | null | undefined;
}

export interface TaxLineInput {
  /** What the line charges after its discount, in minor units (negative for a credit). */
  amount: number;
  /** Overrides the seller's `pricesIncludeTax` for this line (a price's own `tax_behavior`). */
  inclusive?: boolean | undefined;
}

export interface TaxInput {
  registrations: readonly TaxRegistration[];
  /** The country the seller is established in (the organization's `country`); reverse charge needs another. */
  sellerCountry: string | null;
  pricesIncludeTax: boolean;
  address: { country?: string | null | undefined; state?: string | null | undefined } | null;
  business: boolean;
  /** [compact value, format] as `matchTaxId` answers. */
  taxId: readonly [string, string] | null;
  lines: readonly TaxLineInput[];
  /** The date whose rates apply (a rate change takes effect at its date). */
  at: Date;
}

export interface TaxComponent {
  jurisdiction: string;
  type: string;
  rate: number;
  amount: number;
}

export interface TaxLine {
  /** The line's amount before tax (for an inclusive line: the gross less the tax in it). */
  net: number;
  tax: number;
  /** net + tax: the line's gross. */
  total: number;
  /** The sum of the components' rates (0 untaxed or reverse charged). */
  rate: number;
  /** `DE`, `CA-BC`, `US-TX`; null where no tax is owed. */
  jurisdiction: string | null;
  reverseCharge: boolean;
  /** The tax is inside the line's amount (taken out of it) rather than added. */
  inclusive: boolean;
  components: TaxComponent[];
}

export interface TaxResult {
  lines: TaxLine[];
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  reverseCharge: boolean;
  /** The legal note the invoice carries (reverse charge), else null. */
  note: string | null;
}

export const EU_REVERSE_CHARGE_NOTE =
  "Reverse charge: VAT to be accounted for by the recipient (Article 196 of Council Directive 2006/112/EC).";
export const REVERSE_CHARGE_NOTE = "Reverse charge: the recipient, a registered business, accounts for the tax.";

const PPM = 1_000_000n;

const ppmOf = (rate: number) => BigInt(Math.round(rate * 1_000_000));

/** Taxes one line at `components` (exclusive: added; inclusive: taken out of the gross, which stays). */
export function taxLine(amount: number, inclusive: boolean, components: readonly RateComponent[]): TaxLine {
  const rates = components.map((c) => ppmOf(c.rate));
  const total = rates.reduce((a, b) => a + b, 0n);
  const rate = components.reduce((a, c) => a + c.rate, 0);
  const jurisdiction = components.at(-1)?.jurisdiction ?? null;
  const gross = BigInt(amount);
  if (components.length === 0 || total === 0n) {
    return { net: amount, tax: 0, total: amount, rate: 0, jurisdiction: null, reverseCharge: false, inclusive, components: [] };
  }
  if (!inclusive) {
    const parts = rates.map((r) => Number(divRound(gross * r, PPM)));
    const tax = parts.reduce((a, b) => a + b, 0);
    return {
      net: amount,
      tax,
      total: amount + tax,
      rate: round6(rate),
      jurisdiction,
      reverseCharge: false,
      inclusive,
      components: components.map((c, i) => ({ jurisdiction: c.jurisdiction, type: c.type, rate: c.rate, amount: parts[i] ?? 0 })),
    };
  }
  // the line's tax is rounded once from the gross; each tax but the last from the net, the last takes the rest
  const tax = Number(divRound(gross * total, PPM + total));
  const net = amount - tax;
  const parts = rates.map((r) => Number(divRound(BigInt(net) * r, PPM)));
  parts[parts.length - 1] = tax - parts.slice(0, -1).reduce((a, b) => a + b, 0);
  return {
    net,
    tax,
    total: amount,
    rate: round6(rate),
    jurisdiction,
    reverseCharge: false,
    inclusive,
    components: components.map((c, i) => ({ jurisdiction: c.jurisdiction, type: c.type, rate: c.rate, amount: parts[i] ?? 0 })),
  };
}

const round6 = (n: number) => Math.round(n * 1_000_000) / 1_000_000;

/**
 * What the seller is registered to collect in the buyer's place: 'unknown' when the address lacks the state it needs.
 */
function registeredComponents(input: TaxInput, country: string, state: string | null): RateComponent[] | "unknown" {
  const regs = input.registrations;
  const inCountry = regs.filter((r) => r.country === country);
  if (isEuMemberState(country)) {
    // one registration in the Union (with OSS) covers sales to every member state at the buyer's rate; the
    // territories outside the EU VAT area (Canary Islands: IGIC; Ceuta, Melilla) are not covered by it
    if (!regs.some((r) => isEuMemberState(r.country)) || hasRegionalRate(country, state)) return [];
    return ratesAt(country, null, input.at);
  }
  if (country === "US" || country === "CA") {
    if (inCountry.length === 0) return [];
    if (!state) return "unknown";
    const registeredHere = inCountry.some((r) => r.state === state);
    // US sales tax needs the state's registration; Canada's GST/HST a federal one (any), PST/QST the province's
    return ratesAt(country, state, input.at).filter((c) => !c.bySubdivision || registeredHere);
  }
  return inCountry.length > 0 ? ratesAt(country, state, input.at) : [];
}

/** Whether the buyer is a business registered for VAT/GST in its own country, buying from abroad. */
function isReverseCharge(input: TaxInput, country: string): boolean {
  if (!input.business || !input.taxId) return false;
  const [value, format] = input.taxId;
  if (!(REVERSE_CHARGE_ID_FORMATS[country] ?? []).includes(format as never)) return false;
  if (format === "eu_vat" && euVatCountry(value) !== country) return false;
  const home = input.sellerCountry ?? input.registrations[0]?.country ?? null;
  return home !== country;
}

/**
 * The tax of `input.lines`, or null when the address does not yet tell (no country, or a US/Canadian address
 * without the state a registration there needs).
 */
export function computeTax(input: TaxInput): TaxResult | null {
  const country = input.address?.country?.toUpperCase();
  if (!country) return null;
  const state = subdivisionCode(country, input.address?.state);
  const components = registeredComponents(input, country, state);
  if (components === "unknown") return null;
  const reverseCharge = components.length > 0 && isReverseCharge(input, country);
  const lines = input.lines.map((l): TaxLine => {
    if (reverseCharge) {
      const inclusive = l.inclusive ?? input.pricesIncludeTax;
      return { net: l.amount, tax: 0, total: l.amount, rate: 0, jurisdiction: country, reverseCharge: true, inclusive, components: [] };
    }
    return taxLine(l.amount, l.inclusive ?? input.pricesIncludeTax, components);
  });
  const sum = (pick: (l: TaxLine) => number) => lines.reduce((a, l) => a + pick(l), 0);
  return {
    lines,
    netAmount: sum((l) => l.net),
    taxAmount: sum((l) => l.tax),
    totalAmount: sum((l) => l.total),
    reverseCharge,
    note: reverseCharge ? (isEuMemberState(country) ? EU_REVERSE_CHARGE_NOTE : REVERSE_CHARGE_NOTE) : null,
  };
}
