// How the Stripe stand-in keeps the objects it lists and expands (never shipped): each kind in creation order per
// account and mode (and per a key such as a subscription's customer), so a page of a list costs what the page holds
// (https://docs.stripe.com/api/pagination: newest first, `limit` 1–100, `starting_after`/`ending_before` by id);
// and Stripe's `expand[]` (https://docs.stripe.com/expand): an id replaced by its object, dotted paths through
// embedded objects, `data.` before each path of a list, and the "includable" fields Stripe leaves out of an
// object unless asked for (a price's `tiers`, a customer's `tax_ids`). A path Stripe cannot expand is its 400.
import { StripeFailure, type Authed, type Params } from "./stripe-peer.js";
import { noSuch } from "./stripe-peer-util.js";

export type Json = Record<string, unknown>;
/** A stored object: Stripe's fields, and whose it is (the account's, in one mode). */
export type Stored = Json & { id: string; account: string; livemode: boolean; created: number };

let sequence = 0;
const scopeOf = (o: { account: string; livemode: boolean }) => `${o.account}|${o.livemode ? "live" : "test"}`;

/** Objects of one kind, in the order they were made, per account and mode and per each key of `keysOf`. */
export class Ordered<T extends Stored> {
  private readonly seq = new Map<string, number>();
  private readonly groups = new Map<string, string[]>();

  constructor(
    readonly map: Map<string, T>,
    private readonly keysOf: (o: T) => string[] = () => [],
  ) {}

  add(o: T): T {
    this.map.set(o.id, o);
    this.seq.set(o.id, ++sequence);
    const scope = scopeOf(o);
    for (const group of [scope, ...this.keysOf(o).map((k) => `${scope}|${k}`)]) {
      const ids = this.groups.get(group);
      if (ids) ids.push(o.id);
      else this.groups.set(group, [o.id]);
    }
    return o;
  }

  /** The object if it is the caller's (account and mode), else Stripe's 404. */
  own(auth: Authed, id: string, what: string, param = "id"): T {
    const found = this.map.get(id);
    if (!found || found.account !== auth.account.id || found.livemode !== auth.livemode) throw noSuch(what, id, param);
    return found;
  }

  /** Every object of the account in one mode (and of `key`), oldest first. */
  *all(owner: { account: string; livemode: boolean }, key?: string): Generator<T> {
    for (const id of this.groups.get(key ? `${scopeOf(owner)}|${key}` : scopeOf(owner)) ?? []) {
      const o = this.map.get(id);
      if (o) yield o;
    }
  }

  /**
   * One page, newest first: the group of `key` (a narrower index, e.g. one customer's), the objects `keep` keeps,
   * after `starting_after` or before `ending_before`. Scans from the cursor only as far as the page needs.
   */
  page(auth: Authed, p: Params, what: string, opts: { key?: string | undefined; keep?: (o: T) => boolean } = {}): { data: T[]; has_more: boolean } {
    const limit = limitOf(p);
    const ids = this.groups.get(opts.key ? `${scopeOf({ account: auth.account.id, livemode: auth.livemode })}|${opts.key}` : scopeOf({ account: auth.account.id, livemode: auth.livemode })) ?? [];
    const keep = andCreated(p, opts.keep);
    const found: T[] = [];
    const take = (i: number) => {
      const id = ids[i] as string;
      const o = this.map.get(id);
      if (o && keep(o)) found.push(o);
      return found.length > limit;
    };
    if (typeof p.ending_before === "string") {
      // the page just newer than the cursor, shown newest first
      const at = this.positionOf(ids, p.ending_before, what, "ending_before");
      for (let i = ids[at] === p.ending_before ? at + 1 : at; i < ids.length; i++) if (take(i)) break;
      const more = found.length > limit;
      return { data: found.slice(0, limit).reverse(), has_more: more };
    }
    const start = typeof p.starting_after === "string" ? this.positionOf(ids, p.starting_after, what, "starting_after") - 1 : ids.length - 1;
    for (let i = start; i >= 0; i--) if (take(i)) break;
    return { data: found.slice(0, limit), has_more: found.length > limit };
  }

