// The Polar `Checkout` (seller), `CheckoutPublic` (customer's page) and `CheckoutPublicConfirmed` shapes,
// built from a checkout row and what it refers to (its products, the chosen price, the discount, the
// organization). The derived values — amounts, flags, billing address fields — are computed here once.
import type { InferSelectModel } from "drizzle-orm";
import type { checkout } from "../../db/schema/index.js";
import { openStored, sealStored, storedLookup } from "../../seal.js";
import { toBenefitPublicWire } from "../benefits/wire.js";
import type { DiscountWire } from "../discounts/wire.js";
import { toOrganizationSummaryWire, type OrganizationWire } from "../organizations/wire.js";
import { type PriceWire, productCoreWire, type ProductWire, trialWire } from "../products/wire.js";
import { reverseChargeLabel } from "../../../shared/reverse-charge.js";
import { addOnsAmount, checkoutTax, lineAmounts } from "./tax.js";
import { billingAddressFields, type BillingAddressFields } from "./pricing.js";
import { discountAmount } from "../discounts/amount.js";
import { isDiscountable, isFree, isMetered, seatAmount } from "../products/pricing.js";

export type CheckoutRow = InferSelectModel<typeof checkout>;

/** A checkout row with everything its shapes embed. */
export interface CheckoutView {
  row: CheckoutRow;
  /** The offered products, in the checkout's order. */
  products: ProductWire[];
  product: ProductWire | null;
  price: PriceWire | null;
  discount: DiscountWire | null;
  organization: OrganizationWire | null;
  baseURL: string;
  /** The products the offered products offer as add-ons, by id (none read when none offers any). */
  addOnProducts?: Map<string, ProductWire>;
}


export interface CheckoutDerived {
  status: string;
  discountAmount: number;
  netAmount: number;
  taxAmount: number | null;
  totalAmount: number;
  isDiscountApplicable: boolean;
  isFreeProductPrice: boolean;
  isPaymentRequired: boolean;
  isPaymentSetupRequired: boolean;
  isPaymentFormRequired: boolean;
  activeTrialInterval: string | null;
  activeTrialIntervalCount: number | null;
  billingAddressFields: BillingAddressFields;
}

/** An open checkout past its expiry reads as expired (nothing needs to run at the deadline). */
export const statusOf = (row: CheckoutRow, now = new Date()) =>
  row.status === "open" && row.expiresAt.getTime() <= now.getTime() ? "expired" : row.status;

/** The trial the checkout would start: the checkout's own settings, else the product's, unless trials are off. */
export function activeTrial(row: CheckoutRow, product: ProductWire | null): { interval: string | null; count: number | null } {
  if (!row.allowTrial || !product || !product.is_recurring) return { interval: null, count: null };
  const interval = row.trialInterval ?? product.trial_interval;
  const count = row.trialIntervalCount ?? product.trial_interval_count;
  return interval && count ? { interval, count } : { interval: null, count: null };
}

