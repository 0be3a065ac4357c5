// The checkout page's pure logic, without React: how prices read ("$10.00 / month", "$0.005 per API call,
// billed monthly"), seat tiers and bounds, a pay-what-you-want amount as typed, the card's expiry, every
// problem of the form at once (checked before anything is sent), and the confirm request's body.
import { minorDigits } from "../../../shared/money.js";
import { seatPrice } from "../../../shared/seat-tiers.js";
import { assertNever } from "../../../shared/kinds.js";
import { isMeteredKind, priceKindOf } from "../kinds.js";
import { addressFields } from "../regions.js";
import { money as formatMoney, t, unitMoney } from "../i18n/intl.js";
import "../i18n/checkout/index.js";
import { tiersText, unitOf } from "../i18n/tiers.js";
import type { Address, Checkout, CheckoutProduct, CustomField, FieldMode, Price, SeatTier } from "../checkout-api.js";

export type AddressKey = "country" | "state" | "city" | "postal_code" | "line1" | "line2";
export const ADDRESS_ORDER: AddressKey[] = ["country", "line1", "line2", "city", "postal_code", "state"];
/** The address fields' labels, in the page's language. */
export const addressLabel = (key: AddressKey): string => t(`address.${key}`);

// ---- prices as they read ------------------------------------------------------------------------------

/** " / month", " / 3 months", "" for one-time. */
export function everyText(interval: string | null | undefined, count: number | null | undefined = 1): string {
  if (!interval) return "";
  return t("price.every", { interval, count: count ?? 1 });
}

/** "billed monthly", "billed every 3 months". */
export function billedText(interval: string | null | undefined, count: number | null | undefined = 1): string {
  if (!interval) return t("price.billedOnUse");
  return t("price.billed", { interval, count: count ?? 1 });
}

export const isMetered = (p: Price) => isMeteredKind(p.amount_type);
export const isStatic = (p: Price) => !isMetered(p);

/** A unit price in minor units as a decimal string ("0.5" cents) → "$0.005"; as many decimals as it has. */
export const formatUnitAmount = (unitAmount: string, currency: string): string => unitMoney(unitAmount, currency);

/** "$0.005 per API call, billed monthly" (and its cap, when there is one). */
export function meteredText(price: Price, product: Pick<CheckoutProduct, "recurring_interval" | "recurring_interval_count">): string {
  const currency = price.price_currency ?? "usd";
  // a tiered price (till's unit_tiers) reads its tiers, as the portal's usage view does (i18n/tiers.ts)
  const unitWord = unitOf(price.meter?.name ?? "");
  const unit = price.unit_tiers
    ? tiersText(price.unit_tiers, currency, unitWord)
    : t("price.perUnit", { amount: formatUnitAmount(price.unit_amount ?? "0", currency), unit: unitWord });
  const billed = billedText(product.recurring_interval, product.recurring_interval_count);
  return price.cap_amount ? t("price.meteredCapped", { unit, billed, cap: formatMoney(price.cap_amount, currency) }) : t("price.metered", { unit, billed });
}

/** How a static price reads in a choice or on the summary: "$10.00 / month", "Pay what you want", "Free". */
export function priceText(price: Price, product: Pick<CheckoutProduct, "recurring_interval" | "recurring_interval_count">): string {
  const currency = price.price_currency ?? "usd";
  const every = everyText(product.recurring_interval ?? price.recurring_interval, product.recurring_interval_count);
  const kind = priceKindOf(price.amount_type);
  // a kind this page does not know: its name
  if (!kind) return price.amount_type;
  switch (kind) {
    case "fixed":
      // the server writes a free price as a fixed price of 0
      return price.price_amount ? `${formatMoney(price.price_amount, currency)}${every}` : t("price.free");
    case "free":
      return t("price.free");
    case "custom":
      return t("price.custom");
    case "seat_based": {
      const first = price.seat_tiers?.tiers[0];
      return first ? t("price.seatsFrom", { amount: formatMoney(first.price_per_seat, currency), every }) : t("price.perSeat", { every });
    }
    case "metered_unit":
      return meteredText(price, product);
    default:
      return assertNever(kind, "price kind");
  }
}

/** The prices a customer can pick: each product's active static prices (metered ones come with them). */
export function choicesOf(checkout: Pick<Checkout, "products">): { product: CheckoutProduct; price: Price }[] {
  return checkout.products.flatMap((product) => {
    const active = product.prices.filter((p) => !p.is_archived);
    const statics = active.filter(isStatic);
    // a product billed on usage alone offers its metered price as the only choice
    return (statics.length > 0 ? statics : active.slice(0, 1)).map((price) => ({ product, price }));
  });
}

