// The tax function (server/billing/tax) against published standard rates of 20 jurisdictions, tax-exclusive
// and tax-inclusive, and its edge cases: half-up rounding per line, a 100% discount, reverse charge, places the
// seller is not registered in, US state registrations, Canadian GST/HST/PST, dated rate changes, and the
// proportional tax of refunds (down to 1 minor unit).
import { describe, expect, it } from "vitest";
import { computeTax, EU_REVERSE_CHARGE_NOTE, type TaxInput } from "../../server/billing/tax/compute.js";
import { refundTax } from "../../shared/refund-tax.js";
import { afterDiscount } from "../../server/billing/tax/service.js";

const AT = new Date("2026-11-01T00:00:00Z");

function tax(over: Partial<TaxInput>): ReturnType<typeof computeTax> {
  return computeTax({
    registrations: [],
    sellerCountry: null,
    pricesIncludeTax: false,
    address: null,
    business: false,
    taxId: null,
    lines: [{ amount: 10_000 }],
    at: AT,
    ...over,
  });
}

// [place, registration, address, published standard rate, tax on 10000 added, tax inside a gross of 10000]
// Sources: the European Commission's VAT rates list, HMRC, Skatteetaten, ESTV, ATO, IRD, CRA, and the states'
// revenue departments (TX Comptroller, NY DTF, WA DOR, CDTFA).
const PUBLISHED: Array<[string, { country: string; state?: string }, { country: string; state?: string }, number, number, number]> = [
  ["Germany", { country: "DE" }, { country: "DE" }, 0.19, 1900, 1597],
  ["France", { country: "DE" }, { country: "FR" }, 0.2, 2000, 1667],
  ["Italy", { country: "DE" }, { country: "IT" }, 0.22, 2200, 1803],
  ["Ireland", { country: "IE" }, { country: "IE" }, 0.23, 2300, 1870],
  ["Hungary", { country: "DE" }, { country: "HU" }, 0.27, 2700, 2126],
  ["Netherlands", { country: "NL" }, { country: "NL" }, 0.21, 2100, 1736],
  ["Sweden", { country: "DE" }, { country: "SE" }, 0.25, 2500, 2000],
  ["Finland", { country: "DE" }, { country: "FI" }, 0.255, 2550, 2032],
  ["United Kingdom", { country: "GB" }, { country: "GB" }, 0.2, 2000, 1667],
  ["Norway", { country: "NO" }, { country: "NO" }, 0.25, 2500, 2000],
  ["Switzerland", { country: "CH" }, { country: "CH" }, 0.081, 810, 749],
  ["Australia", { country: "AU" }, { country: "AU" }, 0.1, 1000, 909],
  ["New Zealand", { country: "NZ" }, { country: "NZ" }, 0.15, 1500, 1304],
  ["Ontario (HST)", { country: "CA" }, { country: "CA", state: "ON" }, 0.13, 1300, 1150],
  ["British Columbia (GST + PST)", { country: "CA", state: "BC" }, { country: "CA", state: "BC" }, 0.12, 1200, 1071],
  ["Québec (GST + QST)", { country: "CA", state: "QC" }, { country: "CA", state: "QC" }, 0.14975, 1498, 1302],
  ["Texas", { country: "US", state: "TX" }, { country: "US", state: "TX" }, 0.0625, 625, 588],
  ["New York", { country: "US", state: "NY" }, { country: "US", state: "NY" }, 0.04, 400, 385],
  ["Washington", { country: "US", state: "WA" }, { country: "US", state: "WA" }, 0.065, 650, 610],
  ["California", { country: "US", state: "CA" }, { country: "US", state: "CA" }, 0.0725, 725, 676],
];

