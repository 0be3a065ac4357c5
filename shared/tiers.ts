// The arithmetic of metered prices, once for the server (renewal bill, Subscription.meters, customer state,
// alerts) and the pages (checkout, portal): units × unit price, or units through tiers (`graduated`: each unit
// at the price of the tier it falls in; `volume`: every unit at the tier the total reaches; an optional flat
// fee per tier, as Stripe defines them), then the price's cap. Rounding (docs/billing.md, "Tiers and caps"):
// every tier line is kept exact (unit amounts have up to 12 decimals, units up to 6) and the sum of the lines
// is rounded once, half up, to the minor unit; the cap applies to that rounded amount.
import { formatMoney, formatUnitAmount } from "./money.js";

export const UNIT_TIER_TYPES = ["graduated", "volume"] as const;
export type UnitTierType = (typeof UNIT_TIER_TYPES)[number];

/** One tier: up to `up_to` units in total (null: no upper bound, the last tier), at `unit_amount` minor units each. */
export interface UnitTier {
  up_to: number | null;
  /** Minor units per unit, a decimal string ("0.2" = a fifth of a cent). */
  unit_amount: string;
  /** Minor units charged once when usage reaches the tier (0: none). */
  flat_amount: number;
}

/** A metered price's tiers (till's own field `unit_tiers`; Polar's metered prices have a single unit_amount). */
export interface UnitTiers {
  tier_type: UnitTierType;
  tiers: UnitTier[];
}

/** What the arithmetic reads of a metered price (the wire's PriceWire fields). */
export interface MeteredPriceTerms {
  unit_amount?: string | null | undefined;
  cap_amount?: number | null | undefined;
  unit_tiers?: UnitTiers | null | undefined;
}

/** One line of the charge: `units` units (numbered from+1 … from+units) at `unit_amount`, plus `flat_amount`. */
export interface TierLine {
  from: number;
  units: number;
  unit_amount: string;
  flat_amount: number;
}

/**
 * A metered order line's figures, kept with the line (order_item.usage) so that a document can say them in its
 * reader's language; the stored label says the same in English.
 */
export interface UsageLineFacts {
  product: string;
  meter: string;
  consumed: number;
  credited: number;
  billed: number;
  /** The tiers the billed units went through; null for a price without tiers. */
  tiers: TierLine[] | null;
  /** The cap that held the amount down, and the usage it left unbilled (minor units); null when not reached. */
  cap: { amount: number; notBilled: number } | null;
}

export interface MeteredCharge {
  /** What is billed: the rounded sum of the lines, at most the cap. */
  amount: number;
  /** The rounded sum of the lines before the cap. */
  uncapped: number;
  /** The cap held the amount down (usage beyond it in the period is not billed). */
  capped: boolean;
  lines: TierLine[];
}

const UNIT_SCALE = 6;
const AMOUNT_SCALE = 12;
const ONE = 10n ** BigInt(UNIT_SCALE + AMOUNT_SCALE);

/** A non-negative decimal string as an integer scaled by 10^scale (digits past the scale are dropped). */
function scaled(text: string, scale: number): bigint {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return 0n;
  const frac = (m[2] ?? "").slice(0, scale).padEnd(scale, "0");
  return BigInt(m[1] ?? "0") * 10n ** BigInt(scale) + BigInt(frac || "0");
}

/** Units (a meter's aggregate, possibly fractional) scaled by 10^6. */
const unitsScaled = (units: number): bigint => (units > 0 && Number.isFinite(units) ? BigInt(Math.round(units * 10 ** UNIT_SCALE)) : 0n);