/** The metered prices the subscription bills along with the chosen price. */
export function meteredOf(product: CheckoutProduct | null, chosen: Price | null): Price[] {
  return (product?.prices ?? []).filter((p) => !p.is_archived && isMetered(p) && p.id !== chosen?.id);
}

// ---- seats --------------------------------------------------------------------------------------------

export interface SeatQuote {
  seats: number;
  perSeat: number;
  amount: number;
  tier: SeatTier;
  /** "1–4 seats", "5 or more seats" */
  tierText: string;
}

/** The seats a checkout accepts: the tiers' bounds narrowed by the checkout's min/max seats. */
export function seatBounds(price: Price, checkout: Pick<Checkout, "min_seats" | "max_seats">): { min: number; max: number | null } {
  const tiers = price.seat_tiers?.tiers ?? [];
  const min = Math.max(tiers[0]?.min_seats ?? 1, checkout.min_seats ?? 1);
  const limits = [tiers.at(-1)?.max_seats ?? null, checkout.max_seats].filter((v): v is number => v !== null && v !== undefined);
  return { min, max: limits.length > 0 ? Math.min(...limits) : null };
}

export function tierText(tier: SeatTier): string {
  if (tier.max_seats === null) return t("seats.orMore", { min: tier.min_seats });
  return tier.min_seats === tier.max_seats ? t("seats.count", { count: tier.min_seats }) : t("seats.range", { min: tier.min_seats, max: tier.max_seats });
}

/** What `seats` cost (shared/seat-tiers.ts); null outside every tier. */
export function seatQuote(price: Price, seats: number): SeatQuote | null {
  const priced = Number.isInteger(seats) ? seatPrice(price.seat_tiers ?? { tiers: [] }, seats) : null;
  if (!priced) return null;
  return { seats, perSeat: priced.perSeat, amount: priced.amount, tier: priced.tier, tierText: tierText(priced.tier) };
}

// ---- pay what you want ----------------------------------------------------------------------------------

/** The typed amount in minor units, or the problem with it ("12.5" usd → 1250). */
export function customAmount(price: Price, typed: string, currency: string): { minor: number | null; issue: string | null } {
  const text = typed.trim().replace(",", ".");
  if (text === "") return { minor: null, issue: t("amount.enter") };
  if (!/^\d+(\.\d+)?$/.test(text)) return { minor: null, issue: t("amount.number") };
  const minor = Math.round(Number(text) * 10 ** minorDigits(currency));
  const min = price.minimum_amount ?? 0;
  if (minor < min) return { minor, issue: t("amount.min", { amount: formatMoney(min, currency) }) };
  if (price.maximum_amount != null && minor > price.maximum_amount) {
    return { minor, issue: t("amount.max", { amount: formatMoney(price.maximum_amount, currency) }) };
  }
  return { minor, issue: null };
}

/** Minor units as the amount field shows them (1500 usd → "15.00"). */
export const amountText = (minor: number, currency: string) => (minor / 10 ** minorDigits(currency)).toFixed(minorDigits(currency));

// ---- the card -------------------------------------------------------------------------------------------

/**
 * The organization's Stripe publishable key when its account takes the payment (the Payment Element), else null (the
 * test card form).
 */
export const stripeKeyOf = (checkout: Pick<Checkout, "payment_processor_metadata">): string | null => {
  const meta = checkout.payment_processor_metadata;
  return meta?.processor === "stripe" && meta.publishable_key ? meta.publishable_key : null;
};

/** Where a problem with the payment details is shown: Stripe's Payment Element, or the test form's card number. */
export const paymentIssueKey = (checkout: Pick<Checkout, "payment_processor_metadata">) => (stripeKeyOf(checkout) ? "payment" : "card.number");

/** "12 / 30", "12/2030", "1230" → {month: 12, year: 2030}; null when it is not a date. */
export function parseExpiry(raw: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (!m) return null;
  const month = Number(m[1]);
  const year = Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year: year < 100 ? 2000 + year : year };
}

export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
}

/** The card's problems by field (number, expiry, cvc), in the words card forms use. */
export function cardIssues(card: CardInput, now = new Date()): Record<string, string> {
  const issues: Record<string, string> = {};
  const digits = card.number.replace(/[\s-]/g, "");
  if (!digits) issues.number = t("card.enterNumber");
  else if (!/^\d{12,19}$/.test(digits)) issues.number = t("card.numberIncomplete");
  const expiry = parseExpiry(card.expiry);
  if (!card.expiry.trim()) issues.expiry = t("card.enterExpiry");
  else if (!expiry) issues.expiry = t("card.expiryIncomplete");
  else if (expiry.year < now.getUTCFullYear() || (expiry.year === now.getUTCFullYear() && expiry.month < now.getUTCMonth() + 1)) {
    issues.expiry = t("card.expiryPast");
  }
  if (!card.cvc.trim()) issues.cvc = t("card.enterCvc");
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) issues.cvc = t("card.cvcIncomplete");
  return issues;
}