describe("computeTax: published rates", () => {
  it.each(PUBLISHED)("%s: exclusive and inclusive", (_place, registration, address, rate, exclusive, inclusive) => {
    const added = tax({ registrations: [registration], address });
    expect(added).toMatchObject({ netAmount: 10_000, taxAmount: exclusive, totalAmount: 10_000 + exclusive, reverseCharge: false, note: null });
    expect(added?.lines[0]?.rate).toBeCloseTo(rate, 6);
    expect(added?.lines[0]?.components.reduce((s, c) => s + c.amount, 0)).toBe(exclusive);

    const inside = tax({ registrations: [registration], address, pricesIncludeTax: true });
    // the tax comes out of the price: the total stays what the buyer was shown
    expect(inside).toMatchObject({ netAmount: 10_000 - inclusive, taxAmount: inclusive, totalAmount: 10_000 });
    expect(inside?.lines[0]?.components.reduce((s, c) => s + c.amount, 0)).toBe(inclusive);
  });

  it("names each tax of a Canadian sale: GST and PST apart, HST as one", () => {
    const bc = tax({ registrations: [{ country: "CA", state: "BC" }], address: { country: "CA", state: "BC" } });
    expect(bc?.lines[0]?.components).toEqual([
      { jurisdiction: "CA", type: "gst", rate: 0.05, amount: 500 },
      { jurisdiction: "CA-BC", type: "pst", rate: 0.07, amount: 700 },
    ]);
    const qc = tax({ registrations: [{ country: "CA", state: "QC" }], address: { country: "CA", state: "QC" } });
    // 997.5 rounds half up to 998
    expect(qc?.lines[0]?.components.map((c) => c.amount)).toEqual([500, 998]);
    const on = tax({ registrations: [{ country: "CA" }], address: { country: "CA", state: "CA-ON" } });
    expect(on?.lines[0]).toMatchObject({ jurisdiction: "CA-ON", components: [{ type: "hst", rate: 0.13, amount: 1300 }] });
  });

  it("a federal GST registration alone does not collect a province's PST", () => {
    const bc = tax({ registrations: [{ country: "CA" }], address: { country: "CA", state: "BC" } });
    expect(bc).toMatchObject({ taxAmount: 500 });
    expect(bc?.lines[0]?.components).toEqual([{ jurisdiction: "CA", type: "gst", rate: 0.05, amount: 500 }]);
  });

  it("applies a rate from its date (Estonia: 22% until 30 June 2025, 24% since)", () => {
    const reg = { registrations: [{ country: "DE" }], address: { country: "EE" } };
    expect(tax({ ...reg, at: new Date("2025-06-15T12:00:00Z") })?.taxAmount).toBe(2200);
    expect(tax({ ...reg, at: new Date("2025-07-15T12:00:00Z") })?.taxAmount).toBe(2400);
  });

  it("an EU registration collects nothing in territories outside the EU VAT area (Canary Islands)", () => {
    expect(tax({ registrations: [{ country: "ES" }], address: { country: "ES", state: "GC" } })?.taxAmount).toBe(0);
    expect(tax({ registrations: [{ country: "ES" }], address: { country: "ES" } })?.taxAmount).toBe(2100);
  });
});