/** The lines `units` make under these tiers (none for 0 units). */
export function tierLines(tiers: UnitTiers, units: number): TierLine[] {
  if (!(units > 0)) return [];
  const list = tiers.tiers;
  if (tiers.tier_type === "volume") {
    const tier = list.find((t) => t.up_to === null || units <= t.up_to) ?? list[list.length - 1];
    return tier ? [{ from: 0, units, unit_amount: tier.unit_amount, flat_amount: tier.flat_amount }] : [];
  }
  const lines: TierLine[] = [];
  let from = 0;
  for (const t of list) {
    if (from >= units) break;
    const to = t.up_to === null ? units : Math.min(units, t.up_to);
    if (to > from) lines.push({ from, units: to - from, unit_amount: t.unit_amount, flat_amount: t.flat_amount });
    from = Math.max(from, to);
  }
  return lines;
}

/** The exact sum of lines, rounded half up to the minor unit. */
function roundedSum(lines: TierLine[]): number {
  let sum = 0n;
  for (const l of lines) sum += unitsScaled(l.units) * scaled(l.unit_amount, AMOUNT_SCALE) + BigInt(l.flat_amount) * ONE;
  return Number((sum + ONE / 2n) / ONE);
}

/** What `units` of a metered price cost, in minor units: through its tiers or at its unit amount, then capped. */
export function meteredCharge(price: MeteredPriceTerms, units: number): MeteredCharge {
  const lines =
    price.unit_tiers && price.unit_tiers.tiers.length > 0
      ? tierLines(price.unit_tiers, units)
      : units > 0
        ? [{ from: 0, units, unit_amount: String(price.unit_amount ?? "0"), flat_amount: 0 }]
        : [];
  const uncapped = roundedSum(lines);
  const cap = typeof price.cap_amount === "number" ? price.cap_amount : null;
  const amount = cap === null ? uncapped : Math.min(uncapped, cap);
  return { amount, uncapped, capped: cap !== null && uncapped > cap, lines };
}

const count = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 6 });

/**
 * The lines as an invoice reads them: "first 1,000 at $0.00, next 9,000 at $0.002, 500 at $0.0015 + $5.00".
 * A volume line reads "12,000 at $0.0015".
 */
export function describeTierLines(lines: TierLine[], currency: string, locale = "en-US"): string {
  return lines
    .map((l, i) => {
      const lead = lines.length === 1 ? "" : i === 0 ? "first " : i < lines.length - 1 ? "next " : "";
      const flat = l.flat_amount > 0 ? ` + ${formatMoney(l.flat_amount, currency, locale)}` : "";
      return `${lead}${count(l.units)} at ${formatUnitAmount(l.unit_amount, currency, locale)}${flat}`;
    })
    .join(", ");
}

/** A price's tiers as a customer reads them before buying: "$0.00 per unit up to 1,000, then $0.002 …". */
export function describeTiers(tiers: UnitTiers, currency: string, unit = "unit", locale?: string): string {
  let from = 0;
  const parts = tiers.tiers.map((t) => {
    const flat = t.flat_amount > 0 ? ` + ${formatMoney(t.flat_amount, currency, locale)}` : "";
    const range = t.up_to === null ? (from === 0 ? "" : ` above ${count(from)}`) : ` for ${count(from + 1)}–${count(t.up_to)}`;
    if (t.up_to !== null) from = t.up_to;
    return `${formatUnitAmount(t.unit_amount, currency, locale)} per ${unit}${range}${flat}`;
  });
  return `${parts.join(", ")} (${tiers.tier_type === "volume" ? "volume: all units at the tier the total reaches" : "graduated"})`;
}

/** The issue with a set of tiers, if any (the server's 422 and the CLI's flag check read the same rule). */
export function tiersIssue(tiers: UnitTiers): string | null {
  if (tiers.tiers.length === 0) return "At least one tier is required";
  let last = 0;
  for (const [i, t] of tiers.tiers.entries()) {
    const final = i === tiers.tiers.length - 1;
    if (t.up_to === null && !final) return "Only the last tier can be unbounded (up_to null)";
    if (t.up_to !== null && final) return "The last tier must be unbounded (up_to null)";
    if (t.up_to !== null && t.up_to <= last) return "Tiers must be in increasing order of up_to";
    if (t.up_to !== null) last = t.up_to;
  }
  return null;
}
