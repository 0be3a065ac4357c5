// Secrets at rest in better-auth's tables: a session token, a pending device code and its user code are stored
// only as their SHA-256 (base64url without padding, as better-auth stores API keys and hashed verification
// identifiers), so a database dump hands over no credential. better-auth has no option for it, so its adapter is
// wrapped: those fields are hashed when written and wherever a lookup names them, and a row read by its raw value
// gets the raw value back, so better-auth still answers and sets cookies with the token the client holds.
// Verification identifiers (reset-password, delete-account, OAuth state) are hashed by better-auth itself
// (`verification.storeIdentifier: "hashed"`); the hashed_tokens migration hashed the rows written before.
import { hash } from "node:crypto";
import type { BetterAuthOptions } from "better-auth";
import type { DBAdapter, DBTransactionAdapter, Where } from "better-auth/adapters";

/**
 * How a token is stored: SHA-256, base64url without padding (43 characters; a raw session token has 32). The
 * one-shot `hash` costs half of `createHash` and runs once per /v1 request with a bearer token.
 */
export function hashStoredToken(raw: string): string {
  return hash("sha256", raw, "base64url");
}

/** model → its fields that hold a credential and are stored hashed. */
const HASHED: ReadonlyMap<string, readonly string[]> = new Map([
  ["session", ["token"]],
  ["deviceCode", ["deviceCode", "userCode"]],
]);

/** field → stored hash → the raw value a lookup named, to hand back in the rows it finds. */
type Raw = Map<string, Map<string, string>>;

function remember(raw: Raw, field: string, value: string): string {
  const digest = hashStoredToken(value);
  let byHash = raw.get(field);
  if (!byHash) raw.set(field, (byHash = new Map()));
  byHash.set(digest, value);
  return digest;
}

/**
 * The lookup with each hashed field compared by hash. A stored hash given as a value is hashed again and so
 * matches nothing: whoever read the table cannot present what it holds, in a read or a write.
 */
function hashWhere(model: string, where: Where[] | undefined): { where: Where[] | undefined; raw: Raw } {
  const raw: Raw = new Map();
  const fields = HASHED.get(model);
  if (!where || !fields) return { where, raw };
  const out = where.map((w): Where => {
    if (!fields.includes(w.field)) return w;
    const op = w.operator ?? "eq";
    if ((op === "eq" || op === "ne") && typeof w.value === "string") return { ...w, value: remember(raw, w.field, w.value) };
    if ((op === "in" || op === "not_in") && Array.isArray(w.value)) {
      const values = (w.value as unknown[]).filter((v): v is string => typeof v === "string");
      return { ...w, value: values.map((v) => remember(raw, w.field, v)) };
    }
    return w;
  });
  return { where: out, raw };
}

/** The row with each hashed field a lookup named by its raw value put back to that raw value. */
function restore<T>(model: string, row: T, raw: Raw): T {
  const fields = HASHED.get(model);
  if (!fields || raw.size === 0 || !row || typeof row !== "object") return row;
  const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const field of fields) {
    const stored = out[field];
    const original = typeof stored === "string" ? raw.get(field)?.get(stored) : undefined;
    if (original !== undefined) out[field] = original;
  }
  return out as T;
}

/** Written values: each hashed field is stored as its hash; `raw` learns the originals. */
function hashValues<V extends Record<string, unknown> | undefined>(model: string, values: V, raw: Raw): V {
  const fields = HASHED.get(model);
  if (!fields || !values) return values;
  const out: Record<string, unknown> = { ...values };
  for (const field of fields) {
    const value = out[field];
    if (typeof value === "string") out[field] = remember(raw, field, value);
  }
  return out as V;
}

function wrap<A extends DBTransactionAdapter<BetterAuthOptions>>(adapter: A): A {
  return {
    ...adapter,
    create: async (args) => {
      const raw: Raw = new Map();
      const row = await adapter.create({ ...args, data: hashValues(args.model, args.data, raw) });
      return restore(args.model, row, raw);
    },
    findOne: async (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      return restore(args.model, await adapter.findOne({ ...args, where: where ?? [] }), raw);
    },
    findMany: async (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      const rows = await adapter.findMany({ ...args, where });
      return rows.map((row) => restore(args.model, row, raw));
    },
    count: (args) => adapter.count({ ...args, where: hashWhere(args.model, args.where).where }),
    update: async (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      const update = hashValues(args.model, args.update, raw);
      return restore(args.model, await adapter.update({ ...args, where: where ?? [], update }), raw);
    },
    updateMany: (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      return adapter.updateMany({ ...args, where: where ?? [], update: hashValues(args.model, args.update, raw) });
    },
    delete: (args) => adapter.delete({ ...args, where: hashWhere(args.model, args.where).where ?? [] }),
    deleteMany: (args) => adapter.deleteMany({ ...args, where: hashWhere(args.model, args.where).where ?? [] }),
    consumeOne: async (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      return restore(args.model, await adapter.consumeOne({ ...args, where: where ?? [] }), raw);
    },
    incrementOne: async (args) => {
      const { where, raw } = hashWhere(args.model, args.where);
      const set = hashValues(args.model, args.set, raw);
      return restore(args.model, await adapter.incrementOne({ ...args, where: where ?? [], ...(set ? { set } : {}) }), raw);
    },
  };
}

/** Wraps a better-auth database adapter factory (composes with the other wrappers of `server/auth`). */
export function hashStoredTokens(
  factory: (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions>,
): (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions> {
  return (options) => {
    const adapter = factory(options);
    return { ...wrap(adapter), transaction: (callback) => adapter.transaction((trx) => callback(wrap(trx))) };
  };
}
