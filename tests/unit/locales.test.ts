import { describe, expect, it } from "vitest";
import { matchLocale, parseAcceptLanguage, resolveLocale } from "../../shared/i18n/locales.js";
import { pseudoMessage } from "../../shared/i18n/pseudo.js";

describe("locale resolution", () => {
  it("matches exact tags, then the language alone, case-insensitively", () => {
    expect(matchLocale("pt-br")).toBe("pt-BR");
    expect(matchLocale("de_AT")).toBe("de");
    expect(matchLocale("pt-PT")).toBe("pt-BR");
    expect(matchLocale("en-XA")).toBe("en-XA");
    expect(matchLocale("xx")).toBeNull();
    expect(matchLocale("")).toBeNull();
  });

  it("orders Accept-Language by q-value and skips what is malformed", () => {
    expect(parseAcceptLanguage("en;q=0.1, ja, fr;q=0.5, *;q=0.9, bad tag, de;q=abc")).toEqual(["ja", "fr", "en"]);
    expect(parseAcceptLanguage(null)).toEqual([]);
  });

  it("takes the checkout's locale, then the customer's, then the browser's, then the organization's", () => {
    expect(resolveLocale({ checkout: "fr", customer: "de", acceptLanguage: "ja", organization: "sv" })).toBe("fr");
    expect(resolveLocale({ checkout: "zz", customer: "de", acceptLanguage: "ja" })).toBe("de");
    expect(resolveLocale({ acceptLanguage: "zz, ja;q=0.8", organization: "sv" })).toBe("ja");
    expect(resolveLocale({ organization: "sv" })).toBe("sv");
    expect(resolveLocale({})).toBe("en");
  });
});

describe("pseudo-locale", () => {
  it("accents and lengthens literals, keeping arguments, plurals and tags intact", () => {
    const out = pseudoMessage("Pay {amount} for {count, plural, one {# seat} other {# seats}} <b>now</b>");
    expect(out.startsWith("[Páy {amount} fór {count,plural,one{# séát} other{# séáts}} <b>ñów</b>")).toBe(true);
    expect(out.endsWith("~]")).toBe(true);
  });
});