export function derive(view: CheckoutView, now = new Date()): CheckoutDerived {
  const { row, product, discount } = view;
  const prices = product?.prices ?? [];
  // the discount is the product's: it does not reduce an add-on (as on the renewals)
  const discountValue = discountAmount(discount, row.amount, row.currency);
  const taxAmount = row.taxAmount;
  const subtotal = row.amount + addOnsAmount(row);
  // a price that includes tax: the tax comes out of it (the total stays the price)
  const netAmount = subtotal - discountValue - (row.taxInclusive ? (taxAmount ?? 0) : 0);
  const totalAmount = netAmount + (taxAmount ?? 0);
  const isFreeProductPrice = prices.length > 0 && prices.every(isFree);
  const hasMetered = prices.some(isMetered);
  const isPaymentRequired = totalAmount > 0 && row.trialEnd === null;
  const hundredPercentForever =
    discount !== null && discount.type === "percentage" && discount.duration === "forever" &&
    (discount as { basis_points?: number }).basis_points === 10_000;
  // a trial the organization lets start without a card (plan_settings.trials_without_card): nothing to set up
  const cardlessTrial = row.trialEnd !== null && view.organization?.plan_settings.trials_without_card === true;
  const isPaymentSetupRequired =
    !cardlessTrial &&
    product !== null &&
    !isFreeProductPrice &&
    !(subtotal === 0 && !hasMetered) &&
    !hundredPercentForever &&
    product.is_recurring;
  const isPaymentFormRequired = isPaymentRequired || isPaymentSetupRequired;
  const trial = activeTrial(row, product);
  return {
    status: statusOf(row, now),
    discountAmount: discountValue,
    netAmount,
    taxAmount,
    totalAmount,
    isDiscountApplicable: prices.some(isDiscountable),
    isFreeProductPrice,
    isPaymentRequired,
    isPaymentSetupRequired,
    isPaymentFormRequired,
    activeTrialInterval: trial.interval,
    activeTrialIntervalCount: trial.count,
    billingAddressFields: billingAddressFields({
      country: row.customerBillingAddress?.country ?? null,
      requireBillingAddress: row.requireBillingAddress,
      isBusinessCustomer: row.isBusinessCustomer,
      paymentFormRequired: isPaymentFormRequired,
    }),
  };
}

export const checkoutUrl = (baseURL: string, clientSecret: string) => `${baseURL}/checkout/${clientSecret}`;

/** What a checkout row stores of its client secret: sealed, and its keyed hash to be found by. */
export const storedClientSecret = (plain: string) => ({ clientSecret: sealStored("checkout-secret", plain), clientSecretHash: clientSecretLookup(plain) });

/** The keyed hash `/v1/checkouts/client/{client_secret}` finds its checkout by. */
export const clientSecretLookup = (plain: string) => storedLookup("checkout-secret", plain);

/**
 * Where the processor's metadata names the client secret (the test processor's tokenize URL), the row stores this
 * in its place, so that the metadata does not hand the secret over; the wire puts the secret back.
 */
export const CLIENT_SECRET_TEMPLATE = "{CLIENT_SECRET}";

function processorMetadataWire(metadata: Record<string, string>, clientSecret: string): Record<string, string> {
  let out: Record<string, string> | null = null;
  for (const [key, value] of Object.entries(metadata)) {
    if (!value.includes(CLIENT_SECRET_TEMPLATE)) continue;
    out ??= { ...metadata };
    out[key] = value.replaceAll(CLIENT_SECRET_TEMPLATE, clientSecret);
  }
  return out ?? metadata;
}

function successUrl(view: CheckoutView, clientSecret: string): string {
  const { row, baseURL } = view;
  if (!row.successUrl) return `${checkoutUrl(baseURL, clientSecret)}/confirmation`;
  return row.successUrl.replaceAll("{CHECKOUT_ID}", row.id);
}

/** `CheckoutProduct`: the product with its active prices, public benefits and medias (no metadata). */
export function toCheckoutProductWire(p: ProductWire) {
  // the wires of this file are built onto a fresh object with Object.assign, not spread into a new literal with
  // more properties after: V8 copies such a spread through its slow generic path (several µs an object), and a
  // confirm builds these for its answer and its webhook events; the keys keep their order either way
  return Object.assign(productCoreWire(p), {
    prices: p.prices,
    benefits: p.benefits.map(toBenefitPublicWire),
    medias: p.medias,
  });
}

/** `CheckoutDiscount*`: what the page shows of the discount. */
function toCheckoutDiscountWire(d: DiscountWire) {
  const value = d as DiscountWire & { amount?: number; currency?: string; amounts?: Record<string, number>; basis_points?: number; duration_in_months?: number };
  return {
    duration: d.duration,
    ...(d.duration === "repeating" ? { duration_in_months: value.duration_in_months ?? 1 } : {}),
    type: d.type,
    ...(d.type === "fixed"
      ? { amount: value.amount ?? 0, currency: value.currency ?? "usd", amounts: value.amounts ?? {} }
      : { basis_points: value.basis_points ?? 0 }),
    id: d.id,
    name: d.name,
    code: d.code,
  };
}

