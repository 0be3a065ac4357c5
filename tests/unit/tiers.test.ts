// shared/tiers.ts, the one arithmetic of metered prices: graduated and volume tiers at their boundaries, flat
// fees, the cap, rounding once half up over exact tier lines, fractional units, and the texts the invoice line,
// the checkout page and the portal read.
import { describe, expect, it } from "vitest";
import { describeTierLines, describeTiers, meteredCharge, tierLines, tiersIssue, type UnitTiers } from "../../shared/tiers.js";

const graduated: UnitTiers = {
  tier_type: "graduated",
  tiers: [
    { up_to: 1000, unit_amount: "0", flat_amount: 0 },
    { up_to: 10000, unit_amount: "0.2", flat_amount: 0 },
    { up_to: null, unit_amount: "0.15", flat_amount: 500 },
  ],
};
const volume: UnitTiers = { ...graduated, tier_type: "volume" };

describe("meteredCharge", () => {
  it("prices graduated tiers unit by unit, a tier's flat fee once usage reaches it", () => {
    expect(meteredCharge({ unit_tiers: graduated }, 0)).toMatchObject({ amount: 0, lines: [] });
    expect(meteredCharge({ unit_tiers: graduated }, 1000).amount).toBe(0);
    expect(meteredCharge({ unit_tiers: graduated }, 1001).amount).toBe(0); // 0.2 rounds to 0
    expect(meteredCharge({ unit_tiers: graduated }, 1003).amount).toBe(1); // 0.6 rounds to 1
    expect(meteredCharge({ unit_tiers: graduated }, 10000).amount).toBe(1800);
    // 1,800 + 0.15 + 500 = 2,300.15
    expect(meteredCharge({ unit_tiers: graduated }, 10001).amount).toBe(2300);
  });

  it("prices volume tiers all at the tier the total reaches (up_to inclusive)", () => {
    expect(meteredCharge({ unit_tiers: volume }, 1000).amount).toBe(0);
    expect(meteredCharge({ unit_tiers: volume }, 1001).amount).toBe(200); // 1,001 × 0.2 = 200.2
    expect(meteredCharge({ unit_tiers: volume }, 10000).amount).toBe(2000);
    expect(meteredCharge({ unit_tiers: volume }, 10001).amount).toBe(2000); // 1,500.15 + 500 = 2,000.15
  });

  it("rounds the exact sum of the lines once, half up, and applies the cap after", () => {
    // three lines of a third of a cent each would round to 0 each; together they are exactly 1
    const thirds: UnitTiers = {
      tier_type: "graduated",
      tiers: [
        { up_to: 1, unit_amount: "0.333333333333", flat_amount: 0 },
        { up_to: 2, unit_amount: "0.333333333334", flat_amount: 0 },
        { up_to: null, unit_amount: "0.333333333333", flat_amount: 0 },
      ],
    };
    expect(meteredCharge({ unit_tiers: thirds }, 3).amount).toBe(1);
    // half up: 0.5 → 1, and no float error on 3 × 0.15 = 0.45 → 0 or 0.5 units
    expect(meteredCharge({ unit_amount: "0.5" }, 1).amount).toBe(1);
    expect(meteredCharge({ unit_amount: "0.15" }, 3).amount).toBe(0);
    expect(meteredCharge({ unit_amount: "1.5" }, 2.5).amount).toBe(4); // 3.75
    const capped = meteredCharge({ unit_tiers: graduated, cap_amount: 2000 }, 10001);
    expect(capped).toMatchObject({ amount: 2000, uncapped: 2300, capped: true });
    expect(meteredCharge({ unit_amount: "30", cap_amount: 200 }, 5)).toMatchObject({ amount: 150, capped: false });
  });
});

describe("texts", () => {
  it("reads the lines as the invoice does", () => {
    expect(describeTierLines(tierLines(graduated, 10500), "usd")).toBe("first 1,000 at $0.00, next 9,000 at $0.002, 500 at $0.0015 + $5.00");
    expect(describeTierLines(tierLines(volume, 12000), "usd")).toBe("12,000 at $0.0015 + $5.00");
    expect(describeTierLines(tierLines(graduated, 3000), "usd")).toBe("first 1,000 at $0.00, 2,000 at $0.002");
  });

  it("reads the tiers as the checkout page does", () => {
    expect(describeTiers(graduated, "usd", "call", "en-US")).toBe(
      "$0.00 per call for 1–1,000, $0.002 per call for 1,001–10,000, $0.0015 per call above 10,000 + $5.00 (graduated)",
    );
  });

  it("says what is wrong with a set of tiers", () => {
    expect(tiersIssue(graduated)).toBeNull();
    expect(tiersIssue({ tier_type: "graduated", tiers: [] })).toMatch(/At least one/);
    expect(tiersIssue({ tier_type: "graduated", tiers: [{ up_to: 5, unit_amount: "1", flat_amount: 0 }] })).toMatch(/last tier must be unbounded/);
    expect(
      tiersIssue({ tier_type: "volume", tiers: [{ up_to: null, unit_amount: "1", flat_amount: 0 }, { up_to: null, unit_amount: "1", flat_amount: 0 }] }),
    ).toMatch(/Only the last/);
  });
});
