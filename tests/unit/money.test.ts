// shared/money.ts: a fractional unit price (a metered price's unit_amount, in minor units) printed exactly.
import { describe, expect, it } from "vitest";
import { formatUnitAmount } from "../../shared/money.js";

describe("formatUnitAmount", () => {
  it("moves the decimal point by the currency's minor digits and keeps every digit", () => {
    expect(formatUnitAmount("1.5", "usd", "en-US")).toBe("$0.015");
    expect(formatUnitAmount("0.9", "usd", "en-US")).toBe("$0.009");
    expect(formatUnitAmount("30", "usd", "en-US")).toBe("$0.30");
    expect(formatUnitAmount("12.50", "eur", "en-US")).toBe("€0.125");
    expect(formatUnitAmount("1000.5", "usd", "en-US")).toBe("$10.005");
    expect(formatUnitAmount("0.25", "jpy", "en-US")).toBe("¥0.25");
  });
});
