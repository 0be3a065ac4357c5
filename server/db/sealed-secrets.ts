// The billing tables' secrets still in clear (rows written before they were sealed): sealed at start, before the
// server answers a request, since SQL cannot seal with the app's key. Each batch is one conditional UPDATE, so
// replicas starting together seal every row once. Start-up also refuses a server secret that does not open what
// is already sealed: serving with it would answer every license key as unknown and sign webhooks with nonsense.
import { isNull, like, notLike, sql } from "drizzle-orm";
import { rowsOf, type Db } from "./client.js";
import { checkout, entitlementSigningKey, licenseKey, webhookEndpoint } from "./schema/index.js";
import { ConfigError } from "../config.js";
import { sealStored, storedLookup, unseal, type StoredSecretPurpose } from "../seal.js";

const BATCH = 500;
/**
 * What the test processor's metadata holds in place of the secret (billing/checkouts/wire.ts, CLIENT_SECRET_TEMPLATE).
 */
const CLIENT_SECRET_TEMPLATE = "{CLIENT_SECRET}";

export async function sealLeftoverSecrets(db: Db, secret: string): Promise<void> {
  await checkSecretOpens(db, secret);
  while ((await sealWebhookSecrets(db)) === BATCH);
  while ((await sealLicenseKeys(db)) === BATCH);
  while ((await sealClientSecrets(db)) === BATCH);
}

async function checkSecretOpens(db: Db, secret: string): Promise<void> {
  const samples: Array<[string, StoredSecretPurpose, Promise<Array<{ v: string }>>]> = [
    ["webhook signing secrets", "webhook-secret", db.select({ v: webhookEndpoint.secret }).from(webhookEndpoint).where(like(webhookEndpoint.secret, "v1.%")).limit(1)],
    ["license keys", "license-key", db.select({ v: licenseKey.key }).from(licenseKey).where(like(licenseKey.key, "v1.%")).limit(1)],
    ["checkout client secrets", "checkout-secret", db.select({ v: checkout.clientSecret }).from(checkout).where(like(checkout.clientSecret, "v1.%")).limit(1)],
    ["entitlement signing keys", "entitlement-key", db.select({ v: entitlementSigningKey.privateKey }).from(entitlementSigningKey).limit(1)],
  ];
  for (const [what, purpose, rows] of samples) {
    const [row] = await rows;
    if (row && unseal(secret, purpose, row.v) === null) {
      throw new ConfigError(
        `invalid configuration: the database's ${what} were sealed with another server secret; start with the TILL_AUTH_SECRET ` +
          "(or the data directory's auth-secret file) they were sealed with (docs/security.md)",
      );
    }
  }
}

async function sealWebhookSecrets(db: Db): Promise<number> {
  const rows = await db.select({ id: webhookEndpoint.id, old: webhookEndpoint.secret }).from(webhookEndpoint).where(notLike(webhookEndpoint.secret, "v1.%")).limit(BATCH);
  if (rows.length === 0) return 0;
  const values = rows.map((r) => ({ id: r.id, old: r.old, sealed: sealStored("webhook-secret", r.old) }));
  await db.execute(sql`UPDATE webhook_endpoint AS t SET secret = v.sealed
    FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(id uuid, old text, sealed text)
    WHERE t.id = v.id AND t.secret = v.old`);
  return rows.length;
}

async function sealLicenseKeys(db: Db): Promise<number> {
  const rows = await db.select({ id: licenseKey.id, old: licenseKey.key }).from(licenseKey).where(isNull(licenseKey.keyHash)).limit(BATCH);
  if (rows.length === 0) return 0;
  const values = rows.map((r) => ({ id: r.id, old: r.old, sealed: sealStored("license-key", r.old), hash: storedLookup("license-key", r.old) }));
  await db.execute(sql`UPDATE license_key AS t SET key = v.sealed, key_hash = v.hash
    FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(id uuid, old text, sealed text, hash text)
    WHERE t.id = v.id AND t.key = v.old AND t.key_hash IS NULL`);
  return rows.length;
}

/** The processor's metadata with the secret replaced by its template (the test processor's tokenize URL). */
function metadataWithout(metadata: Record<string, string>, plain: string): Record<string, string> {
  return Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, typeof v === "string" ? v.replaceAll(plain, CLIENT_SECRET_TEMPLATE) : v]));
}

async function sealClientSecrets(db: Db): Promise<number> {
  const rows = await rowsOf<{ id: string; old: string; metadata: Record<string, string> }>(
    db,
    sql`SELECT id, client_secret AS old, payment_processor_metadata AS metadata FROM checkout WHERE client_secret_hash IS NULL LIMIT ${BATCH}`,
  );
  if (rows.length === 0) return 0;
  const values = rows.map((r) => ({
    id: r.id,
    old: r.old,
    sealed: sealStored("checkout-secret", r.old),
    hash: storedLookup("checkout-secret", r.old),
    metadata: metadataWithout(r.metadata, r.old),
  }));
  await db.execute(sql`UPDATE checkout AS t SET client_secret = v.sealed, client_secret_hash = v.hash, payment_processor_metadata = v.metadata
    FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(id uuid, old text, sealed text, hash text, metadata jsonb)
    WHERE t.id = v.id AND t.client_secret = v.old AND t.client_secret_hash IS NULL`);
  return rows.length;
}
