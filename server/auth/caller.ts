// The request helper for every route outside /api/auth: turns `Authorization: Bearer <token>` into
// who is calling and for which organization, without a better-auth router round trip. A token is an
// organization API key (prefix till_) or a session token (device flow, sign-in). Both are stored hashed, so a
// token is hashed once per request and looked up (and cached) by its hash. Lookups are cached a few
// seconds; revocations through /api/auth clear the cache at once, other replicas follow within the TTL.
// The sandbox (docs/architecture.md): a till_test_ key, or a session asking for it, acts on the sandbox twin of
// its organization with the roles of the live one.
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { apikey, member, organization, organizationRole, session, user } from "../db/schema/auth.js";
import { API_KEY_PREFIX, SANDBOX_API_KEY_PREFIX } from "../../shared/auth-mount.js";
import { hashStoredToken } from "./stored-tokens.js";
import { roles as builtInRoles } from "./access.js";
import { ensureSandbox, liveOrganizationOf } from "../billing/organizations/sandbox.js";
import type { Mode } from "../http/mode.js";
import { isUuid } from "../../shared/uuid.js";

export type Permissions = Record<string, string[]>;

/** Shared between the requests of one cached lookup: read it, never change it. */
export interface Caller {
  kind: "api_key" | "session";
  user: { id: string; email: string; name: string } | null;
  organizationId: string | null;
  /** Whether organizationId is a sandbox twin (or, without an organization, whether the sandbox was asked for). */
  sandbox: boolean;
  /** The live organization whose members and keys act on organizationId (itself when live). */
  liveOrganizationId: string | null;
  /** Member roles in that organization (sessions only). */
  roles: string[];
  permissions: Permissions;
  apiKeyId: string | null;
  /** The API key's name and expiry (`till auth status` shows them, as gh shows a token's scopes). */
  apiKey: { name: string | null; expiresAt: Date | null; organization: { name: string; slug: string } | null } | null;
  sessionId: string | null;
}

export type CallerError =
  | { status: 401; code: "missing_token" | "invalid_token" | "expired_token" }
  | { status: 403; code: "not_a_member" | "disabled_key" | "live_key_in_sandbox" | "sandbox_key_in_live" | "sandbox_organization_in_live" }
  | { status: 429; code: "rate_limited"; retryAfterSeconds: number };

export type CallerResult = { ok: true; caller: Caller } | { ok: false; error: CallerError };



interface KeyRow {
  id: string;
  enabled: boolean;
  expiresAt: Date | null;
  rateLimitEnabled: boolean;
  rateLimitMax: number | null;
  rateLimitTimeWindow: number | null;
  /** Built once per lookup and shared by every request until the TTL: a cached key allocates nothing. */
  granted: CallerResult;
}

interface SessionRow {
  id: string;
  expiresAt: Date;
  activeOrganizationId: string | null;
  user: { id: string; email: string; name: string };
  banned: boolean;
}

type Cached<T> = { value: T | null; until: number };

export interface CallerResolverOptions {
  /** How long a looked-up key or session is trusted before it is read again. */
  ttlMs?: number;
  now?: () => number;
}

function parsePermissions(raw: string | null): Permissions {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const out: Permissions = {};
      for (const [k, v] of Object.entries(parsed)) {
        if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === "string");
      }
      return out;
    }
  } catch {
    // a malformed permissions column grants nothing
  }
  return {};
}

function mergePermissions(into: Permissions, add: Record<string, readonly string[]>): void {
  for (const [resource, actions] of Object.entries(add)) {
    const set = new Set([...(into[resource] ?? []), ...actions]);
    into[resource] = [...set];
  }
}

/** Lookups trusted until `ttl` ms after they were made (all forgotten past 50,000 entries). */
function ttlCache<T>(ttl: number, now: () => number) {
  const map = new Map<string, Cached<T>>();
  return {
    /** The cached lookup while it is trusted (its value null when nothing was found), else undefined. */
    fresh(k: string): Cached<T> | undefined {
      const hit = map.get(k);
      return hit && hit.until > now() ? hit : undefined;
    },
    remember(k: string, value: T | null): T | null {
      if (map.size > 50_000) map.clear();
      map.set(k, { value, until: now() + ttl });
      return value;
    },
    clear: () => map.clear(),
  };
}

/** The API key stored under `digest`, with its organization's name and slug. */
async function readKey(db: Db, digest: string) {
  const rows = await db
    .select({
      id: apikey.id,
      name: apikey.name,
      referenceId: apikey.referenceId,
      enabled: apikey.enabled,
      expiresAt: apikey.expiresAt,
      rateLimitEnabled: apikey.rateLimitEnabled,
      rateLimitMax: apikey.rateLimitMax,
      rateLimitTimeWindow: apikey.rateLimitTimeWindow,
      permissions: apikey.permissions,
      organizationName: organization.name,
      organizationSlug: organization.slug,
    })
    .from(apikey)
    // reference_id is text (the api-key plugin's column) holding an organization id (a uuid): cast it, so the join uses
    // the primary key
    .leftJoin(organization, sql`${organization.id} = ${apikey.referenceId}::uuid`)
    .where(eq(apikey.key, digest))
    .limit(1);
  return rows[0];
}