  /**
   * The first of `ids` (ordered by sequence) not older than the cursor's object: found by bisection, not by a scan. A
   * cursor outside this group (another customer's object) stands where its sequence would.
   */
  private positionOf(ids: string[], cursor: string, what: string, param: string): number {
    const target = this.seq.get(cursor);
    if (target === undefined) throw noSuch(what, cursor, param);
    let [lo, hi] = [0, ids.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.seq.get(ids[mid] as string) ?? 0) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function limitOf(p: Params): number {
  const limit = p.limit === undefined ? 10 : Number(p.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new StripeFailure(400, { type: "invalid_request_error", param: "limit", message: "Invalid integer: limit must be between 1 and 100" });
  }
  return limit;
}

/**
 * `created` as a number (that second) or a range (`created[gte]`, `[gt]`, `[lte]`, `[lt]`), and the route's own filter.
 */
function andCreated<T extends Stored>(p: Params, keep: ((o: T) => boolean) | undefined): (o: T) => boolean {
  const c = p.created;
  const range: Record<string, number> =
    typeof c === "string" ? { gte: Number(c), lte: Number(c) } : c && typeof c === "object" ? Object.fromEntries(Object.entries(c).map(([k, v]) => [k, Number(v)])) : {};
  const { gte = -Infinity, gt = -Infinity, lte = Infinity, lt = Infinity } = range;
  const inRange = (t: number) => t >= gte && t > gt && t <= lte && t < lt;
  return (o) => inRange(o.created) && (keep ? keep(o) : true);
}

/** How one kind of object is shown and what of it can be expanded. */
export interface Kind {
  /** The object as Stripe shows it; `includes`: which of its includable fields were asked for. */
  show(o: Stored, includes: Set<string>): Json;
  /** The caller's object of this kind by id (undefined: not the caller's, or none). */
  find(auth: Authed, id: string): Stored | undefined;
  /** Whether a path names a field Stripe returns only when expanded (`tiers`, `currency_options.eur.tiers`). */
  includable?: (path: string) => boolean;
  /** Dotted paths holding an id (or ids) of another kind, which `expand[]` replaces by the object. */
  links?: Record<string, string>;
  /** Dotted paths holding embedded objects of another kind, through which `expand[]` goes on. */
  nested?: Record<string, string>;
}

const cannotExpand = (path: string) => new StripeFailure(400, { type: "invalid_request_error", message: `This property cannot be expanded (${path}).` });

/** The `expand[]` of a request (Stripe's form: an array of dotted paths). */
export const expandOf = (p: Params): string[] => (Array.isArray(p.expand) ? p.expand.map(String) : typeof p.expand === "string" ? [p.expand] : []);

export class Expander {
  readonly kinds = new Map<string, Kind>();

  /** One object of `kind` as Stripe shows it, expanded along `paths` (`label` prefixes a refused path's name). */
  show(auth: Authed, kind: string, o: Stored, paths: string[], label = ""): Json {
    const def = this.kinds.get(kind);
    if (!def) throw new Error(`stand-in: no kind ${kind}`);
    const includes = new Set(paths.filter((p) => def.includable?.(p) === true));
    const json = def.show(o, includes);
    const byPrefix = new Map<string, string[]>();
    for (const path of paths) {
      if (includes.has(path)) continue;
      const segments = path.split(".");
      let prefix: string | undefined;
      let rest = "";
      for (let k = 1; k <= segments.length && prefix === undefined; k++) {
        const candidate = segments.slice(0, k).join(".");
        if (def.links?.[candidate] || def.nested?.[candidate]) [prefix, rest] = [candidate, segments.slice(k).join(".")];
      }
      // an embedded object is there already: only a path through it means something
      if (prefix === undefined || (!rest && !def.links?.[prefix])) throw cannotExpand(label + path);
      byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), ...(rest ? [rest] : [])]);
    }
    for (const [prefix, rests] of byPrefix) {
      const childKind = (def.links?.[prefix] ?? def.nested?.[prefix]) as string;
      const child = this.kinds.get(childKind);
      mapAt(json, prefix.split("."), (value) => {
        const id = typeof value === "string" ? value : value && typeof value === "object" && typeof (value as Json).id === "string" ? String((value as Json).id) : undefined;
        const found = id === undefined ? undefined : child?.find(auth, id);
        return found ? this.show(auth, childKind, found, rests, `${label}${prefix}.`) : value;
      });
    }
    return json;
  }

  /** Stripe's list object of a page, each object expanded along the `data.` paths of `expand[]`. */
  list(auth: Authed, kind: string, page: { data: Stored[]; has_more: boolean }, url: string, p: Params): Json {
    const paths = expandOf(p).map((path) => {
      if (!path.startsWith("data.")) throw cannotExpand(path);
      return path.slice(5);
    });
    return { object: "list", data: page.data.map((o) => this.show(auth, kind, o, paths, "data.")), has_more: page.has_more, url };
  }
}

/** Replaces the value at a dotted path (each array on the way: each element) by `f` of it. */
function mapAt(node: unknown, segments: string[], f: (value: unknown) => unknown): void {
  if (Array.isArray(node)) {
    for (const element of node) mapAt(element, segments, f);
    return;
  }
  if (!node || typeof node !== "object") return;
  const [head, ...rest] = segments;
  if (head === undefined) return;
  const obj = node as Json;
  const value = obj[head];
  if (rest.length > 0) mapAt(value, rest, f);
  else if (Array.isArray(value)) obj[head] = value.map(f);
  else if (value !== null && value !== undefined) obj[head] = f(value);
}

/**
 * An object without the stand-in's bookkeeping (whose it is, and `internal` fields) and without the top-level
 * includable fields not asked for (one is asked for by its name or by a path below it).
 */
export function visible(o: Stored, includable: string[] = [], includes: Set<string> = new Set(), internal: string[] = []): Json {
  const asked = new Set([...includes].map((path) => path.split(".")[0]));
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "account" || internal.includes(k)) continue;
    if (includable.includes(k) && !asked.has(k)) continue;
    out[k] = structuredClone(v);
  }
  return out;
}

/** Stripe's metadata update: keys merged, a key set to "" removed; metadata="" clears all. */
export function mergeMetadata(current: Record<string, string>, update: unknown): Record<string, string> {
  if (update === undefined) return current;
  if (update === "") return {};
  const next = { ...current };
  for (const [k, v] of Object.entries((update ?? {}) as Record<string, unknown>)) {
    if (v === "") delete next[k];
    else next[k] = String(v);
  }
  return next;
}
