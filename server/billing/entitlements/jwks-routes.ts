// GET /.well-known/jwks.json?organization_id=…: an organization's public snapshot keys (RFC 7517), for anyone (the
// seller's app, in a server or a browser of another origin), cacheable for five minutes. During a rotation two
// keys: the signing one and the previous one until its snapshots have expired (keys.ts).
import type { FastifyInstance } from "fastify";
import type { Db } from "../../db/client.js";
import { isUuid } from "../http.js";
import { notFound, validationError, type ApiError } from "../errors.js";
import { organizationJwks } from "./keys.js";

export const JWKS_PATH = "/.well-known/jwks.json";
/** How long a JWKS may be cached: a rotation adds its key at once, so verifiers refetch on an unknown kid anyway. */
export const JWKS_MAX_AGE_SECONDS = 300;

export function jwksPlugin({ db }: { db: Db }) {
  return async function jwks(app: FastifyInstance): Promise<void> {
    app.get(JWKS_PATH, async (req, reply) => {
      const refuse = (err: ApiError) => reply.status(err.status).header("access-control-allow-origin", "*").send(err.body);
      const id = (req.query as Record<string, unknown>).organization_id;
      if (typeof id !== "string" || !isUuid(id)) {
        const issue = { loc: ["query", "organization_id"], msg: id === undefined ? "Field required" : "Input should be a valid UUID", type: id === undefined ? "missing" : "uuid_parsing" };
        return refuse(validationError([issue]));
      }
      const found = await organizationJwks(db, id.toLowerCase());
      if (!found) return refuse(notFound("Organization not found"));
      return reply
        .header("cache-control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
        .header("access-control-allow-origin", "*")
        .header("content-type", "application/jwk-set+json; charset=utf-8")
        .send(JSON.stringify(found));
    });
  };
}
