// One set of rules for every change to a checkout — creation, the seller's update, the customer's update
// and the customer's confirm: the chosen product and price, amounts and seats, the discount, customer data
// (tax id checked against the billing country), custom field data, seller settings and the trial.
// Works on a copy of the row and either returns the changed view or throws one 422 with every issue.
import type { Queryable } from "../../db/client.js";
import type { CustomerErrorCode } from "../../../shared/customer-errors.js";
import { storedAddress } from "../customers/input.js";
import { matchTaxId } from "../../../shared/tax-ids.js";
import { findDiscountByCode } from "../discounts/service.js";
import type { DiscountWire } from "../discounts/wire.js";
import { validationError, type ValidationIssue } from "../errors.js";
import type { PriceWire, ProductWire } from "../products/wire.js";
import { validateCustomFieldData } from "./custom-field-data.js";
import type { CheckoutPatch } from "./input.js";
import { discountRefusal } from "../discounts/refusal.js";
import { addInterval } from "../subscriptions/period.js";
import { customAmountIssue, customDefault, defaultPrice, isMetered, isStatic, priceAmount, priceCurrency, seatAmount, seatBounds } from "../products/pricing.js";
import { findDiscount } from "./state.js";
import { applyTax } from "./tax.js";
import { activeTrial, type CheckoutRow, type CheckoutView } from "./wire.js";
import { addOnAmount, addOnPrice } from "../products/add-ons.js";
import { MAXIMUM_AMOUNT } from "./input.js";

/** create and seller: bearer token; public and confirm: the customer through the client secret. */
export type PatchMode = "create" | "seller" | "public" | "confirm";

const lower = (id: string) => id.toLowerCase();

class Issues {
  readonly list: ValidationIssue[] = [];
  add(field: string | Array<string | number>, msg: string, input?: unknown, type = "value_error", code?: CustomerErrorCode): void {
    const loc = ["body", ...(Array.isArray(field) ? field : [field])];
    this.list.push({ loc, msg, type, ...(input === undefined ? {} : { input }), ...(code ? { code } : {}) });
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw validationError(this.list);
  }
}

export const METERED_PRICE_REFUSED =
  "A metered price cannot be the checkout's price: the checkout charges the product's static price, and the subscription bills its metered prices with it.";

/** Is `priceId` a metered price of a product that has a static price to charge instead? */
function isMeteredChoice(product: ProductWire, priceId: string): boolean {
  const price = product.prices.find((x) => x.id === priceId);
  return price !== undefined && isMetered(price) && product.prices.some((x) => isStatic(x) && x.is_archived !== true);
}

/** The product and price the patch chooses (unchanged when it names none). */
function choosePrice(view: CheckoutView, patch: CheckoutPatch, mode: PatchMode, issues: Issues): { product: ProductWire | null; price: PriceWire | null } {
  let { product, price } = view;
  if (patch.product_price_id) {
    const id = lower(patch.product_price_id);
    const owner = view.products.find((p) => p.prices.some((x) => x.id === id));
    if (!owner || (patch.product_id && lower(patch.product_id) !== owner.id)) {
      issues.add("product_price_id", "Price is not available in this checkout.", patch.product_price_id);
    } else if (owner.is_archived) {
      issues.add("product_price_id", "Product is archived.", patch.product_price_id);
    } else if (isMeteredChoice(owner, id)) {
      // the static price is what the checkout charges; metered prices ride along on the subscription
      issues.add("product_price_id", METERED_PRICE_REFUSED, patch.product_price_id);
    } else {
      product = owner;
      price = owner.prices.find((x) => x.id === id) ?? null;
    }
  } else if (patch.product_id) {
    const p = view.products.find((x) => x.id === lower(patch.product_id ?? ""));
    if (!p) issues.add("product_id", "Product is not available in this checkout.", patch.product_id);
    else if (p.is_archived) issues.add("product_id", "Product is archived.", patch.product_id);
    else if (p.id !== product?.id) {
      product = p;
      price = defaultPrice(p, view.row.currency);
    }
  }
  const currency = mode === "create" || mode === "seller" ? patch.currency : undefined;
  if (currency && product && (!price || priceCurrency(price) !== currency)) {
    const other = defaultPrice(product, currency);
    if (!other || priceCurrency(other) !== currency) issues.add("currency", "The product has no price in this currency.", currency);
    else price = other;
  }
  return { product, price };
}

