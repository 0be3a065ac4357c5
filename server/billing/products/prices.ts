// Prices: the create shapes of every amount type (fixed, custom, free, metered_unit, seat_based, and the
// legacy per-price recurring shape), their amount rules, and the rules a product's set of prices must follow.
import { z } from "zod";
import { CURRENCY_MESSAGE, isCurrencyCode } from "../../../shared/currencies.js";
import { OVERAGE_MODES } from "../../../shared/entitlements.js";
import { UNIT_TIER_TYPES, tiersIssue } from "../../../shared/tiers.js";
import type { productPrice } from "../../db/schema/index.js";
import { minimumChargeAmount } from "../../payments/minimum-charge.js";
import type { ValidationIssue } from "../errors.js";
import { assertNever } from "../../../shared/kinds.js";
import { rulesOf } from "./price-kinds.js";
import { INTERVALS, TAX_BEHAVIORS, type PriceRow } from "./wire.js";

/** Polar's bounds on amounts in minor units (the processor's floor and a sanity ceiling). */
export const MINIMUM_PRICE_AMOUNT = 50;
export const MAXIMUM_PRICE_AMOUNT = 99_999_999;
const INT4_MAX = 2_147_483_647;

/**
 * The smallest non-zero price in `currency`: Polar's floor, raised to the processor's minimum charge where Stripe's
 * table asks more (DKK 2.50, HKD 4.00, CZK 15.00, MXN 10.00 …), so a price alone is never too small to be paid.
 */
export const minimumPriceAmount = (currency: string): number => Math.max(MINIMUM_PRICE_AMOUNT, minimumChargeAmount(currency));

/** The per-currency floor of a non-zero amount at `path` (the schema's own bound is Polar's, in every currency). */
function floorIssue(amount: number | null | undefined, currency: string, path: string, ctx: z.RefinementCtx): void {
  const floor = minimumPriceAmount(currency);
  if (amount != null && amount > 0 && amount < floor) {
    ctx.addIssue({ code: "custom", path: [path], message: `Amount must be 0 or at least ${floor}: the smallest amount that can be charged in ${currency.toUpperCase()}` });
  }
}

const uuid = z.guid({ message: "Input should be a valid UUID" });

const amount = z
  .int()
  .min(MINIMUM_PRICE_AMOUNT, `Amount must be at least ${MINIMUM_PRICE_AMOUNT}`)
  .max(MAXIMUM_PRICE_AMOUNT, `Amount must be at most ${MAXIMUM_PRICE_AMOUNT}`);
/** 0 (free / pay what you want; a `fixed` price of 0 is 0.49's free price) or a chargeable amount. */
const amountOrZero = z
  .int()
  .min(0)
  .max(MAXIMUM_PRICE_AMOUNT, `Amount must be at most ${MAXIMUM_PRICE_AMOUNT}`)
  .refine((v) => v === 0 || v >= MINIMUM_PRICE_AMOUNT, `Amount must be 0 or at least ${MINIMUM_PRICE_AMOUNT}`);

/** A positive decimal with at most 5 integer digits and 12 decimals (numeric(17,12)), as its shortest string. */
const unitAmount = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    const text = typeof v === "number" ? (Number.isFinite(v) ? v.toFixed(12) : "") : v.trim();
    const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
    const int = m?.[1]?.replace(/^0+(?=\d)/, "") ?? "";
    const frac = (m?.[2] ?? "").replace(/0+$/, "");
    if (!m || int.length > 5 || frac.length > 12) {
      ctx.addIssue({ code: "custom", message: "Input should be a decimal with at most 5 digits before and 12 after the point" });
      return z.NEVER;
    }
    if (/^0*$/.test(int + frac)) {
      ctx.addIssue({ code: "custom", message: "Input should be greater than 0" });
      return z.NEVER;
    }
    return frac ? `${int}.${frac}` : int;
  });

const SeatTier = z.object({
  min_seats: z.int().min(1),
  max_seats: z.int().min(1).nullish(),
  price_per_seat: z.int().min(0).max(MAXIMUM_PRICE_AMOUNT),
});

/** Tiers, sorted by min_seats, must be contiguous from the first; only the last may be unbounded. */
const SeatTiers = z.object({
  seat_tier_type: z.enum(["volume", "graduated"]).default("volume"),
  tiers: z
    .array(SeatTier)
    .min(1, "At least one tier is required")
    .transform((tiers, ctx) => {
      const sorted = [...tiers].sort((a, b) => a.min_seats - b.min_seats);
      for (const [i, t] of sorted.entries()) {
        if (t.max_seats != null && t.max_seats < t.min_seats) {
          ctx.addIssue({ code: "custom", path: [tiers.indexOf(t), "max_seats"], message: "max_seats must be at least min_seats" });
          return z.NEVER;
        }
        const next = sorted[i + 1];
        if (!next) break;
        if (t.max_seats == null) {
          ctx.addIssue({ code: "custom", message: "Only the last tier can have unlimited max_seats" });
          return z.NEVER;
        }
        if (next.min_seats !== t.max_seats + 1) {
          ctx.addIssue({
            code: "custom",
            message: `Gap or overlap between tiers: tier ending at ${t.max_seats} and tier starting at ${next.min_seats}`,
          });
          return z.NEVER;
        }
      }
      return sorted.map((t) => ({ min_seats: t.min_seats, max_seats: t.max_seats ?? null, price_per_seat: t.price_per_seat }));
    }),
});

