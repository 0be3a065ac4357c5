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

export function whoamiPlugin(callers: CallerResolver) {
  return async function whoami(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: { organization_id?: string } }>("/api/whoami", async (req, reply) => {
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
