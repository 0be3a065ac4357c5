// Rules for custom fields: the five types and their properties, slugs unique per organization, a type that
// never changes, and attaching fields to products (used by the products domain).
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { isUuid, metadataInput } from "../http.js";
import { invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import type { SortKey } from "../listing.js";
import * as repo from "./repository.js";
import {
  toAttachedCustomFieldWire,
  toCustomFieldWire,
  type AttachedCustomFieldWire,
  type CustomFieldType,
  type CustomFieldWire,
} from "./wire.js";

const NOT_FOUND = "Custom field not found";
const SLUG_TAKEN = "Custom field with this slug already exists.";

// ---- input ----------------------------------------------------------------------------------------

/** Lower-cased first, then checked: the slug is the key of the value stored with checkouts and orders. */
const slug = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(
    z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9_-]+$/, "Slug can only contain ASCII letters, numbers, hyphens and underscores"),
  );
const name = z.string().trim().min(1).max(255);
const formText = z.string().min(1).max(1000).optional();
const form = { form_label: formText, form_help_text: formText, form_placeholder: formText };

const bounded = <T extends z.ZodRawShape>(shape: T, lo: string, hi: string) =>
  z
    .object(shape)
    .refine((p) => {
      const a = (p as Record<string, unknown>)[lo];
      const b = (p as Record<string, unknown>)[hi];
      return typeof a !== "number" || typeof b !== "number" || a <= b;
    }, { message: `${lo} must be less than or equal to ${hi}`, path: [hi] });

const PROPERTIES = {
  text: bounded(
    { ...form, textarea: z.boolean().optional(), min_length: z.int().min(0).optional(), max_length: z.int().min(0).optional() },
    "min_length",
    "max_length",
  ),
  number: bounded({ ...form, ge: z.int().optional(), le: z.int().optional() }, "ge", "le"),
  date: bounded({ ...form, ge: z.int().optional(), le: z.int().optional() }, "ge", "le"),
  checkbox: z.object(form),
  select: z.object({
    ...form,
    options: z
      .array(z.object({ value: z.string().min(1).max(255), label: z.string().min(1).max(255) }))
      .min(1)
      .max(200)
      .refine((o) => new Set(o.map((x) => x.value)).size === o.length, { message: "Option values must be unique" }),
  }),
} satisfies Record<CustomFieldType, z.ZodType>;

const common = { slug, name, metadata: metadataInput.optional(), organization_id: z.string().nullish() };
const patch = { slug: slug.nullish(), name: name.nullish(), metadata: metadataInput.optional() };

export const CustomFieldCreateInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), ...common, properties: PROPERTIES.text }),
  z.object({ type: z.literal("number"), ...common, properties: PROPERTIES.number }),
  z.object({ type: z.literal("date"), ...common, properties: PROPERTIES.date }),
  z.object({ type: z.literal("checkbox"), ...common, properties: PROPERTIES.checkbox }),
  z.object({ type: z.literal("select"), ...common, properties: PROPERTIES.select }),
]);
export type CustomFieldCreateInput = z.output<typeof CustomFieldCreateInput>;

export const CustomFieldUpdateInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), ...patch, properties: PROPERTIES.text.nullish() }),
  z.object({ type: z.literal("number"), ...patch, properties: PROPERTIES.number.nullish() }),
  z.object({ type: z.literal("date"), ...patch, properties: PROPERTIES.date.nullish() }),
  z.object({ type: z.literal("checkbox"), ...patch, properties: PROPERTIES.checkbox.nullish() }),
  z.object({ type: z.literal("select"), ...patch, properties: PROPERTIES.select.nullish() }),
]);
export type CustomFieldUpdateInput = z.output<typeof CustomFieldUpdateInput>;

/** `attached_custom_fields` items of product create/update. */
export const AttachedCustomFieldInput = z.object({
  custom_field_id: z.guid({ message: "Input should be a valid UUID" }),
  required: z.boolean(),
});
export type AttachedCustomFieldInput = z.output<typeof AttachedCustomFieldInput>;

// ---- the resource ---------------------------------------------------------------------------------

