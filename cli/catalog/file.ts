// Reading and writing the catalog file: parsing validates the document with the schema and reports
// `file:line: path: problem`; serializing writes the canonical form (sorted keys, defaults left out), so pulling
// twice gives the same bytes.
import type { z } from "zod";
import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import {
  type BenefitSpec,
  type Catalog,
  CATALOG_VERSION,
  type CustomFieldSpec,
  type DiscountSpec,
  emptyCatalog,
  KEY_MESSAGE,
  type MeterSpec,
  type PriceSpec,
  type ProductSpec,
} from "./model.js";
import { benefitProperties, CatalogInput, customFieldProperties } from "./schema.js";

// ---- parsing ------------------------------------------------------------------------------------------

export interface CatalogIssue {
  /** 1-based line in the file, or null when the problem has no place (an empty file). */
  line: number | null;
  /** Where in the document: "products.pro.prices[0].price_amount". */
  path: string;
  message: string;
}

/** The file is not a valid catalog; `message` lists every problem as `file:line: path: problem`. */
export class CatalogFileError extends Error {
  readonly issues: CatalogIssue[];
  readonly file: string;
  constructor(file: string, issues: CatalogIssue[]) {
    super(issues.map((i) => formatIssue(file, i)).join("\n"));
    this.name = "CatalogFileError";
    this.file = file;
    this.issues = issues;
  }
}

export function formatIssue(file: string, issue: CatalogIssue): string {
  const where = issue.line === null ? file : `${file}:${issue.line}`;
  return issue.path ? `${where}: ${issue.path}: ${issue.message}` : `${where}: ${issue.message}`;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, seg) => {
    if (typeof seg === "number") return `${out}[${seg}]`;
    const s = String(seg);
    return out === "" ? s : `${out}.${s}`;
  }, "");
}

/** The line of the node at `path`, or of its nearest ancestor that exists. */
function lineOf(doc: Document.Parsed, counter: LineCounter, path: ReadonlyArray<PropertyKey>): number | null {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (node && typeof node === "object" && (isMap(node) || isSeq(node) || isScalar(node)) && node.range) {
      // a map's own position is its first key; point at the key when we can
      if (n > 0 && (isMap(node) || isSeq(node))) {
        const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
        if (isMap(parent)) {
          const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(path[n - 1]));
          if (pair && isScalar(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0]).line;
        }
      }
      return counter.linePos(node.range[0]).line;
    }
  }
  return null;
}

/**
 * Parses and validates a catalog document (YAML, or JSON, which is YAML too). References between entries
 * (a product's benefits, a metered price's meter, a discount's products…) must name keys of the same file.
 */
export function parseCatalog(text: string, file = "till.yaml"): Catalog {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new CatalogFileError(
      file,
      doc.errors.map((e) => ({ line: counter.linePos(e.pos[0]).line || 1, path: "", message: e.message.split("\n")[0] ?? e.message })),
    );
  }
  const raw: unknown = doc.toJS({ maxAliasCount: 100 });
  if (raw === null || raw === undefined) {
    throw new CatalogFileError(file, [{ line: null, path: "", message: `the file is empty; start with "version: ${CATALOG_VERSION}"` }]);
  }
  const parsed = CatalogInput.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => {
      // an unknown key is reported on its object: point at the key itself
      const path = i.code === "unrecognized_keys" && i.keys.length === 1 ? [...i.path, i.keys[0] as string] : i.path;
      return { line: lineOf(doc, counter, path), path: formatPath(path), message: issueMessage(i) };
    });
    throw new CatalogFileError(file, byLine(issues));
  }
  const catalog = toCatalog(parsed.data);
  const refIssues = referenceIssues(catalog).map((r) => ({ line: lineOf(doc, counter, r.path), path: formatPath(r.path), message: r.message }));
  if (refIssues.length > 0) throw new CatalogFileError(file, byLine(refIssues));
  return catalog;
}

