// A form described as data: each field names its place in the API's body by a dot path ("invoice_details.tax_id"),
// how a seller reads it (label, help) and its kind. The values go to the form and back to the body by those paths,
// and a 422's errors come back to the field whose path they name (FieldsForm.tsx).

export type FieldKind = "text" | "email" | "url" | "textarea" | "number" | "bool" | "select" | "days" | "links";

export interface FieldSpec {
  /** The value's path in the API's body, dot-separated. */
  path: string;
  label: string;
  help?: string;
  kind: FieldKind;
  /** A select's choices; `placeholder` is its empty first choice (sent as null), none when absent. */
  options?: ReadonlyArray<{ value: string; label: string }>;
  placeholder?: string;
  autoComplete?: string;
  maxLength?: number;
  min?: number;
  max?: number;
}

export type FormValue = string | boolean;
/** The form's values, nested as the body is. */
export type FormValues = { [key: string]: FormValue | FormValues };

type Tree = Record<string, unknown>;

export function getPath(tree: unknown, path: string): unknown {
  let at: unknown = tree;
  for (const key of path.split(".")) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Tree)[key];
  }
  return at;
}

export function setPath(tree: Tree, path: string, value: unknown): void {
  const keys = path.split(".");
  let at = tree;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at = typeof next === "object" && next !== null ? (next as Tree) : (at[key] = {});
  }
  at[keys[keys.length - 1] ?? ""] = value;
}

/** What the form shows for the API's value: text for text, a box for a flag, "1, 3, 5" for a list of days. */
export function formValueOf(field: FieldSpec, value: unknown): FormValue {
  if (field.kind === "bool") return value === true;
  if (field.kind === "days") return Array.isArray(value) ? value.join(", ") : "";
  if (field.kind === "links") return Array.isArray(value) ? value.map((l: { url?: string }) => l.url ?? "").join("\n") : "";
  return value === null || value === undefined ? "" : String(value);
}

/** What the API takes for the form's value: null for an empty text, a number, a list of whole days. */
export function bodyValueOf(field: FieldSpec, value: unknown): unknown {
  if (field.kind === "bool") return value === true;
  const text = typeof value === "string" ? value.trim() : "";
  if (field.kind === "days") return text.split(/[\s,]+/).filter(Boolean).map(Number);
  if (field.kind === "links") return text.split(/\s+/).filter(Boolean).map((url) => ({ platform: platformOf(url), url }));
  if (field.kind === "number") return text === "" ? null : Number(text);
  return text === "" ? null : text;
}

const PLATFORMS: Record<string, string> = {
  "x.com": "x", "twitter.com": "x", "github.com": "github", "facebook.com": "facebook", "instagram.com": "instagram",
  "youtube.com": "youtube", "tiktok.com": "tiktok", "linkedin.com": "linkedin", "threads.net": "threads", "discord.gg": "discord", "discord.com": "discord",
};

/** The social platform of a profile's link, by its host (Polar's list; "other" for the rest). */
export function platformOf(url: string): string {
  try {
    return PLATFORMS[new URL(url).hostname.replace(/^www\./, "")] ?? "other";
  } catch {
    return "other";
  }
}

export function valuesOf(fields: readonly FieldSpec[], resource: unknown): FormValues {
  const values: Tree = {};
  for (const f of fields) setPath(values, f.path, formValueOf(f, getPath(resource, f.path)));
  return values as FormValues;
}

export function bodyOf(fields: readonly FieldSpec[], values: unknown): Tree {
  const body: Tree = {};
  for (const f of fields) setPath(body, f.path, bodyValueOf(f, getPath(values, f.path)));
  return body;
}

/** The field an error's path belongs to: the field at that path or under it ("invoice_details.address" → its first
 *  field), else the nearest field above it ("dunning_settings.retry_intervals_days.0" → the list). */
export function fieldOfError(fields: readonly FieldSpec[], path: string): FieldSpec | undefined {
  const exact = fields.find((f) => f.path === path || f.path.startsWith(`${path}.`));
  if (exact) return exact;
  return [...fields].sort((a, b) => b.path.length - a.path.length).find((f) => path.startsWith(`${f.path}.`));
}