/** `CheckoutOrganization` */
const toCheckoutOrganizationWire = toOrganizationSummaryWire;

/** The fields the seller's and the customer's shapes share. */
function commonWire(view: CheckoutView, d: CheckoutDerived) {
  const { row, product, price } = view;
  const clientSecret = openStored("checkout-secret", row.clientSecret);
  const seats = row.seats ?? null;
  const perSeat = price && price.amount_type === "seat_based" && seats !== null ? (seatAmount(price, seats)?.perSeat ?? null) : null;
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    custom_field_data: row.customFieldData,
    payment_processor: row.paymentProcessor,
    status: d.status,
    client_secret: clientSecret,
    url: checkoutUrl(view.baseURL, clientSecret),
    expires_at: row.expiresAt.toISOString(),
    success_url: successUrl(view, clientSecret),
    return_url: row.returnUrl ?? null,
    embed_origin: row.embedOrigin ?? null,
    amount: row.amount,
    seats,
    min_seats: row.minSeats ?? null,
    max_seats: row.maxSeats ?? null,
    price_per_seat: perSeat,
    discount_amount: d.discountAmount,
    net_amount: d.netAmount,
    tax_amount: d.taxAmount,
    // Polar's: null while the tax is not calculated yet
    tax_behavior: row.taxAmount === null ? null : row.taxInclusive ? "inclusive" : "exclusive",
    total_amount: d.totalAmount,
    currency: row.currency,
    allow_trial: row.allowTrial,
    active_trial_interval: d.activeTrialInterval,
    active_trial_interval_count: d.activeTrialIntervalCount,
    trial_end: row.trialEnd?.toISOString() ?? null,
    organization_id: row.organizationId,
    product_id: row.productId ?? null,
    product_price_id: row.productPriceId ?? null,
    discount_id: row.discountId ?? null,
    allow_discount_codes: row.allowDiscountCodes,
    require_billing_address: row.requireBillingAddress,
    is_discount_applicable: d.isDiscountApplicable,
    is_free_product_price: d.isFreeProductPrice,
    is_payment_required: d.isPaymentRequired,
    is_payment_setup_required: d.isPaymentSetupRequired,
    is_payment_form_required: d.isPaymentFormRequired,
    customer_id: row.customerId ?? null,
    is_business_customer: row.isBusinessCustomer,
    customer_name: row.customerName ?? null,
    customer_email: row.customerEmail ?? null,
    customer_ip_address: row.customerIpAddress ?? null,
    customer_billing_name: row.customerBillingName ?? null,
    customer_billing_address: row.customerBillingAddress ?? null,
    customer_tax_id: row.customerTaxId?.[0] ?? null,
    locale: row.locale ?? null,
    // till's own (the SDKs drop it): the buyer's purchase order number
    purchase_order: row.purchaseOrder ?? null,
    payment_processor_metadata: processorMetadataWire(row.paymentProcessorMetadata, clientSecret),
    billing_address_fields: d.billingAddressFields,
    products: view.products.map(toCheckoutProductWire),
    product: product ? toCheckoutProductWire(product) : null,
    product_price: price,
    prices: Object.fromEntries(view.products.map((p) => [p.id, p.prices])),
    discount: view.discount ? toCheckoutDiscountWire(view.discount) : null,
    attached_custom_fields: product?.attached_custom_fields ?? [],
    // till's own (the SDKs drop them): the add-ons the product offers, and those chosen with it
    available_add_ons: product?.add_on_ids.flatMap((id) => {
      const p = view.addOnProducts?.get(id);
      return p && !p.is_archived ? [toCheckoutProductWire(p)] : [];
    }) ?? [],
    add_ons: row.addOns.map((a) => ({
      product_id: a.productId,
      product_price_id: a.priceId,
      quantity: a.quantity,
      amount: a.amount,
      name: view.addOnProducts?.get(a.productId)?.name ?? null,
    })),
  };
}

