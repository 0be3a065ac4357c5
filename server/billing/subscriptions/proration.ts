// Proration of a plan change mid-period: a product or seat change on an active subscription credits
// the unused time of the old amount and charges the rest of the period at the new one, by the second. These are
// the lines; billing them (now or at the next renewal) is the renewal's (billing/renewal/proration.ts). A line's
// label is English (the API's); its facts let a document say it in its reader's language.
import type { ProrationFacts } from "../../db/schema/index.js";

export type { ProrationFacts };

export interface ProrationLine {
  label: string;
  facts: ProrationFacts;
  /** Minor units: negative for the credit of the unused time, positive for the charge of the rest of the period. */
  amount: number;
  productPriceId: string | null;
}

/** `amount × part / whole`, rounded half away from zero (exact, in integers). */
function share(amount: number, part: number, whole: number): number {
  const n = BigInt(amount) * BigInt(part);
  const d = BigInt(whole);
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const q = (2n * abs + d) / (2n * d);
  return Number(negative ? -q : q);
}

/** The terms on either side of a change, as a line names them: the product (null: not found), or its seats. */
export interface ProratedTerms {
  product: string | null;
  /** A seat change's seats; null for a product change. */
  seats: number | null;
}

/** "Basic", "the previous plan", "6 seats": what the English label says the line is about. */
const englishName = (t: ProratedTerms) => (t.seats !== null ? `${t.seats} seats` : (t.product ?? "the previous plan"));

/**
 * The proration lines of a change at `now` within [periodStart, periodEnd): the old amount's unused share as a
 * credit (negative) and the new amount's share as a charge, each rounded on its own (half away from zero) from
 * whole seconds. Nothing when the period has no time left or the amounts are equal.
 */
export function prorationLines(c: {
  oldAmount: number;
  newAmount: number;
  periodStart: Date;
  periodEnd: Date;
  now: Date;
  oldTerms: ProratedTerms;
  newTerms: ProratedTerms;
  oldPriceId: string | null;
  newPriceId: string | null;
}): ProrationLine[] {
  const whole = Math.floor((c.periodEnd.getTime() - c.periodStart.getTime()) / 1000);
  const left = Math.min(whole, Math.floor((c.periodEnd.getTime() - c.now.getTime()) / 1000));
  if (whole <= 0 || left <= 0 || c.oldAmount === c.newAmount) return [];
  const lines: ProrationLine[] = [];
  const credit = share(c.oldAmount, left, whole);
  const charge = share(c.newAmount, left, whole);
  const span = { from: new Date(Math.max(c.now.getTime(), c.periodStart.getTime())).toISOString(), to: c.periodEnd.toISOString() };
  if (credit !== 0) {
    const facts: ProrationFacts = { kind: "unused", ...c.oldTerms, ...span };
    lines.push({ label: `Unused time on ${englishName(c.oldTerms)}`, facts, amount: -credit, productPriceId: c.oldPriceId });
  }
  if (charge !== 0) {
    const facts: ProrationFacts = { kind: "remaining", ...c.newTerms, ...span };
    lines.push({ label: `Remaining time on ${englishName(c.newTerms)}`, facts, amount: charge, productPriceId: c.newPriceId });
  }
  return lines;
}

export interface ProrationPlan {
  /** The proration behavior: "invoice" and "prorate" bill the lines; any other ("next_period", "reset") nothing. */
  behavior: string;
  lines: ProrationLine[];
}
