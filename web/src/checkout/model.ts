// The checkout page's pure logic, without React: how prices read ("$10.00 / month", "$0.005 per API call,
// billed monthly"), seat tiers and bounds, a pay-what-you-want amount as typed, the card's expiry, every
// problem of the form at once (checked before anything is sent), and the confirm request's body.
import { formatMoney, minorDigits } from "../../../shared/money.js";
import { unitName } from "../../../shared/meter-units.js";
import { describeTiers } from "../../../shared/tiers.js";
import { addressFields } from "../regions.js";
import type { Address, Checkout, CheckoutProduct, CustomField, FieldMode, Price, SeatTier } from "../checkout-api.js";

export type AddressKey = "country" | "state" | "city" | "postal_code" | "line1" | "line2";
export const ADDRESS_ORDER: AddressKey[] = ["country", "line1", "line2", "city", "postal_code", "state"];
export const ADDRESS_LABELS: Record<AddressKey, string> = {
  line1: "Address line 1",
  line2: "Address line 2",
  city: "City",
  postal_code: "Postal code",
  state: "State / Province",
  country: "Country",
};

// ---- prices as they read ------------------------------------------------------------------------------

const INTERVAL_ADVERB: Record<string, string> = { day: "daily", week: "weekly", month: "monthly", year: "yearly" };

/** "/ month", "/ 3 months", "" for one-time. */
export function everyText(interval: string | null | undefined, count: number | null | undefined = 1): string {
  if (!interval) return "";
  return count && count > 1 ? ` / ${count} ${interval}s` : ` / ${interval}`;
}

/** "billed monthly", "billed every 3 months". */
export function billedText(interval: string | null | undefined, count: number | null | undefined = 1): string {
  if (!interval) return "billed on use";
  return count && count > 1 ? `billed every ${count} ${interval}s` : `billed ${INTERVAL_ADVERB[interval] ?? `every ${interval}`}`;
}

export const isMetered = (p: Price) => p.amount_type === "metered_unit";
export const isStatic = (p: Price) => !isMetered(p);

/** A unit price in minor units as a decimal string ("0.5" cents) → "$0.005"; as many decimals as it has. */
export function formatUnitAmount(unitAmount: string, currency: string): string {
  const digits = minorDigits(currency);
  const value = Number(unitAmount);
  if (!Number.isFinite(value)) return unitAmount;
  const decimals = (unitAmount.split(".")[1] ?? "").replace(/0+$/, "").length;
  const major = value / 10 ** digits;
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: Math.min(digits + decimals, 20),
    }).format(major);
  } catch {
    return `${major} ${currency.toUpperCase()}`;
  }
}

/** "$0.005 per API call, billed monthly" (and its cap, when there is one). */
export function meteredText(price: Price, product: Pick<CheckoutProduct, "recurring_interval" | "recurring_interval_count">): string {
  const currency = price.price_currency ?? "usd";
  const cap = price.cap_amount ? `, up to ${formatMoney(price.cap_amount, currency)}` : "";
  // a tiered price (till's unit_tiers) reads its tiers, as the invoice will (shared/tiers.ts)
  const unit = price.unit_tiers
    ? describeTiers(price.unit_tiers, currency, unitName(price.meter?.name ?? ""))
    : `${formatUnitAmount(price.unit_amount ?? "0", currency)} per ${unitName(price.meter?.name ?? "")}`;
  return `${unit}, ${billedText(product.recurring_interval, product.recurring_interval_count)}${cap}`;
}

