// Which catalog key each server object answers to. An object written by `till catalog apply` carries its key in
// metadata (till_catalog_key); any other object gets a key derived from its name (or slug/code), the same way
// for `pull` and `plan`, so a pulled file matches the objects it came from.
import { CATALOG_KEY, KEY_PATTERN } from "./model.js";

/** What key assignment needs to know about a server object. */
export interface KeyedObject {
  id: string;
  createdAt: Date;
  metadata: Record<string, unknown>;
  archived: boolean;
  /** Text the derived key comes from (name, slug, code…). */
  label: string;
}

export interface KeyAssignment<T> {
  /** The object each key names (one per key). */
  byKey: Map<string, { object: T; derived: boolean }>;
  /** Object id → its key. */
  keyOfId: Map<string, string>;
  /** Further objects carrying a key that an earlier object already holds: nothing in the file names them. */
  duplicates: T[];
}

/** "Pro Plan (EUR)" → "pro-plan-eur"; `fallback` when nothing usable is left. */
export function slugKey(text: string, fallback: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return slug || fallback;
}

export function storedKey(metadata: Record<string, unknown>): string | null {
  const v = metadata[CATALOG_KEY];
  return typeof v === "string" && KEY_PATTERN.test(v) ? v : null;
}

const byAge = (a: KeyedObject, b: KeyedObject) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Keys for a kind's objects. Stored keys win: for a key stored twice, the live (else the oldest) object holds
 * it. The others derive theirs from their label, oldest first, live ones before archived ones, adding "-2",
 * "-3"… past the keys already taken.
 */
export function assignKeys<T>(objects: T[], view: (o: T) => KeyedObject, fallback: string): KeyAssignment<T> {
  const entries = objects.map((object) => ({ object, v: view(object) })).sort((a, b) => byAge(a.v, b.v));
  const byKey = new Map<string, { object: T; derived: boolean }>();
  const keyOfId = new Map<string, string>();
  const duplicates: T[] = [];

  const stored = entries.filter((e) => storedKey(e.v.metadata) !== null);
  const liveFirst = [...stored.filter((e) => !e.v.archived), ...stored.filter((e) => e.v.archived)];
  for (const e of liveFirst) {
    const key = storedKey(e.v.metadata) as string;
    if (byKey.has(key)) {
      duplicates.push(e.object);
      continue;
    }
    byKey.set(key, { object: e.object, derived: false });
    keyOfId.set(e.v.id, key);
  }

  const unkeyed = entries.filter((e) => storedKey(e.v.metadata) === null);
  for (const e of [...unkeyed.filter((u) => !u.v.archived), ...unkeyed.filter((u) => u.v.archived)]) {
    const base = slugKey(e.v.label, fallback);
    let key = base;
    for (let n = 2; byKey.has(key); n++) key = `${base}-${n}`;
    byKey.set(key, { object: e.object, derived: true });
    keyOfId.set(e.v.id, key);
  }
  return { byKey, keyOfId, duplicates };
}
