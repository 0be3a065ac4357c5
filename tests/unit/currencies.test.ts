// The one currency rule (shared/currencies.ts): ISO 4217 codes from the maintained list, lower-case, without
// the units nobody pays in; the CLI's catalog file takes exactly what the server takes, so a file that
// `till catalog pull` wrote from the server always plans.
import { describe, expect, it } from "vitest";
import { CatalogFileError, parseCatalog } from "../../cli/catalog/file.js";
import { CURRENCY_CODES, isCurrencyCode } from "../../shared/currencies.js";

const catalog = (currency: string) => `version: 1
products:
  one:
    name: One
    prices:
      - { amount_type: fixed, price_currency: ${currency}, price_amount: 1900 }
`;

describe("currency codes", () => {
  it("are ISO 4217's, lower-case, without metals, test or no-currency codes", () => {
    for (const code of ["usd", "eur", "jpy", "kwd", "xof", "xcg", "chf"]) expect(isCurrencyCode(code), code).toBe(true);
    for (const code of ["xyz", "xau", "xts", "xxx", "xdr", "USD", "us", "", "usdd"]) expect(isCurrencyCode(code), code).toBe(false);
    expect(CURRENCY_CODES.length).toBeGreaterThan(150);
    expect(CURRENCY_CODES.every((c) => /^[a-z]{3}$/.test(c))).toBe(true);
  });

  it("the catalog file takes a price in any of them (kwd is not one of Polar's presentment currencies) and refuses a made-up one", () => {
    expect(parseCatalog(catalog("kwd")).products.get("one")?.prices[0]).toMatchObject({ price_currency: "kwd" });
    expect(() => parseCatalog(catalog("xyz"))).toThrow(CatalogFileError);
    expect(() => parseCatalog(catalog("xyz"))).toThrow(/ISO 4217/);
  });
});
