// The billing tables' secrets at rest: a dump of the database yields no webhook signing secret, no license key and
// no checkout client secret (only a sent webhook's payload may carry the checkout, client secret included, as
// Polar's wire does), while till still reads them back (the seller's API, signing, the customer's page) and finds
// a checkout by its client secret and a key by itself. Rows written in clear before sealing are sealed when the
// server starts, and keep working; a server secret that does not open them is refused at start.
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf, type Database } from "../../server/db/client.js";
import { sealLeftoverSecrets } from "../../server/db/sealed-secrets.js";
import { unseal } from "../../server/seal.js";
import { createProduct, pay, publicRequest } from "../helpers/checkout.js";
import { migrationsBefore, upgradedDatabase } from "../helpers/db.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, TEST_SECRET, type TestServer } from "../helpers/server.js";

/** Tables whose rows are a sent webhook's payload: they may carry the checkout's client secret. */
const PAYLOAD_TABLES = new Set(["outbox", "webhook_event"]);

/** Every row of every table (SELECT * as text), by table: what a dump hands over. */
async function dump(db: Database["db"]): Promise<Array<{ table: string; row: string }>> {
  const tables = await rowsOf<{ name: string }>(
    db,
    sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const out: Array<{ table: string; row: string }> = [];
  for (const { name } of tables) {
    const found = await rowsOf<{ j: string }>(db, sql.raw(`SELECT t::text AS j FROM "${name.replace(/"/g, '""')}" t`));
    out.push(...found.map((r) => ({ table: name, row: r.j })));
  }
  return out;
}

function expectNotStored(dumped: Array<{ table: string; row: string }>, seen: Record<string, string>, except = new Set<string>()): void {
  for (const [what, value] of Object.entries(seen)) {
    expect(value.length, what).toBeGreaterThan(15);
    const found = dumped.filter((d) => !except.has(d.table) && d.row.includes(value)).map((d) => d.table);
    expect(found, `${what} is stored in clear`).toEqual([]);
  }
}

const one = async <T>(db: Database["db"], query: SQL): Promise<T> => {
  const [row] = await rowsOf<T>(db, query);
  if (!row) throw new Error("no row");
  return row;
};

describe("what the billing tables hold", () => {
  let server: TestServer;
  let seller: Seller;
  beforeAll(async () => {
    server = await startServer();
    seller = await createSeller(server, "sealed");
  });
  afterAll(async () => server?.close());

  it("is no webhook secret, license key or client secret, all of which till still reads and finds", async () => {
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({ url: "https://hooks.example.com/till", format: "raw", events: ["checkout.created"] });
    const benefit = await seller.sdk.benefits.create({ type: "license_keys", description: "App license", properties: { prefix: "seal", activations: { limit: 1, enableCustomerAdmin: false } } });
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const paid = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, paid);
    const open = await seller.sdk.checkouts.create({ products: [product.id] });
    const [key] = (await seller.sdk.licenseKeys.list({ organizationId: seller.organizationId })).result.items;
    if (!key) throw new Error("no license key issued");

    const seen = { webhookSecret: endpoint.secret, licenseKey: key.key };
    const clientSecrets = { paidCheckout: paid.clientSecret, openCheckout: open.clientSecret };
    const dumped = await dump(server.database.db);
    expect(dumped.filter((d) => d.row.includes(endpoint.url)).map((d) => d.table)).toContain("webhook_endpoint");
    expectNotStored(dumped, seen);
    expectNotStored(dumped, clientSecrets, PAYLOAD_TABLES);

    // read back: the seller's API, the customer's page (found by its secret), the software's validation (found by its
    // key)
    expect((await seller.sdk.webhooks.getWebhookEndpoint({ id: endpoint.id })).secret).toBe(endpoint.secret);
    expect((await seller.sdk.licenseKeys.get({ id: key.id })).key).toBe(key.key);
    const page = await publicRequest(server, "GET", `/v1/checkouts/client/${open.clientSecret}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ id: open.id, client_secret: open.clientSecret, url: `${server.config.baseURL}/checkout/${open.clientSecret}` });
    expect((page.body as { payment_processor_metadata: Record<string, string> }).payment_processor_metadata.tokenize_url).toBe(
      `${server.config.baseURL}/v1/checkouts/client/${open.clientSecret}/test-card`,
    );
    const validated = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: seller.organizationId });
    expect(validated.status).toBe(200);
    expect(validated.body).toMatchObject({ id: key.id, key: key.key, display_key: `****-${key.key.slice(-6)}` });
    // what is stored opens with the server secret, and nothing else does
    const stored = await one<{ secret: string }>(server.database.db, sql`SELECT secret FROM webhook_endpoint WHERE id = ${endpoint.id}`);
    expect(unseal(TEST_SECRET, "webhook-secret", stored.secret)).toBe(endpoint.secret);
    expect(unseal("another-secret-".padEnd(40, "y"), "webhook-secret", stored.secret)).toBeNull();
  });
});

describe("rows written in clear before sealing", () => {
  const org = randomUUID();
  const endpointId = randomUUID();
  const checkoutId = randomUUID();
  const keyId = randomUUID();
  const webhookSecret = "whsec_OldClearSecret0123456789abcdefghijklmn";
  const clientSecret = "till_c_OldClearClientSecret0123456789abc";
  const licenseKey = "OLD-8D2E5F0A-1B2C-4D3E-9F40-5A6B7C8D9E0F";
  let database: Database;
  let server: TestServer;

  beforeAll(async () => {
    database = await upgradedDatabase(migrationsBefore("_sealed_secrets"), async (db) => {
      await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Old', ${`old-${org}`}, now())`);
      await db.execute(sql`INSERT INTO webhook_endpoint (id, organization_id, url, secret, events)
        VALUES (${endpointId}::uuid, ${org}::uuid, 'https://hooks.example.com/old', ${webhookSecret}, ARRAY['checkout.created'])`);
      const customer = await one<{ id: string }>(db, sql`INSERT INTO customer (organization_id, email) VALUES (${org}::uuid, 'old@example.com') RETURNING id`);
      const benefit = await one<{ id: string }>(db, sql`INSERT INTO benefit (organization_id, type, description) VALUES (${org}::uuid, 'license_keys', 'Old') RETURNING id`);
      await db.execute(sql`INSERT INTO license_key (id, organization_id, customer_id, benefit_id, key)
        VALUES (${keyId}::uuid, ${org}::uuid, ${customer.id}::uuid, ${benefit.id}::uuid, ${licenseKey})`);
      const product = await one<{ id: string }>(db, sql`INSERT INTO product (organization_id, name) VALUES (${org}::uuid, 'Old product') RETURNING id`);
      const metadata = JSON.stringify({ processor: "test", tokenize_url: `http://127.0.0.1/v1/checkouts/client/${clientSecret}/test-card` });
      await db.execute(sql`INSERT INTO checkout (id, organization_id, client_secret, expires_at, amount, currency, product_ids, payment_processor_metadata)
        VALUES (${checkoutId}::uuid, ${org}::uuid, ${clientSecret}, now() + interval '1 hour', 0, 'usd', ARRAY[${product.id}::uuid], ${metadata}::jsonb)`);
    });
    server = await startServer({}, { database });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("are sealed at start, and are still read and found", async () => {
    expectNotStored(await dump(database.db), { webhookSecret, clientSecret, licenseKey });
    const endpoint = await one<{ secret: string }>(database.db, sql`SELECT secret FROM webhook_endpoint WHERE id = ${endpointId}`);
    expect(unseal(TEST_SECRET, "webhook-secret", endpoint.secret)).toBe(webhookSecret);

    const page = await publicRequest(server, "GET", `/v1/checkouts/client/${clientSecret}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body).toMatchObject({ id: checkoutId, client_secret: clientSecret });
    expect((page.body as { payment_processor_metadata: Record<string, string> }).payment_processor_metadata.tokenize_url).toBe(
      `http://127.0.0.1/v1/checkouts/client/${clientSecret}/test-card`,
    );
    const validated = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: licenseKey, organization_id: org });
    expect(validated.status, JSON.stringify(validated.body)).toBe(200);
    expect(validated.body).toMatchObject({ id: keyId, key: licenseKey });
  });

  it("refuses at start a server secret that does not open them", async () => {
    await expect(sealLeftoverSecrets(database.db, "another-secret-".padEnd(40, "y"))).rejects.toThrow(/sealed with another server secret/);
  });
});
