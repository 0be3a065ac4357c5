// A customer's entitlements as a signed snapshot: the facts the server's check answers from (facts.ts), signed
// with the organization's key (keys.ts), so a seller's app answers checks locally until `exp` with the verifier
// (packages/entitlements-verifier). Nothing is written but the organization's first key.
import type { SnapshotPayload } from "../../../shared/entitlements.js";
import type { Queryable } from "../../db/client.js";
import type { CustomerRef } from "../customers/service.js";
import { notFound } from "../errors.js";
import { consistentFacts } from "./service.js";
import { signCompact } from "./jws.js";
import { signingKey } from "./keys.js";

export interface SnapshotWire {
  token: string;
  kid: string;
  expires_at: string;
}

/** The customer's snapshot valid for `ttlSeconds` from now; `issuer` is the server's public URL. */
export async function customerSnapshot(db: Queryable, organizationId: string, ref: CustomerRef, ttlSeconds: number, issuer: string): Promise<SnapshotWire> {
  const key = signingKey(db, organizationId);
  // handled now: a 404 below must not leave it rejected with no one listening
  key.catch(() => undefined);
  const found = await consistentFacts(db, organizationId, ref);
  if (!found) throw notFound("Customer not found.");
  const { kid, key: privateKey } = await key;
  const iat = Math.floor(Date.now() / 1000);
  const payload: SnapshotPayload = { iss: issuer, sub: found.customerId, org: organizationId, ext: found.externalId, iat, exp: iat + ttlSeconds, ent: found.facts };
  return { token: signCompact(payload, kid, privateKey), kid, expires_at: new Date((iat + ttlSeconds) * 1000).toISOString() };
}
