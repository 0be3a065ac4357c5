// Stripe's catalog in the importer's neutral words (payments/billing-import.ts): prices with their tiers and other
// currencies, products, billing meters, coupons and promotion codes. Pure functions of the objects as Stripe's list
// answers them with the expansions read.ts asks for; a field that should have been expanded and was not is an error
// (a price billed without its tiers would be billed wrong), never a guess.
import type Stripe from "stripe";
import {
  BillingSourceError,
  type SourceAmount,
  type SourceCoupon,
  type SourceMeter,
  type SourcePrice,
  type SourceProduct,
  type SourcePromotionCode,
  type SourceTier,
} from "../../billing-import.js";

/** The id of an expandable field, expanded or not. */
export const idOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === "string" ? v : (v?.id ?? null));

export const dateOf = (seconds: number) => new Date(seconds * 1000);
export const dateOrNull = (seconds: number | null | undefined) => (seconds == null ? null : dateOf(seconds));
export const metadataOf = (m: Stripe.Metadata | null | undefined): Record<string, string> => ({ ...m });

/** One of the values till knows; any other (a value a later API version added) stops the import rather than guess. */
export function known<const T extends string>(value: string, values: readonly T[], what: string): T {
  const found = values.find((v) => v === value);
  if (found === undefined) throw new BillingSourceError(`Stripe answered ${what} "${value}", which till does not know how to import.`, false);
  return found;
}

/** A decimal amount as a plain decimal string (the client reads some as its Decimal, some stay strings). */
const decimalOf = (v: Stripe.Decimal | string | null | undefined): string | null => (v == null ? null : String(v));

function tierOf(t: Stripe.Price.Tier | Stripe.Price.CurrencyOptions.Tier): SourceTier {
  const flat = decimalOf(t.flat_amount_decimal);
  return {
    // in an answer Stripe's last tier ("inf" when it was made) is null
    upTo: t.up_to ?? null,
    unitAmount: decimalOf(t.unit_amount_decimal) ?? String(t.unit_amount ?? 0),
    flatAmount: flat !== null ? Number(flat) : (t.flat_amount ?? 0),
  };
}

/** What a price, or one of its currencies, charges. */
interface AmountParts {
  unit_amount: number | null;
  unit_amount_decimal: Stripe.Decimal | null;
  custom_unit_amount: unknown;
  tiers?: Array<Stripe.Price.Tier | Stripe.Price.CurrencyOptions.Tier>;
}

function amountOf(parts: AmountParts, price: Stripe.Price, currency: string): SourceAmount {
  if (price.billing_scheme === "tiered") {
    if (!parts.tiers) throw new BillingSourceError(`Stripe answered the tiered price ${price.id} without its ${currency} tiers.`, false);
    return { unitAmount: null, tiers: { mode: known(price.tiers_mode ?? "", ["graduated", "volume"], "a tiers mode"), tiers: parts.tiers.map(tierOf) } };
  }
  if (parts.custom_unit_amount) return { unitAmount: null, tiers: null };
  const unit = decimalOf(parts.unit_amount_decimal) ?? (parts.unit_amount === null ? null : String(parts.unit_amount));
  return { unitAmount: unit, tiers: null };
}

/** The price's other currencies (Stripe lists its own among them). */
function currencyOptionsOf(price: Stripe.Price): Record<string, SourceAmount> {
  const own = price.currency.toLowerCase();
  const out: Record<string, SourceAmount> = {};
  for (const [code, option] of Object.entries(price.currency_options ?? {})) {
    const currency = code.toLowerCase();
    if (currency !== own) out[currency] = amountOf(option, price, currency);
  }
  return out;
}

/** Whether a tiered price's other currencies came without their tiers (a list cannot expand them: read.ts does). */
export function lacksOptionTiers(price: Stripe.Price): boolean {
  if (price.billing_scheme !== "tiered") return false;
  const own = price.currency.toLowerCase();
  return Object.entries(price.currency_options ?? {}).some(([code, option]) => code.toLowerCase() !== own && !option.tiers);
}

