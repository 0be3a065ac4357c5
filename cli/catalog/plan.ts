// `till catalog plan`: the file (desired) against the server (actual) → the changes that make the server match,
// in the order they can be made (meters, custom fields and benefits before the products that use them,
// products before the discounts restricted to them), and a readable rendering of them.
//
// What happens to objects the file no longer lists: products and meters are archived (reversible: listing the
// key again brings the object back); benefits, discounts and custom fields are deleted only with --prune, since
// deleting revokes grants or loses what customers entered; without it the plan notes them and leaves them.
// Objects that till catalog never wrote (no till_catalog_key) are adopted when the file names them by the key
// pull would derive and differs from them (an object described as it is needs no change: a fresh pull plans
// none); those the file does not list are kept and named in a note, products and meters archived with --prune.
import {
  KINDS,
  SECTION,
  describePrice,
  displayName,
  entriesOf,
  priceSignature,
  type Catalog,
  type Kind,
  type ProductSpec,
  type SpecOf,
} from "./model.js";
import { plural } from "../resources.js";
import { indexServer, isArchived, unknownRef, type RefResolver, type ServerCatalog, type ServerObjectOf } from "./server.js";
import { priceSpec, specOf } from "./specs.js";

export type Action = "create" | "update" | "archive" | "delete" | "replace";

export interface FieldChange {
  /** "name", "prices", "metadata.tier", "properties.units"… */
  path: string;
  before: unknown;
  after: unknown;
}

export interface Change<K extends Kind = Kind> {
  action: Action;
  kind: K;
  key: string;
  /** The name in the file (the server's for archive/delete). */
  name: string;
  /** The server object this change acts on (null for create). */
  id: string | null;
  /** The object has no till_catalog_key yet: this update writes it. */
  adopt: boolean;
  fields: FieldChange[];
  desired: SpecOf<K> | null;
  actual: SpecOf<K> | null;
  /** Product updates: the server's active prices, so that prices the file still lists are kept, not recreated. */
  actualPrices: Array<{ id: string; signature: string }>;
}

export interface Plan {
  changes: Change[];
  /** Things worth knowing that change nothing (objects left alone and why). */
  notes: string[];
  /** Catalog key → server id of every existing object the plan keeps; apply adds the ones it creates. */
  ids: Record<Kind, Map<string, string>>;
}

export interface PlanOptions {
  /** Delete benefits, discounts and custom fields that the file no longer lists. */
  prune?: boolean;
}

/** Fields the server cannot change in place: a different value means a new object (the old one goes). */
const IMMUTABLE: Record<Kind, string[]> = {
  meter: [],
  custom_field: ["type"],
  benefit: ["type"],
  product: ["recurring_interval", "recurring_interval_count"],
  discount: ["type", "duration"],
};

const LABEL: Record<Kind, string> = {
  meter: "meter",
  custom_field: "custom field",
  benefit: "benefit",
  product: "product",
  discount: "discount",
};

// ---- diffing ------------------------------------------------------------------------------------------

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function diffValue(path: string, a: unknown, b: unknown, out: FieldChange[]): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !(k in b))];
    for (const k of keys) diffValue(`${path}.${k}`, a[k], b[k], out);
    return;
  }
  if (!same(a, b)) out.push({ path, before: a ?? null, after: b ?? null });
}

/** The prices of `before` missing from `after` and the other way round (a price set, compared by content). */
function priceSetDiff(before: ProductSpec["prices"], after: ProductSpec["prices"]): FieldChange | null {
  const remaining = before.map(priceSignature);
  const added: string[] = [];
  for (const p of after) {
    const i = remaining.indexOf(priceSignature(p));
    if (i >= 0) remaining.splice(i, 1);
    else added.push(describePrice(p));
  }
  const removed = before.filter((p) => remaining.includes(priceSignature(p))).map(describePrice);
  return removed.length || added.length ? { path: "prices", before: removed, after: added } : null;
}

