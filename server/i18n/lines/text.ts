// An order's line said in a reader's language from the facts kept beside its English label: a metered
// line from `order_item.usage`, a proration line from `order_item.proration_facts`, a wallet top-up from
// `order_item.wallet_credit`. The invoice PDF and the receipt emails both print a line through `lineFromFacts`;
// the stored label is the API's (Polar's wire) and is never parsed here.
import type { ProrationFacts, WalletCredit } from "../../db/schema/index.js";
import type { UsageLineFacts } from "../../../shared/tiers.js";
import { lineSpeaker, type LineSpeaker } from "./index.js";

/** What a line may carry besides its label; a line with none of these prints its label. */
export interface LineFacts {
  usage?: UsageLineFacts | null | undefined;
  proration?: ProrationFacts | null | undefined;
  walletCredit?: WalletCredit | null | undefined;
}

/**
 * A metered line: "Pro — API calls (20 consumed, 16 credited, 4 billed): first 1,000 at $0.00, next 9,000 at
 * $0.002; capped at $40.00; $7.50 of usage not billed" (the stored English label, said again).
 */
export function usageText(s: LineSpeaker, u: UsageLineFacts, currency: string): string {
  const head = s.t("usage.line", { product: u.product, meter: u.meter });
  const line = u.credited > 0 ? `${head} ${s.t("usage.units", { consumed: s.number(u.consumed), credited: s.number(u.credited), billed: s.number(u.billed) })}` : head;
  const tiers = (u.tiers ?? []).map((l, i, all) => {
    const values = { units: s.number(l.units), price: s.unitAmount(l.unit_amount, currency) };
    // as describeTierLines: "first …, next …, … at …" (one line alone, or the last, has no lead word)
    const id = all.length === 1 || i === all.length - 1 ? "usage.tier" : i === 0 ? "usage.tierFirst" : "usage.tierNext";
    const tier = s.t(id, values);
    return l.flat_amount > 0 ? s.t("usage.flat", { tier, flat: s.money(l.flat_amount, currency) }) : tier;
  });
  const parts: string[] = [];
  if (tiers.length > 0) parts.push(new Intl.ListFormat(s.intlLocale, { type: "unit", style: "short" }).format(tiers));
  if (u.cap) parts.push(s.t("usage.capped", { cap: s.money(u.cap.amount, currency), notBilled: s.money(u.cap.notBilled, currency) }));
  return parts.length > 0 ? s.t("usage.withDetail", { line, detail: parts.join("; ") }) : line;
}

/**
 * A proration line: its kind, and what it prorates ("Nicht genutzte Zeit für Basic", "Verbleibende Zeit für Team (6
 * Plätze)").
 */
export function prorationText(s: LineSpeaker, p: ProrationFacts): string {
  const seats = p.seats === null ? null : p.product === null ? s.t("proration.seatsOnly", { seats: p.seats }) : s.t("proration.seats", { product: p.product, seats: p.seats });
  const product = seats ?? p.product;
  if (product === null) return s.t(p.kind === "unused" ? "proration.unusedPlan" : "proration.remainingPlan");
  return s.t(p.kind === "unused" ? "proration.unused" : "proration.remaining", { product });
}

/** The line of a top-up order: "Aufladung des Guthabenkontos", "Automatische Aufladung des Guthabenkontos". */
export function walletCreditText(s: LineSpeaker, kind: WalletCredit): string {
  return s.t(kind === "auto_recharge" ? "wallet.auto_recharge" : "wallet.top_up");
}

/** The line in `locale` from its facts; null when it has none (the caller prints its stored label). */
export function lineFromFacts(locale: string, l: LineFacts, currency: string): string | null {
  const s = lineSpeaker(locale);
  if (l.usage) return usageText(s, l.usage, currency);
  if (l.proration) return prorationText(s, l.proration);
  if (l.walletCredit) return walletCreditText(s, l.walletCredit);
  return null;
}
