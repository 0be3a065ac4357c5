// Rules of the product spec that better-auth 1.7.25 does not apply on its own:
// - a team name has at least 1 character (the spec's entity and validation rules): create-team accepts ""
//   (update-team does not);
// - an organization's metadata is an object (the spec's entity): only create and update parse the stored JSON text;
// - several roles grant the union of their permissions, and a denied permission check says why (its roles and errors);
//   a permission request that is no record of action lists is 400 VALIDATION_ERROR, not a 500.
//   better-auth's has-permission endpoints ask each role alone to cover the whole request and answer
//   `{ error: null, success: false }`. A denial is recomputed over the union with better-auth's own access
//   control, whose message reads "You are not allowed to access resource: {resource}" (a resource till does
//   not know) or `unauthorized to access resource "{resource}"` (an action none of the roles grants);
// - a check needs every listed permission (AND) unless the body says `"connector": "OR"`: then any one of them
//   (the spec's roles). better-auth's access control knows both; its endpoints take no connector.
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { role } from "better-auth/plugins/access";
import { grantedBy, platformRoles, platformStatements, roles, statements, type Statements } from "./access.js";

type Request = Record<string, string[]>;
type Connector = "AND" | "OR";
const CONNECTORS: readonly unknown[] = ["AND", "OR"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const roleList = (value: string | null | undefined, fallback: string): string[] =>
  (value || fallback).split(",").map((r) => r.trim()).filter(Boolean);

function parseStatements(raw: unknown): Statements {
  if (typeof raw !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!isRecord(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, string[]] => Array.isArray(e[1]) && e[1].every((a) => typeof a === "string")),
    );
  } catch {
    return {};
  }
}

/**
 * The request's permissions and connector when better-auth denied it (it checks AND only, and with the
 * connector all the same: granted under AND is granted under OR); null when it granted it or answered an error.
 */
function deniedRequest(returned: unknown, body: unknown): { request: Request; connector: Connector } | null {
  if (!isRecord(returned) || returned.success !== false || !isRecord(body)) return null;
  const permissions = body.permissions ?? body.permission;
  if (!isRecord(permissions)) return null;
  return { request: permissions as Request, connector: body.connector === "OR" ? "OR" : "AND" };
}

/** A denial in the spec's words (its roles and error catalogue), naming the first resource asked for under OR. */
function denial(granted: Record<string, string[]>, request: Request): string {
  const resource = Object.keys(request)[0] ?? "";
  return Object.hasOwn(granted, resource)
    ? `unauthorized to access resource "${resource}"`
    : `You are not allowed to access resource: ${resource}`;
}

function answer(granted: Record<string, string[]>, { request, connector }: { request: Request; connector: Connector }) {
  // any-of applies to the actions of a resource as much as to the resources (better-auth's per-resource form)
  const asked = connector === "OR" ? Object.fromEntries(Object.entries(request).map(([r, actions]) => [r, { actions, connector }])) : request;
  const result = role(granted).authorize(asked, connector);
  if (result.success) return { error: null, success: true };
  // under OR better-auth's access control says only "Not authorized"
  return { error: connector === "OR" ? denial(granted, request) : (result.error ?? null), success: false };
}

const emptyTeamName = createAuthMiddleware(async (ctx) => {
  const body: unknown = ctx.body;
  if (isRecord(body) && body.name === "") {
    // the answer update-team gives for an empty name (in the mount's spec wording)
    throw new APIError("BAD_REQUEST", {
      message: "Invalid body parameters",
      code: "VALIDATION_ERROR",
      details: "[body.name] Too small: expected string to have >=1 characters",
    });
  }
});

/**
 * has-permission takes `permissions` (or the deprecated `permission`): a record of action lists, and
 * optionally `connector` ("AND", the default, or "OR"). better-auth's
 * schema checks only the one branch it matches, so the other key reached its access control unchecked
 * (`{"permission":{…},"permissions":{"organization":1.5}}` was a 500).
 */