/** A metered price's tiers (till's own `unit_tiers`, shared/tiers.ts): in order, only the last unbounded. */
const UnitTiersInput = z
  .object({
    tier_type: z.enum(UNIT_TIER_TYPES).default("graduated"),
    tiers: z
      .array(
        z.object({
          up_to: z.int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(),
          unit_amount: z.union([z.literal(0), z.literal("0"), unitAmount]).transform((v) => (v === 0 || v === "0" ? "0" : v)),
          flat_amount: z.int().min(0).max(MAXIMUM_PRICE_AMOUNT).default(0),
        }),
      )
      .min(1, "At least one tier is required")
      .max(20, "At most 20 tiers"),
  })
  .superRefine((t, ctx) => {
    const issue = tiersIssue(t);
    if (issue) ctx.addIssue({ code: "custom", path: ["tiers"], message: issue });
  });

const base = {
  price_currency: z.string().refine(isCurrencyCode, CURRENCY_MESSAGE).default("usd"),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullish(),
  // the legacy shape: a price that carries its own recurring interval (products created before intervals
  // moved to the product). Only these two keys set it apart.
  type: z.enum(["one_time", "recurring"]).optional(),
  recurring_interval: z.enum(INTERVALS).nullish(),
};

/** The legacy pair must agree: a recurring price names its interval, a one-time price has none. */
function legacyPair(p: { type?: string | undefined; recurring_interval?: string | null | undefined }, ctx: z.RefinementCtx) {
  if (p.type === "recurring" && !p.recurring_interval) {
    ctx.addIssue({ code: "custom", path: ["recurring_interval"], message: "A recurring price needs its recurring_interval" });
  }
  if (p.type === "one_time" && p.recurring_interval) {
    ctx.addIssue({ code: "custom", path: ["recurring_interval"], message: "A one_time price has no recurring_interval" });
  }
}

/** A custom price's minimum: as given, else the currency's floor. */
const customMinimum = (p: { minimum_amount?: number | undefined; price_currency: string }): number => p.minimum_amount ?? minimumPriceAmount(p.price_currency);

const custom = z
  .object({
    amount_type: z.literal("custom"),
    ...base,
    // the currency's floor when left out (minimumPriceAmount): read it with customMinimum
    minimum_amount: amountOrZero.optional(),
    maximum_amount: amount.nullish(),
    preset_amount: amountOrZero.nullish(),
  })
  .superRefine(legacyPair)
  .superRefine((p, ctx) => {
    const max = p.maximum_amount ?? null;
    const preset = p.preset_amount ?? null;
    const min = customMinimum(p);
    for (const [path, value] of [["minimum_amount", p.minimum_amount], ["maximum_amount", max], ["preset_amount", preset]] as const) floorIssue(value, p.price_currency, path, ctx);
    if (max !== null && max < min) {
      ctx.addIssue({ code: "custom", path: ["maximum_amount"], message: "maximum_amount must be at least minimum_amount" });
    }
    if (preset !== null && preset < min) {
      ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "preset_amount must be at least minimum_amount" });
    }
    if (preset !== null && max !== null && preset > max) {
      ctx.addIssue({ code: "custom", path: ["preset_amount"], message: "preset_amount must be at most maximum_amount" });
    }
  });

export const PriceCreateInput = z.discriminatedUnion("amount_type", [
  // Polar 0.49: "The price in cents. Set to `0` for a free price." (its SDK has no `free` price type any more)
  z
    .object({ amount_type: z.literal("fixed"), ...base, price_amount: amountOrZero })
    .superRefine(legacyPair)
    .superRefine((p, ctx) => floorIssue(p.price_amount, p.price_currency, "price_amount", ctx)),
  custom,
  z.object({ amount_type: z.literal("free"), ...base }).superRefine(legacyPair),
  z
    .object({
      amount_type: z.literal("metered_unit"),
      ...base,
      meter_id: uuid,
      // with unit_tiers, the first tier's unit amount when left out (what SDK clients unaware of tiers read)
      unit_amount: unitAmount.optional(),
      cap_amount: z.int().min(0).max(INT4_MAX).nullish(),
      unit_tiers: UnitTiersInput.nullish(),
      // till's own: what happens at zero balance (shared/entitlements.ts); null is credit_then_invoice
      overage: z.enum(OVERAGE_MODES).nullish(),
    })
    .superRefine(legacyPair)
    .superRefine((p, ctx) => {
      if (p.unit_amount === undefined && !p.unit_tiers) ctx.addIssue({ code: "custom", path: ["unit_amount"], message: "Field required" });
    }),
  z.object({ amount_type: z.literal("seat_based"), ...base, seat_tiers: SeatTiers }).superRefine(legacyPair),
]);
export type PriceCreateInput = z.output<typeof PriceCreateInput>;

