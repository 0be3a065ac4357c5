// Tenancy: every /v1 route (walked from the server's own route table, so new routes are covered as they
// land) is called with organization B's key on organization A's ids. Lists must not show A's rows;
// everything else must answer 404 and change nothing. The same walk keeps A's sandbox and A's live side
// apart, both ways (docs/architecture.md, "Sandbox").
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { dispute, payment } from "../../server/db/schema/index.js";
import { pay } from "../helpers/checkout.js";
import { uploadFile } from "../helpers/files.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let a: Seller;
let b: Seller;
let aKey: string;
let bKey: string;
let aSandboxKey: string;
/** A's resource id per first path segment after /v1/. */
const ids: Record<string, string> = {};
/** The same kinds of rows in A's sandbox. */
const sandboxIds: Record<string, string> = {};
const externalCustomerId = `tenant-ext-${Date.now()}`;
/** External customer ids are unique per organization: the sandbox's customer gets one of its own. */
const externalIdOf = (rows: Record<string, string>) => (rows === sandboxIds ? `${externalCustomerId}-sandbox` : externalCustomerId);

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text };
}

async function createWith(key: string, path: string, body: unknown): Promise<string> {
  const res = await call(key, "POST", path, body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { id: string }).id;
}

/** One row of every kind, made with `key` (an organization's live or sandbox side). */
async function makeRows(key: string, ids: Record<string, string>): Promise<void> {
  const create = (path: string, body: unknown) => createWith(key, path, body);
  ids.meters = await create("/v1/meters/", {
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api" }] },
    aggregation: { func: "count" },
  });
  ids["usage-alerts"] = await create("/v1/usage-alerts/", { meter_id: ids.meters, kind: "units", threshold: 1000 });
  ids.products = await create("/v1/products/", {
    name: "Tenant product",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
  });
  ids.benefits = await create("/v1/benefits/", { type: "custom", description: "Support", properties: { note: null } });
  ids.discounts = await create("/v1/discounts/", {
    name: "Ten off",
    type: "percentage",
    basis_points: 1000,
    duration: "once",
    code: `TEN${Date.now().toString(36).toUpperCase()}`,
  });
  ids["custom-fields"] = await create("/v1/custom-fields/", { type: "text", slug: "company", name: "Company", properties: {} });
  ids["checkout-links"] = await create("/v1/checkout-links/", { payment_processor: "stripe", products: [ids.products], metadata: { tenant: "a" } });
  ids.customers = await create("/v1/customers/", { email: `tenant-${Date.now()}@example.com`, external_id: externalIdOf(ids) });
  ids.wallets = await create("/v1/wallets/", { customer_id: ids.customers, currency: "usd" });
  // a team customer and a member of it (members are the team's: /v1/members/{id})
  const team = await create("/v1/customers/", { type: "team", email: `tenant-team-${Date.now()}@example.com` });
  ids.members = await create("/v1/members/", { customer_id: team, email: "tenant-member@example.com", external_id: externalIdOf(ids) });
  ids.files = (await uploadFile(sdkFor(server, key), "tenant.pdf", Buffer.from("%PDF-1.4 tenant"), "downloadable")).id;
  const ingest = await call(key, "POST", "/v1/events/ingest", {
    events: [{ name: "api", external_customer_id: externalIdOf(ids) }],
  });
  expect(ingest.status).toBe(200);
  const events = JSON.parse((await call(key, "GET", "/v1/events/")).text) as { items: Array<{ id: string }> };
  ids.events = events.items[0]!.id;
  ids.disputes = await makeDispute(key, ids.products);
}

