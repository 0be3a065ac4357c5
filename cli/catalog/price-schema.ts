// The catalog file's prices (schema.ts's products list them): zod for each price kind, turning what the seller
// wrote into the model's PriceSpec — seat tiers sorted, a metered price's tiers (`unit_tiers`) and unit amount
// in canonical form — and the key and amount rules the other sections share.
import { z } from "zod";
import { isCurrencyCode } from "../../shared/currencies.js";
import { assertNever } from "../../shared/kinds.js";
import { UNIT_TIER_TYPES } from "../../shared/tiers.js";
import { canonicalDecimal, canonicalTiers, KEY_MESSAGE, KEY_PATTERN, meteredUnitAmount, type PriceSpec, type SeatTier, TAX_BEHAVIORS } from "./model.js";

export const Key = z.string().regex(KEY_PATTERN, KEY_MESSAGE);
export const INT4_MAX = 2_147_483_647;
const MIN_AMOUNT = 50;
const MAX_AMOUNT = 99_999_999;

export const CURRENCY_HINT = "expected a lower-case ISO 4217 currency code such as usd or eur";
/** A price's currency: the server's rule (shared/currencies.ts), so what `catalog pull` wrote always plans. */
const priceCurrency = z.string().refine(isCurrencyCode, CURRENCY_HINT);
const amount = z.int().min(MIN_AMOUNT, `amounts are at least ${MIN_AMOUNT} (minor units)`).max(MAX_AMOUNT);
const amountOrZero = z
  .int()
  .min(0)
  .max(MAX_AMOUNT)
  .refine((v) => v === 0 || v >= MIN_AMOUNT, `expected 0 or at least ${MIN_AMOUNT} (minor units)`);

const priceBase = {
  price_currency: priceCurrency.default("usd"),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullish(),
};
const SeatTierInput = z.strictObject({
  min_seats: z.int().min(1),
  max_seats: z.int().min(1).nullish(),
  price_per_seat: z.int().min(0).max(MAX_AMOUNT),
});
const DECIMAL_MESSAGE = "expected a positive decimal with at most 5 digits before and 12 after the point";
/** A metered price's tiers (the server's rule, shared/tiers.ts): in order of up_to, only the last without one. */
const UnitTierInput = z.strictObject({
  up_to: z.int().min(1).max(Number.MAX_SAFE_INTEGER).nullish(),
  unit_amount: z.union([z.string(), z.number()]).refine((v) => canonicalDecimal(v, true) !== null, {
    message: "expected 0 or a positive decimal with at most 5 digits before and 12 after the point",
  }),
  flat_amount: z.int().min(0).max(MAX_AMOUNT).nullish(),
});
const UnitTiersInput = z
  .strictObject({
    tier_type: z.enum(UNIT_TIER_TYPES).default("graduated"),
    tiers: z.array(UnitTierInput).min(1, "at least one tier is required").max(20, "at most 20 tiers"),
  })
  .superRefine((t, ctx) => {
    const issue = (i: number, message: string) => ctx.addIssue({ code: "custom", path: ["tiers", i, "up_to"], message });
    const last = t.tiers.length - 1;
    let before = 0;
    t.tiers.forEach((tier, i) => {
      if (tier.up_to == null) {
        if (i < last) issue(i, "only the last tier has no up_to (the others end at a number of units)");
      } else if (i === last) issue(i, "the last tier has no up_to: it takes every unit above the tier before");
      else if (tier.up_to <= before) issue(i, `tiers go in increasing order of up_to: ${tier.up_to} follows ${before}`);
      else before = tier.up_to;
    });
  });

