// Custom field data sent with a checkout, checked against the fields attached to the chosen product: the
// value's type, text lengths, number and date bounds, select options, and (when confirming) required fields.
// Keys that name no attached field are dropped, like Polar does.
import type { CustomFieldData } from "../../db/schema/index.js";
import type { AttachedCustomFieldWire } from "../custom-fields/wire.js";
import type { ValidationIssue } from "../errors.js";

const DATE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

const int = (v: unknown): number | null => (typeof v === "number" && Number.isInteger(v) ? v : null);

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "string" && v.trim() === "");
}

/** The issue with one value of a field, or null when it is acceptable. */
function valueIssue(field: AttachedCustomFieldWire, value: unknown): { msg: string; type: string } | null {
  const { type, properties } = field.custom_field;
  const ge = int(properties.ge);
  const le = int(properties.le);
  switch (type) {
    case "text": {
      if (typeof value !== "string") return { msg: "Input should be a valid string", type: "string_type" };
      const min = int(properties.min_length);
      const max = int(properties.max_length);
      if (min !== null && value.length < min) return { msg: `String should have at least ${min} characters`, type: "string_too_short" };
      if (max !== null && value.length > max) return { msg: `String should have at most ${max} characters`, type: "string_too_long" };
      return null;
    }
    case "number": {
      if (int(value) === null) return { msg: "Input should be a valid integer", type: "int_type" };
      const n = value as number;
      if (ge !== null && n < ge) return { msg: `Input should be greater than or equal to ${ge}`, type: "greater_than_equal" };
      if (le !== null && n > le) return { msg: `Input should be less than or equal to ${le}`, type: "less_than_equal" };
      return null;
    }
    case "date": {
      const time = typeof value === "string" && DATE_RE.test(value) ? Date.parse(value) : NaN;
      if (Number.isNaN(time)) return { msg: "Input should be a valid date", type: "date_parsing" };
      // bounds are unix timestamps (seconds)
      const seconds = Math.floor(time / 1000);
      if (ge !== null && seconds < ge) return { msg: `Date should be on or after ${new Date(ge * 1000).toISOString().slice(0, 10)}`, type: "greater_than_equal" };
      if (le !== null && seconds > le) return { msg: `Date should be on or before ${new Date(le * 1000).toISOString().slice(0, 10)}`, type: "less_than_equal" };
      return null;
    }
    case "checkbox":
      return typeof value === "boolean" ? null : { msg: "Input should be a valid boolean", type: "bool_type" };
    case "select": {
      const options = Array.isArray(properties.options) ? (properties.options as Array<{ value: string }>) : [];
      if (typeof value === "string" && options.some((o) => o.value === value)) return null;
      return { msg: `Input should be ${options.map((o) => `'${o.value}'`).join(" or ")}`, type: "enum" };
    }
    default:
      return null;
  }
}

/**
 * `data` filtered to the attached fields and checked. With `required`, every required field must hold a
 * value (a required checkbox must be checked). `current` is what the checkout already holds: new keys
 * replace its values, the others stay.
 */
export function validateCustomFieldData(
  fields: AttachedCustomFieldWire[],
  data: Record<string, unknown> | undefined,
  current: CustomFieldData,
  opts: { required: boolean; loc: Array<string | number> },
): { data: CustomFieldData; issues: ValidationIssue[] } {
  const bySlug = new Map(fields.map((f) => [f.custom_field.slug, f]));
  const out: CustomFieldData = {};
  for (const [slug, value] of Object.entries(current)) if (bySlug.has(slug)) out[slug] = value;
  const issues: ValidationIssue[] = [];
  for (const [slug, value] of Object.entries(data ?? {})) {
    const field = bySlug.get(slug);
    if (!field) continue;
    if (value === null) {
      out[slug] = null;
      continue;
    }
    const issue = valueIssue(field, value);
    if (issue) issues.push({ loc: [...opts.loc, slug], ...issue, input: value });
    else out[slug] = value as string | number | boolean;
  }
  if (opts.required) {
    for (const field of fields) {
      if (!field.required) continue;
      const slug = field.custom_field.slug;
      const value = out[slug];
      if (isEmpty(value) || (field.custom_field.type === "checkbox" && value !== true)) {
        if (!issues.some((i) => i.loc.at(-1) === slug)) {
          issues.push({ loc: [...opts.loc, slug], msg: "Field is required.", type: "missing", input: value ?? null, code: "required" });
        }
      }
    }
  }
  return { data: out, issues };
}
