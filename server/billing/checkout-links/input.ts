// Request bodies of /v1/checkout-links: Polar's CheckoutLinkCreate (three variants: `products`, `product_id`
// or the older `product_price_id`) and CheckoutLinkUpdate, and the redirect's query (Polar's prefill).
import { z } from "zod";
import { httpUrl, MAXIMUM_SEATS } from "../checkouts/input.js";
import { isUuid, metadataInput } from "../http.js";
import { INTERVALS } from "../products/wire.js";

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const products = z.array(uuid).min(1, "At least one product is required.").max(100);

const settings = {
  label: z.string().max(256).nullish(),
  allow_discount_codes: z.boolean().optional(),
  require_billing_address: z.boolean().optional(),
  discount_id: uuid.nullish(),
  success_url: httpUrl.nullish(),
  return_url: httpUrl.nullish(),
  trial_interval: z.enum(INTERVALS).nullish(),
  trial_interval_count: z.int().min(1).max(1000).nullish(),
  seats: z.int({ message: "Input should be a valid integer" }).min(1).max(MAXIMUM_SEATS).nullish(),
  metadata: metadataInput.optional(),
};

export const CheckoutLinkCreateInput = z
  .object({
    payment_processor: z.literal("stripe", { message: "Input should be 'stripe'" }),
    products: products.optional(),
    product_id: uuid.optional(),
    product_price_id: uuid.optional(),
    ...settings,
  })
  .superRefine((v, ctx) => {
    const given = [v.products, v.product_id, v.product_price_id].filter((x) => x !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({ code: "custom", path: ["products"], message: "Give exactly one of products, product_id or product_price_id." });
    }
  });
export type CheckoutLinkCreateInput = z.output<typeof CheckoutLinkCreateInput>;

export const CheckoutLinkUpdateInput = z.object({
  products: products.nullish(),
  ...settings,
  allow_discount_codes: z.boolean().nullish(),
  require_billing_address: z.boolean().nullish(),
});
export type CheckoutLinkUpdateInput = z.output<typeof CheckoutLinkUpdateInput>;

/** What a link's URL may add (Polar's prefill): customer fields, a code, an amount, tracking metadata. */
export const PREFILL_KEYS = ["product_id", "amount", "customer_email", "customer_name", "discount_code"] as const;
export const METADATA_KEYS = ["reference_id", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type Prefill = Partial<Record<(typeof PREFILL_KEYS)[number] | (typeof METADATA_KEYS)[number] | "embed_origin", string>>;

/**
 * A customer follows the link: values that cannot be used are left out rather than refused (the checkout opens
 * without them); a repeated key counts once.
 */
export function prefillOf(query: unknown): Prefill {
  const out: Prefill = {};
  if (!query || typeof query !== "object") return out;
  const q = query as Record<string, unknown>;
  for (const key of [...PREFILL_KEYS, ...METADATA_KEYS, "embed_origin"] as const) {
    const raw = Array.isArray(q[key]) ? (q[key] as unknown[])[0] : q[key];
    if (typeof raw === "string" && raw.length > 0 && raw.length <= 500) out[key] = raw;
  }
  return out;
}
