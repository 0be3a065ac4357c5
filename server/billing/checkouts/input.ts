// Request bodies of /v1/checkouts: create and update (seller, bearer token), and the customer's update and
// confirm through the client secret. Shapes and bounds follow Polar's CheckoutCreate / CheckoutUpdate /
// CheckoutUpdatePublic / CheckoutConfirmStripe; rules that need the database live in the service.
import { isIP } from "node:net";
import { z } from "zod";
import { AddressInput } from "../customers/input.js";
import { PRESENTMENT_CURRENCIES } from "../discounts/input.js";
import { emailInput, isUuid, metadataInput } from "../http.js";
import { INTERVALS } from "../products/wire.js";
import { MAX_ADD_ONS, MAX_ADD_ON_QUANTITY } from "../products/add-ons.js";

/** Polar's ceiling on amounts (minor units). */
export const MAXIMUM_AMOUNT = 99_999_999;
export const MAXIMUM_SEATS = 1000;

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const text = (max: number) => z.string().max(max);
/** An absolute http(s) URL; `{CHECKOUT_ID}` in a success URL is replaced when it is read. */
export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v.replace("{CHECKOUT_ID}", "checkout"));
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, "Input should be a valid URL");
/** An origin the checkout page posts its events to (`https://shop.example`); a longer URL is cut to its origin. */
const origin = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && u.origin !== "null";
    } catch {
      return false;
    }
  }, "Input should be a valid URL")
  .transform((v) => new URL(v).origin);
const ipAddress = z.string().refine((v) => isIP(v) !== 0, "value is not a valid IPv4 or IPv6 address");
const amount = z.int({ message: "Input should be a valid integer" }).min(0).max(MAXIMUM_AMOUNT);
const seats = z.int({ message: "Input should be a valid integer" }).min(1).max(MAXIMUM_SEATS);
/** till's own: the add-ons bought with the subscription product, each a product it offers and its quantity (seats). */
const addOns = z
  .array(z.object({ product_id: uuid, quantity: z.int({ message: "Input should be a valid integer" }).min(1).max(MAX_ADD_ON_QUANTITY).default(1) }))
  .max(MAX_ADD_ONS);
const customFieldValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]);
export const customFieldDataInput = z.record(z.string().max(100), customFieldValue);

const customer = {
  customer_name: text(256).nullish(),
  customer_email: emailInput.nullish(),
  customer_billing_name: text(256).nullish(),
  customer_billing_address: AddressInput.nullish(),
  customer_tax_id: text(64).nullish(),
  is_business_customer: z.boolean().nullish(),
  locale: text(35).nullish(),
  // till's own: the buyer's purchase order number, printed on the invoices
  purchase_order: text(100).nullish(),
};

const trial = {
  trial_interval: z.enum(INTERVALS).nullish(),
  trial_interval_count: z.int().min(1).max(1000).nullish(),
};

const choice = {
  product_id: uuid.nullish(),
  product_price_id: uuid.nullish(),
  amount: amount.nullish(),
  seats: seats.nullish(),
  add_ons: addOns.nullish(),
  custom_field_data: customFieldDataInput.optional(),
};

const links = {
  success_url: httpUrl.nullish(),
  return_url: httpUrl.nullish(),
  embed_origin: origin.nullish(),
};

export const CheckoutCreateInput = z.object({
  products: z.array(uuid).min(1, "At least one product is required.").max(100),
  /** Ad-hoc prices per product: not supported (the products' own prices are offered). */
  prices: z.record(z.string(), z.unknown()).nullish(),
  currency: z.enum(PRESENTMENT_CURRENCIES).nullish(),
  amount: amount.nullish(),
  seats: seats.nullish(),
  min_seats: seats.nullish(),
  max_seats: seats.nullish(),
  add_ons: addOns.nullish(),
  discount_id: uuid.nullish(),
  allow_discount_codes: z.boolean().default(true),
  require_billing_address: z.boolean().default(false),
  allow_trial: z.boolean().default(true),
  ...trial,
  customer_id: uuid.nullish(),
  external_customer_id: z.string().min(1).max(256).nullish(),
  customer_ip_address: ipAddress.nullish(),
  customer_metadata: metadataInput.optional(),
  subscription_id: uuid.nullish(),
  metadata: metadataInput.optional(),
  custom_field_data: customFieldDataInput.optional(),
  ...customer,
  ...links,
});
export type CheckoutCreateInput = z.output<typeof CheckoutCreateInput>;

/** The seller's update (bearer token). */
export const CheckoutUpdateInput = z.object({
  ...choice,
  ...customer,
  ...trial,
  ...links,
  currency: z.enum(PRESENTMENT_CURRENCIES).nullish(),
  discount_id: uuid.nullish(),
  allow_discount_codes: z.boolean().nullish(),
  require_billing_address: z.boolean().nullish(),
  allow_trial: z.boolean().nullish(),
  customer_ip_address: ipAddress.nullish(),
  customer_metadata: metadataInput.nullish(),
  metadata: metadataInput.optional(),
});
export type CheckoutUpdateInput = z.output<typeof CheckoutUpdateInput>;

/** The customer's update (client secret): no seller settings; a discount by code; trials can only be declined. */
export const CheckoutUpdatePublicInput = z.object({
  ...choice,
  ...customer,
  discount_code: z.string().max(256).nullish(),
  allow_trial: z.literal(false, { message: "Input should be false" }).nullish(),
});
export type CheckoutUpdatePublicInput = z.output<typeof CheckoutUpdatePublicInput>;

export const CheckoutConfirmInput = CheckoutUpdatePublicInput.extend({
  confirmation_token_id: z.string().min(1).max(1024).nullish(),
  /**
   * A till extension (Stripe's `expected_amount` on a Checkout Session's confirm): the `total_amount` the buyer
   * was shown. When the confirm's own computation differs (the tax of an address the page never sent, a
   * seller's change meanwhile), the confirm is refused with 409 and nothing is charged.
   */
  expected_total_amount: amount.nullish(),
});
export type CheckoutConfirmInput = z.output<typeof CheckoutConfirmInput>;

/** Either kind of update, as the service applies it. */
export type CheckoutPatch = Partial<Omit<CheckoutUpdateInput, "allow_trial">> &
  Partial<Omit<CheckoutUpdatePublicInput, "allow_trial">> & { allow_trial?: boolean | null | undefined };

/** The built-in test processor's tokenize request (card numbers go only here, never to confirm). */
export const TestCardInput = z.object({
  number: z.string().max(32).regex(/^[\d\s-]+$/, "Your card number is invalid."),
  exp_month: z.int().min(1).max(12),
  exp_year: z.int().min(0).max(9999),
  cvc: z.string().regex(/^\d{3,4}$/, "Your card's security code is invalid."),
});
