// Request bodies of /v1/discounts: fixed (amount + currency, or 0.49.0's per-currency `amounts`) and
// percentage (basis points) discounts, each once, forever or repeating for duration_in_months.
import { z } from "zod";
import { datetimeInput, isUuid, metadataInput } from "../http.js";

const MAX_INT = 2_147_483_647;

/** Polar's PresentmentCurrency (identical in SDK 0.47.1 and 0.49.0). */
export const PRESENTMENT_CURRENCIES = [
  "aed", "all", "amd", "aoa", "ars", "aud", "awg", "azn", "bam", "bbd", "bdt", "bif", "bmd", "bnd", "bob", "brl",
  "bsd", "bwp", "bzd", "cad", "cdf", "chf", "clp", "cny", "cop", "crc", "cve", "czk", "djf", "dkk", "dop", "dzd",
  "egp", "etb", "eur", "fjd", "fkp", "gbp", "gel", "gip", "gmd", "gnf", "gtq", "gyd", "hkd", "hnl", "htg", "huf",
  "idr", "ils", "inr", "isk", "jmd", "jpy", "kes", "kgs", "khr", "kmf", "krw", "kyd", "kzt", "lak", "lkr", "lrd",
  "lsl", "mad", "mdl", "mga", "mkd", "mnt", "mop", "mur", "mvr", "mwk", "mxn", "myr", "mzn", "nad", "ngn", "nio",
  "nok", "npr", "nzd", "pab", "pen", "pgk", "php", "pkr", "pln", "pyg", "qar", "ron", "rsd", "rwf", "sar", "sbd",
  "scr", "sek", "sgd", "shp", "sos", "srd", "szl", "thb", "tjs", "top", "try", "ttd", "twd", "tzs", "uah", "ugx",
  "usd", "uyu", "uzs", "vnd", "vuv", "wst", "xaf", "xcd", "xcg", "xof", "xpf", "yer", "zar", "zmw",
] as const;
export const DEFAULT_CURRENCY = "usd";

export const DISCOUNT_TYPES = ["fixed", "percentage"] as const;
export const DISCOUNT_DURATIONS = ["once", "forever", "repeating"] as const;

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const currency = z.enum(PRESENTMENT_CURRENCIES);
const amount = z.number().int().min(1).max(MAX_INT);
const amounts = z
  .partialRecord(currency, amount)
  .refine((m) => Object.keys(m).length > 0, { message: "amounts must name at least one currency" });

/** Codes customers type at checkout: letters and digits, matched case-insensitively. */
const code = z.string().regex(/^[A-Za-z0-9]{3,256}$/, "The code must be 3 to 256 letters or digits");

const common = {
  name: z.string().trim().min(1).max(256),
  code: code.nullish(),
  starts_at: datetimeInput.nullish(),
  ends_at: datetimeInput.nullish(),
  max_redemptions: z.number().int().min(1).max(MAX_INT).nullish(),
  duration: z.enum(DISCOUNT_DURATIONS),
  duration_in_months: z.number().int().min(1).max(999).nullish(),
  products: z.array(uuid).max(100).nullish(),
  metadata: metadataInput.optional(),
  organization_id: z.string().nullish(),
};

type Ctx = z.core.$RefinementCtx;

function checkDuration(d: { duration?: string | null; duration_in_months?: number | null | undefined }, ctx: Ctx) {
  if (d.duration === "repeating" && d.duration_in_months == null) {
    ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: "duration_in_months is required for a repeating discount" });
  }
  if (d.duration && d.duration !== "repeating" && d.duration_in_months != null) {
    ctx.addIssue({ code: "custom", path: ["duration_in_months"], message: "duration_in_months is only allowed for a repeating discount" });
  }
}

export function checkPeriod(starts: string | Date | null | undefined, ends: string | Date | null | undefined, ctx: Ctx) {
  if (starts && ends && new Date(ends).getTime() <= new Date(starts).getTime()) {
    ctx.addIssue({ code: "custom", path: ["ends_at"], message: "ends_at must be after starts_at" });
  }
}

export const DiscountCreateInput = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("fixed"),
      ...common,
      amount: amount.nullish(),
      currency: currency.nullish(),
      amounts: amounts.nullish(),
    }),
    z.object({ type: z.literal("percentage"), ...common, basis_points: z.number().int().min(1).max(10_000) }),
  ])
  .superRefine((d, ctx) => {
    checkDuration(d, ctx);
    checkPeriod(d.starts_at, d.ends_at, ctx);
    if (d.type === "fixed" && d.amount == null && !d.amounts) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: "amount (with currency) or amounts is required" });
    }
  });
export type DiscountCreateInput = z.output<typeof DiscountCreateInput>;

export const DiscountUpdateInput = z
  .object({
    name: common.name.nullish(),
    code: code.nullish(),
    starts_at: datetimeInput.nullish(),
    ends_at: datetimeInput.nullish(),
    max_redemptions: common.max_redemptions,
    type: z.enum(DISCOUNT_TYPES).nullish(),
    duration: z.enum(DISCOUNT_DURATIONS).nullish(),
    duration_in_months: common.duration_in_months,
    amount: amount.nullish(),
    currency: currency.nullish(),
    amounts: amounts.nullish(),
    basis_points: z.number().int().min(1).max(10_000).nullish(),
    products: common.products,
    metadata: metadataInput.optional(),
  })
  .superRefine((d, ctx) => checkPeriod(d.starts_at, d.ends_at, ctx));
export type DiscountUpdateInput = z.output<typeof DiscountUpdateInput>;

interface AmountsGiven {
  amount?: number | null | undefined;
  currency?: string | null | undefined;
  amounts?: Record<string, number> | null | undefined;
}
export interface ResolvedAmounts {
  amounts: Record<string, number>;
  currency: string;
  amount: number;
}

/**
 * The amounts of a fixed discount and its primary entry (`amount`/`currency` on the wire). `current` is the
 * stored state on update (empty on create). `amounts` replaces the map; `amount` sets the primary entry (in
 * `currency`, else the current primary currency, else usd), replacing the previous primary entry; `currency`
 * alone switches the primary entry to that currency (moving the amount if the map has none for it).
 * Returns [field, message] when the input disagrees with itself.
 */
export function resolveAmounts(given: AmountsGiven, current: ResolvedAmounts | null): ResolvedAmounts | [string, string] {
  const map: Record<string, number> = { ...(given.amounts ?? current?.amounts ?? {}) };
  let primary = given.currency ?? current?.currency ?? DEFAULT_CURRENCY;
  if (given.amount != null) {
    if (given.amounts) {
      if (map[primary] !== undefined && map[primary] !== given.amount) return ["amounts", `amount and amounts.${primary} differ`];
    } else if (current && current.currency !== primary) {
      delete map[current.currency];
    }
    map[primary] = given.amount;
  } else if (map[primary] === undefined) {
    if (given.currency && !given.amounts && current) {
      delete map[current.currency];
      map[primary] = current.amount;
    } else if (given.currency) {
      return ["currency", `amounts has no entry for ${given.currency}`];
    } else {
      primary = map[DEFAULT_CURRENCY] !== undefined ? DEFAULT_CURRENCY : (Object.keys(map).sort()[0] ?? primary);
    }
  }
  const amount = map[primary];
  if (amount === undefined) return ["amount", "amount (with currency) or amounts is required"];
  return { amounts: map, currency: primary, amount };
}