/** Seats and the amount they cost, or the amount a pay-what-you-want customer chose. */
function applyAmount(row: CheckoutRow, price: PriceWire, patch: CheckoutPatch, priceChanged: boolean, issues: Issues): void {
  if (price.amount_type === "seat_based") {
    const bounds = seatBounds(price);
    const min = Math.max(bounds.min, row.minSeats ?? 1);
    const max = [bounds.max, row.maxSeats].filter((v): v is number => v !== null).reduce((a, b) => Math.min(a, b), Infinity);
    const seats = patch.seats ?? row.seats ?? min;
    if (seats < min) return issues.add("seats", `Seats must be at least ${min}.`, seats, "greater_than_equal", "seats_unavailable");
    if (seats > max) return issues.add("seats", `Seats must be at most ${max}.`, seats, "less_than_equal", "seats_unavailable");
    const cost = seatAmount(price, seats);
    if (!cost) return issues.add("seats", `No seat tier covers ${seats} seats.`, seats, "value_error", "seats_unavailable");
    row.seats = seats;
    row.amount = cost.amount;
    return;
  }
  if (patch.seats != null) issues.add("seats", "Seats can only be set for seat-based pricing.", patch.seats);
  row.seats = null;
  if (price.amount_type === "custom") {
    if (patch.amount != null) {
      const problem = customAmountIssue(price, patch.amount);
      if (problem) issues.add("amount", problem.msg, patch.amount, problem.type);
      else row.amount = patch.amount;
    } else if (priceChanged) {
      row.amount = customDefault(price);
    }
    return;
  }
  row.amount = priceAmount(price, {}) ?? 0;
}

/**
 * The add-ons chosen with the product (till's own `add_ons`, the whole set), each at its price in the checkout's
 * currency for its quantity. A product or currency change keeps those the new choice offers and prices them again.
 */
function applyAddOns(view: CheckoutView, row: CheckoutRow, product: ProductWire, patch: CheckoutPatch, issues: Issues): void {
  const explicit = patch.add_ons != null;
  const requested = patch.add_ons ?? row.addOns.map((a) => ({ product_id: a.productId, quantity: a.quantity }));
  const next: CheckoutRow["addOns"] = [];
  requested.forEach((r, i) => {
    const id = lower(r.product_id);
    const at = ["add_ons", i, "product_id"];
    const addOn = product.add_on_ids.includes(id) ? view.addOnProducts?.get(id) : undefined;
    const price = addOn && !addOn.is_archived ? addOnPrice(addOn, row.currency) : null;
    // one the new product or currency does not offer is left out; one asked for is refused
    if (!price) return explicit ? issues.add(at, addOn ? `The add-on has no price in ${row.currency}.` : "The product is not an add-on of the checkout's product.", r.product_id) : undefined;
    if (next.some((n) => n.productId === id)) return issues.add(at, "An add-on is listed twice.", r.product_id);
    const priced = addOnAmount(price, r.quantity);
    if ("refusal" in priced) return issues.add(["add_ons", i, "quantity"], priced.refusal, r.quantity, "value_error", "seats_unavailable");
    if (priced.amount > MAXIMUM_AMOUNT) return issues.add(["add_ons", i, "quantity"], "The amount for this quantity exceeds the maximum amount.", r.quantity);
    next.push({ productId: id, priceId: price.id, quantity: r.quantity, amount: priced.amount });
  });
  row.addOns = next;
}

async function chooseDiscount(
  tx: Queryable,
  view: CheckoutView,
  patch: CheckoutPatch,
  mode: PatchMode,
  chosen: { product: ProductWire; price: PriceWire },
  now: Date,
  issues: Issues,
): Promise<DiscountWire | null> {
  const { row } = view;
  const check = (d: DiscountWire, field: string, input: unknown) => {
    const refusal = discountRefusal(d, chosen.product, chosen.price, now);
    if (refusal) {
      issues.add(field, refusal.msg, input, "value_error", refusal.code);
      return view.discount;
    }
    return d;
  };
  if (mode === "create" || mode === "seller") {
    if (patch.discount_id === undefined) return view.discount;
    if (patch.discount_id === null) return null;
    const d = await findDiscount(tx, row.organizationId, lower(patch.discount_id));
    if (!d) {
      issues.add("discount_id", "Discount does not exist.", patch.discount_id, "value_error", "discount_unknown");
      return view.discount;
    }
    return check(d, "discount_id", patch.discount_id);
  }
  if (patch.discount_code === undefined) return view.discount;
  if (!patch.discount_code) return null;
  if (!row.allowDiscountCodes) {
    issues.add("discount_code", "Discount codes are not accepted on this checkout.", patch.discount_code, "value_error", "discount_not_applicable");
    return view.discount;
  }
  const d = await findDiscountByCode(tx, row.organizationId, patch.discount_code.trim());
  if (!d) {
    issues.add("discount_code", "Discount does not exist.", patch.discount_code, "value_error", "discount_unknown");
    return view.discount;
  }
  return check(d, "discount_code", patch.discount_code);
}

