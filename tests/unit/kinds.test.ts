// Price kinds and benefit types are handled in one module per side (shared/kinds.ts lists them; the server's
// products/price-kinds.ts, the CLI's kinds.ts and the web app's kinds.ts say what each means). The typecheck
// holds the tables to the unions; this test holds them to the lists at run time, and pins what the lists say.
import { describe, expect, it } from "vitest";
import { DELIVERED_BENEFIT_TYPES, BENEFIT_ACCOUNT, BENEFIT_TYPES, PRICE_KIND_IS_STATIC, PRICE_KINDS, STATIC_PRICE_KINDS } from "../../shared/kinds.js";
import { PRICE_KIND_RULES, type PriceKindRules } from "../../server/billing/products/price-kinds.js";
import { CATALOG_PRICE_RANK, CLI_BENEFIT_TYPES, PRICE_FLAG } from "../../cli/kinds.js";
import { ACCOUNT_NAME, FORM_PRICE_KIND, isFormKind, isMeteredKind } from "../../web/src/kinds.js";

const keys = (table: object) => Object.keys(table).sort();
const kindsWhere = (rule: (r: PriceKindRules) => boolean) => PRICE_KINDS.filter((k) => rule(PRICE_KIND_RULES[k]));

describe("price kinds", () => {
  it("every side's table has a row for each kind, and no other", () => {
    const kinds = [...PRICE_KINDS].sort();
    for (const table of [PRICE_KIND_IS_STATIC, PRICE_KIND_RULES, PRICE_FLAG, CATALOG_PRICE_RANK, FORM_PRICE_KIND]) {
      expect(keys(table)).toEqual(kinds);
    }
  });

  it("static kinds: one per currency; metered_unit the only metered one", () => {
    expect(STATIC_PRICE_KINDS).toEqual(["fixed", "custom", "free", "seat_based"]);
    expect(kindsWhere((r) => r.static)).toEqual(STATIC_PRICE_KINDS);
    expect(kindsWhere((r) => r.legacy)).toEqual(["fixed", "custom", "free"]);
    expect(kindsWhere((r) => r.discountable)).toEqual(["fixed", "custom", "seat_based"]);
    expect(PRICE_KINDS.filter(isMeteredKind)).toEqual(["metered_unit"]);
    expect(isMeteredKind("a_kind_from_a_newer_server")).toBe(false);
    expect(PRICE_KINDS.filter(isFormKind)).toEqual(PRICE_KINDS);
    expect(isFormKind("a_kind_from_a_newer_server")).toBe(false);
  });

  it("sort ranks are distinct", () => {
    for (const ranks of [Object.values(CATALOG_PRICE_RANK), PRICE_KINDS.map((k) => PRICE_KIND_RULES[k].sortRank)]) {
      expect(new Set(ranks).size).toBe(PRICE_KINDS.length);
    }
  });
});

describe("benefit types", () => {
  it("every type has its account (or none); the CLI's flags set all but feature_flag", () => {
    expect(keys(BENEFIT_ACCOUNT)).toEqual([...BENEFIT_TYPES].sort());
    expect(DELIVERED_BENEFIT_TYPES).toEqual(["discord", "github_repository"]);
    expect(keys(ACCOUNT_NAME)).toEqual(["discord", "github"]);
    expect(BENEFIT_TYPES.filter((t) => !(CLI_BENEFIT_TYPES as readonly string[]).includes(t))).toEqual(["feature_flag"]);
  });
});
