// A proration line said in a reader's language from its facts (issue 30): "Nicht genutzte Zeit für Basic",
// "Verbleibende Zeit für Team (6 Plätze)". The invoices' and the emails' catalogs both carry the `proration.*`
// messages (one place per surface); the line's stored English label is the API's and is not read here.
import type { ProrationFacts } from "../db/schema/index.js";
import type { Speaker } from "./intl.js";

export type ProrationMessageId =
  | "proration.unused"
  | "proration.remaining"
  | "proration.unusedPlan"
  | "proration.remainingPlan"
  | "proration.seats"
  | "proration.seatsOnly";

/** The line in the speaker's language: its kind, and what it prorates (the product, with its seats on a seat change). */
export function prorationText(s: Speaker<ProrationMessageId>, p: ProrationFacts): string {
  const seats = p.seats === null ? null : p.product === null ? s.t("proration.seatsOnly", { seats: p.seats }) : s.t("proration.seats", { product: p.product, seats: p.seats });
  const product = seats ?? p.product;
  if (product === null) return s.t(p.kind === "unused" ? "proration.unusedPlan" : "proration.remainingPlan");
  return s.t(p.kind === "unused" ? "proration.unused" : "proration.remaining", { product });
}
