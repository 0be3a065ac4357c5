// Signed entitlement snapshots (till's own API): a customer's snapshot by id or external id, and the organization's
// signing keys (list, rotate). The public keys themselves are at /.well-known/jwks.json (jwks-routes.ts).
// Scope of the snapshot: entitlements:read (which customers:read implies), as the entitlement check's.
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { BillingDeps } from "../deps.js";
import { parseWith, pathId, queryInt } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { route, type V1App } from "../contract.js";
import { notFound, validationError } from "../errors.js";
import type { CustomerRef } from "../customers/service.js";
import { customerSnapshot } from "./snapshot.js";
import { listKeys, rotateKey, SNAPSHOT_TTL } from "./keys.js";

const SnapshotQuery = z.object({ ttl: queryInt(SNAPSHOT_TTL.min, SNAPSHOT_TTL.max).default(SNAPSHOT_TTL.default) });

const Snapshot = z.object({
  token: z.string().describe("A compact JWS (ES256) whose payload is the customer's entitlements (iss, sub, org, ext, iat, exp, ent)."),
  kid: z.string().describe("The signing key's id in the organization's JWKS (/.well-known/jwks.json?organization_id=…)."),
  expires_at: z.iso.datetime(),
});

const SigningKey = z.object({ kid: z.string(), created_at: z.iso.datetime(), retires_at: z.iso.datetime().nullable(), signing: z.boolean() });
const SigningKeyList = z.object({ items: z.array(SigningKey) });

const ExternalIdPath = z.object({ external_id: z.string().min(1).max(256) });

export function snapshotRoutes(app: V1App, { db, config }: BillingDeps): void {
  const refs = [
    { path: "/customers/:id", ref: (req: FastifyRequest): CustomerRef => ({ id: pathId(req) }), by: "" },
    { path: "/customers/external/:external_id", ref: (req: FastifyRequest): CustomerRef => ({ externalId: parseWith(ExternalIdPath, req.params, "path").external_id }), by: "_external" },
  ];
  for (const { path, ref, by } of refs) {
    const contract = route({
      scope: "entitlements:read",
      operationId: `till:customers:entitlements_snapshot${by}`,
      query: SnapshotQuery,
      responses: { 200: Snapshot, 404: notFound, 422: validationError },
    });
    app.get(`${path}/entitlements/snapshot`, contract, async (req) => customerSnapshot(db, scopeOf(req).organizationId, ref(req), req.query.ttl, config.baseURL));
  }

  app.get("/entitlements/keys", route({ scope: "organizations:read", operationId: "till:entitlements:list_keys", responses: { 200: SigningKeyList } }), async (req) => ({
    items: await listKeys(db, scopeOf(req).organizationId),
  }));
  app.post("/entitlements/keys/rotate", route({ scope: "organizations:write", operationId: "till:entitlements:rotate_key", responses: { 200: SigningKeyList } }), async (req) => ({
    items: await rotateKey(db, scopeOf(req).organizationId),
  }));
}