export function mapPrice(price: Stripe.Price): SourcePrice {
  const recurring = price.recurring;
  const custom = price.custom_unit_amount;
  const productId = idOf(price.product);
  if (!productId) throw new BillingSourceError(`Stripe answered the price ${price.id} without its product.`, false);
  return {
    id: price.id,
    productId,
    active: price.active,
    nickname: price.nickname,
    currency: price.currency.toLowerCase(),
    type: known(price.type, ["one_time", "recurring"], "a price type"),
    interval: recurring ? known(recurring.interval, ["day", "week", "month", "year"], "a price interval") : null,
    intervalCount: recurring ? recurring.interval_count : null,
    usage: recurring ? known(recurring.usage_type, ["licensed", "metered"], "a price usage type") : "licensed",
    meterId: recurring?.meter ?? null,
    custom: custom ? { minimum: custom.minimum, maximum: custom.maximum, preset: custom.preset } : null,
    ...amountOf(price, price, price.currency.toLowerCase()),
    currencyOptions: currencyOptionsOf(price),
    transformQuantity: price.transform_quantity !== null,
    // "unspecified": the account's default applies
    taxBehavior: price.tax_behavior === "inclusive" ? "inclusive" : price.tax_behavior === "exclusive" ? "exclusive" : null,
    metadata: metadataOf(price.metadata),
  };
}

/** A product with its prices (every price of the product, active or not). */
export function mapProduct(product: Stripe.Product, prices: SourcePrice[]): SourceProduct {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    active: product.active,
    defaultPriceId: idOf(product.default_price),
    metadata: metadataOf(product.metadata),
    prices,
  };
}

export function mapMeter(meter: Stripe.Billing.Meter): SourceMeter {
  return {
    id: meter.id,
    name: meter.display_name,
    eventName: meter.event_name,
    aggregation: known(meter.default_aggregation.formula, ["sum", "count", "last"], "a meter aggregation"),
    valueKey: meter.value_settings.event_payload_key,
    customerKey: meter.customer_mapping.event_payload_key,
    active: meter.status === "active",
  };
}

export function mapCoupon(coupon: Stripe.Coupon): SourceCoupon {
  const currency = coupon.currency?.toLowerCase() ?? null;
  const options: Record<string, number> = {};
  for (const [code, option] of Object.entries(coupon.currency_options ?? {})) {
    if (code.toLowerCase() !== currency) options[code.toLowerCase()] = option.amount_off;
  }
  return {
    id: coupon.id,
    name: coupon.name,
    percentOff: coupon.percent_off,
    amountOff: coupon.amount_off !== null && currency ? { amount: coupon.amount_off, currency } : null,
    amountOffOptions: options,
    duration: known(coupon.duration, ["once", "forever", "repeating"], "a coupon duration"),
    durationInMonths: coupon.duration_in_months,
    maxRedemptions: coupon.max_redemptions,
    timesRedeemed: coupon.times_redeemed,
    redeemBy: dateOrNull(coupon.redeem_by),
    // an expanded applies_to of a coupon for every product lists none
    productIds: coupon.applies_to?.products.length ? [...coupon.applies_to.products] : null,
    valid: coupon.valid,
    metadata: metadataOf(coupon.metadata),
  };
}

/** A promotion code; null for one that promotes no coupon (Stripe's codes all do in this API version). */
export function mapPromotionCode(code: Stripe.PromotionCode): SourcePromotionCode | null {
  const couponId = idOf(code.promotion.coupon);
  if (!couponId) return null;
  const r = code.restrictions;
  return {
    id: code.id,
    code: code.code,
    couponId,
    active: code.active,
    maxRedemptions: code.max_redemptions,
    timesRedeemed: code.times_redeemed,
    expiresAt: dateOrNull(code.expires_at),
    firstTimeOnly: r.first_time_transaction,
    minimumAmount: r.minimum_amount !== null && r.minimum_amount_currency ? { amount: r.minimum_amount, currency: r.minimum_amount_currency.toLowerCase() } : null,
    customerId: idOf(code.customer),
    metadata: metadataOf(code.metadata),
  };
}