export async function getCustomField(db: Queryable, organizationId: string, id: string): Promise<CustomFieldWire> {
  const row = await repo.findCustomField(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return toCustomFieldWire(row);
}

export async function listCustomFields(
  db: Db,
  organizationId: string,
  filter: repo.CustomFieldFilter,
  sorting: Array<SortKey<repo.CustomFieldSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listCustomFields(db, organizationId, filter, sorting, pageNo, limit);
  return { items: rows.map(toCustomFieldWire), total };
}

export async function createCustomField(
  db: Db,
  organizationId: string,
  input: CustomFieldCreateInput,
): Promise<CustomFieldWire> {
  return db.transaction(async (tx) => {
    if (await repo.slugTaken(tx, organizationId, input.slug)) throw invalid(["body", "slug"], SLUG_TAKEN);
    const row = await repo.insertCustomField(tx, organizationId, {
      type: input.type,
      slug: input.slug,
      name: input.name,
      properties: input.properties,
      metadata: input.metadata ?? {},
    });
    return toCustomFieldWire(row);
  });
}

export async function updateCustomField(
  db: Db,
  organizationId: string,
  id: string,
  input: CustomFieldUpdateInput,
): Promise<CustomFieldWire> {
  return db.transaction(async (tx) => {
    const row = await repo.findCustomField(tx, organizationId, id);
    if (!row) throw notFound(NOT_FOUND);
    if (row.type !== input.type) throw invalid(["body", "type"], "The type of a custom field can't be changed.");
    if (input.slug && input.slug !== row.slug && (await repo.slugTaken(tx, organizationId, input.slug, id))) {
      throw invalid(["body", "slug"], SLUG_TAKEN);
    }
    await repo.updateCustomField(tx, organizationId, id, {
      ...(input.slug ? { slug: input.slug } : {}),
      ...(input.name ? { name: input.name } : {}),
      ...(input.properties ? { properties: input.properties } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    });
    return getCustomField(tx, organizationId, id);
  });
}

export async function deleteCustomField(db: Db, organizationId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await repo.findCustomField(tx, organizationId, id))) throw notFound(NOT_FOUND);
    await repo.deleteCustomField(tx, organizationId, id);
  });
}

// ---- for other domains ----------------------------------------------------------------------------

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

/** Each product's attached (live) custom fields in order; every requested product gets an entry. */
export async function loadAttachedCustomFields(
  db: Queryable,
  organizationId: string,
  productIds: string[],
): Promise<Map<string, AttachedCustomFieldWire[]>> {
  const ids = uniqueUuids(productIds);
  const out = new Map<string, AttachedCustomFieldWire[]>(ids.map((id) => [id, []]));
  for (const row of await repo.attachedToProducts(db, organizationId, ids)) {
    const list = out.get(row.productId);
    // `order` is the position among what is left, so deleting a field leaves no gap
    list?.push(toAttachedCustomFieldWire(row.field, list.length, row.required));
  }
  return out;
}

/** The ids among `ids` that are not live custom fields of this organization. */
export async function customFieldIdsExist(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.existingCustomFieldIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/**
 * Replaces the fields attached to a product (the caller checked the product is the organization's).
 * Unknown or repeated fields are a 422 at `loc` (e.g. ["body", "attached_custom_fields"]).
 */
export async function setProductCustomFields(
  db: Queryable,
  organizationId: string,
  productId: string,
  list: AttachedCustomFieldInput[],
  loc: Array<string | number>,
): Promise<void> {
  const ids = list.map((a) => a.custom_field_id.toLowerCase());
  const missing = new Set(await customFieldIdsExist(db, organizationId, ids));
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  ids.forEach((id, i) => {
    if (missing.has(id)) {
      issues.push({ loc: [...loc, i, "custom_field_id"], msg: "Custom field does not exist.", type: "value_error", input: id });
    } else if (seen.has(id)) {
      issues.push({ loc: [...loc, i, "custom_field_id"], msg: "Custom field is attached twice.", type: "value_error", input: id });
    }
    seen.add(id);
  });
  if (issues.length > 0) throw validationError(issues);
  await repo.replaceProductAttachments(
    db,
    organizationId,
    productId,
    list.map((a, i) => ({ customFieldId: ids[i] ?? a.custom_field_id, required: a.required })),
  );
}
