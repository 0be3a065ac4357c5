// The sandbox (docs/architecture.md, "Sandbox"): every organization's twin holds its test objects. Keys say
// their side by prefix, sessions ask with Till-Sandbox: true (or the twin's organization_id); sandbox objects
// never show in live lists or lookups, number their invoices apart, and reach only the twin's webhook endpoints.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organization, organizationSandbox, product } from "../../server/db/schema/index.js";
import { invoicePrefix } from "../../server/billing/invoice-numbers/service.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { joinAs } from "../auth/org-fixtures.js";

let server: TestServer;
let receiver: Receiver;
let a: Seller;
let b: Seller;
let aLive: string;
let aTest: string;
let bTest: string;

interface Whoami {
  kind: string;
  organization_id: string | null;
  sandbox: boolean;
  live_organization_id: string | null;
  roles: string[];
}

async function call<T = Record<string, unknown>>(
  token: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, text };
}

const SANDBOX = { "till-sandbox": "true" };
const whoami = async (token: string, headers: Record<string, string> = {}, query = "") => {
  const res = await call<Whoami>(token, "GET", `/api/whoami${query}`, { headers });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
const ids = (page: { items: Array<{ id: string }> }) => page.items.map((i) => i.id);

async function createProduct(token: string, name: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await call<{ id: string }>(token, "POST", "/v1/products/", {
    headers,
    body: { name, prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

let aTwin: string;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  a = await createSeller(server, "sandbox-a");
  b = await createSeller(server, "sandbox-b");
  [aLive, aTest, bTest] = await Promise.all([a.createKey(), a.createSandboxKey(), b.createSandboxKey()]);
  aTwin = (await whoami(aTest)).organization_id!;
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("API keys say their side", () => {
  it("makes live keys till_live_… and sandbox keys till_test_…, both keys of the live organization", async () => {
    expect(aLive).toMatch(/^till_live_[A-Za-z]+$/);
    expect(aTest).toMatch(/^till_test_[A-Za-z]+$/);
    const live = await whoami(aLive);
    expect(live).toMatchObject({ kind: "api_key", organization_id: a.organizationId, sandbox: false, live_organization_id: a.organizationId });
    const test = await whoami(aTest);
    expect(test).toMatchObject({ kind: "api_key", sandbox: true, live_organization_id: a.organizationId });
    expect(test.organization_id).not.toBe(a.organizationId);
    const listed = await a.client.get<{ apiKeys: Array<{ start: string; prefix: string; referenceId: string }> }>(
      `/api/auth/api-key/list?organizationId=${a.organizationId}`,
    );
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.apiKeys.map((k) => k.prefix).sort()).toEqual(["till_live_", "till_test_"]);
    expect(listed.body.apiKeys.every((k) => k.referenceId === a.organizationId && k.start.startsWith(k.prefix))).toBe(true);
  });

  it("keeps keys that say only till_ working as live keys, and refuses any other prefix", async () => {
    const legacy = await a.client.post<{ key: string }>("/api/auth/api-key/create", { organizationId: a.organizationId, name: "old", prefix: "till_" });
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.key).toMatch(/^till_[A-Za-z]+$/);
    expect(await whoami(legacy.body.key)).toMatchObject({ organization_id: a.organizationId, sandbox: false });
    const other = await a.client.post("/api/auth/api-key/create", { organizationId: a.organizationId, name: "x", prefix: "sk_test_" });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: "PREFIX_IS_FIXED" });
  });

  it("refuses a request asking a key for the other side (403), never serving it on the key's", async () => {
    const liveInSandbox = await call(aLive, "GET", "/v1/products/", { headers: SANDBOX });
    expect(liveInSandbox.status).toBe(403);
    expect(liveInSandbox.body).toMatchObject({ error: "NotPermitted", detail: expect.stringContaining("till_test_") });
    const sandboxInLive = await call(aTest, "GET", "/v1/products/", { headers: { "till-sandbox": "false" } });
    expect(sandboxInLive.status).toBe(403);
    expect((await call(aTest, "GET", "/v1/products/", { headers: SANDBOX })).status).toBe(200);
  });

  it("answers a Till-Sandbox value that is neither true nor false with 422", async () => {
    const res = await call(aLive, "GET", "/v1/products/", { headers: { "till-sandbox": "maybe" } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail: [{ loc: ["header", "till-sandbox"], type: "bool_parsing" }] });
    expect((await call(aLive, "GET", "/api/whoami", { headers: { "till-sandbox": "maybe" } })).status).toBe(422);
  });
});

describe("objects made in the sandbox", () => {
  let liveProduct: string;
  let sandboxProduct: string;
  let sessionProduct: string;

  beforeAll(async () => {
    liveProduct = await createProduct(aLive, "Live product");
    sandboxProduct = await createProduct(aTest, "Sandbox product");
    sessionProduct = await createProduct(a.token, "Made by a session in the sandbox", SANDBOX);
  });

  it("never appear in live lists or lookups, and live objects never in the sandbox's", async () => {
    const live = await call<{ items: Array<{ id: string }> }>(aLive, "GET", "/v1/products/?limit=100");
    expect(ids(live.body)).toEqual([liveProduct]);
    const sessionLive = await call<{ items: Array<{ id: string }> }>(a.token, "GET", "/v1/products/?limit=100");
    expect(ids(sessionLive.body)).toEqual([liveProduct]);
    const sandbox = await call<{ items: Array<{ id: string; organization_id: string }> }>(aTest, "GET", "/v1/products/?limit=100");
    expect(ids(sandbox.body).sort()).toEqual([sandboxProduct, sessionProduct].sort());
    expect(sandbox.body.items.every((p) => p.organization_id === aTwin)).toBe(true);
    expect((await call(aLive, "GET", `/v1/products/${sandboxProduct}`)).status).toBe(404);
    expect((await call(a.token, "GET", `/v1/products/${sessionProduct}`)).status).toBe(404);
    expect((await call(aTest, "GET", `/v1/products/${liveProduct}`)).status).toBe(404);
    expect((await call(a.token, "GET", `/v1/products/${liveProduct}`, { headers: SANDBOX })).status).toBe(404);
    expect((await call(aLive, "PATCH", `/v1/products/${sandboxProduct}`, { body: { name: "taken over" } })).status).toBe(404);
  });

  it("are the session's with Till-Sandbox: true or the twin's organization_id", async () => {
    const byHeader = await call<{ items: Array<{ id: string }> }>(a.token, "GET", "/v1/products/?limit=100", { headers: SANDBOX });
    expect(ids(byHeader.body).sort()).toEqual([sandboxProduct, sessionProduct].sort());
    const byId = await call<{ items: Array<{ id: string }> }>(a.token, "GET", `/v1/products/?limit=100&organization_id=${aTwin}`);
    expect(ids(byId.body).sort()).toEqual([sandboxProduct, sessionProduct].sort());
    expect(await whoami(a.token, SANDBOX)).toMatchObject({ kind: "session", organization_id: aTwin, sandbox: true, roles: ["owner"] });
    expect(await whoami(a.token, {}, `?organization_id=${aTwin}`)).toMatchObject({ organization_id: aTwin, sandbox: true });
    expect(await whoami(a.token)).toMatchObject({ organization_id: a.organizationId, sandbox: false, live_organization_id: a.organizationId });
    // the twin named by id while saying live is a contradiction, not a guess
    const both = await call(a.token, "GET", `/v1/products/?organization_id=${aTwin}`, { headers: { "till-sandbox": "false" } });
    expect(both.status).toBe(403);
  });

  it("parse in the Polar SDK with a sandbox key (no field added to Polar's shapes)", async () => {
    const sdk = sdkFor(server, aTest);
    const page = await sdk.products.list({ limit: 100 });
    expect(page.result.items.map((p) => p.id).sort()).toEqual([sandboxProduct, sessionProduct].sort());
    const got = await sdk.products.get({ id: sandboxProduct });
    expect(got.organizationId).toBe(aTwin);
  });
});

describe("invoice numbers", () => {
  async function buy(token: string): Promise<string> {
    const sdk = sdkFor(server, token);
    const p = await sdk.products.create({ name: `Buy ${randomUUID().slice(0, 6)}`, prices: [{ amountType: "fixed", priceAmount: 1200, priceCurrency: "usd" }] });
    const checkout = await sdk.checkouts.create({ products: [p.id] });
    await pay(server, checkout);
    const orders = await sdk.orders.list({ checkoutId: checkout.id });
    const order = orders.result.items[0];
    if (!order) throw new Error("no order");
    return order.invoiceNumber;
  }

  it("count apart: the sandbox's purchases use no live number", async () => {
    const seller = await createSeller(server, "numbers");
    const [live, test] = await Promise.all([seller.createKey(), seller.createSandboxKey()]);
    const livePrefix = invoicePrefix(seller.slug);
    // TEST and the live prefix, cut at 12: never the live prefix, even for slugs longer than 12 characters
    const sandboxPrefix = `TEST${livePrefix}`.slice(0, 12);
    expect(seller.slug.replace(/-/g, "").length).toBeGreaterThan(12);
    expect(await buy(live)).toBe(`${livePrefix}-0001`);
    expect(await buy(test)).toBe(`${sandboxPrefix}-0001`);
    expect(await buy(test)).toBe(`${sandboxPrefix}-0002`);
    expect(await buy(live)).toBe(`${livePrefix}-0002`);
  });
});

describe("webhooks", () => {
  it("deliver sandbox events to the sandbox's endpoints only, never to a live endpoint", async () => {
    await server.worker.start();
    const seller = await createSeller(server, "hooks");
    const [live, test] = await Promise.all([seller.createKey(), seller.createSandboxKey()]);
    const livePath = `/live-${randomUUID()}`;
    const sandboxPath = `/sandbox-${randomUUID()}`;
    const events = ["customer.created"];
    expect((await call(live, "POST", "/v1/webhooks/endpoints", { body: { url: `${receiver.url}${livePath}`, format: "raw", events } })).status).toBe(201);
    expect((await call(test, "POST", "/v1/webhooks/endpoints", { body: { url: `${receiver.url}${sandboxPath}`, format: "raw", events } })).status).toBe(201);
    const sandboxCustomer = await call<{ id: string }>(test, "POST", "/v1/customers/", { body: { email: `sb-${randomUUID()}@example.com` } });
    await receiver.until((hits) => hits.some((h) => h.path === sandboxPath && h.body.includes(sandboxCustomer.body.id)));
    // the live endpoint's first delivery is the live customer: the sandbox one, made and sent before, never came
    const liveCustomer = await call<{ id: string }>(live, "POST", "/v1/customers/", { body: { email: `lv-${randomUUID()}@example.com` } });
    await receiver.until((hits) => hits.some((h) => h.path === livePath));
    expect(receiver.at(livePath).map((h) => (JSON.parse(h.body) as { data: { id: string } }).data.id)).toEqual([liveCustomer.body.id]);
    expect(receiver.at(sandboxPath).map((h) => (JSON.parse(h.body) as { data: { id: string } }).data.id)).toEqual([sandboxCustomer.body.id]);
    // and the delivery logs are apart too
    const liveLog = await call<{ items: Array<{ webhook_event: { payload: string } }> }>(live, "GET", "/v1/webhooks/deliveries");
    expect(liveLog.text).not.toContain(sandboxCustomer.body.id);
  });

  it("tell the live organization's owners when a sandbox endpoint is disabled", async () => {
    const seller = await createSeller(server, "gone");
    const test = await seller.createSandboxKey();
    const path = `/gone-${randomUUID()}`;
    receiver.answer(path, 410);
    const endpoint = await call<{ id: string }>(test, "POST", "/v1/webhooks/endpoints", {
      body: { url: `${receiver.url}${path}`, format: "raw", events: ["customer.created"] },
    });
    expect(endpoint.status).toBe(201);
    await call(test, "POST", "/v1/customers/", { body: { email: `gone-${randomUUID()}@example.com` } });
    const mail = await server.mailbox.waitFor(seller.user.email, /Webhook endpoint disabled/);
    expect(mail.text).toContain(endpoint.body.id);
  });
});

describe("members, roles and organizations", () => {
  it("apply the live organization's roles in its sandbox", async () => {
    const reader = await joinAs(server, a.client, a.organizationId, "member", "sandbox-reader");
    const token = reader.client.sessionToken!;
    const who = await whoami(token, SANDBOX);
    expect(who).toMatchObject({ organization_id: aTwin, sandbox: true, roles: ["member"] });
    expect((await call(token, "GET", "/v1/products/", { headers: SANDBOX })).status).toBe(200);
    const write = await call(token, "POST", "/v1/products/", {
      headers: SANDBOX,
      body: { name: "Not allowed", prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }] },
    });
    expect(write.status).toBe(403);
  });

  it("lists the twins in the sandbox and never a twin live; better-auth never offers the twin", async () => {
    const live = await call<{ items: Array<{ id: string }> }>(a.token, "GET", "/v1/organizations/");
    expect(ids(live.body)).toEqual([a.organizationId]);
    const sandbox = await call<{ items: Array<{ id: string; name: string; slug: string }> }>(a.token, "GET", "/v1/organizations/", { headers: SANDBOX });
    expect(sandbox.body.items).toEqual([expect.objectContaining({ id: aTwin, slug: `${a.slug}-sandbox`, name: expect.stringMatching(/\(sandbox\)$/) })]);
    const byKey = await call<{ items: Array<{ id: string }> }>(aTest, "GET", "/v1/organizations/");
    expect(ids(byKey.body)).toEqual([aTwin]);
    expect((await call(a.token, "GET", `/v1/organizations/${aTwin}`)).status).toBe(404);
    expect((await call(a.token, "GET", `/v1/organizations/${aTwin}`, { headers: SANDBOX })).status).toBe(200);
    expect((await call(a.token, "PATCH", `/v1/organizations/${aTwin}`, { body: { website: "https://sandbox.example.com" } })).status).toBe(200);
    const listed = await a.client.get<Array<{ id: string }>>("/api/auth/organization/list");
    expect(listed.body.map((o) => o.id)).toEqual([a.organizationId]);
    const active = await a.client.post("/api/auth/organization/set-active", { organizationId: aTwin });
    expect(active.status).toBe(403);
  });

  it("makes one twin when many first requests come at once", async () => {
    const seller = await createSeller(server, "race");
    const answers = await Promise.all(Array.from({ length: 6 }, () => whoami(seller.token, SANDBOX)));
    const twins = new Set(answers.map((w) => w.organization_id));
    expect(twins.size).toBe(1);
    const links = await server.database.db.select().from(organizationSandbox).where(eq(organizationSandbox.liveOrganizationId, seller.organizationId));
    expect(links.map((l) => l.organizationId)).toEqual([...twins]);
  });
});