// ---- the whole form -------------------------------------------------------------------------------------

export interface FormState {
  email: string;
  name: string;
  amount: string;
  seats: number;
  discountCode: string;
  address: Record<AddressKey, string>;
  business: boolean;
  billingName: string;
  taxId: string;
  custom: Record<string, string | number | boolean | null>;
  card: CardInput;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Modes of the billing address fields: what the checkout asks, with the country always asked when a payment form shows.
 */
export const addressMode = (checkout: Pick<Checkout, "billing_address_fields">, key: AddressKey): FieldMode =>
  checkout.billing_address_fields?.[key] ?? "disabled";

/**
 * Every problem of the form, keyed like the server's 422 (`customer_email`, `customer_billing_address.city`,
 * `custom_field_data.<slug>`, `amount`, `card.number`), in the order the fields appear.
 */
export function formIssues(checkout: Checkout, form: FormState, now = new Date()): Record<string, string> {
  const issues: Record<string, string> = {};
  const price = checkout.product_price;
  if (price?.amount_type === "custom") {
    const { issue } = customAmount(price, form.amount, checkout.currency);
    if (issue) issues.amount = issue;
  }
  if (!form.email.trim()) issues.customer_email = t("issue.enterEmail");
  else if (!EMAIL.test(form.email.trim())) issues.customer_email = t("issue.validEmail");
  if (checkout.is_payment_form_required && !form.name.trim()) issues.customer_name = t("issue.enterName");
  for (const key of ADDRESS_ORDER) {
    // the server decides which are required (a business or a US address asks for the full address)
    if (addressMode(checkout, key) === "required" && !form.address[key].trim()) {
      issues[`customer_billing_address.${key}`] = t(`issue.address.${key}`);
    }
  }
  if (form.business && !form.billingName.trim()) issues.customer_billing_name = t("issue.enterBusinessName");
  for (const a of [...checkout.attached_custom_fields].sort((x, y) => x.order - y.order)) {
    if (!a.required) continue;
    const v = form.custom[a.custom_field.slug];
    const empty = v === null || v === undefined || v === "" || (a.custom_field.type === "checkbox" && v !== true);
    if (empty) issues[`custom_field_data.${a.custom_field.slug}`] = customFieldMissing(a.custom_field);
  }
  if (checkout.is_payment_form_required && !stripeKeyOf(checkout)) {
    for (const [k, v] of Object.entries(cardIssues(form.card, now))) issues[`card.${k}`] = v;
  }
  return issues;
}

const customFieldMissing = (f: CustomField) =>
  f.type === "checkbox" ? t("issue.checkField", { label: f.properties.form_label || f.name }) : t("issue.fillField", { label: f.properties.form_label || f.name });

/** The billing address as the API takes it: the fields the checkout asks, null without a country. */
export function addressValue(checkout: Pick<Checkout, "billing_address_fields">, address: Record<AddressKey, string>): Address | null {
  if (!address.country) return null;
  const out: Address = { country: address.country };
  for (const key of ADDRESS_ORDER) {
    if (key === "country" || addressMode(checkout, key) === "disabled") continue;
    out[key] = address[key].trim() || null;
  }
  return out;
}

/** The customer's entries as a client update sends them (the confirm sends the same). */
export function formChanges(checkout: Checkout, form: FormState): Record<string, unknown> {
  const body: Record<string, unknown> = {
    customer_email: form.email.trim() || null,
    customer_name: form.name.trim() || null,
    customer_billing_address: addressValue(checkout, form.address),
    is_business_customer: form.business,
    custom_field_data: form.custom,
  };
  if (form.business) {
    body.customer_billing_name = form.billingName.trim() || null;
    body.customer_tax_id = form.taxId.trim() || null;
  }
  const price = checkout.product_price;
  if (price?.amount_type === "custom") {
    const { minor } = customAmount(price, form.amount, checkout.currency);
    if (minor !== null) body.amount = minor;
  }
  if (price?.amount_type === "seat_based") body.seats = form.seats;
  return body;
}

/**
 * The confirm request's body (the card token is added once the card is tokenized): the entries, and the total
 * the page shows, which the server refuses to charge if its own differs (409; the page then shows the new one).
 */
export const confirmBody = (checkout: Checkout, form: FormState): Record<string, unknown> => ({
  ...formChanges(checkout, form),
  expected_total_amount: checkout.total_amount,
});

/** What decides the tax, as an update sends it: the billing address, and the tax id of a business purchase. */
export function taxChanges(checkout: Pick<Checkout, "billing_address_fields">, form: Pick<FormState, "address" | "business" | "taxId">): Record<string, unknown> {
  const body: Record<string, unknown> = { customer_billing_address: addressValue(checkout, form.address), is_business_customer: form.business };
  if (form.business) body.customer_tax_id = form.taxId.trim() || null;
  return body;
}

/** The form as a checkout (just loaded, or as the server answered it) fills it. */
export function formFromCheckout(c: Checkout): FormState {
  return {
    email: c.customer_email ?? "",
    name: c.customer_name ?? "",
    amount: c.product_price?.amount_type === "custom" ? amountText(c.amount, c.currency) : "",
    seats: c.seats ?? 1,
    discountCode: "",
    address: addressFields(c.customer_billing_address),
    business: c.is_business_customer,
    billingName: c.customer_billing_name ?? "",
    taxId: c.customer_tax_id ?? "",
    custom: c.custom_field_data ?? {},
    card: { number: "", expiry: "", cvc: "" },
  };
}

/** The id of the input a problem's key belongs to (the error summary links to it). */
export const fieldId = (key: string) => `checkout-${key.replace(/[^a-zA-Z0-9_-]/g, "-")}`;

/** Names of fields for the error summary ("Email: Enter your email address."). */
export function fieldLabel(key: string, checkout: Pick<Checkout, "attached_custom_fields">): string {
  const fixed: Record<string, string> = {
    amount: t("label.amount"),
    seats: t("label.seats"),
    customer_email: t("label.email"),
    customer_name: t("label.name"),
    customer_billing_name: t("label.businessName"),
    customer_tax_id: t("label.taxId"),
    customer_billing_address: t("label.billingAddress"),
    discount_code: t("label.discountCode"),
    confirmation_token_id: t("label.card"),
    product_price_id: t("label.price"),
    "card.number": t("label.cardNumber"),
    payment: t("label.payment"),
    "card.expiry": t("label.expiry"),
    "card.cvc": t("label.cvc"),
    ...Object.fromEntries(ADDRESS_ORDER.map((k) => [`customer_billing_address.${k}`, addressLabel(k)])),
  };
  if (fixed[key]) return fixed[key];
  const slug = key.startsWith("custom_field_data.") ? key.slice("custom_field_data.".length) : null;
  const f = slug ? checkout.attached_custom_fields.find((a) => a.custom_field.slug === slug)?.custom_field : undefined;
  return f ? f.properties.form_label || f.name : key;
}

/** The test processor's tokenizer answers by card field (number, exp_month, exp_year, cvc): as the form's keys. */
export function cardFieldsOf(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (fields.number) out["card.number"] = fields.number;
  const expiry = fields.exp_month ?? fields.exp_year;
  if (expiry) out["card.expiry"] = expiry;
  if (fields.cvc) out["card.cvc"] = fields.cvc;
  return out;
}

// ---- renewal terms ------------------------------------------------------------------------------------

/**
 * "Renews automatically at $19.00 / month plus usage, billed after each period, until you cancel.": what the
 * renewals charge, which is the discounted total only while the discount lasts.
 */
export function renewalText(checkout: Checkout, every: string): string {
  const c = checkout.currency;
  const discounted = formatMoney(checkout.total_amount, c);
  const full = formatMoney(checkout.undiscounted_total_amount ?? checkout.total_amount, c);
  const discount = checkout.discount_amount > 0 ? checkout.discount : null;
  const usage = meteredOf(checkout.product, checkout.product_price).length > 0;
  // a repeating discount covers the renewals that start within its months (a yearly plan's first is past them)
  const months = discount?.duration === "repeating" ? (discount.duration_in_months ?? 1) : 0;
  const product = checkout.product;
  const count = product?.recurring_interval_count ?? 1;
  const periodMonths = product?.recurring_interval === "year" ? 12 * count : product?.recurring_interval === "month" ? count : 0;
  const price =
    !discount || discount.duration === "forever"
      ? `${discounted}${every}`
      : months > periodMonths
        ? t("renew.whileDiscount", { discounted: `${discounted}${every}`, full: `${full}${every}` })
        : `${full}${every}`;
  return t("renew.terms", { price, usage: usage ? "yes" : "no" });
}
