// The Polar `Product`, `ProductPrice` / `LegacyRecurringProductPrice` and product-summary shapes, built from
// product and product_price rows plus what other domains embed (benefits, medias, custom fields, meters).
import type { InferSelectModel } from "drizzle-orm";
import type { Metadata, product, productPrice } from "../../db/schema/index.js";
import type { BenefitWire } from "../benefits/wire.js";
import type { AttachedCustomFieldWire } from "../custom-fields/wire.js";
import type { ProductMediaFileWire } from "../files/wire.js";
import type { loadMeterSummaries } from "../meters/service.js";
import type { SeatTier, SeatTierTerms } from "../../../shared/seat-tiers.js";
import type { UnitTiers } from "../../../shared/tiers.js";
import type { OverageMode } from "../../../shared/entitlements.js";
import { assertNever, isPriceKind } from "../../../shared/kinds.js";

export type ProductRow = InferSelectModel<typeof product>;
/** What a metered price embeds as `meter` (the meters domain's summary). */
export type MeterSummaryWire = NonNullable<ReturnType<Awaited<ReturnType<typeof loadMeterSummaries>>["get"]>>;
export type PriceRow = InferSelectModel<typeof productPrice>;

export const INTERVALS = ["day", "week", "month", "year"] as const;
export const VISIBILITIES = ["draft", "private", "public"] as const;
export const TAX_BEHAVIORS = ["location", "inclusive", "exclusive"] as const;

/** The product fields every embedding shares (`DiscountProduct`, `OrderProduct`, …): no prices or benefits. */
export interface ProductSummaryWire {
  id: string;
  created_at: string;
  modified_at: string | null;
  trial_interval: string | null;
  trial_interval_count: number | null;
  name: string;
  description: string | null;
  visibility: string;
  recurring_interval: string | null;
  recurring_interval_count: number | null;
  meter_interval: string | null;
  meter_interval_count: number | null;
  is_recurring: boolean;
  is_archived: boolean;
  organization_id: string;
  metadata: Metadata;
}

/** The fields every `ProductPrice*` shares, plus `type` / `recurring_interval` (kept for older clients). */
interface PriceBaseWire {
  created_at: string;
  modified_at: string | null;
  id: string;
  source: string;
  price_currency: string;
  tax_behavior: string | null;
  is_archived: boolean;
  product_id: string;
  type: string;
  recurring_interval: string | null;
  /** `LegacyRecurringProductPrice*`: a price of a legacy product. */
  legacy?: true;
}

/** `ProductPriceFixed` (also how a `free` price is written: a fixed 0). */
export interface FixedPriceWire extends PriceBaseWire {
  amount_type: "fixed";
  price_amount: number;
}

/** `ProductPriceCustom`: pay what you want. */
export interface CustomPriceWire extends PriceBaseWire {
  amount_type: "custom";
  minimum_amount: number;
  maximum_amount: number | null;
  preset_amount: number | null;
}

/** `ProductPriceFree`: modelled by the SDKs; till writes a free price as a fixed 0 (toPriceWire). */
export interface FreePriceWire extends PriceBaseWire {
  amount_type: "free";
}

/** `ProductPriceSeatTiersOutput`. */
export interface SeatTiersWire extends SeatTierTerms {
  seat_tier_type: string;
  tiers: SeatTier[];
  minimum_seats: number;
  maximum_seats: number | null;
}

/** `ProductPriceSeatBased`. */
export interface SeatBasedPriceWire extends PriceBaseWire {
  amount_type: "seat_based";
  seat_tiers: SeatTiersWire;
}

/** `ProductPriceMeteredUnit`, with till's own `unit_tiers` on a tiered price. */
export interface MeteredUnitPriceWire extends PriceBaseWire {
  amount_type: "metered_unit";
  unit_amount: string;
  cap_amount: number | null;
  meter_id: string;
  meter: MeterSummaryWire;
  unit_tiers?: UnitTiers;
  overage: OverageMode;
}

/** Polar's `ProductPrice` union (and its legacy variants), by `amount_type`. */
export type PriceWire = FixedPriceWire | CustomPriceWire | FreePriceWire | SeatBasedPriceWire | MeteredUnitPriceWire;

export interface ProductWire extends ProductSummaryWire {
  prices: PriceWire[];
  benefits: BenefitWire[];
  medias: ProductMediaFileWire[];
  attached_custom_fields: AttachedCustomFieldWire[];
  /** till's own (the SDKs drop it): the products offered as add-ons on this product's subscriptions. */
  add_on_ids: string[];
}

/** A product's trial fields from a row that carries them (products, checkouts, checkout links). */
export const trialWire = (row: { trialInterval: string | null; trialIntervalCount: number | null }) => ({
  trial_interval: row.trialInterval ?? null,
  trial_interval_count: row.trialIntervalCount ?? null,
});

/**
 * The product-to-wire mapping every embedding starts from: the summary's fields but its metadata, picked from a
 * full product (so prices, benefits and medias never leak into a summary). `CheckoutProduct`, `CustomerProduct`
 * and `CheckoutLinkProduct` add to it; `productSummaryOf` adds the metadata.
 */