describe("computeTax: edge cases", () => {
  const de = { registrations: [{ country: "DE" }], sellerCountry: "DE", address: { country: "DE" } };

  it("rounds each line half up, never the sum of lines", () => {
    // 150 × 19% = 28.5 → 29 (banker's rounding would give 28); two lines round apart: 29 + 29
    const result = tax({ ...de, lines: [{ amount: 150 }, { amount: 150 }] });
    expect(result?.lines.map((l) => l.tax)).toEqual([29, 29]);
    expect(result).toMatchObject({ netAmount: 300, taxAmount: 58, totalAmount: 358 });
    // 2 × 19% = 0.38 → 0; 3 × 19% = 0.57 → 1
    expect(tax({ ...de, lines: [{ amount: 2 }, { amount: 3 }] })?.lines.map((l) => l.tax)).toEqual([0, 1]);
  });

  it("inclusive prices: the tax is taken out of the gross and the total is unchanged, to the unit", () => {
    for (const gross of [1, 5, 99, 119, 1190, 999_999]) {
      const result = tax({ ...de, pricesIncludeTax: true, lines: [{ amount: gross }] });
      expect(result?.totalAmount).toBe(gross);
      expect((result?.netAmount ?? 0) + (result?.taxAmount ?? 0)).toBe(gross);
    }
    expect(tax({ ...de, pricesIncludeTax: true, lines: [{ amount: 119 }] })).toMatchObject({ netAmount: 100, taxAmount: 19 });
  });

  it("a line's own tax behavior overrides the seller's setting", () => {
    const result = tax({ ...de, pricesIncludeTax: true, lines: [{ amount: 1000, inclusive: false }, { amount: 1190 }] });
    expect(result?.lines.map((l) => [l.net, l.tax, l.total])).toEqual([
      [1000, 190, 1190],
      [1000, 190, 1190],
    ]);
  });

  it("a 100% discount leaves nothing to tax", () => {
    const lines = afterDiscount([2500], [true], 2500).map((amount) => ({ amount }));
    expect(tax({ ...de, lines })).toMatchObject({ netAmount: 0, taxAmount: 0, totalAmount: 0 });
  });

  it("reverse charge: an EU business with a VAT id of another member state pays no VAT, with the legal note", () => {
    const fr = { ...de, address: { country: "FR" }, business: true, taxId: ["FR40303265045", "eu_vat"] as const };
    const result = tax(fr);
    expect(result).toMatchObject({ taxAmount: 0, totalAmount: 10_000, reverseCharge: true, note: EU_REVERSE_CHARGE_NOTE });
    expect(result?.lines[0]).toMatchObject({ tax: 0, rate: 0, jurisdiction: "FR", reverseCharge: true });
    // the same buyer as a consumer pays French VAT (OSS)
    expect(tax({ ...fr, business: false, taxId: null })).toMatchObject({ taxAmount: 2000, reverseCharge: false });
    // a VAT id of another country than the billing address is no proof of a French business
    expect(tax({ ...fr, taxId: ["DE123456789", "eu_vat"] })).toMatchObject({ taxAmount: 2000, reverseCharge: false });
    // a German business buying from a German seller pays German VAT (a domestic sale)
    expect(tax({ ...de, business: true, taxId: ["DE123456789", "eu_vat"] })).toMatchObject({ taxAmount: 1900, reverseCharge: false });
    // Greece's VAT ids start with EL
    expect(tax({ ...de, address: { country: "GR" }, business: true, taxId: ["EL123456789", "eu_vat"] })?.reverseCharge).toBe(true);
  });

  it("outside the registered places there is no tax (0, not unknown)", () => {
    expect(tax({ ...de, address: { country: "JP" } })).toMatchObject({ taxAmount: 0, totalAmount: 10_000 });
    expect(tax({ ...de, address: { country: "GB" } })?.lines[0]).toMatchObject({ tax: 0, jurisdiction: null });
    expect(tax({ registrations: [], address: { country: "DE" } })?.taxAmount).toBe(0);
  });

  it("a US state registration taxes that state only; a US address without its state is unknown", () => {
    const reg = { registrations: [{ country: "US", state: "CA" }] };
    expect(tax({ ...reg, address: { country: "US", state: "CA" } })?.taxAmount).toBe(725);
    expect(tax({ ...reg, address: { country: "US", state: "US-CA" } })?.taxAmount).toBe(725);
    expect(tax({ ...reg, address: { country: "US", state: "TX" } })?.taxAmount).toBe(0);
    expect(tax({ ...reg, address: { country: "US", state: "OR" } })?.taxAmount).toBe(0);
    expect(tax({ ...reg, address: { country: "US" } })).toBeNull();
    // a seller without any US registration owes nothing there, state or not
    expect(tax({ registrations: [{ country: "DE" }], address: { country: "US" } })?.taxAmount).toBe(0);
  });

  it("no address, no tax yet", () => {
    expect(tax({ ...de, address: null })).toBeNull();
    expect(tax({ ...de, address: { country: null } })).toBeNull();
  });

  it("metered lines and credits are taxed like any line", () => {
    const result = tax({ ...de, lines: [{ amount: 0 }, { amount: 1234 }, { amount: -500 }] });
    expect(result?.lines.map((l) => l.tax)).toEqual([0, 234, -95]);
  });
});

describe("refundTax: proportional and cumulative", () => {
  const order = { netAmount: 1000, taxAmount: 190, refundedAmount: 0, refundedTaxAmount: 0 };

  it("a refund of 1 minor unit works (its tax rounds to 0) and later refunds catch up", () => {
    expect(refundTax(order, 1, 1000)).toBe(0);
    // 4 units refunded in all: 0.76 → 1 unit of tax
    expect(refundTax({ ...order, refundedAmount: 1 }, 3, 999)).toBe(1);
  });

  it("refunds in parts add up to the order's tax; the last takes what is left", () => {
    let state = { ...order };
    const parts = [333, 333, 1, 200, 133];
    const taxes = parts.map((amount) => {
      const refundable = state.netAmount - state.refundedAmount;
      const t = refundTax(state, amount, refundable);
      state = { ...state, refundedAmount: state.refundedAmount + amount, refundedTaxAmount: state.refundedTaxAmount + t };
      return t;
    });
    expect(taxes).toEqual([63, 64, 0, 38, 25]);
    expect(state.refundedTaxAmount).toBe(190);
  });

  it("an untaxed order refunds no tax", () => {
    expect(refundTax({ netAmount: 1000, taxAmount: 0, refundedAmount: 0, refundedTaxAmount: 0 }, 1, 1000)).toBe(0);
  });
});

describe("afterDiscount", () => {
  it("spreads a discount over the lines it applies to, the rest on the last", () => {
    expect(afterDiscount([1000, 500, 300], [true, false, true], 130)).toEqual([900, 500, 270]);
    expect(afterDiscount([333, 333, 334], [true, true, true], 100)).toEqual([300, 300, 300]);
  });
});
