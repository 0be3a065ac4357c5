// A metered price's tiers in the page's words, once for the checkout (before buying) and the portal (its usage
// view): shared/tiers.ts holds the arithmetic, this the wording, from the `tiers.*` messages both surfaces' catalogs
// carry. Amounts and unit counts are `Intl`'s in the page's locale.
import { unitName } from "../../../shared/meter-units.js";
import type { UnitTiers } from "../../../shared/tiers.js";
import { intl, locale, money, numberText, t, unitMoney } from "./intl.js";

/**
 * One unit of a meter: English singularizes its name ("Tokens" → "token"); other languages show it as the seller wrote
 * it.
 */
export const unitOf = (meterName: string): string => (locale().startsWith("en") ? unitName(meterName) : meterName.trim() || unitName(meterName));

/**
 * "$0.01 per token for 1–1,000, $0.0025 per token above 1,000 + $10.00 (graduated)" / "0,01 $ pro Tokens für 1–1.000,
 * …".
 */
export function tiersText(tiers: UnitTiers, currency: string, unit: string): string {
  let from = 0;
  const parts = tiers.tiers.map((tier) => {
    const price = unitMoney(tier.unit_amount, currency);
    const text =
      tier.up_to === null
        ? from === 0
          ? t("tiers.tier", { price, unit })
          : t("tiers.above", { price, unit, from: numberText(from) })
        : t("tiers.upTo", { price, unit, from: numberText(from + 1), to: numberText(tier.up_to) });
    if (tier.up_to !== null) from = tier.up_to;
    return tier.flat_amount > 0 ? t("tiers.flat", { tier: text, flat: money(tier.flat_amount, currency) }) : text;
  });
  const list = intl().formatList(parts, { type: "unit" }) as string;
  return t(tiers.tier_type === "volume" ? "tiers.volume" : "tiers.graduated", { tiers: list });
}