/** A dispute of a paid order (disputes come from Stripe's events: the row is written as that processing writes it). */
async function makeDispute(key: string, productId: string): Promise<string> {
  const checkout = JSON.parse((await call(key, "POST", "/v1/checkouts/", { products: [productId] })).text) as { id: string; client_secret: string };
  await pay(server, { clientSecret: checkout.client_secret });
  const db = server.database.db;
  const [paid] = await db.select().from(payment).where(eq(payment.checkoutId, checkout.id));
  if (!paid?.orderId) throw new Error("no paid order");
  const id = randomUUID();
  await db.insert(dispute).values({
    id,
    organizationId: paid.organizationId,
    orderId: paid.orderId,
    paymentId: paid.id,
    customerId: paid.customerId,
    status: "needs_response",
    amount: paid.amount,
    taxAmount: 0,
    currency: paid.currency,
    processor: "stripe",
    processorDisputeId: `dp_tenancy_${id}`,
    chargeId: `ch_tenancy_${id}`,
  });
  return id;
}

beforeAll(async () => {
  server = await startServer();
  a = await createSeller(server, "tenant-a");
  b = await createSeller(server, "tenant-b");
  aKey = await a.createKey();
  bKey = await b.createKey();
  aSandboxKey = await a.createSandboxKey();
  ids.organizations = a.organizationId;
  await makeRows(aKey, ids);
  sandboxIds.organizations = (JSON.parse((await call(aSandboxKey, "GET", "/api/whoami")).text) as { organization_id: string }).organization_id;
  await makeRows(aSandboxKey, sandboxIds);
});
afterAll(async () => server?.close());

function fill(url: string, ids: Record<string, string>): string {
  const segment = url.split("/")[2] ?? "";
  return url
    .replace(/:external_id/g, externalIdOf(ids))
    .replace(/:id/g, ids[segment] ?? randomUUID())
    .replace(/:[a-z_]+/g, () => randomUUID());
}

/** Routes that validate their input before looking the row up get a valid one, so the lookup is what answers. */
const VALID_INPUT: Record<string, { body?: unknown; query?: string }> = {
  "PATCH /v1/custom-fields/:id": { body: { type: "text" } },
  "PATCH /v1/benefits/:id": { body: { type: "custom" } },
  "GET /v1/meters/:id/quantities": {
    query: `start_timestamp=${encodeURIComponent("2026-01-01T00:00:00Z")}&end_timestamp=${encodeURIComponent("2026-01-02T00:00:00Z")}&interval=day`,
  },
  "GET /v1/metrics/": { query: "start_date=2026-01-01&end_date=2026-01-02&interval=day" },
  "GET /v1/metrics/export": { query: "start_date=2026-01-01&end_date=2026-01-02&interval=day" },
  "POST /v1/files/:id/uploaded": { body: { id: randomUUID(), path: "x", parts: [{ number: 1, checksum_etag: "x", checksum_sha256_base64: null }] } },
  "POST /v1/products/:id/benefits": { body: { benefits: [] } },
  "PATCH /v1/subscriptions/:id": { body: { cancel_at_period_end: true } },
  "POST /v1/subscriptions/:id/renew": { body: {} },
  "POST /v1/subscriptions/:id/preview": { body: { cancel_at_period_end: true } },
  "POST /v1/refunds/": { body: { order_id: randomUUID(), reason: "other", amount: 100 } },
  "POST /v1/wallets/:id/top-up": { body: { amount: 100 } },
  "POST /v1/reservations/:id/commit": { body: { units: 1 } },
  "POST /v1/wallets/:id/adjustments": { body: { amount: 100, reason: "tenancy walk" } },
  // a live stream never ends by itself: replay only
  "GET /v1/cli/listen": { query: "follow=false" },
  // a seat list names its purchase in the query: a lookup (a random id stands for A's, whose purchase the walk has none
  // of)
  "GET /v1/customer-seats": { query: `subscription_id=${randomUUID()}` },
  "POST /v1/customer-seats": { body: { subscription_id: randomUUID(), email: "tenant-seat@example.com" } },
  // a member by the seller's id names its customer in the query
  "GET /v1/members/external/:external_id": { query: `external_customer_id=${externalCustomerId}` },
  "PATCH /v1/members/external/:external_id": { query: `external_customer_id=${externalCustomerId}`, body: { name: "x" } },
  "DELETE /v1/members/external/:external_id": { query: `external_customer_id=${externalCustomerId}` },
  "POST /v1/customers/:id/members": { body: { email: "tenant-intruder@example.com" } },
  "POST /v1/customers/external/:external_id/members": { body: { email: "tenant-intruder@example.com" } },
};

