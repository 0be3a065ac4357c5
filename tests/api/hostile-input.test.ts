// The input guard (server/http/input-guard.ts) and the better-auth mount's checks, on the findings of the
// hostile-input review (deep JSON, large bodies): JSON nested past 32 levels is refused before anything walks it,
// on /v1 (Polar's 422), /api/auth (400 VALIDATION_ERROR) alike; a 422 never echoes an unbounded input; a NUL
// or an unpaired surrogate in any body value, query value or path parameter is refused in the family's shape
// and nothing is stored; the better-auth 500s (null and empty bodies, a number for a username, an empty
// organization update, limit=1e309, both permission and permissions, banExpiresIn=-1e308) are 4xx or a no-op.
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customer, event, meter, outbox, product, user } from "../../server/db/schema/index.js";
import { LARGE_BODY_LIMIT, SMALL_BODY_LIMIT, V1_BODY_LIMIT } from "../../server/http/input-guard.js";
import { SLICED_PARSE_THRESHOLD } from "../../server/http/json-sliced.js";
import { rawRequest, issues, type RawResponse } from "../helpers/api.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let key: string;
let fixed: Product;

const db = () => server.database.db;
const LONE = "\ud800";
const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

/** Sends `body` as JSON text exactly as given. */
async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { origin: server.url, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body,
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // not JSON
  }
  return { status: res.status, text, json };
}

const cookieOf = (client: Client) => ({ cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ") });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectPolar422(res: { status: number; json: Record<string, unknown>; text: string }, loc: unknown[], type: string, what: string): void {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(422);
  const [issue] = issues(res.json);
  expect(issue, what).toMatchObject({ loc, type });
  expect(typeof issue?.msg, what).toBe("string");
}

const healthy = async () => expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "hostile");
  key = await seller.createKey();
  fixed = await createProduct(seller, "fixed");
});
afterAll(async () => {
  await server?.close();
});

