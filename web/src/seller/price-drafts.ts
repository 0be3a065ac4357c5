// The product editor's prices as the form holds them (PriceDraft: text fields, one per price) and as the API
// takes them. An existing price the seller did not touch is sent back by id, so the update keeps it as it is
// (its id, its subscriptions); a changed one is sent as a new price, which replaces it (the API archives the
// prices an update leaves out). A price of a kind this page does not know is always sent back by id: the form
// never drops a price it cannot show.
import { minorDigits } from "../../../shared/money.js";
import { isPriceKind, type PriceKind } from "../../../shared/kinds.js";
import type { Price } from "./wire.js";

export const INTERVALS = ["day", "week", "month", "year"] as const;

export interface UnitTierDraft {
  upTo: string;
  unit: string;
  flat: string;
}

export interface SeatTierDraft {
  min: string;
  max: string;
  perSeat: string;
}

export interface PriceDraft {
  /** The existing price this draft stands for; with `edited` false it is sent back by id. */
  id: string | null;
  edited: boolean;
  /** A kind this page does not know (or an existing price shown as it is): its description. */
  shown: string;
  kind: PriceKind;
  currency: string;
  amount: string;
  minimum: string;
  maximum: string;
  preset: string;
  meterId: string;
  unit: string;
  cap: string;
  tiered: boolean;
  tierType: "graduated" | "volume";
  unitTiers: UnitTierDraft[];
  seatTierType: "volume" | "graduated";
  seatTiers: SeatTierDraft[];
  /** Carried over unchanged from the price it replaces (not on the form). */
  overage: string | null;
  taxBehavior: string | null;
}

export const blankDraft = (currency = "usd"): PriceDraft => ({
  id: null,
  edited: true,
  shown: "",
  kind: "fixed",
  currency,
  amount: "",
  minimum: "",
  maximum: "",
  preset: "",
  meterId: "",
  unit: "",
  cap: "",
  tiered: false,
  tierType: "graduated",
  unitTiers: [{ upTo: "", unit: "", flat: "" }],
  seatTierType: "volume",
  seatTiers: [{ min: "1", max: "", perSeat: "" }],
  overage: null,
  taxBehavior: null,
});

/** 1999 in usd → "19.99". */
export const majorOf = (minor: number | null | undefined, currency: string): string =>
  minor === null || minor === undefined ? "" : (minor / 10 ** minorDigits(currency)).toFixed(minorDigits(currency));

/** "19.99" in usd → 1999; null when it is not an amount in the currency's units. */
export function toMinor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = /^\s*(\d+)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m) return null;
  const fraction = (m[2] ?? "").padEnd(digits, "0");
  if (fraction.length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number(fraction || "0");
}

/** A unit price in the currency's units ("0.0005" dollars) → the API's minor-unit decimal ("0.05" cents). */
export function toMinorDecimal(text: string, currency: string): string | null {
  const m = /^\s*(\d+)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m) return null;
  const digits = minorDigits(currency);
  const frac = (m[2] ?? "").padEnd(digits, "0");
  const joined = `${m[1]}${frac.slice(0, digits)}`.replace(/^0+(?=\d)/, "");
  const rest = frac.slice(digits).replace(/0+$/, "");
  return rest ? `${joined}.${rest}` : joined;
}

/** The API's minor-unit decimal ("0.05" cents) → the currency's units ("0.0005"). */
export function fromMinorDecimal(minor: string | undefined, currency: string): string {
  if (!minor) return "";
  const digits = minorDigits(currency);
  const [int = "0", frac = ""] = minor.split(".");
  const padded = int.padStart(digits + 1, "0");
  const whole = padded.slice(0, padded.length - digits);
  const decimals = `${padded.slice(padded.length - digits)}${frac}`.replace(/0+$/, "");
  return decimals.length < digits ? `${whole}.${decimals.padEnd(digits, "0")}` : `${whole}.${decimals}`;
}

/** The draft of an existing price: shown as it is until the seller changes it. */
export function draftOf(p: Price, shown: string): PriceDraft {
  const currency = p.price_currency ?? "usd";
  const base = { ...blankDraft(currency), id: p.id, edited: false, shown, overage: p.overage ?? null, taxBehavior: p.tax_behavior ?? null };
  if (!isPriceKind(p.amount_type)) return base;
  const kind = p.amount_type;
  const tiers = p.unit_tiers;
  const seats = p.seat_tiers;
  return {
    ...base,
    kind,
    amount: majorOf(p.price_amount, currency),
    minimum: majorOf(p.minimum_amount, currency),
    maximum: majorOf(p.maximum_amount, currency),
    preset: majorOf(p.preset_amount, currency),
    meterId: p.meter_id ?? p.meter?.id ?? "",
    unit: fromMinorDecimal(p.unit_amount, currency),
    cap: majorOf(p.cap_amount, currency),
    tiered: Boolean(tiers),
    tierType: tiers?.tier_type ?? "graduated",
    unitTiers: tiers
      ? tiers.tiers.map((t) => ({ upTo: t.up_to === null ? "" : String(t.up_to), unit: fromMinorDecimal(t.unit_amount, currency), flat: t.flat_amount ? majorOf(t.flat_amount, currency) : "" }))
      : base.unitTiers,
    seatTierType: seats?.seat_tier_type === "graduated" ? "graduated" : "volume",
    seatTiers: seats ? seats.tiers.map((t) => ({ min: String(t.min_seats), max: t.max_seats === null ? "" : String(t.max_seats), perSeat: majorOf(t.price_per_seat, currency) })) : base.seatTiers,
  };
}