/** `prices` items of an update: an existing price to keep (`{id}`) or a new price. */
export const PriceUpdateItem = z.discriminatedUnion("amount_type", [
  z.object({ amount_type: z.undefined().optional(), id: uuid }),
  ...PriceCreateInput.options,
]);
export type PriceUpdateItem = z.output<typeof PriceUpdateItem>;

/** A price in the legacy shape carries its own recurring interval. */
export const isLegacyInput = (p: PriceCreateInput) => Boolean(p.recurring_interval);

// ---- the set of prices a product offers -----------------------------------------------------------

/** One active price of a product, new or kept, as far as the set rules care. */
export interface PriceSlot {
  amountType: string;
  currency: string;
  legacyInterval: string | null;
  loc: Array<string | number>;
}

export const slotOfInput = (p: PriceCreateInput, loc: Array<string | number>): PriceSlot => ({
  amountType: p.amount_type,
  currency: p.price_currency,
  legacyInterval: isLegacyInput(p) ? (p.recurring_interval ?? null) : null,
  loc,
});

export const slotOfRow = (row: PriceRow, loc: Array<string | number>): PriceSlot => ({
  amountType: row.amountType,
  currency: row.priceCurrency,
  legacyInterval: row.legacy ? row.recurringInterval : null,
  loc,
});

/**
 * The rules of a product's active prices. A current product: at most one static price (fixed, custom, free,
 * seat_based) per currency, any number of metered prices but only when recurring. A legacy product: only
 * recurring fixed/custom/free prices, each naming its interval, at most one per interval and currency.
 */
export function priceSetIssues(slots: PriceSlot[], product: { recurring: boolean; legacy: boolean }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const issue = (loc: Array<string | number>, msg: string) => issues.push({ loc, msg, type: "value_error" });
  const seen = new Set<string>();
  for (const s of slots) {
    const rules = rulesOf(s.amountType);
    if (product.legacy) {
      if (s.legacyInterval === null) {
        issue(s.loc, "Prices of a legacy recurring product must be recurring prices with a recurring_interval.");
        continue;
      }
      if (!rules?.legacy) {
        issue([...s.loc, "amount_type"], "Legacy recurring prices can only be fixed, custom or free.");
        continue;
      }
      const key = `${s.legacyInterval}/${s.currency}`;
      if (seen.has(key)) issue(s.loc, "Only one price per recurring interval and currency is allowed.");
      seen.add(key);
      continue;
    }
    if (s.legacyInterval !== null) {
      issue(s.loc, "A price can only carry its own recurring_interval on a legacy product; set it on the product.");
      continue;
    }
    if (rules && !rules.static) {
      if (!product.recurring) issue(s.loc, "Metered prices are not supported on one-time purchase products.");
      continue;
    }
    if (rules?.static) {
      if (seen.has(s.currency)) issue(s.loc, "Only one static price (fixed, custom, free or seat_based) is allowed per currency.");
      seen.add(s.currency);
    }
  }
  return issues;
}

type PriceInsert = typeof productPrice.$inferInsert;

/** The row of a new price on `product` (a legacy price keeps its own interval). */
export function priceRowValues(
  p: PriceCreateInput,
  product: { id: string; organizationId: string; recurringInterval: string | null },
  position: number,
): PriceInsert {
  const legacy = isLegacyInput(p);
  const interval = legacy ? (p.recurring_interval ?? null) : product.recurringInterval;
  const row: PriceInsert = {
    organizationId: product.organizationId,
    productId: product.id,
    amountType: p.amount_type,
    type: interval ? "recurring" : "one_time",
    recurringInterval: interval,
    priceCurrency: p.price_currency,
    taxBehavior: p.tax_behavior ?? null,
    legacy,
    position,
  };
  switch (p.amount_type) {
    case "fixed":
      return { ...row, priceAmount: p.price_amount };
    case "custom":
      return { ...row, minimumAmount: customMinimum(p), maximumAmount: p.maximum_amount ?? null, presetAmount: p.preset_amount ?? null };
    case "metered_unit":
      return {
        ...row,
        meterId: p.meter_id.toLowerCase(),
        unitAmount: p.unit_amount ?? p.unit_tiers?.tiers[0]?.unit_amount ?? "0",
        capAmount: p.cap_amount ?? null,
        unitTiers: p.unit_tiers ?? null,
        overage: p.overage === "credit_only" ? "credit_only" : null,
      };
    case "seat_based":
      return { ...row, seatTiers: p.seat_tiers };
    case "free":
      return row;
    default:
      return assertNever(p, "price kind");
  }
}