/** The key's row as the resolver keeps it, its caller built once (acting on `organizationId`). */
function keyRowOf(r: NonNullable<Awaited<ReturnType<typeof readKey>>>, organizationId: string, sandbox: boolean): KeyRow {
  const caller: Caller = {
    kind: "api_key",
    user: null,
    organizationId,
    sandbox,
    liveOrganizationId: r.referenceId,
    roles: [],
    permissions: parsePermissions(r.permissions),
    apiKeyId: r.id,
    apiKey: {
      name: r.name ?? null,
      expiresAt: r.expiresAt ?? null,
      organization: r.organizationName !== null && r.organizationSlug !== null ? { name: r.organizationName, slug: r.organizationSlug } : null,
    },
    sessionId: null,
  };
  return {
    id: r.id,
    enabled: r.enabled ?? true,
    expiresAt: r.expiresAt,
    rateLimitEnabled: r.rateLimitEnabled ?? false,
    rateLimitMax: r.rateLimitMax,
    rateLimitTimeWindow: r.rateLimitTimeWindow,
    granted: { ok: true, caller },
  };
}

/** The session stored under `digest`, with its user. */
async function readSession(db: Db, digest: string): Promise<SessionRow | null> {
  const rows = await db
    .select({
      id: session.id,
      expiresAt: session.expiresAt,
      activeOrganizationId: session.activeOrganizationId,
      userId: user.id,
      email: user.email,
      name: user.name,
      banned: user.banned,
    })
    .from(session)
    .innerJoin(user, eq(user.id, session.userId))
    .where(eq(session.token, digest))
    .limit(1);
  const r = rows[0];
  return r
    ? { id: r.id, expiresAt: r.expiresAt, activeOrganizationId: r.activeOrganizationId, user: { id: r.userId, email: r.email, name: r.name }, banned: r.banned ?? false }
    : null;
}

