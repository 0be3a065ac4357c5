// The price flags of `till products create|update`: one flag (or group of flags) per price kind — fixed
// (--price), pay what you want (--custom-price --min/--max/--preset), free (--free), seat-based (--seat-tier,
// repeated), metered (--metered --meter --unit-amount --cap, tiers: price-tiers.ts) — and --prices, the wire's
// price array as JSON for anything the flags do not cover (several currencies, several meters). Amounts are whole
// minor units (see flags.ts).
import type { Command } from "commander";
import { assertNever, PRICE_KIND_IS_STATIC, PRICE_KINDS, STATIC_PRICE_KINDS, type PriceKind } from "../../shared/kinds.js";
import { UsageError } from "../errors.js";
import {
  checkSeatTiers,
  collectSeatTier,
  isRecord,
  oneOf,
  onlyWith,
  parseAmount,
  parseCurrency,
  parseId,
  parseUnitAmount,
  readJsonFlag,
  type SeatTier,
} from "../flags.js";
import { PRICE_FLAG } from "../kinds.js";
import { OVERAGE_MODES, type OverageMode } from "../../shared/entitlements.js";
import { meteredAmountFields, tierOptions, type TierFlags } from "./price-tiers.js";

interface PriceFlagsBase {
  currency?: string;
  price?: number;
  customPrice?: boolean;
  min?: number;
  max?: number;
  preset?: number;
  free?: boolean;
  seatTier?: SeatTier[];
  metered?: boolean;
  meter?: string;
  unitAmount?: string;
  cap?: number;
  creditOnly?: boolean;
  overage?: OverageMode;
  prices?: string;
}

export type PriceFlags = PriceFlagsBase & TierFlags;

/** The order the flags' prices are sent in: the static price first, then the metered one. */
const FLAG_ORDER: readonly PriceKind[] = [...STATIC_PRICE_KINDS, ...PRICE_KINDS.filter((k) => !PRICE_KIND_IS_STATIC[k])];

/** `--prices`: the wire's price array; the kinds are checked here, the rest by the server. */
function pricesFromJson(value: string): Record<string, unknown>[] {
  const parsed = readJsonFlag("--prices", value);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) throw new UsageError("--prices: expected at least one price");
  return list.map((p: unknown, i) => {
    if (!isRecord(p)) throw new UsageError(`--prices[${i}]: expected a JSON object such as {"amount_type":"fixed","price_amount":1999}`);
    if (!PRICE_KINDS.includes(p.amount_type as PriceKind)) {
      throw new UsageError(
        `--prices[${i}].amount_type: unknown price kind ${JSON.stringify(p.amount_type ?? null)}; expected one of ${PRICE_KINDS.join(", ")}`,
      );
    }
    return p;
  });
}

/** Whether the flags ask for a price of each kind. */
const kindsGiven = (o: PriceFlags): { [K in PriceKind]: boolean } => ({
  fixed: o.price !== undefined,
  custom: Boolean(o.customPrice),
  free: Boolean(o.free),
  metered_unit: Boolean(o.metered),
  seat_based: Boolean(o.seatTier),
});

/** The price of `kind` the flags describe (it was given), checking what the flags of that kind say together. */
function priceOf(kind: PriceKind, o: PriceFlags, base: { price_currency: string }): Record<string, unknown> {
  switch (kind) {
    case "fixed":
      return { amount_type: "fixed", ...base, price_amount: o.price };
    case "custom": {
      const { min, max, preset } = o;
      if (min !== undefined && max !== undefined && max < min) throw new UsageError(`--max: ${max} is below --min ${min}`);
      if (preset !== undefined && ((min !== undefined && preset < min) || (max !== undefined && preset > max))) {
        throw new UsageError(`--preset: ${preset} is outside --min…--max`);
      }
      return { amount_type: "custom", ...base, minimum_amount: min, maximum_amount: max, preset_amount: preset };
    }
    case "free":
      return { amount_type: "free", ...base };
    case "seat_based":
      return { amount_type: "seat_based", ...base, seat_tiers: { tiers: checkSeatTiers(o.seatTier ?? []) } };
    case "metered_unit":
      if (!o.meter || (!o.unitAmount && !o.tier)) {
        throw new UsageError(`--metered: needs ${!o.meter ? "--meter <id>" : "--unit-amount <amount> or --tier"} (the meter and the price per unit)`);
      }
      return {
        amount_type: "metered_unit",
        ...base,
        meter_id: o.meter,
        ...meteredAmountFields(o),
        cap_amount: o.cap,
        ...overageOf(o),
      };
    default:
      return assertNever(kind, "price kind");
  }
}