export function productCoreWire(p: ProductSummaryWire): Omit<ProductSummaryWire, "metadata"> {
  return {
    id: p.id,
    created_at: p.created_at,
    modified_at: p.modified_at,
    trial_interval: p.trial_interval,
    trial_interval_count: p.trial_interval_count,
    name: p.name,
    description: p.description,
    visibility: p.visibility,
    recurring_interval: p.recurring_interval,
    recurring_interval_count: p.recurring_interval_count,
    meter_interval: p.meter_interval,
    meter_interval_count: p.meter_interval_count,
    is_recurring: p.is_recurring,
    is_archived: p.is_archived,
    organization_id: p.organization_id,
  };
}

/** `OrderProduct` / `DiscountProduct` / …: the summary part of a full product. */
export const productSummaryOf = (p: ProductSummaryWire): ProductSummaryWire => ({ ...productCoreWire(p), metadata: p.metadata });

/** `isRecurring`: a recurring interval, or (legacy products) recurring prices. */
export function toProductSummaryWire(row: ProductRow, isRecurring: boolean): ProductSummaryWire {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    trial_interval: row.trialInterval ?? null,
    trial_interval_count: row.trialIntervalCount ?? null,
    name: row.name,
    description: row.description ?? null,
    visibility: row.visibility,
    recurring_interval: row.recurringInterval ?? null,
    recurring_interval_count: row.recurringIntervalCount ?? null,
    meter_interval: row.meterInterval ?? null,
    meter_interval_count: row.meterIntervalCount ?? null,
    is_recurring: isRecurring,
    is_archived: row.isArchived,
    organization_id: row.organizationId,
    metadata: row.metadata,
  };
}

/** A meter that went missing still renders (prices must never fail to serialize). */
const unknownMeter = (id: string): MeterSummaryWire => ({ id, name: "", unit: "scalar", custom_label: null, custom_multiplier: null });

type AmountFields = DistributiveOmit<PriceWire, keyof PriceBaseWire>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function amountFields(row: PriceRow, meters: Map<string, MeterSummaryWire>): AmountFields {
  // a kind this version does not know charges nothing: it is written as a free price
  const kind = isPriceKind(row.amountType) ? row.amountType : "free";
  switch (kind) {
    case "custom":
      return {
        amount_type: "custom",
        minimum_amount: row.minimumAmount ?? 0,
        maximum_amount: row.maximumAmount ?? null,
        preset_amount: row.presetAmount ?? null,
      };
    case "metered_unit": {
      const meterId = row.meterId ?? "";
      return {
        amount_type: "metered_unit",
        unit_amount: row.unitAmount ?? "0",
        cap_amount: row.capAmount ?? null,
        meter_id: meterId,
        meter: meters.get(meterId) ?? unknownMeter(meterId),
        // till's own field (the SDKs drop it): only on a tiered price
        ...(row.unitTiers ? { unit_tiers: row.unitTiers } : {}),
        // till's own (the SDKs drop it): what happens at zero balance
        overage: row.overage === "credit_only" ? "credit_only" : "credit_then_invoice",
      };
    }
    case "seat_based": {
      const tiers = row.seatTiers?.tiers ?? [];
      return {
        amount_type: "seat_based",
        seat_tiers: {
          seat_tier_type: row.seatTiers?.seat_tier_type ?? "volume",
          tiers,
          minimum_seats: tiers[0]?.min_seats ?? 1,
          maximum_seats: tiers.at(-1)?.max_seats ?? null,
        },
      };
    }
    case "fixed":
      return { amount_type: "fixed", price_amount: row.priceAmount ?? 0 };
    case "free":
      return { amount_type: "fixed", price_amount: 0 };
    default:
      return assertNever(kind, "price kind");
  }
}

/**
 * `ProductPrice*`, or `LegacyRecurringProductPrice*` (with `legacy: true`) for prices of legacy products. A
 * `free` price (the spec's kind, still accepted as input and stored as such) is written as a `fixed` price of 0:
 * SDK 0.49.0's unions have no `free` type (its `ProductPriceFixedCreate`: "Set to `0` for a free price"), and
 * 0.47.1 reads a fixed 0 as well, so one answer serves both versions (and every webhook payload embedding it).
 */
export function toPriceWire(row: PriceRow, meters: Map<string, MeterSummaryWire>): PriceWire {
  const amounts = amountFields(row, meters);
  // Object.assign, not spreads: every product read maps its prices, and V8 copies a spread in the middle of a
  // literal through its slow generic path (several µs a price); `amount_type` keeps its place, the rest follow
  const wire = Object.assign(
    {
      created_at: row.createdAt.toISOString(),
      modified_at: row.modifiedAt?.toISOString() ?? null,
      id: row.id,
      source: row.source,
      amount_type: amounts.amount_type,
      price_currency: row.priceCurrency,
      tax_behavior: row.taxBehavior ?? null,
      is_archived: row.isArchived,
      product_id: row.productId,
      // kept by Polar for older clients; the product's interval is the source of truth
      type: row.type,
      recurring_interval: row.recurringInterval ?? null,
    },
    amounts,
  );
  return (row.legacy ? Object.assign(wire, { legacy: true }) : wire) as PriceWire;
}