/** How a static price reads in a choice or on the summary: "$10.00 / month", "Pay what you want", "Free". */
export function priceText(price: Price, product: Pick<CheckoutProduct, "recurring_interval" | "recurring_interval_count">): string {
  const currency = price.price_currency ?? "usd";
  const every = everyText(product.recurring_interval ?? price.recurring_interval, product.recurring_interval_count);
  switch (price.amount_type) {
    case "fixed":
      // the server writes a free price as a fixed price of 0
      return price.price_amount ? `${formatMoney(price.price_amount, currency)}${every}` : "Free";
    case "free":
      return "Free";
    case "custom":
      return "Pay what you want";
    case "seat_based": {
      const first = price.seat_tiers?.tiers[0];
      return first ? `From ${formatMoney(first.price_per_seat, currency)} per seat${every}` : `Per seat${every}`;
    }
    case "metered_unit":
      return meteredText(price, product);
    default:
      return price.amount_type;
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

export function tierText(t: SeatTier): string {
  if (t.max_seats === null) return `${t.min_seats} or more seats`;
  return t.min_seats === t.max_seats ? `${t.min_seats} seat${t.min_seats === 1 ? "" : "s"}` : `${t.min_seats}–${t.max_seats} seats`;
}

/** What `seats` cost (volume: every seat at its tier's price; graduated: each seat at its own tier's); null outside every tier. */
export function seatQuote(price: Price, seats: number): SeatQuote | null {
  const tiers = price.seat_tiers?.tiers ?? [];
  const tier = tiers.find((t) => seats >= t.min_seats && (t.max_seats === null || seats <= t.max_seats));
  if (!tier || !Number.isInteger(seats)) return null;
  let amount = tier.price_per_seat * seats;
  if (price.seat_tiers?.seat_tier_type === "graduated") {
    amount = 0;
    for (const t of tiers) {
      if (seats < t.min_seats) break;
      const upTo = t.max_seats === null ? seats : Math.min(seats, t.max_seats);
      amount += (upTo - t.min_seats + 1) * t.price_per_seat;
    }
  }
  return { seats, perSeat: tier.price_per_seat, amount, tier, tierText: tierText(tier) };
}

// ---- pay what you want ----------------------------------------------------------------------------------

/** The typed amount in minor units, or the problem with it ("12.5" usd → 1250). */
export function customAmount(price: Price, typed: string, currency: string): { minor: number | null; issue: string | null } {
  const text = typed.trim().replace(",", ".");
  if (text === "") return { minor: null, issue: "Enter an amount." };
  if (!/^\d+(\.\d+)?$/.test(text)) return { minor: null, issue: "Enter an amount as a number, like 12.50." };
  const minor = Math.round(Number(text) * 10 ** minorDigits(currency));
  const min = price.minimum_amount ?? 0;
  if (minor < min) return { minor, issue: `The amount must be at least ${formatMoney(min, currency)}.` };
  if (price.maximum_amount != null && minor > price.maximum_amount) {
    return { minor, issue: `The amount must be at most ${formatMoney(price.maximum_amount, currency)}.` };
  }
  return { minor, issue: null };
}

/** Minor units as the amount field shows them (1500 usd → "15.00"). */
export const amountText = (minor: number, currency: string) => (minor / 10 ** minorDigits(currency)).toFixed(minorDigits(currency));

// ---- the card -------------------------------------------------------------------------------------------

/** The organization's Stripe publishable key when its account takes the payment (the Payment Element), else null (the test card form). */
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
  if (!digits) issues.number = "Enter your card number.";
  else if (!/^\d{12,19}$/.test(digits)) issues.number = "Your card number is incomplete.";
  const expiry = parseExpiry(card.expiry);
  if (!card.expiry.trim()) issues.expiry = "Enter your card's expiration date.";
  else if (!expiry) issues.expiry = "Your card's expiration date is incomplete.";
  else if (expiry.year < now.getUTCFullYear() || (expiry.year === now.getUTCFullYear() && expiry.month < now.getUTCMonth() + 1)) {
    issues.expiry = "Your card's expiration date is in the past.";
  }
  if (!card.cvc.trim()) issues.cvc = "Enter your card's security code.";
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) issues.cvc = "Your card's security code is incomplete.";
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

/** Modes of the billing address fields: what the checkout asks, with the country always asked when a payment form shows. */
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
  if (!form.email.trim()) issues.customer_email = "Enter your email address.";
  else if (!EMAIL.test(form.email.trim())) issues.customer_email = "Enter a valid email address, like name@example.com.";
  if (checkout.is_payment_form_required && !form.name.trim()) issues.customer_name = "Enter your name.";
  for (const key of ADDRESS_ORDER) {
    // the server decides which are required (a business or a US address asks for the full address)
    if (addressMode(checkout, key) === "required" && !form.address[key].trim()) {
      issues[`customer_billing_address.${key}`] = key === "country" ? "Choose your country." : `Enter your ${ADDRESS_LABELS[key].toLowerCase()}.`;
    }
  }
  if (form.business && !form.billingName.trim()) issues.customer_billing_name = "Enter your business name.";
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
  f.type === "checkbox" ? `Check “${f.properties.form_label || f.name}” to continue.` : `Fill in “${f.properties.form_label || f.name}”.`;

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
    amount: "Amount",
    seats: "Seats",
    customer_email: "Email",
    customer_name: "Name",
    customer_billing_name: "Business name",
    customer_tax_id: "Tax ID",
    customer_billing_address: "Billing address",
    discount_code: "Discount code",
    confirmation_token_id: "Card",
    product_price_id: "Price",
    "card.number": "Card number",
    payment: "Payment details",
    "card.expiry": "Expiry",
    "card.cvc": "CVC",
    ...Object.fromEntries(Object.entries(ADDRESS_LABELS).map(([k, v]) => [`customer_billing_address.${k}`, v])),
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
  const usage = meteredOf(checkout.product, checkout.product_price).length > 0 ? " plus usage, billed after each period," : "";
  // a repeating discount covers the renewals that start within its months (a yearly plan's first is past them)
  const months = discount?.duration === "repeating" ? (discount.duration_in_months ?? 1) : 0;
  const product = checkout.product;
  const count = product?.recurring_interval_count ?? 1;
  const periodMonths = product?.recurring_interval === "year" ? 12 * count : product?.recurring_interval === "month" ? count : 0;
  const price =
    !discount || discount.duration === "forever"
      ? `${discounted}${every}`
      : months > periodMonths
        ? `${discounted}${every} while the discount lasts, then ${full}${every}`
        : `${full}${every}`;
  return `Renews automatically at ${price}${usage} until you cancel.`;
}
