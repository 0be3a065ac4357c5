// What a metered line of a renewal says beyond its meter's name: the tiers its units went through
// ("first 1,000 at $0.00, next 9,000 at $0.002") and the cap that held it down ("capped at $50.00; $12.34 of
// usage not billed"). The amounts are shared/tiers.ts's, so the line and the bill agree to the minor unit.
import { describeTierLines, meteredCharge, type MeteredPriceTerms, type UsageLineFacts } from "../../../shared/tiers.js";
import { formatMoney } from "../../../shared/money.js";
import type { PriceWire } from "../products/wire.js";

export interface UsageLineDetail {
  /** Appended to the line's label ("" when the line is plain units × unit price). */
  text: string;
  /** The amount is billed units × the price's unit_amount (the invoice prints that unit price). */
  unitPriced: boolean;
  /** The tiers and the cap as figures, for a document in another language (UsageLineFacts). */
  facts: Pick<UsageLineFacts, "tiers" | "cap">;
}

export function usageLineDetail(price: PriceWire, billedUnits: number, currency: string): UsageLineDetail {
  const terms = price as MeteredPriceTerms;
  const charge = meteredCharge(terms, billedUnits);
  const tiered = Boolean(terms.unit_tiers && terms.unit_tiers.tiers.length > 0);
  const parts: string[] = [];
  if (tiered && charge.lines.length > 0) parts.push(describeTierLines(charge.lines, currency));
  if (charge.capped && typeof terms.cap_amount === "number") {
    parts.push(`capped at ${formatMoney(terms.cap_amount, currency, "en-US")}; ${formatMoney(charge.uncapped - charge.amount, currency, "en-US")} of usage not billed`);
  }
  const facts = {
    tiers: tiered && charge.lines.length > 0 ? charge.lines : null,
    cap: charge.capped && typeof terms.cap_amount === "number" ? { amount: terms.cap_amount, notBilled: charge.uncapped - charge.amount } : null,
  };
  return { text: parts.length > 0 ? `: ${parts.join("; ")}` : "", unitPriced: !tiered && !charge.capped, facts };
}
