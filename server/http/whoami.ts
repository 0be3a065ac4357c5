// GET /api/whoami: what the request helper makes of the caller's bearer token. The CLI's `auth status`
// and CI scripts use it to check a key; it also shows the helper's answer shape for /v1 routes.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { CallerError, CallerResolver } from "./caller.js";

const DETAIL: Record<CallerError["code"], string> = {
  missing_token: "Authorization: Bearer <token> is required.",
  invalid_token: "The bearer token is not a valid API key or session token.",
  expired_token: "The bearer token has expired.",
  not_a_member: "You are not a member of this organization.",
  disabled_key: "This API key is disabled.",
  rate_limited: "Too many requests with this API key.",
};

export function sendCallerError(reply: FastifyReply, error: CallerError): FastifyReply {
  if (error.status === 429) reply.header("retry-after", String(error.retryAfterSeconds));
  const name = error.status === 401 ? "Unauthorized" : error.status === 403 ? "NotPermitted" : "TooManyRequests";
  return reply.status(error.status).send({ error: name, detail: DETAIL[error.code] });
}

const stringList = { type: "array", items: { type: "string" } } as const;

/** The 200 body; a compiled serializer is markedly cheaper than JSON.stringify on this hot path. */
const whoamiResponse = {
  type: "object",
  required: ["kind", "user", "organization_id", "roles", "permissions"],
  properties: {
    kind: { type: "string" },
    user: {
      type: ["object", "null"],
      required: ["id", "email", "name"],
      properties: { id: { type: "string" }, email: { type: "string" }, name: { type: "string" } },
    },
    organization_id: { type: ["string", "null"] },
    roles: stringList,
    permissions: { type: "object", additionalProperties: stringList },
  },
} as const;

export function whoamiPlugin(callers: CallerResolver) {
  return async function whoami(app: FastifyInstance): Promise<void> {
    const schema = { response: { 200: whoamiResponse } };
    app.get<{ Querystring: { organization_id?: string } }>("/api/whoami", { schema }, async (req, reply) => {
      const orgId = typeof req.query.organization_id === "string" ? req.query.organization_id : undefined;
      const result = await callers.resolve(req.headers.authorization, orgId);
      if (!result.ok) return sendCallerError(reply, result.error);
      const c = result.caller;
      return {
        kind: c.kind,
        user: c.user,
        organization_id: c.organizationId,
        roles: c.roles,
        permissions: c.permissions,
      };
    });
  };
}