/** Routes without a path parameter that look a row up by their query or body: a foreign id is a 404 like a path's. */
const LOOKUPS = new Set(["GET /v1/customer-seats", "POST /v1/customer-seats"]);

/** Routes of the sandbox only (the test clock): a live key is refused with 403, a sandbox key reads its own. */
const SANDBOX_ONLY = new Set(["GET /v1/test-clock"]);

describe("tenancy walk", () => {
  it("covers a route table that includes every resource group of the billing API", () => {
    const groups = new Set(server.v1Routes.map((r) => r.url.split("/")[2]));
    for (const g of ["organizations", "products", "benefits", "benefit-grants", "discounts", "custom-fields", "meters", "events", "customers", "files", "checkout-links"]) {
      expect(groups).toContain(g);
    }
  });

  /** Every route with `token` on the rows of `rows`: lists leave them out, everything else is a 404. */
  async function walk(token: string, rows: Record<string, string>): Promise<string[]> {
    const aIds = Object.values(rows);
    const failures: string[] = [];
    for (const route of server.v1Routes) {
      if (route.caller !== "organization") continue; // a customer, a per-object secret or anyone: not an organization
      const input = VALID_INPUT[`${route.method} ${route.url}`];
      const path = fill(route.url, rows) + (input?.query ? `?${input.query}` : "");
      const hasParam = route.url.includes(":") || LOOKUPS.has(`${route.method} ${route.url}`);
      const body = input?.body ?? (route.method === "GET" || route.method === "DELETE" ? undefined : {});
      const res = await call(token, route.method, path, body);
      const leaked = aIds.filter((id) => res.text.includes(id));
      if (!hasParam && route.method === "GET") {
        const refusedLive = SANDBOX_ONLY.has(`${route.method} ${route.url}`) && res.status === 403 && token !== aSandboxKey;
        if ((res.status !== 200 && !refusedLive) || leaked.length > 0) failures.push(`${route.method} ${route.url}: ${res.status} leaked=${leaked.join(",")}`);
      } else if (hasParam) {
        if (res.status !== 404 || leaked.length > 0) failures.push(`${route.method} ${route.url}: ${res.status} ${res.text.slice(0, 120)}`);
      } else if (leaked.length > 0 || res.status >= 500) {
        // creates in B's own organization are allowed; they must not reach A's rows
        failures.push(`${route.method} ${route.url}: ${res.status} leaked=${leaked.join(",")}`);
      }
    }
    return failures;
  }

  it("never shows or touches organization A's rows to organization B's key", async () => {
    expect(await walk(bKey, ids)).toEqual([]);
  });

  it("never shows or touches A's live rows to A's sandbox key, nor A's sandbox rows to A's live key", async () => {
    expect(sandboxIds.organizations).not.toBe(a.organizationId);
    expect(await walk(aSandboxKey, ids)).toEqual([]);
    expect(await walk(aKey, sandboxIds)).toEqual([]);
  });

  it("left every one of A's rows in place, live and sandbox", async () => {
    const gettable = new Set(server.v1Routes.filter((r) => r.method === "GET" && r.url.endsWith("/:id")).map((r) => r.url.split("/")[2]));
    for (const [key, rows] of [[aKey, ids], [aSandboxKey, sandboxIds]] as const) {
      for (const [segment, id] of Object.entries(rows)) {
        const path = gettable.has(segment) ? `/v1/${segment}/${id}` : `/v1/${segment}/?id=${id}`;
        const res = await call(key, "GET", path);
        if (!gettable.has(segment)) expect(res.text).toContain(id);
        expect(res.status, `${segment} ${res.text.slice(0, 200)}`).toBe(200);
      }
    }
  });

  it("answers B's session token asking for A's organization with 404", async () => {
    const res = await call(b.token, "GET", `/v1/products/?organization_id=${a.organizationId}`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toMatchObject({ error: "ResourceNotFound" });
  });
});