/** `Checkout`: what the seller sees (and webhook payloads carry). */
export function toCheckoutWire(view: CheckoutView, now = new Date()) {
  const { row } = view;
  return Object.assign(commonWire(view, derive(view, now)), trialWire(row), {
    metadata: row.metadata,
    external_customer_id: row.externalCustomerId ?? null,
    customer_external_id: row.externalCustomerId ?? null,
    customer_metadata: row.customerMetadata,
    subscription_id: row.subscriptionId ?? null,
  });
}
export type CheckoutWire = ReturnType<typeof toCheckoutWire>;

/**
 * What the same price costs without the checkout's discount, tax included (till-only, beside Polar's fields:
 * the SDK strips it): a subscription's renewals charge it once a once-only or repeating discount is spent,
 * and the page says so instead of repeating the discounted first payment.
 */
function undiscountedTotal(view: CheckoutView, d: CheckoutDerived, now: Date): number {
  const { row } = view;
  if (d.discountAmount === 0) return d.totalAmount;
  // no tax yet (the address does not tell): the total is the price, as `derive` has it
  const subtotal = row.amount + addOnsAmount(row);
  if (row.taxAmount === null) return subtotal;
  const tax = checkoutTax(view.organization, row, view.price, lineAmounts(row), 0, now);
  const inclusive = tax?.lines[0]?.inclusive ?? false;
  return subtotal + (inclusive ? 0 : (tax?.taxAmount ?? 0));
}

/** Till-only: "VAT reverse charged" when the buyer's tax id makes the sale reverse charge (0 tax), else null. */
function reverseCharge(view: CheckoutView, d: CheckoutDerived, now: Date): string | null {
  const { row } = view;
  if (row.taxAmount !== 0 || row.customerTaxId === null) return null;
  const tax = checkoutTax(view.organization, row, view.price, lineAmounts(row), d.discountAmount, now);
  return tax?.reverseCharge ? reverseChargeLabel(row.customerBillingAddress?.country) : null;
}

/** `CheckoutPublic`: what the customer's page sees (no seller metadata). */
export function toCheckoutPublicWire(view: CheckoutView, now = new Date()) {
  const organization = view.organization;
  if (!organization) throw new Error("checkout view without its organization");
  const d = derive(view, now);
  return Object.assign(commonWire(view, d), {
    undiscounted_total_amount: undiscountedTotal(view, d, now),
    reverse_charge: reverseCharge(view, d, now),
    // till-only: the organization's default locale, the page's last choice before English
    organization: Object.assign(toCheckoutOrganizationWire(organization), { default_locale: organization.default_locale }),
  });
}
export type CheckoutPublicWire = ReturnType<typeof toCheckoutPublicWire>;

/**
 * `CheckoutPublicConfirmed`: the confirm answer, whose status the SDK fixes to "confirmed", with the token of
 * the customer session the confirm made (the portal link of the success page; only this answer carries it).
 */
export function toCheckoutConfirmedWire(view: CheckoutView, now = new Date(), customerSessionToken: string | null = null) {
  return Object.assign(toCheckoutPublicWire(view, now), {
    status: "confirmed" as const,
    customer_session_token: customerSessionToken,
    receipt_email: receiptEmail(view),
  });
}

/**
 * Where the purchase's receipt is emailed (till's own field, for the success page): the customer's address
 * when the organization's `customer_email_settings` send the email the purchase calls for (order
 * confirmation, or subscription confirmation for a recurring product), else null.
 */
function receiptEmail(view: CheckoutView): string | null {
  const { row, product, organization } = view;
  const settings = (organization as { customer_email_settings?: Record<string, boolean> } | null)?.customer_email_settings;
  const type = product?.is_recurring ? "subscription_confirmation" : "order_confirmation";
  return row.customerEmail && settings?.[type] === true ? row.customerEmail : null;
}