describe("tenancy", () => {
  it("answers another organization's sandbox with 404 (keys and sessions)", async () => {
    const sandboxProduct = await createProduct(aTest, "A's sandbox only");
    expect((await call(bTest, "GET", `/v1/products/${sandboxProduct}`)).status).toBe(404);
    expect((await call(b.token, "GET", `/v1/products/${sandboxProduct}`, { headers: SANDBOX })).status).toBe(404);
    const foreign = await call(b.token, "GET", `/v1/products/?organization_id=${aTwin}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: "ResourceNotFound" });
    expect((await call(bTest, "GET", `/v1/products/?organization_id=${aTwin}`)).status).toBe(404);
    const bList = await call<{ items: Array<{ id: string }> }>(bTest, "GET", "/v1/products/?limit=100");
    expect(ids(bList.body)).not.toContain(sandboxProduct);
    expect((await call(b.token, "GET", `/v1/organizations/${aTwin}`, { headers: SANDBOX })).status).toBe(404);
  });
});

describe("deleting an organization", () => {
  it("deletes its sandbox twin, every sandbox row, and the sandbox keys", async () => {
    const seller = await createSeller(server, "gone-org");
    const test = await seller.createSandboxKey();
    const twin = (await whoami(test)).organization_id!;
    const made = await createProduct(test, "Goes with the organization");
    const deleted = await seller.client.post("/api/auth/organization/delete", { organizationId: seller.organizationId });
    expect(deleted.status, deleted.text).toBe(200);
    const db = server.database.db;
    expect(await db.select().from(organization).where(eq(organization.id, twin))).toEqual([]);
    expect(await db.select().from(product).where(eq(product.id, made))).toEqual([]);
    expect(await db.select().from(organizationSandbox).where(eq(organizationSandbox.organizationId, twin))).toEqual([]);
    server.callers.clear();
    expect((await call(test, "GET", "/v1/products/")).status).toBe(401);
  });
});
