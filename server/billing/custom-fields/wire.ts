// The Polar `CustomField` and `AttachedCustomField` shapes, built from custom_field rows.
import type { InferSelectModel } from "drizzle-orm";
import type { customField, Metadata } from "../../db/schema/index.js";

export type CustomFieldRow = InferSelectModel<typeof customField>;

export const CUSTOM_FIELD_TYPES = ["text", "number", "date", "checkbox", "select"] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldWire {
  created_at: string;
  modified_at: string | null;
  id: string;
  metadata: Metadata;
  type: string;
  slug: string;
  name: string;
  organization_id: string;
  properties: Record<string, unknown>;
}

export interface AttachedCustomFieldWire {
  custom_field_id: string;
  custom_field: CustomFieldWire;
  order: number;
  required: boolean;
}

export function toCustomFieldWire(row: CustomFieldRow): CustomFieldWire {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    metadata: row.metadata,
    type: row.type,
    slug: row.slug,
    name: row.name,
    organization_id: row.organizationId,
    properties: row.properties,
  };
}

export function toAttachedCustomFieldWire(row: CustomFieldRow, order: number, required: boolean): AttachedCustomFieldWire {
  return { custom_field_id: row.id, custom_field: toCustomFieldWire(row), order, required };
}
