// What each price kind (`amount_type`) and benefit type (shared/kinds.ts) means to the CLI, in one module: how a
// price of each kind reads in `products` and `checkouts` output, which flag gives a product a price of each kind,
// where each kind sorts in a catalog file, which benefit types the flags of `benefits` set. Tables are keyed by
// the shared unions and switches end in `assertNever`, so a kind added there fails the typecheck here (and in
// the catalog's and `benefits`' switches, which must cover it too).
import { assertNever, isPriceKind, type BenefitType, type Covers, type PriceKind } from "../shared/kinds.js";
import { unitName } from "../shared/meter-units.js";
import type { UnitTiers } from "../shared/tiers.js";
import type { PriceSpec } from "./catalog/model.js";
import { describeUnitTiers } from "./commands/price-tiers.js";
import type { SeatTier } from "./flags.js";
import { money } from "./resources.js";

/** A price as /v1 returns it (the fields the CLI shows). */
export interface WirePrice {
  id: string;
  amount_type: string;
  price_currency?: string;
  is_archived: boolean;
  price_amount?: number;
  minimum_amount?: number | null;
  maximum_amount?: number | null;
  preset_amount?: number | null;
  unit_amount?: string;
  cap_amount?: number | null;
  /** till's: what happens past the customer's meter credits (credit_then_invoice, Polar's, unless credit_only). */
  overage?: string;
  unit_tiers?: UnitTiers | null;
  meter_id?: string;
  meter?: { id: string; name: string };
  seat_tiers?: { tiers: SeatTier[] };
}

function describeTiers(tiers: SeatTier[], currency: string): string {
  return tiers
    .map((t) => `${t.min_seats}${t.max_seats === null ? "+" : t.max_seats === t.min_seats ? "" : `-${t.max_seats}`} seats: ${money(t.price_per_seat, currency)}/seat`)
    .join(", ");
}

/** "$19.99", "pay what you want (min $5.00)", "free", "$0.005 per API calls (cap $100.00)", "1-10 seats: …". */
export function describePrice(p: WirePrice): string {
  const currency = p.price_currency ?? "usd";
  const kind = p.amount_type;
  // a kind a newer server knows and this CLI does not: its name
  if (!isPriceKind(kind)) return kind;
  switch (kind) {
    case "fixed":
      // the server writes a free price as a fixed price of 0
      return p.price_amount ? money(p.price_amount, currency) : "free";
    case "custom": {
      const bounds = [
        p.minimum_amount != null ? `min ${money(p.minimum_amount, currency)}` : "",
        p.maximum_amount != null ? `max ${money(p.maximum_amount, currency)}` : "",
        p.preset_amount != null ? `preset ${money(p.preset_amount, currency)}` : "",
      ].filter(Boolean);
      return `pay what you want${bounds.length > 0 ? ` (${bounds.join(", ")})` : ""}`;
    }
    case "free":
      return "free";
    case "metered_unit": {
      const unit = unitName(p.meter?.name ?? "");
      const amount = p.unit_tiers ? describeUnitTiers(p.unit_tiers, currency, unit) : `${money(p.unit_amount ?? "0", currency)} per ${unit}`;
      const cap = p.cap_amount != null ? ` (cap ${money(p.cap_amount, currency)})` : "";
      return `${amount}${cap}${p.overage === "credit_only" ? ", credits only (nothing billed past them)" : ""}`;
    }
    case "seat_based":
      return describeTiers(p.seat_tiers?.tiers ?? [], currency);
    default:
      return assertNever(kind, "price kind");
  }
}

/** The flag of `products create|update` that gives a product a price of each kind. */
export const PRICE_FLAG: { readonly [K in PriceKind]: string } = {
  fixed: "--price",
  custom: "--custom-price",
  free: "--free",
  metered_unit: "--metered",
  seat_based: "--seat-tier",
};

/** Where a price of each kind sorts in a catalog file: the static kinds first, metered last. */
export const CATALOG_PRICE_RANK: { readonly [K in PriceKind]: number } = {
  fixed: 0,
  custom: 1,
  free: 2,
  seat_based: 3,
  metered_unit: 4,
};

/**
 * A catalog file can write a price of every kind: a kind added to shared/kinds.ts fails here until PriceSpec has it.
 */
export const CATALOG_COVERS_EVERY_KIND: Covers<PriceKind, PriceSpec["amount_type"]> = true;

/**
 * The benefit types `till benefits create|update` sets from flags, in the order its help lists them. A
 * feature_flag has no properties to set: it is left to the API (`till api POST /v1/benefits/`).
 */
export const CLI_BENEFIT_TYPES = ["custom", "license_keys", "meter_credit", "downloadables", "github_repository", "discord"] as const satisfies readonly BenefitType[];

/**
 * Every benefit type is set from flags or left to the API on purpose: a type added to shared/kinds.ts fails here until
 * placed.
 */
export const CLI_PLACES_EVERY_BENEFIT_TYPE: Covers<BenefitType, (typeof CLI_BENEFIT_TYPES)[number] | "feature_flag"> = true;