describe("JSON nesting", () => {
  it("/v1 refuses a body nested deeper than 32 levels with Polar's 422 before validating it, public routes included", async () => {
    for (const [path, headers] of [
      ["/v1/customer-portal/license-keys/validate", {}],
      [`/v1/checkouts/client/${randomUUID()}/confirm`, {}],
      ["/v1/products/", bearer(key)],
    ] as const) {
      for (const body of [deep(33), deep(6000), deep(40_000), deepObject(33), `{"name":${deep(200)}}`, "[".repeat(500_000)]) {
        const res = await send("POST", path, body, headers);
        if (body.length > SMALL_BODY_LIMIT && path !== "/v1/products/") {
          expect(res.status, "a small-body route (no login): too large before too deep").toBe(413);
          continue;
        }
        expectPolar422(res, ["body"], "json_invalid", `${path} ${body.slice(0, 20)}…(${body.length})`);
        expect(res.text.length, "the 422 echoes nothing of the body").toBeLessThan(300);
      }
    }
    await healthy();
  });

  it("accepts 32 levels, and brackets inside strings do not count", async () => {
    // validated as usual: the 422 names the fields, not the nesting
    for (const body of [deep(32), deepObject(31), JSON.stringify({ key: "[".repeat(5000), label: "{\"[".repeat(100) })]) {
      const res = await send("POST", "/v1/customer-portal/license-keys/validate", body);
      expect(res.status, body.slice(0, 40)).toBe(422);
      expect(issues(res.json).some((i) => i.type === "json_invalid"), res.text.slice(0, 200)).toBe(false);
    }
    // an escaped quote does not end a string: the brackets after it are still text
    const escaped = `{"key":"\\"${"[".repeat(100)}","organization_id":"${seller.organizationId}"}`;
    const res = await send("POST", "/v1/customer-portal/license-keys/validate", escaped);
    expect(res.status, res.text).toBe(404);
  });

  it("/api/auth refuses it with 400 VALIDATION_ERROR (request-password-reset, forget-password, sign-in)", async () => {
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password", "/api/auth/sign-in/email"]) {
      for (const body of [deep(33), deep(6000), `{"email":${deepObject(40)}}`]) {
        const res = await send("POST", path, body);
        expect(res.status, `${path}: ${res.text}`).toBe(400);
        expect(res.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: "[body] JSON nested deeper than 32 levels" });
      }
    }
    await healthy();
  });

  it("refuses more than 100,000 values or an object of more than 1,000 keys, and takes a full ingest batch", async () => {
    const manyValues = `{"key":[${"0,".repeat(100_000)}0]}`;
    const manyKeys = `{${Array.from({ length: 1001 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    expectPolar422(await send("POST", "/v1/products/", manyValues, bearer(key)), ["body"], "json_invalid", "JSON holding more than 100000 values");
    // 100,000 values take more than the small-body routes' limit: refused as too large before any scan
    expect((await send("POST", "/v1/customer-portal/license-keys/validate", manyValues)).status).toBe(413);
    expect((await send("POST", "/api/auth/sign-in/email", manyValues)).status).toBe(413);
    const msg = "JSON object with more than 1000 keys";
    expectPolar422(await send("POST", "/v1/customer-portal/license-keys/validate", manyKeys), ["body"], "json_invalid", msg);
    const auth = await send("POST", "/api/auth/sign-in/email", manyKeys);
    expect(auth.status).toBe(400);
    expect(auth.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] ${msg}` });
    // the largest batch /v1/events/ingest takes, each event with the most metadata keys, is well within the bounds
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const events = Array.from({ length: 1000 }, (_, i) => ({ name: "bounds", external_customer_id: `c${i % 10}`, metadata }));
    const batch = await rawRequest(server.url, key, "POST", "/v1/events/ingest", { events });
    expect(batch.status, JSON.stringify(batch.body).slice(0, 300)).toBe(200);
    expect(batch.body).toMatchObject({ inserted: 1000 });
  });

  it("refuses more than 1,000 distinct key names in one body (objects with distinct keys made JSON.parse dear)", async () => {
    const distinct = (n: number) => `{"key":[${Array.from({ length: n }, (_, i) => `{"a${i}":1,"b${i}":2}`).join(",")}]}`;
    const msg = "JSON holding more than 1000 distinct key names";
    expectPolar422(await send("POST", "/v1/products/", distinct(500), bearer(key)), ["body"], "json_invalid", msg);
    expectPolar422(await send("POST", "/v1/customer-portal/license-keys/validate", distinct(500)), ["body"], "json_invalid", msg);
    const auth = await send("POST", "/api/auth/sign-in/email", distinct(500));
    expect(auth.status).toBe(400);
    expect(auth.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] ${msg}` });
    // 999 names and the key: within the bound, so validated as usual
    const within = await send("POST", "/v1/products/", distinct(499).replace('{"key"', '{"a_":1,"key"'), bearer(key));
    expect(within.status).toBe(422);
    expect(JSON.stringify(within.json)).not.toContain("distinct key names");
    await healthy();
  });

  it("routes anyone may call whose valid bodies are small answer 413 before reading a larger one, in their family's shape", async () => {
    const over = JSON.stringify({ key: "k".repeat(SMALL_BODY_LIMIT), organization_id: seller.organizationId });
    for (const path of ["/v1/customer-portal/license-keys/validate", "/v1/customer-portal/license-keys/activate", "/v1/customer-portal/license-keys/deactivate"]) {
      const res = await send("POST", path, over);
      expect(res.status, path).toBe(413);
      expect(res.json).toMatchObject({ error: "FST_ERR_CTP_BODY_TOO_LARGE", detail: expect.any(String) });
    }
    const auth = await send("POST", "/api/auth/sign-in/email", JSON.stringify({ email: "a@example.com", password: "p".repeat(SMALL_BODY_LIMIT) }));
    expect(auth).toMatchObject({ status: 413, json: { code: "PAYLOAD_TOO_LARGE", message: `Request body is larger than ${SMALL_BODY_LIMIT / 1024} KiB` } });
    // just under the limit: read, parsed and answered as usual
    const under = JSON.stringify({ key: "k".repeat(SMALL_BODY_LIMIT - 200), organization_id: seller.organizationId });
    const validated = await send("POST", "/v1/customer-portal/license-keys/validate", under);
    expect(validated.status).toBe(422);
    expect(issues(validated.json).map((i) => i.loc.join("."))).toContain("body.key");
    const signIn = await send("POST", "/api/auth/sign-in/email", JSON.stringify({ email: "a@example.com", password: "p".repeat(SMALL_BODY_LIMIT - 200) }));
    expect(signIn.status, signIn.text.slice(0, 200)).not.toBe(413);
    expect(signIn.status).toBeLessThan(500);
    // the seller's /v1 writes take up to V1_BODY_LIMIT
    expect((await send("POST", "/v1/products/", JSON.stringify({ name: "n".repeat(SMALL_BODY_LIMIT * 2), prices: [] }), bearer(key))).status).toBe(422);
    await healthy();
  });

  it("a 422 echoes a small input and leaves a large one out", async () => {
    const small = await send("POST", "/v1/products/", JSON.stringify({ name: "x", prices: [] }), bearer(key));
    expect(issues(small.json).find((i) => i.loc.join(".") === "body.name")).toMatchObject({ input: "x" });
    const big = "y".repeat(300_000);
    const large = await send("POST", "/v1/products/", JSON.stringify({ name: [big], prices: [] }), bearer(key));
    expect(large.status).toBe(422);
    const issue = issues(large.json).find((i) => i.loc.join(".") === "body.name");
    expect(issue).toBeDefined();
    expect(issue).not.toHaveProperty("input");
    expect(large.text.length).toBeLessThan(2000);
    // nested 31 deep under a field of the wrong type: no echo either
    const nested = await send("POST", "/v1/products/", `{"name":${deepObject(30)},"prices":[]}`, bearer(key));
    expect(nested.status).toBe(422);
    expect(nested.text.length).toBeLessThan(2000);
  });
});

describe("body limits per route, and large bodies parsed in slices", () => {
  const over = (limit: number) => JSON.stringify({ name: "n".repeat(limit), prices: [] });
  const tooLarge = (res: { status: number; json: Record<string, unknown> }, limit: number, what: string) => {
    expect(res.status, what).toBe(413);
    expect(res.json, what).toEqual({ error: "FST_ERR_CTP_BODY_TOO_LARGE", detail: `Request body is larger than ${limit / 1024} KiB, this route's limit.` });
  };

  it("answers 413 in the /v1 shape past each route's limit: 128 KiB without login, 512 KiB for the seller, 1 MiB for ingest", async () => {
    const secret = randomUUID();
    for (const [method, path] of [
      ["POST", `/v1/checkouts/client/${secret}/confirm`],
      ["PATCH", `/v1/checkouts/client/${secret}`],
      ["POST", "/v1/customer-portal/customer-session/request"],
      ["PATCH", "/v1/customer-portal/customers/me"],
      ["POST", "/v1/customer-portal/license-keys/validate"],
    ] as const) {
      tooLarge(await send(method, path, over(SMALL_BODY_LIMIT)), SMALL_BODY_LIMIT, path);
    }
    for (const [method, path] of [
      ["POST", "/v1/products/"],
      ["POST", "/v1/customers/"],
      ["POST", "/v1/checkouts/"],
      ["PATCH", `/v1/products/${fixed.id}`],
    ] as const) {
      tooLarge(await send(method, path, over(V1_BODY_LIMIT), bearer(key)), V1_BODY_LIMIT, path);
      // under it: read and validated as usual
      expect((await send(method, path, JSON.stringify({ name: ["n".repeat(V1_BODY_LIMIT - 1000)] }), bearer(key))).status, path).toBe(422);
    }
    for (const path of ["/v1/events/ingest", "/v1/files/"]) {
      tooLarge(await send("POST", path, over(LARGE_BODY_LIMIT), bearer(key)), LARGE_BODY_LIMIT, path);
      const under = await send("POST", path, JSON.stringify({ events: "e".repeat(LARGE_BODY_LIMIT - 1000) }), bearer(key));
      expect(under.status, path).toBe(422);
      expect(issues(under.json)[0]?.type).not.toBe("json_invalid");
    }
    await healthy();
  });

  it("a large ingest batch is parsed and validated in slices with the same answers: stored, or every bad event named", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i % 2 ? i : `value ${i} ${"x".repeat(10)}`]));
    const events = Array.from({ length: 1000 }, (_, i) => ({ name: "sliced", external_customer_id: `c${i % 10}`, external_id: `sliced-${randomUUID()}`, metadata }));
    const body = JSON.stringify({ events });
    expect(body.length).toBeGreaterThan(SLICED_PARSE_THRESHOLD * 4);
    const ok = await send("POST", "/v1/events/ingest", body, bearer(key));
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expect(ok.json).toEqual({ inserted: 1000, duplicates: 0 });
    const stored = await db().select({ n: count() }).from(event).where(eq(event.name, "sliced"));
    expect(stored[0]?.n).toBe(1000);

    // bad events far apart (different slices): every one named with its place, nothing stored
    const bad = events.map((e, i) => ({ ...e, name: "sliced-bad", external_id: `bad-${i}` }));
    bad[3] = { ...bad[3]!, name: "" };
    bad[777] = { ...bad[777]!, metadata: { ...metadata, key1: { nested: true } } as never };
    bad[999] = { ...bad[999]!, external_customer_id: undefined as never };
    const refused = await send("POST", "/v1/events/ingest", JSON.stringify({ events: bad }), bearer(key));
    expect(refused.status).toBe(422);
    expect(issues(refused.json).map((i) => i.loc.join("."))).toEqual(["body.events.3.name", "body.events.777.metadata.key1", "body.events.999.customer_id"]);
    const none = await db().select({ n: count() }).from(event).where(eq(event.name, "sliced-bad"));
    expect(none[0]?.n).toBe(0);
  });

  it("large hostile bodies get the documented errors on the sliced path", async () => {
    const filler = Array.from({ length: 2000 }, (_, i) => ({ name: "x", external_customer_id: `c${i}`, metadata: { note: "m".repeat(40) } }));
    const large = (extra: string) => `{"events":[${filler.map((e) => JSON.stringify(e)).join(",")},${extra}]}`;
    expect(large("1").length).toBeGreaterThan(SLICED_PARSE_THRESHOLD);
    const ingest = (body: string) => send("POST", "/v1/events/ingest", body, bearer(key));
    // bounds
    expectPolar422(await ingest(`{"events":${"[".repeat(500_000)}}`), ["body"], "json_invalid", "deep");
    expectPolar422(await ingest(large(`{"a":${"[".repeat(40)}${"]".repeat(40)}}`)), ["body"], "json_invalid", "33 deep, late in a large body");
    // characters, with the place of the string, in a late piece, in a key, in a long string
    expectPolar422(await ingest(large('{"name":"a\\u0000b"}')), ["body", "events", 2000, "name"], "string_nul", "NUL");
    expectPolar422(await ingest(large('{"metadata":{"\\ud800":1}}')), ["body", "events", 2000, "metadata", "\ud800"], "string_unicode", "lone surrogate key");
    expectPolar422(await ingest(`{"events":[{"name":"${"s".repeat(200_000)}\\udc00"}]}`), ["body", "events", 0, "name"], "string_unicode", "long string");
    // prototype keys, malformed text: Polar's json_invalid
    expectPolar422(await ingest(large('{"__proto__":{"x":1}}')), ["body"], "json_invalid", "__proto__");
    expectPolar422(await ingest(large('{"name":"x" "y"}')), ["body"], "json_invalid", "malformed");
    expectPolar422(await ingest(`${large("1")} trailing`), ["body"], "json_invalid", "trailing");
    expectPolar422(await ingest(large("1").slice(0, -1)), ["body"], "json_invalid", "truncated");
    await healthy();
  });
});

