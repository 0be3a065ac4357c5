// The Polar `CheckoutLink` shape (the superset of SDK 0.47.1 and 0.49.0: `seats` is 0.49.0's) with its
// `CheckoutLinkProduct`s and `Discount*Base`, built from a checkout_link row and what it refers to.
import type { InferSelectModel } from "drizzle-orm";
import type { checkoutLink } from "../../db/schema/index.js";
import { toCheckoutProductWire } from "../checkouts/wire.js";
import type { toDiscountBaseWire } from "../discounts/wire.js";
import { type ProductWire, trialWire } from "../products/wire.js";

export type CheckoutLinkRow = InferSelectModel<typeof checkoutLink>;
export type DiscountBaseWire = ReturnType<typeof toDiscountBaseWire>;

/** The path a link's URL opens (a fresh checkout per visit). */
export const redirectPath = (clientSecret: string) => `/v1/checkout-links/${clientSecret}/redirect`;

/** `CheckoutLinkProduct`: the checkout's product shape with the product's metadata. */
export const toCheckoutLinkProductWire = (p: ProductWire) => ({ ...toCheckoutProductWire(p), metadata: p.metadata });

export function toCheckoutLinkWire(row: CheckoutLinkRow, products: ProductWire[], discount: DiscountBaseWire | null, baseURL: string) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    ...trialWire(row),
    metadata: row.metadata,
    payment_processor: row.paymentProcessor,
    client_secret: row.clientSecret,
    success_url: row.successUrl ?? null,
    return_url: row.returnUrl ?? null,
    label: row.label ?? null,
    allow_discount_codes: row.allowDiscountCodes,
    require_billing_address: row.requireBillingAddress,
    discount_id: discount ? row.discountId : null,
    seats: row.seats ?? null,
    organization_id: row.organizationId,
    products: products.map(toCheckoutLinkProductWire),
    discount,
    url: `${baseURL}${redirectPath(row.clientSecret)}`,
  };
}
export type CheckoutLinkWire = ReturnType<typeof toCheckoutLinkWire>;
