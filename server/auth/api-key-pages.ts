// GET /api/auth/api-key/page: one page of an organization's API keys of one side (live: till_live_ and the older
// till_; sandbox: till_test_; all: both, for `till keys list`), newest first, counted and cut in the database. The
// plugin's own /api-key/list reads every key of the organization into memory and cannot tell the sides apart; the web
// app's list uses this one. Same rule as the plugin: a member whose role may read the organization's keys (apiKey:
// read).
import { APIError, createAuthEndpoint, sessionMiddleware } from "better-auth/api";
import { hasPermission, type OrganizationOptions } from "better-auth/plugins/organization";
import { z } from "zod";

export interface ApiKeySides {
  live: string[];
  sandbox: string[];
}

const PageQuery = z.object({
  organizationId: z.string().min(1).max(200),
  side: z.enum(["live", "sandbox", "all"]),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** What a key's row shows: never the (hashed) key itself. */
const FIELDS = ["id", "name", "start", "prefix", "enabled", "expiresAt", "createdAt", "permissions", "rateLimitEnabled", "rateLimitMax", "rateLimitTimeWindow"] as const;

type KeyRow = Record<(typeof FIELDS)[number], unknown>;

export function apiKeyPageEndpoint(sides: ApiKeySides) {
  return createAuthEndpoint("/api-key/page", { method: "GET", use: [sessionMiddleware], query: PageQuery }, async (ctx) => {
    const { organizationId, side, page, limit } = ctx.query;
    const session = ctx.context.session;
    const member = await ctx.context.adapter.findOne<{ role: string }>({
      model: "member",
      where: [
        { field: "userId", value: session.user.id },
        { field: "organizationId", value: organizationId },
      ],
    });
    if (!member) throw new APIError("FORBIDDEN", { message: "You are not a member of this organization.", code: "USER_NOT_MEMBER_OF_ORGANIZATION" });
    const org = ctx.context.getPlugin("organization") as { options?: OrganizationOptions } | undefined;
    const allowed = await hasPermission(
      { role: member.role, options: org?.options ?? {}, permissions: { apiKey: ["read"] }, organizationId, allowCreatorAllPermissions: true },
      ctx,
    ).catch(() => false);
    if (!allowed) throw new APIError("FORBIDDEN", { message: "Your role may not read this organization's API keys.", code: "INSUFFICIENT_API_KEY_PERMISSIONS" });
    const where = [
      { field: "referenceId", value: organizationId },
      { field: "prefix", operator: "in" as const, value: side === "all" ? [...sides.live, ...sides.sandbox] : sides[side] },
    ];
    const [total, rows] = await Promise.all([
      ctx.context.adapter.count({ model: "apikey", where }),
      ctx.context.adapter.findMany<KeyRow>({ model: "apikey", where, limit, offset: (page - 1) * limit, sortBy: { field: "createdAt", direction: "desc" }, select: [...FIELDS] }),
    ]);
    const items = rows.map((r) => ({ ...r, permissions: typeof r.permissions === "string" ? (JSON.parse(r.permissions) as unknown) : null }));
    return ctx.json({ items, pagination: { total_count: total, max_page: Math.ceil(total / limit) } });
  });
}