/** The metered price's `overage` (till's): --overage, or --credit-only for short; none is Polar's behaviour. */
function overageOf(o: PriceFlags): { overage?: OverageMode } {
  if (o.creditOnly && o.overage === "credit_then_invoice") throw new UsageError("--credit-only and --overage credit_then_invoice: choose one");
  const overage = o.creditOnly ? "credit_only" : o.overage;
  return overage ? { overage } : {};
}

/** The prices the flags describe, or undefined when no price flag was given. */
export function pricesFromFlags(o: PriceFlags): Record<string, unknown>[] | undefined {
  const given = kindsGiven(o);
  const kinds = STATIC_PRICE_KINDS.filter((k) => given[k]).map((k) => PRICE_FLAG[k]);
  if (!o.customPrice) onlyWith({ "--min": o.min, "--max": o.max, "--preset": o.preset }, "--custom-price");
  if (!o.metered) {
    onlyWith({ "--meter": o.meter, "--unit-amount": o.unitAmount, "--cap": o.cap, "--credit-only": o.creditOnly, "--overage": o.overage, "--tier": o.tier, "--tier-type": o.tierType }, "--metered");
  }
  if (o.prices !== undefined) {
    if (kinds.length > 0 || o.metered || o.currency) {
      throw new UsageError(`--prices: replaces ${kinds[0] ?? (o.metered ? "--metered" : "--currency")}; use one or the other`);
    }
    return pricesFromJson(o.prices);
  }
  if (kinds.length > 1) {
    throw new UsageError(`${kinds.join(" and ")}: choose one price kind (a product has one fixed, pay-what-you-want, free or seat-based price per currency)`);
  }
  if (kinds.length === 0 && !o.metered) {
    if (o.currency) throw new UsageError("--currency: only with a price flag (--price, --custom-price, --free, --seat-tier or --metered)");
    return undefined;
  }
  const base = { price_currency: o.currency ?? "usd" };
  return FLAG_ORDER.filter((k) => given[k]).map((k) => priceOf(k, o, base));
}

/**
 * The price flags on `cmd`; `verb` says what a flag does to the product's prices ("with", "replace the prices with").
 */
export function priceOptions(cmd: Command, verb: string): Command {
  const metered = cmd
    .option("--price <amount>", `${verb} a fixed price, in minor units (1999 = $19.99)`, parseAmount)
    .option("--custom-price", `${verb} a pay-what-you-want price (with --min, --max, --preset)`)
    .option("--min <amount>", "pay what you want: the least a customer may pay (default 50; 0 allows free)", parseAmount)
    .option("--max <amount>", "pay what you want: the most a customer may pay", parseAmount)
    .option("--preset <amount>", "pay what you want: the amount suggested at checkout", parseAmount)
    .option("--free", `${verb} a free price`)
    .option("--seat-tier <tier>", `${verb} a seat-based price, one tier per flag: 1-10:1000 (seats 1 to 10 at 1000 each), 11+:800`, collectSeatTier)
    .option("--metered", `${verb} a usage-based price (with --meter and --unit-amount); recurring products only`)
    .option("--meter <id>", "metered: the meter that counts the usage", parseId)
    .option("--unit-amount <amount>", "metered: price per unit in minor units, fractions allowed (0.5 = half a cent)", parseUnitAmount)
    .option("--cap <amount>", "metered: the most a customer pays per period, in minor units", parseAmount)
    .option("--credit-only", "metered: usage stops at the customer's meter credits (checks refuse, nothing past them is billed)")
    .option(
      "--overage <mode>",
      "metered: at zero credits, credit_only (refuse, bill nothing past them) or credit_then_invoice (the default: bill the usage past them at this price)",
      oneOf(OVERAGE_MODES),
    );
  return tierOptions(metered)
    .option("--currency <code>", "currency of the prices given by flags (default usd)", parseCurrency)
    .option("--prices <json>", "the prices as /v1's JSON array (inline, @file or @-) instead of the price flags");
}