const byLine = (issues: CatalogIssue[]) => [...issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return issue.keys.length === 1 ? "unknown field" : `unknown fields: ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_key") return KEY_MESSAGE;
  return issue.message;
}

type CatalogData = z.output<typeof CatalogInput>;

function toCatalog(data: CatalogData): Catalog {
  const catalog = emptyCatalog();
  for (const [key, m] of Object.entries(data.meters)) catalog.meters.set(key, m);
  for (const [key, f] of Object.entries(data.custom_fields)) {
    catalog.custom_fields.set(key, {
      slug: (f.slug ?? key).toLowerCase(),
      name: f.name,
      type: f.type,
      properties: customFieldProperties((f.properties ?? {}) as Record<string, unknown>),
      metadata: f.metadata,
    });
  }
  for (const [key, b] of Object.entries(data.benefits)) {
    catalog.benefits.set(key, {
      type: b.type,
      description: b.description,
      properties: benefitProperties(b.type, b.properties as Record<string, unknown> | null | undefined),
      metadata: b.metadata,
    });
  }
  for (const [key, p] of Object.entries(data.products)) catalog.products.set(key, p);
  for (const [key, d] of Object.entries(data.discounts)) catalog.discounts.set(key, d);
  return catalog;
}

/** Keys that name nothing in the file, and slugs given twice. */
function referenceIssues(c: Catalog): Array<{ path: PropertyKey[]; message: string }> {
  const issues: Array<{ path: PropertyKey[]; message: string }> = [];
  const missing = (path: PropertyKey[], kind: string, key: string, section: string) =>
    issues.push({ path, message: `no ${kind} "${key}" in ${section}` });
  for (const [key, b] of c.benefits) {
    const meter = b.type === "meter_credit" ? String(b.properties.meter) : null;
    if (meter !== null && !c.meters.has(meter)) missing(["benefits", key, "properties", "meter"], "meter", meter, "meters");
  }
  for (const [key, p] of c.products) {
    // prices were sorted: report by content, which survives the sort
    p.prices.forEach((price) => {
      if (price.amount_type === "metered_unit" && !c.meters.has(price.meter)) {
        missing(["products", key, "prices"], "meter", price.meter, "meters");
      }
    });
    p.benefits.forEach((b, i) => c.benefits.has(b) || missing(["products", key, "benefits", i], "benefit", b, "benefits"));
    p.custom_fields.forEach(
      (f, i) => c.custom_fields.has(f.field) || missing(["products", key, "custom_fields", i], "custom field", f.field, "custom_fields"),
    );
  }
  for (const [key, d] of c.discounts) {
    d.products.forEach((p) => c.products.has(p) || missing(["discounts", key, "products"], "product", p, "products"));
  }
  const slugs = new Map<string, string>();
  for (const [key, f] of c.custom_fields) {
    const other = slugs.get(f.slug);
    if (other !== undefined) issues.push({ path: ["custom_fields", key, "slug"], message: `slug "${f.slug}" is also the slug of ${other}` });
    slugs.set(f.slug, key);
  }
  return issues;
}

// ---- serializing ----------------------------------------------------------------------------------------

/** Drops keys whose value is null, undefined, an empty list/map, or the given default. */
function compact(o: Record<string, unknown>, defaults: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    if (k in defaults && defaults[k] === v) continue;
    out[k] = v;
  }
  return out;
}

function priceDocument(p: PriceSpec): Record<string, unknown> {
  const { tax_behavior, ...rest } = p;
  const out: Record<string, unknown> = { ...rest, tax_behavior };
  if (p.amount_type === "seat_based") {
    out.seat_tiers = {
      ...(p.seat_tiers.seat_tier_type === "volume" ? {} : { seat_tier_type: p.seat_tiers.seat_tier_type }),
      tiers: p.seat_tiers.tiers.map((t) => compact({ ...t })),
    };
  }
  if (p.amount_type === "metered_unit" && p.unit_tiers) {
    // the last tier has no up_to; a flat fee of 0 is left out
    out.unit_tiers = { tier_type: p.unit_tiers.tier_type, tiers: p.unit_tiers.tiers.map((t) => compact({ ...t }, { flat_amount: 0 })) };
  }
  return compact(out);
}

function productDocument(p: ProductSpec): Record<string, unknown> {
  return compact(
    {
      name: p.name,
      description: p.description,
      visibility: p.visibility,
      recurring_interval: p.recurring_interval,
      recurring_interval_count: p.recurring_interval_count,
      trial_interval: p.trial_interval,
      trial_interval_count: p.trial_interval_count,
      prices: p.prices.map(priceDocument),
      benefits: p.benefits,
      custom_fields: p.custom_fields.map((f) => ({ field: f.field, required: f.required })),
      medias: p.medias,
      archived: p.archived,
      metadata: p.metadata,
    },
    { visibility: "public", recurring_interval_count: 1, archived: false },
  );
}

function discountDocument(d: DiscountSpec): Record<string, unknown> {
  const value =
    d.type === "fixed"
      ? {
          amount: d.amount,
          currency: d.currency,
          // only the currencies beyond the primary one: amount/currency already say that one
          amounts: Object.keys(d.amounts).length > 1 ? d.amounts : null,
        }
      : { basis_points: d.basis_points };
  return compact({
    name: d.name,
    code: d.code,
    type: d.type,
    ...value,
    duration: d.duration,
    duration_in_months: d.duration_in_months,
    starts_at: d.starts_at,
    ends_at: d.ends_at,
    max_redemptions: d.max_redemptions,
    products: d.products,
    metadata: d.metadata,
  });
}

function benefitDocument(b: BenefitSpec): Record<string, unknown> {
  return compact({ type: b.type, description: b.description, properties: compact(b.properties), metadata: b.metadata });
}

function customFieldDocument(key: string, f: CustomFieldSpec): Record<string, unknown> {
  return compact({
    type: f.type,
    name: f.name,
    slug: f.slug === key ? null : f.slug,
    properties: f.properties,
    metadata: f.metadata,
  });
}

function meterDocument(m: MeterSpec): Record<string, unknown> {
  return compact(
    {
      name: m.name,
      unit: m.unit,
      custom_label: m.custom_label,
      custom_multiplier: m.custom_multiplier,
      filter: m.filter,
      aggregation: m.aggregation,
      archived: m.archived,
      metadata: m.metadata,
    },
    { unit: "scalar", archived: false },
  );
}

function sectionDocument<T>(entries: Map<string, T>, toDoc: (key: string, spec: T) => Record<string, unknown>) {
  const keys = [...entries.keys()].sort();
  return Object.fromEntries(keys.map((k) => [k, toDoc(k, entries.get(k) as T)]));
}

/** The document as plain data (what JSON output prints), in canonical order. */
export function catalogDocument(c: Catalog): Record<string, unknown> {
  return {
    version: CATALOG_VERSION,
    meters: sectionDocument(c.meters, (_k, m) => meterDocument(m)),
    custom_fields: sectionDocument(c.custom_fields, customFieldDocument),
    benefits: sectionDocument(c.benefits, (_k, b) => benefitDocument(b)),
    products: sectionDocument(c.products, (_k, p) => productDocument(p)),
    discounts: sectionDocument(c.discounts, (_k, d) => discountDocument(d)),
  };
}

const HEADER = [
  " The catalog of a till organization: meters, custom fields, benefits, products and discounts.",
  " Entries are identified by their key (written to the server objects' metadata as till_catalog_key).",
  " Amounts are in minor units (1000 usd = $10.00). Check changes with `till catalog plan -f <file>`,",
  " then make them with `till catalog apply -f <file>`.",
].join("\n");

export function catalogToYaml(c: Catalog): string {
  const doc = new Document(catalogDocument(c));
  // short lists of keys read best on one line: `benefits: [support, credits]`
  visit(doc, {
    Seq(_key, node) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  doc.commentBefore = HEADER;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

export function catalogToJson(c: Catalog): string {
  return `${JSON.stringify(catalogDocument(c), null, 2)}\n`;
}
