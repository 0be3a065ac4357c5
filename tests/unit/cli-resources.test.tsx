// The resource commands' pure parts: flag parsers, money and filter formatting, bucket labels, the NDJSON
// line check and the bar chart (the end-to-end runs are in tests/cli/products.test.ts and resources.test.ts).
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { describeFilter, bucketLabel } from "../../cli/commands/meters.js";
import { checkEvent } from "../../cli/commands/events.js";
import { pricesFromFlags } from "../../cli/commands/price-flags.js";
import { describePrice } from "../../cli/kinds.js";
import {
  checkSeatTiers,
  collectMetadata,
  collectSeatTier,
  parseAmount,
  parseDateTime,
  parsePercent,
  parseTrial,
  parseUnitAmount,
} from "../../cli/flags.js";
import { money } from "../../cli/resources.js";
import { barOf, renderBarChart } from "../../cli/ui/BarChart.js";

const ANSI_STYLE = new RegExp(String.raw`\u001B\[[0-9;]*m`, "g");
const plain = (s: string) => s.replace(ANSI_STYLE, "");

describe("flag parsers", () => {
  it("amounts are whole minor units; decimals are refused with the reason", () => {
    expect(parseAmount("1999")).toBe(1999);
    expect(parseAmount(" 0 ")).toBe(0);
    for (const bad of ["19.99", ",5", "-1", "1e3", "", "2147483648"]) expect(() => parseAmount(bad), bad).toThrow(InvalidArgumentError);
    expect(() => parseAmount("19.99")).toThrow(/not a decimal/);
  });

  it("unit amounts: positive decimals up to 5.12 digits, kept as text", () => {
    expect(parseUnitAmount("0.5")).toBe("0.5");
    expect(parseUnitAmount("12345.000000000001")).toBe("12345.000000000001");
    for (const bad of ["0", "0.000", "-1", "123456", "1.0000000000001", "abc"]) expect(() => parseUnitAmount(bad), bad).toThrow(InvalidArgumentError);
  });

  it("percent → basis points; trials; dates", () => {
    expect(parsePercent("25")).toBe(2500);
    expect(parsePercent("12.5")).toBe(1250);
    expect(parsePercent("0.01")).toBe(1);
    expect(parsePercent("100")).toBe(10_000);
    for (const bad of ["0", "100.01", "12.345", "x"]) expect(() => parsePercent(bad), bad).toThrow(InvalidArgumentError);
    expect(parseTrial("14d")).toEqual({ interval: "day", count: 14 });
    expect(parseTrial("2 weeks")).toEqual({ interval: "week", count: 2 });
    expect(parseTrial("1m")).toEqual({ interval: "month", count: 1 });
    expect(parseTrial("none")).toBeNull();
    expect(() => parseTrial("0d")).toThrow(InvalidArgumentError);
    expect(parseDateTime("2025-01-31")).toBe("2025-01-31T00:00:00.000Z");
    expect(parseDateTime("2025-01-31T09:00:00+02:00")).toBe("2025-01-31T07:00:00.000Z");
    for (const bad of ["2025-01-31T09:00:00", "0000-01-01", "31/01/2025"]) expect(() => parseDateTime(bad), bad).toThrow(InvalidArgumentError);
  });

  it("metadata: key=value strings, key:=number|boolean", () => {
    let m = collectMetadata("plan=pro");
    m = collectMetadata("seats:=5", m);
    m = collectMetadata("beta:=true", m);
    m = collectMetadata("url=https://x.test/?a=b", m);
    expect(m).toEqual({ plan: "pro", seats: 5, beta: true, url: "https://x.test/?a=b" });
    expect(() => collectMetadata("seats:=five")).toThrow(/a number or true\/false/);
    expect(() => collectMetadata("=x")).toThrow(InvalidArgumentError);
  });

  it("seat tiers: parsed, sorted, contiguous from seat 1, only the last open-ended", () => {
    const tiers = collectSeatTier("11+:800", collectSeatTier("1-10:1000"));
    expect(checkSeatTiers(tiers)).toEqual([
      { min_seats: 1, max_seats: 10, price_per_seat: 1000 },
      { min_seats: 11, max_seats: null, price_per_seat: 800 },
    ]);
    expect(collectSeatTier("11-:800")).toEqual([{ min_seats: 11, max_seats: null, price_per_seat: 800 }]);
    expect(() => collectSeatTier("10-5:100")).toThrow(InvalidArgumentError);
    expect(() => checkSeatTiers(collectSeatTier("2-5:100"))).toThrow("--seat-tier: the first tier must start at seat 1, got 2-5");
    expect(() => checkSeatTiers([...collectSeatTier("1+:100"), ...collectSeatTier("5-9:100")])).toThrow("only the last tier may be open-ended (1+)");
    expect(() => checkSeatTiers([...collectSeatTier("1-5:100"), ...collectSeatTier("5+:90")])).toThrow("tiers 1-5 and 5+ overlap");
  });
});