describe("characters PostgreSQL cannot store", () => {
  it("an unpaired surrogate in any /v1 body value is a 422 at its place, and nothing is stored", async () => {
    const checkout = await seller.sdk.checkouts.create({ products: [fixed.id] });
    const buyer = await seller.sdk.customers.create({ email: uniqueBuyer("lone") });
    const session = await rawRequest(server.url, key, "POST", "/v1/customer-sessions/", { customer_id: buyer.id });
    expect(session.status).toBe(201);
    const portal = bearer(String(session.body.token));
    const before = {
      products: (await db().select({ n: count() }).from(product))[0]!.n,
      customers: (await db().select({ n: count() }).from(customer))[0]!.n,
      meters: (await db().select({ n: count() }).from(meter))[0]!.n,
      events: (await db().select({ n: count() }).from(event))[0]!.n,
      outbox: (await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, seller.organizationId)))[0]!.n,
    };
    const cases: Array<[string, string, unknown, Record<string, string>, unknown[]]> = [
      ["POST", "/v1/products/", { name: "Lone", prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }], metadata: { note: LONE } }, bearer(key), ["body", "metadata", "note"]],
      ["POST", "/v1/customers/", { email: uniqueBuyer("lone2"), metadata: { note: `a${LONE}b` } }, bearer(key), ["body", "metadata", "note"]],
      ["POST", "/v1/checkouts/", { products: [fixed.id], metadata: { [`k${LONE}`]: "v" } }, bearer(key), ["body", "metadata", `k${LONE}`]],
      ["POST", "/v1/meters/", { name: "Lone meter", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "\udc00" }] }, aggregation: { func: "count" } }, bearer(key), ["body", "filter", "clauses", 0, "value"]],
      ["POST", "/v1/events/ingest", { events: [{ name: "lone", external_customer_id: "c1", metadata: { k: LONE } }] }, bearer(key), ["body", "events", 0, "metadata", "k"]],
      ["PATCH", `/v1/organizations/${seller.organizationId}`, { details: { about: LONE } }, bearer(key), ["body", "details", "about"]],
      ["PATCH", `/v1/checkouts/client/${checkout.clientSecret}`, { customer_billing_address: { country: "US", line1: LONE } }, {}, ["body", "customer_billing_address", "line1"]],
      ["POST", "/v1/customer-portal/license-keys/activate", { key: "TILL-NONE", organization_id: seller.organizationId, label: "l", meta: { k: LONE } }, {}, ["body", "meta", "k"]],
      ["PATCH", "/v1/customer-portal/customers/me", { billing_address: { country: "US", line1: LONE } }, portal, ["body", "billing_address", "line1"]],
    ];
    for (const [method, path, body, headers, loc] of cases) {
      expectPolar422(await send(method, path, JSON.stringify(body), headers), loc, "string_unicode", `${method} ${path}`);
    }
    // a NUL is refused the same way, anywhere in the body
    expectPolar422(await send("POST", "/v1/customers/", JSON.stringify({ email: uniqueBuyer(), metadata: { a: "x\u0000" } }), bearer(key)), ["body", "metadata", "a"], "string_nul", "NUL");
    expect({
      products: (await db().select({ n: count() }).from(product))[0]!.n,
      customers: (await db().select({ n: count() }).from(customer))[0]!.n,
      meters: (await db().select({ n: count() }).from(meter))[0]!.n,
      events: (await db().select({ n: count() }).from(event))[0]!.n,
      outbox: (await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, seller.organizationId)))[0]!.n,
    }).toEqual(before);
    // a surrogate pair (any emoji, escaped or not) is text like any other
    const emoji = await rawRequest(server.url, key, "POST", "/v1/customers/", { email: uniqueBuyer("emoji"), metadata: { mood: "\ud83d\ude00 ok" } });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
    expect(emoji.body.metadata).toEqual({ mood: "😀 ok" });
    const escaped = await send("POST", "/v1/customers/", `{"email":"${uniqueBuyer("esc")}","metadata":{"mood":"\\ud83d\\ude00"}}`, bearer(key));
    expect(escaped.status, escaped.text).toBe(201);
  });

  it("a NUL or an unpaired surrogate in a path parameter or a query value is a 422, public routes included", async () => {
    for (const [method, suffix] of [["GET", ""], ["PATCH", ""], ["POST", "/confirm"], ["POST", "/test-card"], ["GET", "/stream"]] as const) {
      const res = await send(method, `/v1/checkouts/client/%00${suffix}`, method === "GET" ? undefined : "{}");
      expectPolar422(res, ["path", "client_secret"], "string_nul", `${method} %00${suffix}`);
    }
    expectPolar422(await send("GET", "/v1/customer-portal/organizations/a%00b"), ["path", "slug"], "string_nul", "portal slug");
    expectPolar422(await send("GET", "/v1/customers/?query=a%00", undefined, bearer(key)), ["query", "query"], "string_nul", "query");
    expectPolar422(await send("GET", "/v1/products/?metadata%5Bk%5D=a%00", undefined, bearer(key)), ["query", "metadata[k]"], "string_nul", "deepObject query");
    expectPolar422(await send("GET", "/v1/products/?x%00=1", undefined, bearer(key)), ["query", "x\u0000"], "string_nul", "query key");
  });

  it("/api/auth refuses an unpaired surrogate with 400 INVALID_CHARACTERS, as it does a NUL", async () => {
    const cookie = cookieOf(seller.client);
    for (const [path, body] of [
      ["/api/auth/organization/create", JSON.stringify({ name: "Lone", slug: `lone-${Date.now()}`, metadata: { k: LONE } })],
      ["/api/auth/update-user", JSON.stringify({ name: `x${LONE}` })],
      ["/api/auth/sign-up/email", JSON.stringify({ email: uniqueEmail("lone"), password: "correct-horse-battery", name: "\udfff" })],
    ]) {
      const res = await send("POST", path!, body, cookie);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.json).toEqual({ message: "Request contains unpaired surrogate characters", code: "INVALID_CHARACTERS" });
    }
    const form = await send("POST", "/api/auth/device/code", undefined, { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBeLessThan(500);
    const formNul = await fetch(`${server.url}/api/auth/device/code`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "client_id=a%00b" });
    expect(formNul.status).toBe(400);
    expect(await formNul.json()).toEqual({ message: "Request contains NUL characters", code: "INVALID_CHARACTERS" });
    const me = await send("GET", "/api/auth/get-session", undefined, cookie);
    expect((me.json as { user: { name: string } }).user.name).toBe("Test User");
  });
});

