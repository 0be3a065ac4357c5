// A meter credit benefit in the buyer's words (the portal's benefits): how many credits, how often (once with the
// purchase, each month, each billing period), whether unused ones carry over, when the next come, whether they are
// this subscription's alone, and what this period holds.
import type { PortalGrant } from "../portal-api.js";
import { t } from "../i18n/intl.js";
import { formatDate } from "./PortalCommon.js";

const int = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null);

/** The sentences that say a meter_credit grant's terms (none for another benefit, or one not granted). */
export function creditSentences(g: PortalGrant): string[] {
  if (g.benefit.type !== "meter_credit" || !g.is_granted || g.is_revoked) return [];
  const p = g.benefit.properties;
  const gp = g.properties;
  // a pay-what-you-want credit: the units the purchase bought
  const units = int(gp.credit_units) ?? int(p.units) ?? 0;
  const schedule = p.schedule === "once" || p.schedule === "monthly" ? p.schedule : "period";
  const out = [t(`credits.${schedule}`, { units })];
  // what happens to unused credits depends on when they come: a purchase's last until used (or its first period), a
  // month's add up within the billing period (a year), a period's end with it
  const keep = p.rollover === true;
  if (schedule === "once") out.push(t(keep ? "credits.onceCarryOver" : "credits.onceExpire"));
  else if (schedule === "monthly") out.push(t(keep ? "credits.monthlyCarryOver" : "credits.monthlyExpire"));
  else out.push(t(keep ? "credits.carryOver" : "credits.expire"));
  if (typeof gp.next_credit_at === "string") out.push(t("credits.next", { date: formatDate(gp.next_credit_at) }));
  if (p.pool === "subscription") out.push(t("credits.pool"));
  const now = int(gp.last_credited_units);
  if (now !== null) out.push(t(schedule === "monthly" ? "credits.nowSoFar" : "credits.now", { units: now }));
  return out;
}

export function CreditTerms({ grant }: { grant: PortalGrant }) {
  const sentences = creditSentences(grant);
  return sentences.length > 0 ? <p className="hint">{sentences.join(" ")}</p> : null;
}