function applyCustomer(row: CheckoutRow, patch: CheckoutPatch, mode: PatchMode, issues: Issues): void {
  if (patch.customer_name !== undefined) row.customerName = patch.customer_name?.trim() || null;
  // a checkout opened for a known customer keeps that customer's email
  if (patch.customer_email !== undefined && (mode === "create" || !row.customerId)) row.customerEmail = patch.customer_email ?? null;
  if (patch.customer_billing_name !== undefined) row.customerBillingName = patch.customer_billing_name?.trim() || null;
  if (patch.customer_billing_address) row.customerBillingAddress = storedAddress(patch.customer_billing_address);
  if (patch.is_business_customer != null) row.isBusinessCustomer = patch.is_business_customer;
  if (patch.locale !== undefined) row.locale = patch.locale ?? null;
  if (patch.purchase_order !== undefined) row.purchaseOrder = patch.purchase_order?.trim() || null;

  // the tax id is checked against the billing country whenever either changes
  if (patch.customer_tax_id === null) {
    row.customerTaxId = null;
  } else if (patch.customer_tax_id !== undefined || patch.customer_billing_address) {
    const value = patch.customer_tax_id ?? row.customerTaxId?.[0] ?? null;
    if (value) {
      const country = row.customerBillingAddress?.country;
      if (!country) issues.add("customer_billing_address", "Country is required to validate tax ID.", null, "missing", "tax_id_country");
      else {
        const matched = matchTaxId(value, country);
        if (matched) row.customerTaxId = matched;
        else issues.add("customer_tax_id", "Invalid tax ID.", value, "value_error", "tax_id_invalid");
      }
    }
  }
}

/** Settings only the seller (bearer token) may change. */
function applySellerSettings(row: CheckoutRow, patch: CheckoutPatch): void {
  if (patch.trial_interval !== undefined) row.trialInterval = patch.trial_interval ?? null;
  if (patch.trial_interval_count !== undefined) row.trialIntervalCount = patch.trial_interval_count ?? null;
  if (patch.allow_discount_codes != null) row.allowDiscountCodes = patch.allow_discount_codes;
  if (patch.require_billing_address != null) row.requireBillingAddress = patch.require_billing_address;
  if (patch.allow_trial != null) row.allowTrial = patch.allow_trial;
  if (patch.customer_ip_address !== undefined) row.customerIpAddress = patch.customer_ip_address ?? null;
  if (patch.customer_metadata != null) row.customerMetadata = patch.customer_metadata;
  if (patch.metadata !== undefined) row.metadata = patch.metadata;
  if (patch.success_url !== undefined) row.successUrl = patch.success_url ?? null;
  if (patch.return_url !== undefined) row.returnUrl = patch.return_url ?? null;
  if (patch.embed_origin !== undefined) row.embedOrigin = patch.embed_origin ?? null;
}

/**
 * The view after `patch`, checked. Nothing is written: the caller stores `row` (and enqueues its events)
 * in its own transaction.
 */
export async function applyPatch(tx: Queryable, view: CheckoutView, patch: CheckoutPatch, mode: PatchMode, now: Date): Promise<CheckoutView> {
  const issues = new Issues();
  const row: CheckoutRow = { ...view.row };
  const { product, price } = choosePrice(view, patch, mode, issues);
  issues.throwIfAny();
  if (!product || !price) throw validationError([{ loc: ["body", "products"], msg: "The product has no price.", type: "value_error" }]);

  const priceChanged = price.id !== row.productPriceId;
  row.productId = product.id;
  row.productPriceId = price.id;
  row.currency = priceCurrency(price);
  applyAmount(row, price, patch, priceChanged, issues);
  if (patch.add_ons != null || row.addOns.length > 0) applyAddOns(view, row, product, patch, issues);

  let discount = await chooseDiscount(tx, view, patch, mode, { product, price }, now, issues);
  // a product change drops a discount that does not apply to the new choice
  if (discount && priceChanged && discountRefusal(discount, product, price, now) !== null) discount = null;
  row.discountId = discount?.id ?? null;

  applyCustomer(row, patch, mode, issues);
  if (mode === "create" || mode === "seller") applySellerSettings(row, patch);
  else if (patch.allow_trial === false) row.allowTrial = false;

  if (patch.custom_field_data !== undefined || product.id !== view.product?.id || mode === "confirm") {
    const checked = validateCustomFieldData(product.attached_custom_fields, patch.custom_field_data, row.customFieldData, {
      required: mode === "confirm",
      loc: ["body", "custom_field_data"],
    });
    issues.list.push(...checked.issues);
    row.customFieldData = checked.data;
  }

  const trial = activeTrial(row, product);
  row.trialEnd = trial.interval && trial.count ? addInterval(now, trial.interval, trial.count) : null;
  issues.throwIfAny();
  // the tax as soon as the address tells where the buyer is (null before)
  applyTax({ organization: view.organization, price, discount }, row, now);
  return { ...view, row, product, price, discount };
}