export function diffSpecs<K extends Kind>(kind: K, before: SpecOf<K>, after: SpecOf<K>): FieldChange[] {
  const out: FieldChange[] = [];
  const a = before as unknown as Record<string, unknown>;
  const b = after as unknown as Record<string, unknown>;
  const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !(k in b))];
  for (const field of keys) {
    if (kind === "product" && field === "prices") {
      const d = priceSetDiff((before as ProductSpec).prices, (after as ProductSpec).prices);
      if (d) out.push(d);
      continue;
    }
    diffValue(field, a[field], b[field], out);
  }
  return out;
}

/** The top-level field a change path belongs to ("metadata.tier" → "metadata"). */
export const topField = (path: string) => path.split(/[.[]/)[0] ?? path;

// ---- planning -----------------------------------------------------------------------------------------

/** Deletions first (they free codes and slugs), then creation in dependency order, archiving last. */
function phase(c: Change): number {
  if (c.action === "delete") return ["discount", "custom_field", "benefit"].indexOf(c.kind);
  if (c.action === "archive") return c.kind === "product" ? 8 : 9;
  return 3 + KINDS.indexOf(c.kind);
}

function emptyIds(): Record<Kind, Map<string, string>> {
  return { meter: new Map(), custom_field: new Map(), benefit: new Map(), product: new Map(), discount: new Map() };
}

export function planCatalog(desired: Catalog, server: ServerCatalog, opts: PlanOptions = {}): Plan {
  const index = indexServer(server);
  const notes: string[] = [];
  const ids = emptyIds();
  const plainRefs: RefResolver = (kind, id) => index.keys[kind].keyOfId.get(id) ?? unknownRef(id);

  // Objects whose immutable fields change are replaced: what refers to them must move to the new object.
  // An object not yet managed is adopted only if it can be updated in place; otherwise it is left alone
  // (never deleted on the strength of a derived key) and the entry is created anew.
  const replaced = new Set<string>();
  const notAdopted = new Set<string>();
  for (const kind of KINDS) {
    for (const [key, want] of entriesOf(desired, kind)) {
      const hit = index.keys[kind].byKey.get(key);
      if (!hit) continue;
      const have = specOf(kind, hit.object, plainRefs) as unknown as Record<string, unknown>;
      const wanted = want as unknown as Record<string, unknown>;
      const differ = IMMUTABLE[kind].filter((f) => !same(have[f], wanted[f]));
      if (differ.length === 0) continue;
      if (!hit.derived) replaced.add(hit.object.id);
      else {
        notAdopted.add(hit.object.id);
        notes.push(
          `${LABEL[kind]} "${displayName(kind, have as unknown as SpecOf<Kind>)}" matches ${key} by name but its ` +
            `${differ.join(" and ")} ${differ.length === 1 ? "differs" : "differ"}: left as is, ${key} is created`,
        );
      }
    }
  }
  const refs: RefResolver = (kind, id) =>
    replaced.has(id) ? `${plainRefs(kind, id)} (replaced)` : notAdopted.has(id) ? unknownRef(id) : plainRefs(kind, id);

  const changes: Change[] = [];
  for (const kind of KINDS) {
    const keys = index.keys[kind];
    const wanted = entriesOf(desired, kind);
    const matched = (key: string) => {
      const hit = keys.byKey.get(key);
      return hit && !notAdopted.has(hit.object.id) ? hit : undefined;
    };
    for (const [key, hit] of keys.byKey) {
      if (!replaced.has(hit.object.id) && !notAdopted.has(hit.object.id)) ids[kind].set(key, hit.object.id);
    }
    for (const [key, want] of wanted) {
      changes.push(...changesFor(kind, key, want, matched(key), refs, replaced));
    }
    const unmanaged: string[] = [];
    const archivable = kind === "product" || kind === "meter";
    for (const [key, hit] of keys.byKey) {
      if (wanted.has(key) || isArchived(kind, hit.object)) continue;
      const actual = specOf(kind, hit.object, refs);
      const name = displayName(kind, actual);
      // not in the file and never written by apply (no key): it may have been dropped from a pulled file or
      // made elsewhere; products and meters are archived (reversible) when asked with --prune, never silently
      if (hit.derived && archivable && opts.prune) changes.push(removal("archive", kind, key, hit.object, actual));
      else if (hit.derived) unmanaged.push(`"${name}"`);
      else if (archivable) changes.push(removal("archive", kind, key, hit.object, actual));
      else if (opts.prune) changes.push(removal("delete", kind, key, hit.object, actual));
      else notes.push(`${LABEL[kind]} "${name}" (${key}) is no longer in the file: kept (--prune deletes it)`);
    }
    if (unmanaged.length > 0) {
      const what = `${plural(unmanaged.length, LABEL[kind])} not in the file`;
      notes.push(
        archivable
          ? `${what}, kept: ${unmanaged.join(", ")} (--prune archives ${unmanaged.length === 1 ? "it" : "them"})`
          : `${what} and not made by it, kept: ${unmanaged.join(", ")} (--prune deletes only what apply made)`,
      );
    }
    for (const dup of keys.duplicates) {
      notes.push(`${LABEL[kind]} ${(dup as { id: string }).id} carries the key of another ${LABEL[kind]}: left as is`);
    }
  }
  for (const p of index.legacy) notes.push(`product "${p.name}" has legacy recurring prices: till catalog leaves it alone`);

  const ordered = changes.map((c, i) => ({ c, i })).sort((a, b) => phase(a.c) - phase(b.c) || a.i - b.i);
  return { changes: ordered.map((o) => o.c), notes, ids };
}

function removal<K extends Kind>(action: "archive" | "delete", kind: K, key: string, object: ServerObjectOf<K>, actual: SpecOf<K>): Change<K> {
  return { action, kind, key, name: displayName(kind, actual), id: object.id, adopt: false, fields: [], desired: null, actual, actualPrices: [] };
}

function changesFor<K extends Kind>(
  kind: K,
  key: string,
  want: SpecOf<K>,
  hit: { object: ServerObjectOf<K>; derived: boolean } | undefined,
  refs: RefResolver,
  replaced: Set<string>,
): Change<K>[] {
  const base = { kind, key, name: displayName(kind, want), desired: want, actualPrices: [] };
  if (!hit) return [{ ...base, action: "create", id: null, adopt: false, fields: [], actual: null }];
  const actual = specOf(kind, hit.object, refs);
  const fields = diffSpecs(kind, actual, want);
  const id = hit.object.id;
  if (replaced.has(id)) return [{ ...base, action: "replace", id, adopt: false, fields, actual }];
  // an object the file describes as it is needs nothing, managed or not: a fresh pull plans no change (its
  // key is written with the first real change, and until then the key pull derives keeps matching it)
  if (fields.length === 0) return [];
  const actualPrices =
    kind === "product"
      ? (hit.object as ServerObjectOf<"product">).prices
          .filter((p) => !p.isArchived)
          .map((p) => ({ id: p.id, signature: priceSignature(priceSpec(p, refs)) }))
      : [];
  return [{ ...base, action: "update", id, adopt: hit.derived, fields, actual, actualPrices }];
}

// ---- rendering ----------------------------------------------------------------------------------------

export interface PlanStyle {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
}
const PLAIN: PlanStyle = { green: (s) => s, red: (s) => s, yellow: (s) => s, dim: (s) => s };

export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return `[${v.join(", ")}]`;
  if (Array.isArray(v) && v.every((x) => isPlainObject(x) && typeof x.field === "string")) {
    // a product's custom fields: [company (required), terms]
    return `[${v.map((x) => `${x.field}${x.required ? " (required)" : ""}`).join(", ")}]`;
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function formatField(f: FieldChange): string {
  if (f.path === "prices") {
    const removed = (f.before as string[]).map((p) => `- ${p}`);
    const added = (f.after as string[]).map((p) => `+ ${p}`);
    return `prices ${[...removed, ...added].join(", ")}`;
  }
  return `${f.path} ${formatValue(f.before)} → ${formatValue(f.after)}`;
}

function createSummary(c: Change): string {
  const d = c.desired;
  if (!d) return "";
  switch (c.kind) {
    case "product": {
      const p = d as ProductSpec;
      const parts = [plural(p.prices.length, "price")];
      if (p.benefits.length) parts.push(plural(p.benefits.length, "benefit"));
      if (p.archived) parts.push("archived");
      return ` (${parts.join(", ")})`;
    }
    case "discount": {
      const x = d as SpecOf<"discount">;
      const value = x.type === "fixed" ? `${x.amount} ${x.currency}` : `${x.basis_points / 100}%`;
      return ` (${value} ${x.duration}${x.code ? `, code ${x.code}` : ""})`;
    }
    case "benefit":
      return ` (${(d as SpecOf<"benefit">).type})`;
    case "custom_field":
      return ` (${(d as SpecOf<"custom_field">).type})`;
    default:
      return (d as SpecOf<"meter">).archived ? " (archived)" : "";
  }
}

/** One change as text: a line, followed by indented field lines when several fields change. */
export function renderChange(c: Change, style: PlanStyle = PLAIN): string {
  const what = `${LABEL[c.kind]} "${c.name}"`;
  const fields = c.fields.map(formatField);
  const detail = (head: string) => (fields.length === 0 ? head : fields.length === 1 ? `${head}: ${fields[0]}` : `${head}:\n${fields.map((f) => `    ${f}`).join("\n")}`);
  switch (c.action) {
    case "create":
      return style.green(`+ create ${what}${createSummary(c)}`);
    case "archive":
      return style.red(`- archive ${what}`);
    case "delete":
      return style.red(`- delete ${what}`);
    case "replace":
      return style.yellow(detail(`-/+ replace ${what} (${c.kind === "product" ? "archives" : "deletes"} the old one: ${IMMUTABLE[c.kind].join(" and ")} can't change)`));
    default:
      return style.yellow(detail(c.adopt ? `~ adopt ${what} as ${c.key}` : `~ update ${what}`));
  }
}

/** The exit code of `plan`: 0 when the server already matches the file, 2 when there are changes to make. */
export function planExitCode(plan: Plan): 0 | 2 {
  return plan.changes.length === 0 ? 0 : 2;
}

export function planCounts(plan: Plan): Record<Action, number> {
  const counts: Record<Action, number> = { create: 0, update: 0, archive: 0, delete: 0, replace: 0 };
  for (const c of plan.changes) counts[c.action]++;
  return counts;
}

export function renderPlan(plan: Plan, style: PlanStyle = PLAIN): string {
  const lines = plan.changes.map((c) => renderChange(c, style));
  if (plan.notes.length > 0) {
    if (lines.length > 0) lines.push("");
    lines.push(...plan.notes.map((n) => style.dim(`# ${n}`)));
  }
  if (lines.length > 0) lines.push("");
  if (plan.changes.length === 0) lines.push("No changes: the catalog on the server matches the file.");
  else {
    const n = planCounts(plan);
    lines.push(`Plan: ${n.create} to create, ${n.update} to update, ${n.replace} to replace, ${n.archive} to archive, ${n.delete} to delete.`);
  }
  return lines.join("\n");
}

/** The plan as --json prints it: changes and notes, without the internals apply needs. */
export function planJson(plan: Plan) {
  return {
    changes: plan.changes.map((c) => ({
      action: c.action,
      kind: c.kind,
      section: SECTION[c.kind],
      key: c.key,
      name: c.name,
      id: c.id,
      adopt: c.adopt,
      fields: c.fields,
    })),
    notes: plan.notes,
    counts: planCounts(plan),
  };
}