describe("prices", () => {
  it("flags become the wire's prices; pay what you want checks its bounds", () => {
    expect(pricesFromFlags({})).toBeUndefined();
    expect(pricesFromFlags({ price: 1999, currency: "eur" })).toEqual([{ amount_type: "fixed", price_currency: "eur", price_amount: 1999 }]);
    expect(pricesFromFlags({ customPrice: true, min: 0 })).toEqual([{ amount_type: "custom", price_currency: "usd", minimum_amount: 0 }]);
    expect(() => pricesFromFlags({ customPrice: true, min: 500, max: 100 })).toThrow("--max: 100 is below --min 500");
    expect(() => pricesFromFlags({ customPrice: true, min: 500, preset: 100 })).toThrow("--preset: 100 is outside --min…--max");
    expect(() => pricesFromFlags({ metered: true, meter: "m" })).toThrow("--metered: needs --unit-amount <amount>");
    expect(() => pricesFromFlags({ prices: "[]" })).toThrow("--prices: expected at least one price");
    expect(() => pricesFromFlags({ prices: "[1]" })).toThrow("--prices[0]: expected a JSON object");
  });

  it("read as money with the currency's exponent; metered unit prices keep their fractions", () => {
    expect(money(1999, "usd")).toBe("$19.99");
    expect(money(500, "jpy")).toBe("¥500");
    expect(money(500, "eur")).toBe("€5.00");
    expect(money("0.5", "usd")).toBe("$0.005");
    expect(money("0.000001", "usd")).toBe("$0.00000001");
    expect(money(5, "xyz")).toMatch(/^XYZ\s0\.05$/); // Intl knows the code but not its exponent: 2
    const base = { id: "p", is_archived: false, price_currency: "usd" };
    expect(describePrice({ ...base, amount_type: "custom", minimum_amount: 500, maximum_amount: null, preset_amount: 1500 })).toBe(
      "pay what you want (min $5.00, preset $15.00)",
    );
    expect(describePrice({ ...base, amount_type: "metered_unit", unit_amount: "0.5", cap_amount: 10000, meter: { id: "m", name: "API calls" } })).toBe(
      "$0.005 per API call (cap $100.00)",
    );
    expect(
      describePrice({ ...base, amount_type: "seat_based", seat_tiers: { tiers: [{ min_seats: 1, max_seats: 1, price_per_seat: 1000 }, { min_seats: 2, max_seats: null, price_per_seat: 800 }] } }),
    ).toBe("1 seats: $10.00/seat, 2+ seats: $8.00/seat");
  });
});

describe("meters", () => {
  it("filters read as expressions, nested ones in parentheses", () => {
    expect(describeFilter({ conjunction: "and", clauses: [] })).toBe("every event");
    expect(
      describeFilter({
        conjunction: "and",
        clauses: [
          { property: "name", operator: "eq", value: "llm" },
          { conjunction: "or", clauses: [{ property: "metadata.model", operator: "like", value: "gpt%" }, { property: "tokens", operator: "gte", value: 10 }] },
        ],
      }),
    ).toBe('name = "llm" and (metadata.model like "gpt%" or tokens >= 10)');
  });

  it("bucket labels follow the interval and the time zone", () => {
    expect(bucketLabel("2025-01-31T00:00:00.000Z", "day", "UTC")).toBe("2025-01-31");
    expect(bucketLabel("2025-01-31T13:00:00.000Z", "hour", "UTC")).toBe("2025-01-31 13:00");
    expect(bucketLabel("2025-01-30T23:00:00.000Z", "day", "Europe/Paris")).toBe("2025-01-31");
    expect(bucketLabel("2025-01-01T00:00:00.000Z", "month", "UTC")).toBe("2025-01");
    expect(bucketLabel("2025-01-01T00:00:00.000Z", "year", "UTC")).toBe("2025");
  });

  it("the bar chart: bars scaled to the largest value in eighths, values right-aligned, a total", () => {
    expect(barOf(10, 10, 8)).toBe("████████");
    expect(barOf(1, 16, 8)).toBe("▌");
    expect(barOf(0.001, 1000, 8)).toBe("▏");
    expect(barOf(0, 10, 8)).toBe("");
    const out = plain(
      renderBarChart(
        [
          { label: "2025-01-01", value: 100, shown: "100" },
          { label: "2025-01-02", value: 50, shown: "50" },
          { label: "2025-01-03", value: 0, shown: "0" },
        ],
        40,
        "150",
      ),
    );
    expect(out.split("\n")).toEqual([
      // 40 columns: 10 for the label, 2 apart, 3 for the value, 1 space, 22 for the longest bar
      "2025-01-01  100 " + "█".repeat(22),
      "2025-01-02   50 " + "█".repeat(11),
      "2025-01-03    0 ",
      "Total       150",
    ].map((l) => l.trimEnd()));
  });
});

describe("events ingest lines", () => {
  it("accepts the /v1 event shape and names what is wrong otherwise", () => {
    expect(checkEvent('{"name":"a","customer_id":"c"}')).toBeNull();
    expect(checkEvent('{"name":"a","external_customer_id":"u","timestamp":"2025-01-01T00:00:00Z","metadata":{"n":1}}')).toBeNull();
    expect(checkEvent("{")).toMatch(/^not JSON \(/);
    expect(checkEvent("[1]")).toBe("expected a JSON object (one event per line)");
    expect(checkEvent('{"customer_id":"c"}')).toBe('"name" must be a non-empty string');
    expect(checkEvent('{"name":"a"}')).toBe('needs "customer_id" or "external_customer_id"');
    expect(checkEvent('{"name":"a","customer_id":"c","timestamp":"2025-01-01"}')).toBe(
      '"timestamp" must be a datetime with an offset, such as 2025-01-31T09:00:00Z',
    );
    expect(checkEvent('{"name":"a","customer_id":"c","metadata":[]}')).toBe('"metadata" must be an object');
  });
});