/** A draft's fault, said as the seller reads it; `where` names the price ("Price 2"). */
class DraftError extends Error {}

function money(text: string, currency: string, what: string, optional = false): number | null {
  if (optional && !text.trim()) return null;
  const v = toMinor(text, currency);
  if (v === null) throw new DraftError(`${what}: write an amount such as 19.99.`);
  return v;
}

function unitTiersOf(d: PriceDraft): Record<string, unknown> {
  const tiers = d.unitTiers.map((t, i) => {
    const last = i === d.unitTiers.length - 1;
    const upTo = t.upTo.trim() ? Number(t.upTo) : null;
    if (!last && (upTo === null || !Number.isInteger(upTo) || upTo < 1)) throw new DraftError(`Tier ${i + 1}: write up to how many units it goes.`);
    const unit = toMinorDecimal(t.unit || "0", d.currency);
    if (unit === null) throw new DraftError(`Tier ${i + 1}: write the price per unit, such as 0.002.`);
    return { up_to: last ? null : upTo, unit_amount: unit, flat_amount: money(t.flat, d.currency, `Tier ${i + 1}'s flat fee`, true) ?? 0 };
  });
  return { tier_type: d.tierType, tiers };
}

function seatTiersOf(d: PriceDraft): Record<string, unknown> {
  const tiers = d.seatTiers.map((t, i) => {
    const min = Number(t.min);
    const max = t.max.trim() ? Number(t.max) : null;
    if (!Number.isInteger(min) || min < 1 || (max !== null && !Number.isInteger(max))) throw new DraftError(`Seat tier ${i + 1}: write whole numbers of seats.`);
    return { min_seats: min, max_seats: max, price_per_seat: money(t.perSeat, d.currency, `Seat tier ${i + 1}'s price per seat`) };
  });
  return { seat_tier_type: d.seatTierType, tiers };
}

/** The API's new price for a draft (create shape). */
function newPrice(d: PriceDraft): Record<string, unknown> {
  const currency = d.currency.trim().toLowerCase();
  const c = { ...d, currency };
  const common = { price_currency: currency, ...(d.taxBehavior ? { tax_behavior: d.taxBehavior } : {}) };
  switch (d.kind) {
    case "free":
      return { amount_type: "free", ...common };
    case "fixed":
      return { amount_type: "fixed", ...common, price_amount: money(d.amount, currency, "Amount") };
    case "custom":
      return {
        amount_type: "custom",
        ...common,
        ...(d.minimum.trim() ? { minimum_amount: money(d.minimum, currency, "Minimum") } : {}),
        maximum_amount: money(d.maximum, currency, "Maximum", true),
        preset_amount: money(d.preset, currency, "Suggested", true),
      };
    case "metered_unit": {
      if (!d.meterId) throw new DraftError("Choose the meter whose usage this price bills.");
      const unit = d.tiered ? null : toMinorDecimal(d.unit, currency);
      if (!d.tiered && unit === null) throw new DraftError("Price per unit: write an amount such as 0.002.");
      return {
        amount_type: "metered_unit",
        ...common,
        meter_id: d.meterId,
        ...(d.tiered ? { unit_tiers: unitTiersOf(c) } : { unit_amount: unit }),
        cap_amount: money(d.cap, currency, "Cap", true),
        ...(d.overage === "credit_only" ? { overage: "credit_only" } : {}),
      };
    }
    case "seat_based":
      return { amount_type: "seat_based", ...common, seat_tiers: seatTiersOf(c) };
  }
}

/** The update's (or the creation's) `prices`, or the first fault of a draft. */
export function pricesOf(drafts: PriceDraft[]): { prices: Array<Record<string, unknown>> } | { error: string } {
  try {
    return { prices: drafts.map((d, i) => {
      if (d.id && !d.edited) return { id: d.id };
      try {
        return newPrice(d);
      } catch (e) {
        if (e instanceof DraftError && drafts.length > 1) throw new DraftError(`Price ${i + 1}: ${e.message}`);
        throw e;
      }
    }) };
  } catch (e) {
    if (e instanceof DraftError) return { error: e.message };
    throw e;
  }
}