/** The user's roles in the organization and what they permit (built-in roles, then the organization's own). */
async function readMembership(db: Db, userId: string, organizationId: string): Promise<{ roles: string[]; permissions: Permissions } | null> {
  const rows = await db
    .select({ role: member.role })
    .from(member)
    .where(and(eq(member.userId, userId), eq(member.organizationId, organizationId)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  const roleNames = row.role.split(",").map((r) => r.trim()).filter(Boolean);
  const permissions: Permissions = {};
  const custom: string[] = [];
  for (const name of roleNames) {
    const builtIn = builtInRoles[name as keyof typeof builtInRoles];
    if (builtIn) mergePermissions(permissions, builtIn.statements);
    else custom.push(name);
  }
  if (custom.length > 0) {
    const defined = await db
      .select({ role: organizationRole.role, permission: organizationRole.permission })
      .from(organizationRole)
      .where(eq(organizationRole.organizationId, organizationId));
    for (const d of defined) if (custom.includes(d.role)) mergePermissions(permissions, parsePermissions(d.permission));
  }
  return { roles: roleNames, permissions };
}

/** A key's own rate limit (fixed windows per key, in this process): the 429 once its window is full, else null. */
function keyRateLimiter(now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  return (key: KeyRow): CallerError | null => {
    if (!key.rateLimitEnabled || !key.rateLimitMax || !key.rateLimitTimeWindow) return null;
    const t = now();
    const w = windows.get(key.id);
    if (!w || t - w.start >= key.rateLimitTimeWindow) {
      windows.set(key.id, { start: t, count: 1 });
      return null;
    }
    if (w.count >= key.rateLimitMax) {
      return {
        status: 429,
        code: "rate_limited",
        retryAfterSeconds: Math.max(1, Math.ceil((w.start + key.rateLimitTimeWindow - t) / 1000)),
      };
    }
    w.count++;
    return null;
  };
}

export function createCallerResolver(db: Db, opts: CallerResolverOptions = {}) {
  const ttl = opts.ttlMs ?? 5_000;
  const now = opts.now ?? Date.now;
  const keys = ttlCache<KeyRow>(ttl, now);
  const sessions = ttlCache<SessionRow>(ttl, now);
  const memberships = ttlCache<{ roles: string[]; permissions: Permissions }>(ttl, now);
  const checkRateLimit = keyRateLimiter(now);
  /** Twin ↔ live links never change while both exist (and ids are never reused): cached like the rest. */
  const twins = ttlCache<string>(ttl, now);
  const lives = ttlCache<string>(ttl, now);

  async function loadKey(digest: string, sandbox: boolean): Promise<KeyRow | null> {
    const hit = keys.fresh(digest);
    if (hit) return hit.value;
    const r = await readKey(db, digest);
    if (!r) return keys.remember(digest, null);
    // a sandbox key is a key of the live organization acting on its twin (made on the key's first use)
    const organizationId = sandbox ? await sandboxFor(r.referenceId) : r.referenceId;
    if (!organizationId) return keys.remember(digest, null);
    return keys.remember(digest, keyRowOf(r, organizationId, sandbox));
  }

  async function loadSession(digest: string): Promise<SessionRow | null> {
    const hit = sessions.fresh(digest);
    return hit ? hit.value : sessions.remember(digest, await readSession(db, digest));
  }

  async function sandboxFor(liveOrganizationId: string): Promise<string | null> {
    const hit = twins.fresh(liveOrganizationId);
    return hit ? hit.value : twins.remember(liveOrganizationId, await ensureSandbox(db, liveOrganizationId));
  }

  /** The live organization of a twin, null for any other organization. */
  async function liveOf(organizationId: string): Promise<string | null> {
    const hit = lives.fresh(organizationId);
    return hit ? hit.value : lives.remember(organizationId, await liveOrganizationOf(db, organizationId));
  }

  async function loadMembership(userId: string, organizationId: string) {
    const k = `${userId}:${organizationId}`;
    const hit = memberships.fresh(k);
    return hit ? hit.value : memberships.remember(k, await readMembership(db, userId, organizationId));
  }

  async function fromApiKey(token: string, mode: Mode): Promise<CallerResult> {
    const sandbox = token.startsWith(SANDBOX_API_KEY_PREFIX);
    // @better-auth/api-key stores a key the way session tokens are stored: SHA-256, base64url without padding
    const key = await loadKey(hashStoredToken(token), sandbox);
    if (!key) return { ok: false, error: { status: 401, code: "invalid_token" } };
    if (!key.enabled) return { ok: false, error: { status: 403, code: "disabled_key" } };
    if (key.expiresAt && key.expiresAt.getTime() <= now()) {
      return { ok: false, error: { status: 401, code: "expired_token" } };
    }
    // the key decides its side: a request asking for the other one is refused, never served on the key's
    if (mode === "sandbox" && !sandbox) return { ok: false, error: { status: 403, code: "live_key_in_sandbox" } };
    if (mode === "live" && sandbox) return { ok: false, error: { status: 403, code: "sandbox_key_in_live" } };
    const limited = checkRateLimit(key);
    if (limited) return { ok: false, error: limited };
    return key.granted;
  }

  async function fromSession(token: string, organizationId: string | undefined, mode: Mode): Promise<CallerResult> {
    const s = await loadSession(hashStoredToken(token));
    if (!s || s.banned) return { ok: false, error: { status: 401, code: "invalid_token" } };
    if (s.expiresAt.getTime() <= now()) return { ok: false, error: { status: 401, code: "expired_token" } };
    const orgId = organizationId ?? s.activeOrganizationId ?? null;
    const base: Caller = {
      kind: "session",
      user: s.user,
      organizationId: null,
      sandbox: mode === "sandbox",
      liveOrganizationId: null,
      roles: [],
      permissions: {},
      apiKeyId: null,
      apiKey: null,
      sessionId: s.id,
    };
    if (!orgId) return { ok: true, caller: base };
    if (!isUuid(orgId)) return { ok: false, error: { status: 403, code: "not_a_member" } };
    // a twin named by id acts with the membership of its live organization
    const twinOf = await liveOf(orgId);
    if (twinOf && mode === "live") return { ok: false, error: { status: 403, code: "sandbox_organization_in_live" } };
    const liveId = twinOf ?? orgId;
    const membership = await loadMembership(s.user.id, liveId);
    if (!membership) return { ok: false, error: { status: 403, code: "not_a_member" } };
    const sandboxId = twinOf ? orgId : mode === "sandbox" ? await sandboxFor(liveId) : null;
    if (mode === "sandbox" && !sandboxId) return { ok: false, error: { status: 403, code: "not_a_member" } };
    return {
      ok: true,
      caller: { ...base, organizationId: sandboxId ?? liveId, sandbox: sandboxId !== null, liveOrganizationId: liveId, ...membership },
    };
  }

  return {
    /**
     * Resolves an Authorization header value. `organizationId` (sessions only) picks another organization of the
     * user's; `mode` asks for the sandbox or live side (a session's default is live, a key's its prefix).
     */
    async resolve(authorization: string | undefined, organizationId?: string, mode?: Mode): Promise<CallerResult> {
      const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
      const token = match?.[1];
      if (!token) return { ok: false, error: { status: 401, code: "missing_token" } };
      if (token.startsWith(API_KEY_PREFIX)) return fromApiKey(token, mode);
      return fromSession(token, organizationId, mode);
    },
    /** Forget every cached lookup (called after sign-out, key deletion, session revocation, role changes). */
    clear(): void {
      for (const cache of [keys, sessions, memberships, twins, lives]) cache.clear();
    },
  };
}

export type CallerResolver = ReturnType<typeof createCallerResolver>;