export const PriceInput = z
  .discriminatedUnion("amount_type", [
    // a fixed price of 0 is 0.49's free price (the server takes 0 or at least 50)
    z.strictObject({ amount_type: z.literal("fixed"), ...priceBase, price_amount: amountOrZero }),
    z.strictObject({
      amount_type: z.literal("custom"),
      ...priceBase,
      minimum_amount: amountOrZero.default(MIN_AMOUNT),
      maximum_amount: amount.nullish(),
      preset_amount: amountOrZero.nullish(),
    }),
    z.strictObject({ amount_type: z.literal("free"), ...priceBase }),
    z.strictObject({
      amount_type: z.literal("metered_unit"),
      ...priceBase,
      meter: Key,
      // with unit_tiers it may be left out: the first tier's
      unit_amount: z
        .union([z.string(), z.number()])
        .refine((v) => canonicalDecimal(v) !== null, { message: DECIMAL_MESSAGE })
        .nullish(),
      unit_tiers: UnitTiersInput.nullish(),
      cap_amount: z.int().min(0).max(INT4_MAX).nullish(),
    }),
    z.strictObject({
      amount_type: z.literal("seat_based"),
      ...priceBase,
      seat_tiers: z.strictObject({
        seat_tier_type: z.enum(["volume", "graduated"]).default("volume"),
        tiers: z.array(SeatTierInput).min(1),
      }),
    }),
  ])
  .superRefine((p, ctx) => {
    if (p.amount_type === "custom") {
      const { minimum_amount: min, maximum_amount: max, preset_amount: preset } = p;
      if (max != null && max < min) ctx.addIssue({ code: "custom", path: ["maximum_amount"], message: "must be at least minimum_amount" });
      if (preset != null && preset < min) ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "must be at least minimum_amount" });
      if (preset != null && max != null && preset > max) {
        ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "must be at most maximum_amount" });
      }
    }
    if (p.amount_type === "seat_based") checkTiers(p.seat_tiers.tiers, ctx);
    if (p.amount_type === "metered_unit" && p.unit_amount == null && !p.unit_tiers) {
      ctx.addIssue({ code: "custom", path: ["unit_amount"], message: "a metered price needs unit_amount or unit_tiers" });
    }
  })
  .transform((p): PriceSpec => {
    const base = { price_currency: p.price_currency, tax_behavior: p.tax_behavior ?? null };
    switch (p.amount_type) {
      case "fixed":
        return { amount_type: "fixed", ...base, price_amount: p.price_amount };
      case "custom":
        return {
          amount_type: "custom",
          ...base,
          minimum_amount: p.minimum_amount,
          maximum_amount: p.maximum_amount ?? null,
          preset_amount: p.preset_amount ?? null,
        };
      case "free":
        // the server stores a free price and reads it back as a fixed price of 0: the same price
        return { amount_type: "fixed", ...base, price_amount: 0 };
      case "metered_unit": {
        const tiers = p.unit_tiers ? canonicalTiers(p.unit_tiers) : null;
        return {
          amount_type: "metered_unit",
          ...base,
          meter: p.meter,
          unit_amount: meteredUnitAmount(p.unit_amount == null ? null : (canonicalDecimal(p.unit_amount) ?? ""), tiers),
          unit_tiers: tiers,
          cap_amount: p.cap_amount ?? null,
        };
      }
      case "seat_based":
        return { amount_type: "seat_based", ...base, seat_tiers: normalizeTiers(p.seat_tiers) };
      default:
        return assertNever(p, "price kind");
    }
  });

function checkTiers(tiers: Array<{ min_seats: number; max_seats?: number | null | undefined }>, ctx: z.RefinementCtx): void {
  const sorted = [...tiers].sort((a, b) => a.min_seats - b.min_seats);
  sorted.forEach((t, i) => {
    const at = ["seat_tiers", "tiers", tiers.indexOf(t)];
    if (t.max_seats != null && t.max_seats < t.min_seats) {
      ctx.addIssue({ code: "custom", path: [...at, "max_seats"], message: "must be at least min_seats" });
    }
    const next = sorted[i + 1];
    if (!next) return;
    if (t.max_seats == null) ctx.addIssue({ code: "custom", path: [...at, "max_seats"], message: "only the last tier can be unbounded" });
    else if (next.min_seats !== t.max_seats + 1) {
      ctx.addIssue({ code: "custom", path: at, message: `tiers must be contiguous: ${t.max_seats} is followed by ${next.min_seats}` });
    }
  });
}

export function normalizeTiers(s: {
  seat_tier_type?: "volume" | "graduated" | undefined;
  tiers: Array<{ min_seats: number; max_seats?: number | null | undefined; price_per_seat: number }>;
}): { seat_tier_type: "volume" | "graduated"; tiers: SeatTier[] } {
  const tiers = [...s.tiers]
    .sort((a, b) => a.min_seats - b.min_seats)
    .map((t) => ({ min_seats: t.min_seats, max_seats: t.max_seats ?? null, price_per_seat: t.price_per_seat }));
  return { seat_tier_type: s.seat_tier_type ?? "volume", tiers };
}
