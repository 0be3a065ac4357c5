// /api/web/*: the seller web app's door to the API. The browser holds only better-auth's session cookie (HttpOnly),
// and /v1 takes a bearer token; this route turns the cookie into the session's bearer and replays the request on
// the server's own routes (app.inject), so every permission, tenancy rule, wire shape, idempotency key and error
// of the web app is exactly the API's: /api/web/v1/<path> is /v1/<path>, /api/web/whoami is /api/whoami.
// A cookie travels with cross-site requests, so each request must carry `Till-Web: 1`: a header no other site can
// make a browser send here (no CORS is offered), which keeps forms and links on other sites from acting.
import { fromNodeHeaders } from "better-auth/node";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Auth } from "../auth/index.js";

/** The header the web app sends on every call (see above). */
export const WEB_HEADER = "till-web";

/** Request headers passed on to the route (the bearer is added); everything else stays here. */
const FORWARDED_REQUEST = ["till-sandbox", "idempotency-key", "content-type", "accept"] as const;
/** Response headers passed back (a download's name, a redirect, a rate limit). */
const FORWARDED_RESPONSE = ["content-type", "content-disposition", "location", "retry-after", "idempotent-replayed"] as const;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

function targetOf(url: string): string | null {
  const [pathname = "", query] = url.split("?", 2) as [string, string | undefined];
  const rest = pathname.slice("/api/web".length);
  const suffix = query === undefined ? "" : `?${query}`;
  if (rest === "/whoami") return `/api/whoami${suffix}`;
  if (rest.startsWith("/v1/")) return `${rest}${suffix}`;
  return null;
}

async function forward(app: FastifyInstance, auth: Auth, req: FastifyRequest, reply: FastifyReply) {
  if (req.headers[WEB_HEADER] !== "1") {
    return reply.status(403).send({ error: "NotPermitted", detail: `The web app's calls carry the ${WEB_HEADER}: 1 header.` });
  }
  const target = targetOf(req.url);
  if (!target) return reply.status(404).send({ error: "ResourceNotFound", detail: `No route for ${req.method} ${req.url.split("?")[0]}` });
  const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
  if (!session) return reply.status(401).send({ error: "Unauthorized", detail: "Sign in to use the dashboard." });
  const headers: Record<string, string> = { authorization: `Bearer ${session.session.token}`, "x-request-id": req.id };
  for (const name of FORWARDED_REQUEST) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const hasBody = req.method !== "GET" && req.body !== undefined && req.body !== null;
  const res = await app.inject({
    method: req.method as Method,
    url: target,
    headers,
    ...(hasBody ? { payload: typeof req.body === "string" ? req.body : JSON.stringify(req.body) } : {}),
  });
  for (const name of FORWARDED_RESPONSE) {
    const value = res.headers[name];
    if (value !== undefined) reply.header(name, value);
  }
  reply.header("cache-control", "no-store");
  return reply.status(res.statusCode).send(res.rawPayload);
}

export function webApiPlugin(auth: Auth) {
  return async function webApi(app: FastifyInstance): Promise<void> {
    app.route({
      method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      url: "/api/web/*",
      handler: (req, reply) => forward(app, auth, req, reply),
    });
  };
}