const permissionShapes = createAuthMiddleware(async (ctx) => {
  const body: unknown = ctx.body;
  if (!isRecord(body)) return;
  for (const key of ["permission", "permissions"] as const) {
    const value = body[key];
    if (value === undefined) continue;
    const bad = !isRecord(value)
      ? `[body.${key}] Invalid input: expected record`
      : Object.entries(value)
          .filter(([, actions]) => !Array.isArray(actions) || !actions.every((a) => typeof a === "string"))
          .map(([resource]) => `[body.${key}.${resource.slice(0, 100)}] Invalid input: expected array of strings`)[0];
    if (bad) throw new APIError("BAD_REQUEST", { message: "Invalid body parameters", code: "VALIDATION_ERROR", details: bad });
  }
  if (body.connector !== undefined && !CONNECTORS.includes(body.connector)) {
    const details = '[body.connector] Invalid option: expected one of "AND"|"OR"';
    throw new APIError("BAD_REQUEST", { message: "Invalid body parameters", code: "VALIDATION_ERROR", details });
  }
});

const organizationPermission = createAuthMiddleware(async (ctx) => {
  const asked = deniedRequest(ctx.context.returned, ctx.body);
  if (!asked) return;
  const session = await getSessionFromCtx(ctx);
  const organizationId = (ctx.body as { organizationId?: unknown }).organizationId || session?.session.activeOrganizationId;
  if (!session || typeof organizationId !== "string") return;
  const member = await ctx.context.adapter.findOne<{ role: string }>({
    model: "member",
    where: [
      { field: "organizationId", value: organizationId },
      { field: "userId", value: session.user.id },
    ],
  });
  if (!member) return;
  const dynamic = await ctx.context.adapter.findMany<{ role: string; permission: string }>({
    model: "organizationRole",
    where: [{ field: "organizationId", value: organizationId }],
  });
  const dynamicRoles = new Map(dynamic.map((d) => [d.role, parseStatements(d.permission)]));
  return ctx.json(answer(grantedBy(roleList(member.role, ""), statements, roles, dynamicRoles), asked));
});

const platformPermission = createAuthMiddleware(async (ctx) => {
  const asked = deniedRequest(ctx.context.returned, ctx.body);
  if (!asked) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const userRole = (session.user as { role?: string | null }).role;
  return ctx.json(answer(grantedBy(roleList(userRole, "user"), platformStatements, platformRoles), asked));
});

function withParsedMetadata(org: Record<string, unknown>): Record<string, unknown> {
  if (typeof org.metadata !== "string") return org;
  try {
    return { ...org, metadata: JSON.parse(org.metadata) as unknown };
  } catch {
    return org;
  }
}

const ORGANIZATION_READS = new Set([
  "/organization/get-full-organization",
  "/organization/get-organization",
  "/organization/list",
  "/organization/set-active",
  "/organization/delete",
]);

const organizationMetadata = createAuthMiddleware(async (ctx) => {
  const returned: unknown = ctx.context.returned;
  if (Array.isArray(returned)) return ctx.json(returned.map((o: unknown) => (isRecord(o) ? withParsedMetadata(o) : o)));
  if (isRecord(returned) && typeof returned.metadata === "string") return ctx.json(withParsedMetadata(returned));
});

export function specRules(): BetterAuthPlugin {
  return {
    id: "till-spec-rules",
    hooks: {
      before: [
        { matcher: (ctx) => ctx.path === "/organization/create-team", handler: emptyTeamName },
        { matcher: (ctx) => ctx.path === "/organization/has-permission" || ctx.path === "/admin/has-permission", handler: permissionShapes },
      ],
      after: [
        { matcher: (ctx) => ctx.path === "/organization/has-permission", handler: organizationPermission },
        { matcher: (ctx) => ctx.path === "/admin/has-permission", handler: platformPermission },
        { matcher: (ctx) => ORGANIZATION_READS.has(ctx.path ?? ""), handler: organizationMetadata },
      ],
    },
  };
}
