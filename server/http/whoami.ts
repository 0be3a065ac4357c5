// GET /api/whoami: what the request helper makes of the caller's bearer token. The CLI's `auth status`
// and CI scripts use it to check a key; it also shows the helper's answer shape for /v1 routes.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { CallerError, CallerResolver } from "../auth/caller.js";
import { modeFromHeader, SANDBOX_HEADER } from "./mode.js";

const DETAIL: Record<CallerError["code"], string> = {
  missing_token: "Authorization: Bearer <token> is required.",
  invalid_token: "The bearer token is not a valid API key or session token.",
  expired_token: "The bearer token has expired.",
  not_a_member: "You are not a member of this organization.",
  disabled_key: "This API key is disabled.",
  rate_limited: "Too many requests with this API key.",
  live_key_in_sandbox: "This is a live API key: sandbox requests need a sandbox key (till_test_…).",
  sandbox_key_in_live: "This is a sandbox API key (till_test_…): live requests need a live key.",
  sandbox_organization_in_live: "organization_id names a sandbox organization, and Till-Sandbox says live.",
};

/** The 422 of a Till-Sandbox header that is neither true nor false (Polar's validation shape). */
export function sendModeHeaderError(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.status(422).send({
    detail: [{ loc: ["header", SANDBOX_HEADER], msg: "Input should be true or false", type: "bool_parsing", input: value }],
  });
}

export function sendCallerError(reply: FastifyReply, error: CallerError): FastifyReply {
  if (error.status === 429) reply.header("retry-after", String(error.retryAfterSeconds));
  const name = error.status === 401 ? "Unauthorized" : error.status === 403 ? "NotPermitted" : "TooManyRequests";
  return reply.status(error.status).send({ error: name, detail: DETAIL[error.code] });
}

const stringList = { type: "array", items: { type: "string" } } as const;

/** The 200 body; a compiled serializer is markedly cheaper than JSON.stringify on this hot path. */
const whoamiResponse = {
  type: "object",
  required: ["kind", "user", "organization_id", "sandbox", "live_organization_id", "roles", "permissions"],
  properties: {
    kind: { type: "string" },
    user: {
      type: ["object", "null"],
      required: ["id", "email", "name"],
      properties: { id: { type: "string" }, email: { type: "string" }, name: { type: "string" } },
    },
    organization_id: { type: ["string", "null"] },
    sandbox: { type: "boolean" },
    live_organization_id: { type: ["string", "null"] },
    roles: stringList,
    permissions: { type: "object", additionalProperties: stringList },
    api_key: {
      type: ["object", "null"],
      required: ["id", "name", "expires_at", "organization"],
      properties: {
        id: { type: "string" },
        name: { type: ["string", "null"] },
        expires_at: { type: ["string", "null"] },
        organization: {
          type: ["object", "null"],
          required: ["name", "slug"],
          properties: { name: { type: "string" }, slug: { type: "string" } },
        },
      },
    },
  },
} as const;

export function whoamiPlugin(callers: CallerResolver) {
  return async function whoami(app: FastifyInstance): Promise<void> {
    const schema = { response: { 200: whoamiResponse } };
    app.get<{ Querystring: { organization_id?: string } }>("/api/whoami", { schema }, async (req, reply) => {
      const orgId = typeof req.query.organization_id === "string" ? req.query.organization_id : undefined;
      const mode = modeFromHeader(req.headers[SANDBOX_HEADER]);
      if (mode === null) return sendModeHeaderError(reply, req.headers[SANDBOX_HEADER]);
      const result = await callers.resolve(req.headers.authorization, orgId, mode);
      if (!result.ok) return sendCallerError(reply, result.error);
      const c = result.caller;
      return {
        kind: c.kind,
        user: c.user,
        organization_id: c.organizationId,
        sandbox: c.sandbox,
        live_organization_id: c.liveOrganizationId,
        roles: c.roles,
        permissions: c.permissions,
        api_key:
          c.kind === "api_key" && c.apiKeyId && c.apiKey
            ? { id: c.apiKeyId, name: c.apiKey.name, expires_at: c.apiKey.expiresAt?.toISOString() ?? null, organization: c.apiKey.organization }
            : null,
      };
    });
  };
}
