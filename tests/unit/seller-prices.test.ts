// The product editor's prices (web/src/seller/price-drafts.ts, prices.ts): an untouched price goes back by id
// (a usage price, another currency's price, a kind this page does not know: never dropped), a changed one is
// sent as a new price of its kind with every field the API takes, amounts convert both ways, and each kind reads.
import { describe, expect, it } from "vitest";
import { blankDraft, draftOf, fromMinorDecimal, pricesOf, toMinorDecimal, type PriceDraft } from "../../web/src/seller/price-drafts.js";
import { priceDescription } from "../../web/src/seller/prices.js";
import type { Price } from "../../web/src/seller/wire.js";

const price = (id: string, amount_type: string, extra: Partial<Price> = {}): Price => ({ id, amount_type, is_archived: false, price_currency: "usd", ...extra });
const sent = (drafts: PriceDraft[]) => {
  const r = pricesOf(drafts);
  if ("error" in r) throw new Error(r.error);
  return r.prices;
};

describe("the editor's prices", () => {
  it("sends untouched prices back by id, a kind this page does not know included", () => {
    const usage = price("u", "metered_unit", { unit_amount: "5", meter_id: "m", cap_amount: 100, overage: "credit_only" });
    const drafts = [price("f", "fixed", { price_amount: 900 }), usage, price("x", "a_kind_from_a_newer_server")].map((p) => draftOf(p, p.id));
    expect(sent(drafts)).toEqual([{ id: "f" }, { id: "u" }, { id: "x" }]);
  });

  it("a changed price replaces it, keeping what the form does not show (overage, tax behaviour)", () => {
    const usage = draftOf(price("u", "metered_unit", { unit_amount: "5", meter_id: "m", cap_amount: 10_000, overage: "credit_only", tax_behavior: "inclusive" }), "usage");
    expect(usage.unit).toBe("0.05");
    expect(usage.cap).toBe("100.00");
    expect(sent([{ ...usage, edited: true, unit: "0.07" }])).toEqual([
      { amount_type: "metered_unit", price_currency: "usd", tax_behavior: "inclusive", meter_id: "m", unit_amount: "7", cap_amount: 10_000, overage: "credit_only" },
    ]);
  });

  it("writes every kind", () => {
    const d = blankDraft("eur");
    expect(sent([{ ...d, amount: "12.50" }])).toEqual([{ amount_type: "fixed", price_currency: "eur", price_amount: 1250 }]);
    expect(sent([{ ...d, kind: "free" }])).toEqual([{ amount_type: "free", price_currency: "eur" }]);
    expect(sent([{ ...d, kind: "custom", minimum: "5", maximum: "50", preset: "10" }])).toEqual([
      { amount_type: "custom", price_currency: "eur", minimum_amount: 500, maximum_amount: 5000, preset_amount: 1000 },
    ]);
    const tiers = [{ upTo: "1000", unit: "0", flat: "" }, { upTo: "", unit: "0.002", flat: "1" }];
    expect(sent([{ ...d, kind: "metered_unit", meterId: "m", tiered: true, tierType: "volume", unitTiers: tiers, cap: "" }])).toEqual([
      {
        amount_type: "metered_unit",
        price_currency: "eur",
        meter_id: "m",
        unit_tiers: { tier_type: "volume", tiers: [{ up_to: 1000, unit_amount: "0", flat_amount: 0 }, { up_to: null, unit_amount: "0.2", flat_amount: 100 }] },
        cap_amount: null,
      },
    ]);
    const seats = [{ min: "1", max: "5", perSeat: "10" }, { min: "6", max: "", perSeat: "8" }];
    expect(sent([{ ...d, kind: "seat_based", seatTierType: "graduated", seatTiers: seats }])).toEqual([
      {
        amount_type: "seat_based",
        price_currency: "eur",
        seat_tiers: { seat_tier_type: "graduated", tiers: [{ min_seats: 1, max_seats: 5, price_per_seat: 1000 }, { min_seats: 6, max_seats: null, price_per_seat: 800 }] },
      },
    ]);
  });

  it("says a draft's fault, naming the price when there are several", () => {
    expect(pricesOf([blankDraft()])).toEqual({ error: "Amount: write an amount such as 19.99." });
    expect(pricesOf([{ ...blankDraft(), amount: "1" }, { ...blankDraft(), kind: "metered_unit" }])).toEqual({ error: "Price 2: Choose the meter whose usage this price bills." });
  });

  it.each([["0.0005", "usd", "0.05"], ["0.05", "usd", "5"], ["12", "usd", "1200"], ["3", "jpy", "3"], ["0.123456", "eur", "12.3456"]])("unit %s %s is %s minor", (major, currency, minor) => {
    expect(toMinorDecimal(major, currency)).toBe(minor);
    expect(Number(fromMinorDecimal(minor, currency))).toBe(Number(major));
  });
});

describe("how a price reads", () => {
  it.each([
    [price("f", "fixed", { price_amount: 900 }), "$9.00 / month"],
    [price("z", "fixed", { price_amount: 0 }), "free"],
    [price("c", "custom", { minimum_amount: 500 }), "pay what you want, at least $5.00"],
    [price("s", "seat_based", { seat_tiers: { tiers: [{ min_seats: 1, max_seats: null, price_per_seat: 1000 }] } }), "per seat, from $10.00 / month"],
    [price("u", "metered_unit", { unit_amount: "0.5", cap_amount: 10_000, meter: { id: "m", name: "API calls" } }), "usage: $0.005 per unit of API calls, at most $100.00, billed every month"],
    [
      price("t", "metered_unit", {
        unit_amount: "0",
        meter: { id: "m", name: "API calls" },
        unit_tiers: { tier_type: "graduated", tiers: [{ up_to: 1000, unit_amount: "0", flat_amount: 0 }, { up_to: null, unit_amount: "0.2", flat_amount: 0 }] },
      }),
      "usage: API calls in 2 graduated tiers, up to $0.002 per unit, billed every month",
    ],
  ])("%# reads as written", (p, text) => {
    expect(priceDescription(p, "month")).toBe(text);
  });
});
