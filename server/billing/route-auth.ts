// Who calls a /v1 route and for which organization: authenticate (the plugin's preHandler: the bearer token or
// session, the organization asked for, sandbox or live, the route's scope), scopeOf for the handlers, and the
// route config a route declares (scope, orgOptional, orgScopeFromPath; the caller kind is billing/contract.ts's).
import type { FastifyReply, FastifyRequest } from "fastify";
import { ALL_BILLING_PERMISSIONS, READ_BILLING_PERMISSIONS, grants, type Scope } from "../../shared/scopes.js";
import type { Caller, CallerResolver } from "../auth/caller.js";
import { modeFromHeader, SANDBOX_HEADER } from "../http/mode.js";
import { sendCallerError } from "../http/whoami.js";
import { invalid, notFound, notPermitted } from "./errors.js";
import { isUuid } from "./http.js";

export interface OrgScope {
  organizationId: string;
  caller: Caller;
  permissions: Record<string, readonly string[]>;
}

declare module "fastify" {
  interface FastifyRequest {
    caller?: Caller;
    orgScope?: OrgScope;
  }
  interface FastifyContextConfig {
    /** The scope a route needs, e.g. "products:write". */
    scope?: Scope;
    /** The route works without an organization (e.g. listing the user's organizations). */
    orgOptional?: boolean;
    /** A session acts for the organization named by the path's :id (PATCH /organizations/:id). */
    orgScopeFromPath?: boolean;
  }
}

function sessionPermissions(caller: Caller): Record<string, readonly string[]> {
  if (caller.roles.includes("owner") || caller.roles.includes("admin")) return ALL_BILLING_PERMISSIONS;
  // members read the catalog; dynamic roles add what they were given per resource
  return { ...READ_BILLING_PERMISSIONS, ...caller.permissions };
}

function requestedOrganization(req: FastifyRequest): { id: string | undefined; where: "body" | "query" | "path" } {
  if (req.routeOptions.config.orgScopeFromPath) {
    const id = (req.params as Record<string, unknown>).id;
    return { id: typeof id === "string" ? id : undefined, where: "path" };
  }
  const fromQuery = (req.query as Record<string, unknown> | undefined)?.organization_id;
  if (typeof fromQuery === "string") return { id: fromQuery, where: "query" };
  const fromBody = req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>).organization_id : undefined;
  return { id: typeof fromBody === "string" ? fromBody : undefined, where: req.method === "GET" ? "query" : "body" };
}

/**
 * preHandler for /v1: resolves the bearer token and the organization. API keys act for their organization
 * (a till_test_ key: its sandbox twin); a member's session acts for `organization_id` (query or body) or else
 * the active organization, or that organization's sandbox with `Till-Sandbox: true`.
 */
export function authenticate(callers: CallerResolver) {
  return async function authenticateV1(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const config = req.routeOptions.config;
    // the other kinds of caller (billing/contract.ts) are authenticated by the route itself
    if (config.caller !== undefined && config.caller !== "organization") return;
    const requested = requestedOrganization(req);
    if (requested.id !== undefined && !isUuid(requested.id)) {
      if (requested.where === "path") throw invalid(["path", "id"], "Input should be a valid UUID", "uuid_parsing");
      throw invalid([requested.where, "organization_id"], "Input should be a valid UUID", "uuid_parsing");
    }
    const mode = modeFromHeader(req.headers[SANDBOX_HEADER]);
    if (mode === null) throw invalid(["header", SANDBOX_HEADER], "Input should be true or false", "bool_parsing");
    const result = await callers.resolve(req.headers.authorization, requested.id?.toLowerCase(), mode);
    if (!result.ok) {
      // a session naming an organization it does not belong to sees it as missing, like any foreign row
      if (result.error.code === "not_a_member") throw notFound("Organization not found");
      return sendCallerError(reply, result.error);
    }
    const caller = result.caller;
    req.caller = caller;
    if (caller.kind === "api_key" && requested.id && requested.id.toLowerCase() !== caller.organizationId) {
      throw notFound("Organization not found");
    }
    let permissions: Record<string, readonly string[]>;
    if (caller.organizationId) {
      permissions = caller.kind === "api_key" ? caller.permissions : sessionPermissions(caller);
      req.orgScope = { organizationId: caller.organizationId, caller, permissions };
    } else if (config.orgOptional) {
      permissions = READ_BILLING_PERMISSIONS;
    } else {
      throw invalid([requested.where, "organization_id"], "organization_id is required: the session has no active organization", "missing");
    }
    if (config.scope && !grants(permissions, config.scope)) {
      throw notPermitted(`This token is missing the scope ${config.scope}.`);
    }
  };
}

/** The organization scope set by authenticate(). */
export function scopeOf(req: FastifyRequest): OrgScope {
  if (req.orgScope) return req.orgScope;
  if (req.caller) {
    // only orgOptional routes get here without an organization
    return { organizationId: "", caller: req.caller, permissions: READ_BILLING_PERMISSIONS };
  }
  throw new Error("scopeOf: route registered outside the /v1 plugin");
}
