// An organization's entitlement snapshot signing keys: made on first use (two first snapshots at once end with one
// key: the partial unique index decides, the loser reads the winner's), rotated on the seller's request. A rotated
// key stays in the JWKS until every snapshot it can have signed has expired (now + the longest ttl), then drops
// out. The private key is sealed with the server secret; opened keys are kept in memory by kid.
import type { KeyObject } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import type { PublicEcJwk } from "../../db/schema/entitlements.js";
import { openStored, sealStored } from "../../seal.js";
import * as repo from "./keys-repository.js";
import { generateKey, privateKeyOf } from "./jws.js";

/** A snapshot's lifetime, in seconds: the default, and the bounds a seller may ask for. */
export const SNAPSHOT_TTL = { default: 300, min: 10, max: 86_400 } as const;

/** A key as `GET /v1/entitlements/keys` shows it. */
export interface SigningKeyWire {
  kid: string;
  created_at: string;
  /** When it leaves the JWKS; null for the signing key. */
  retires_at: string | null;
  signing: boolean;
}

/** A public key as the JWKS publishes it. */
export type PublishedJwk = PublicEcJwk & { kid: string; alg: "ES256"; use: "sig" };

const opened = new Map<string, KeyObject>();
/** More organizations than this signing from one process: the map starts over rather than growing. */
const OPENED_MAX = 10_000;

function keyObject(row: repo.SigningKeyRow): KeyObject {
  let key = opened.get(row.kid);
  if (!key) {
    key = privateKeyOf(openStored("entitlement-key", row.privateKey));
    if (opened.size >= OPENED_MAX) opened.clear();
    opened.set(row.kid, key);
  }
  return key;
}

async function insertNewKey(db: Queryable, organizationId: string): Promise<repo.SigningKeyRow | undefined> {
  const made = generateKey();
  return repo.insertSigningKey(db, { kid: made.kid, organizationId, publicJwk: made.publicJwk, privateKey: sealStored("entitlement-key", made.privateJwk) });
}

/** The organization's signing key, made on first use. */
export async function signingKey(db: Queryable, organizationId: string): Promise<{ kid: string; key: KeyObject }> {
  let row = await repo.findSigningKey(db, organizationId);
  if (!row) {
    // another request may make it at the same moment: the index keeps one, and this one reads it
    row = (await insertNewKey(db, organizationId)) ?? (await repo.findSigningKey(db, organizationId));
    if (!row) throw new Error("till: an organization's signing key was neither made nor found");
  }
  return { kid: row.kid, key: keyObject(row) };
}

const toWire = (row: repo.SigningKeyRow): SigningKeyWire => ({
  kid: row.kid,
  created_at: row.createdAt.toISOString(),
  retires_at: row.retiresAt?.toISOString() ?? null,
  signing: row.retiresAt === null,
});

/** The keys the organization publishes now (the signing one and the retiring ones), oldest first. */
export async function listKeys(db: Queryable, organizationId: string, now = new Date()): Promise<SigningKeyWire[]> {
  return (await repo.publishedKeys(db, organizationId, now)).map(toWire);
}

/**
 * A new signing key; the previous one retires when the longest snapshot it can have signed expires. Two rotations
 * at once make one new key (the second finds no signing key left to retire once the first commits, and its insert
 * yields to the first's).
 */
export async function rotateKey(db: Db, organizationId: string, now = new Date()): Promise<SigningKeyWire[]> {
  await db.transaction(async (tx) => {
    await repo.deleteRetiredKeys(tx, organizationId, now);
    await repo.retireSigningKey(tx, organizationId, new Date(now.getTime() + SNAPSHOT_TTL.max * 1000));
    await insertNewKey(tx, organizationId);
  });
  return listKeys(db, organizationId, now);
}

/** The organization's JWKS at `now`; null when there is no such organization. */
export async function organizationJwks(db: Queryable, organizationId: string, now = new Date()): Promise<{ keys: PublishedJwk[] } | null> {
  const keys = await repo.publishedJwks(db, organizationId, now);
  return keys && { keys: keys.map(({ kid, jwk }) => ({ ...jwk, kid, alg: "ES256" as const, use: "sig" as const })) };
}
