// The product editor's price rules (web/src/seller/prices.ts): which price "Replace the price" stands for, that the
// update sends every other active price back by id (a usage price, another currency's price), that a per-seat
// price is refused, and how each kind reads.
import { describe, expect, it } from "vitest";
import { priceDescription, pricePlan, pricesUpdate } from "../../web/src/seller/prices.js";
import type { Price, Product } from "../../web/src/seller/wire.js";

const price = (id: string, amount_type: string, extra: Partial<Price> = {}): Price => ({ id, amount_type, is_archived: false, price_currency: "usd", ...extra });
const product = (prices: Price[]): Product => ({
  id: "p",
  name: "Plan",
  description: null,
  recurring_interval: "month",
  is_recurring: true,
  is_archived: false,
  created_at: "2026-01-01T00:00:00.000Z",
  prices,
  benefits: [],
});

describe("replacing a product's price", () => {
  it("replaces the static price and keeps the usage price and another currency's price by id", () => {
    const usage = price("u", "metered_unit", { unit_amount: "5", meter: { id: "m", name: "API calls" } });
    const plan = pricePlan(product([
      usage, price("f", "fixed", { price_amount: 900 }),
      price("e", "fixed", { price_amount: 800, price_currency: "eur" }), price("old", "fixed", { is_archived: true }),
    ]));
    expect(plan.replaced?.id).toBe("f");
    expect(plan.refusal).toBeNull();
    const fresh = { amount_type: "fixed", price_currency: "usd", price_amount: 1200 };
    expect(pricesUpdate(plan, fresh)).toEqual([fresh, { id: "u" }, { id: "e" }]);
  });

  it("adds a static price to a product that has only usage prices, keeping them", () => {
    const plan = pricePlan(product([price("u", "metered_unit", { unit_amount: "1" })]));
    expect(plan.replaced).toBeUndefined();
    expect(pricesUpdate(plan, { amount_type: "free" })).toEqual([{ amount_type: "free" }, { id: "u" }]);
  });

  it("refuses to replace a per-seat price", () => {
    const plan = pricePlan(product([price("s", "seat_based", { seat_tiers: { tiers: [{ min_seats: 1, max_seats: null, price_per_seat: 1000 }] } })]));
    expect(plan.refusal).toMatch(/priced per seat, which this page cannot edit/);
  });
});

describe("how a price reads", () => {
  it.each([
    [price("f", "fixed", { price_amount: 900 }), "$9.00 / month"],
    [price("z", "fixed", { price_amount: 0 }), "free"],
    [price("c", "custom", { minimum_amount: 500 }), "pay what you want, at least $5.00"],
    [price("s", "seat_based", { seat_tiers: { tiers: [{ min_seats: 1, max_seats: null, price_per_seat: 1000 }] } }), "per seat, from $10.00 / month"],
    [price("u", "metered_unit", { unit_amount: "0.5", cap_amount: 10_000, meter: { id: "m", name: "API calls" } }), "usage: $0.005 per unit of API calls, at most $100.00, billed every month"],
  ])("%# reads as written", (p, text) => {
    expect(priceDescription(p, "month")).toBe(text);
  });
});
