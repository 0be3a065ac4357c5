// What a product's writes take (POST /v1/products/, PATCH /v1/products/{id}, POST …/benefits): the routes'
// contracts and the writes' parameters.
import { z } from "zod";
import { AttachedCustomFieldInput } from "../custom-fields/service.js";
import { metadataInput } from "../http.js";
import { PriceCreateInput, PriceUpdateItem } from "./prices.js";

export { PriceCreateInput };
import { INTERVALS, VISIBILITIES } from "./wire.js";

const uuid = z.guid({ message: "Input should be a valid UUID" });
const name = z.string().trim().min(3).max(64);
/** An empty description means none. */
const description = z
  .string()
  .max(10_000)
  .nullish()
  .transform((d) => (d === undefined ? undefined : d?.trim() ? d : null));
const trial = { trial_interval: z.enum(INTERVALS).nullish(), trial_interval_count: z.int().min(1).max(1000).nullish() };

export const ProductCreateInput = z.object({
  name,
  description,
  visibility: z.enum(VISIBILITIES).default("public"),
  metadata: metadataInput.optional(),
  organization_id: z.string().nullish(),
  prices: z.array(PriceCreateInput).min(1, "At least one price is required.").max(100),
  medias: z.array(uuid).max(50).nullish(),
  attached_custom_fields: z.array(AttachedCustomFieldInput).max(50).optional(),
  recurring_interval: z.enum(INTERVALS).nullish(),
  recurring_interval_count: z.int().min(1).max(999).nullish(),
  meter_interval: z.enum(INTERVALS).nullish(),
  meter_interval_count: z.int().min(1).max(999).nullish(),
  ...trial,
  /** till's own: the products offered as add-ons on this product's subscriptions. */
  add_on_ids: z.array(uuid).max(100).optional(),
});
export type ProductCreateInput = z.output<typeof ProductCreateInput>;

export const ProductUpdateInput = z.object({
  name: name.nullish(),
  description,
  visibility: z.enum(VISIBILITIES).nullish(),
  metadata: metadataInput.optional(),
  is_archived: z.boolean().nullish(),
  prices: z.array(PriceUpdateItem).max(100).nullish(),
  medias: z.array(uuid).max(50).nullish(),
  attached_custom_fields: z.array(AttachedCustomFieldInput).max(50).nullish(),
  recurring_interval: z.enum(INTERVALS).nullish(),
  recurring_interval_count: z.int().min(1).max(999).nullish(),
  ...trial,
  /** till's own: replaces the products offered as add-ons (an empty list offers none). */
  add_on_ids: z.array(uuid).max(100).nullish(),
});
export type ProductUpdateInput = z.output<typeof ProductUpdateInput>;

export const ProductBenefitsInput = z.object({ benefits: z.array(uuid).max(100) });