describe("better-auth inputs that were 500s", () => {
  it("sign-up and update-user with a null or empty body are 400 VALIDATION_ERROR", async () => {
    const cookie = cookieOf(seller.client);
    for (const [path, body, received] of [
      ["/api/auth/sign-up/email", "null", "null"],
      ["/api/auth/update-user", "null", "null"],
      ["/api/auth/update-user", "[]", "array"],
      ["/api/auth/sign-up/email", "5", "number"],
    ] as const) {
      const res = await send("POST", path, body, cookie);
      expect(res.status, `${path} ${body}: ${res.text}`).toBe(400);
      expect(res.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] Invalid input: expected object, received ${received}` });
    }
    for (const headers of [{ "content-type": "application/json" }, {}] as Array<Record<string, string>>) {
      const res = await fetch(`${server.url}/api/auth/sign-up/email`, { method: "POST", headers: { origin: server.url, ...headers }, body: "" });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
    }
  });

  it("a username that is not a string is 400 VALIDATION_ERROR on sign-up and update-user", async () => {
    const cookie = cookieOf(seller.client);
    const update = await send("POST", "/api/auth/update-user", '{"username":2147483648}', cookie);
    expect(update.status, update.text).toBe(400);
    expect(update.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: "[body.username] Invalid input: expected string" });
    const email = uniqueEmail("numeric");
    const signUp = await send("POST", "/api/auth/sign-up/email", JSON.stringify({ email, password: "correct-horse-battery", name: "N", username: 12345 }));
    expect(signUp.status, signUp.text).toBe(400);
    expect(await db().select().from(user).where(eq(user.email, email))).toEqual([]);
  });

  it("organization/update with nothing to change answers the organization unchanged and records no event", async () => {
    const before = (await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, seller.organizationId)))[0]!.n;
    const res = await seller.client.post<{ id: string; name: string; slug: string }>("/api/auth/organization/update", { data: {}, organizationId: seller.organizationId });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: seller.organizationId, slug: seller.slug });
    expect((await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, seller.organizationId)))[0]!.n).toBe(before);
    // a member without the update permission is still refused
    const stranger = await createSeller(server, "stranger");
    const refused = await stranger.client.post("/api/auth/organization/update", { data: {}, organizationId: seller.organizationId });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });

  it("a page limit or offset that is not a whole number ≥ 0 is 400 VALIDATION_ERROR", async () => {
    for (const q of ["limit=1e309", "limit=-1", "limit=1.5", "offset=-5", "offset=1e309"]) {
      const res = await seller.client.get<Record<string, unknown>>(`/api/auth/organization/list-members?${q}`);
      expect(res.status, `${q}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid query parameters", code: "VALIDATION_ERROR" });
    }
    expect((await seller.client.get("/api/auth/organization/list-members?limit=5&offset=0")).status).toBe(200);
  });

  it("has-permission with both permission and permissions is 400 VALIDATION_ERROR", async () => {
    for (const body of [
      { permission: { member: ["create"] }, permissions: { member: ["create"] } },
      { permission: {}, permissions: { member: ["create"] }, organizationId: seller.organizationId },
    ]) {
      const res = await seller.client.post("/api/auth/organization/has-permission", body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
    }
  });

  it("a ban whose expiry is no date is 400 VALIDATION_ERROR and bans no one", async () => {
    await db().update(user).set({ role: "admin" }).where(eq(user.id, seller.user.id));
    const target = new Client(server.url);
    const { user: victim } = await target.signUp(uniqueEmail("victim"));
    for (const banExpiresIn of [-1e308, 1e308, 1e15]) {
      const res = await seller.client.post("/api/auth/admin/ban-user", { userId: victim.id, banExpiresIn });
      expect(res.status, `${banExpiresIn}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ message: "Invalid body parameters", code: "VALIDATION_ERROR" });
    }
    const [row] = await db().select({ banned: user.banned }).from(user).where(eq(user.id, victim.id));
    expect(row?.banned ?? false).toBe(false);
    const ok = await seller.client.post("/api/auth/admin/ban-user", { userId: victim.id, banExpiresIn: 60 });
    expect(ok.status, ok.text).toBe(200);
  });

  it("the server answers after all of it", async () => {
    await healthy();
    const res: RawResponse = await rawRequest(server.url, key, "GET", "/v1/products/");
    expect(res.status).toBe(200);
  });
});
