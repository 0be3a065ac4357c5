// The input guard (server/http/input-guard.ts) and the better-auth mount's checks, on the findings of the
// hostile-input review (deep JSON, large bodies): JSON nested past 32 levels is refused before anything walks it,
// on /v1 (Polar's 422), /api/auth (400 VALIDATION_ERROR) alike; a 422 never echoes an unbounded input; a NUL
// or an unpaired surrogate in any body value, query value or path parameter is refused in the family's shape
// and nothing is stored. The better-auth inputs that were 500s: hostile-input-auth.test.ts.
import { randomUUID } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customer, event, meter, outbox, product } from "../../server/db/schema/index.js";
import { LARGE_BODY_LIMIT, SMALL_BODY_LIMIT, V1_BODY_LIMIT } from "../../server/http/input-guard.js";
import { SLICED_PARSE_THRESHOLD } from "../../server/http/json-sliced.js";
import { rawRequest, issues } from "../helpers/api.js";
import { uniqueBuyer } from "../helpers/checkout.js";
import { uniqueEmail } from "../helpers/client.js";
import { hostileInputFixture } from "./hostile-input-fixtures.js";

const fx = hostileInputFixture();

const LONE = "\ud800";
const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectPolar422(res: { status: number; json: Record<string, unknown>; text: string }, loc: unknown[], type: string, what: string): void {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(422);
  const [issue] = issues(res.json);
  expect(issue, what).toMatchObject({ loc, type });
  expect(typeof issue?.msg, what).toBe("string");
}

describe("JSON nesting", () => {
  it("/v1 refuses a body nested deeper than 32 levels with Polar's 422 before validating it, public routes included", async () => {
    for (const [path, headers] of [
      ["/v1/customer-portal/license-keys/validate", {}],
      [`/v1/checkouts/client/${randomUUID()}/confirm`, {}],
      ["/v1/products/", bearer(fx.key)],
    ] as const) {
      for (const body of [deep(33), deep(6000), deep(40_000), deepObject(33), `{"name":${deep(200)}}`, "[".repeat(500_000)]) {
        const res = await fx.send("POST", path, body, headers);
        if (body.length > SMALL_BODY_LIMIT && path !== "/v1/products/") {
          expect(res.status, "a small-body route (no login): too large before too deep").toBe(413);
          continue;
        }
        expectPolar422(res, ["body"], "json_invalid", `${path} ${body.slice(0, 20)}…(${body.length})`);
        expect(res.text.length, "the 422 echoes nothing of the body").toBeLessThan(300);
      }
    }
    await fx.healthy();
  });

  it("accepts 32 levels, and brackets inside strings do not count", async () => {
    // validated as usual: the 422 names the fields, not the nesting
    for (const body of [deep(32), deepObject(31), JSON.stringify({ key: "[".repeat(5000), label: "{\"[".repeat(100) })]) {
      const res = await fx.send("POST", "/v1/customer-portal/license-keys/validate", body);
      expect(res.status, body.slice(0, 40)).toBe(422);
      expect(issues(res.json).some((i) => i.type === "json_invalid"), res.text.slice(0, 200)).toBe(false);
    }
    // an escaped quote does not end a string: the brackets after it are still text
    const escaped = `{"key":"\\"${"[".repeat(100)}","organization_id":"${fx.seller.organizationId}"}`;
    const res = await fx.send("POST", "/v1/customer-portal/license-keys/validate", escaped);
    expect(res.status, res.text).toBe(404);
  });

  it("/api/auth refuses it with 400 VALIDATION_ERROR (request-password-reset, forget-password, sign-in)", async () => {
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password", "/api/auth/sign-in/email"]) {
      for (const body of [deep(33), deep(6000), `{"email":${deepObject(40)}}`]) {
        const res = await fx.send("POST", path, body);
        expect(res.status, `${path}: ${res.text}`).toBe(400);
        expect(res.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: "[body] JSON nested deeper than 32 levels" });
      }
    }
    await fx.healthy();
  });

  it("refuses more than 100,000 values or an object of more than 1,000 keys, and takes a full ingest batch", async () => {
    const manyValues = `{"key":[${"0,".repeat(100_000)}0]}`;
    const manyKeys = `{${Array.from({ length: 1001 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    expectPolar422(await fx.send("POST", "/v1/products/", manyValues, bearer(fx.key)), ["body"], "json_invalid", "JSON holding more than 100000 values");
    // 100,000 values take more than the small-body routes' limit: refused as too large before any scan
    expect((await fx.send("POST", "/v1/customer-portal/license-keys/validate", manyValues)).status).toBe(413);
    expect((await fx.send("POST", "/api/auth/sign-in/email", manyValues)).status).toBe(413);
    const msg = "JSON object with more than 1000 keys";
    expectPolar422(await fx.send("POST", "/v1/customer-portal/license-keys/validate", manyKeys), ["body"], "json_invalid", msg);
    const auth = await fx.send("POST", "/api/auth/sign-in/email", manyKeys);
    expect(auth.status).toBe(400);
    expect(auth.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] ${msg}` });
    // the largest batch /v1/events/ingest takes, each event with the most metadata keys, is well within the bounds
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const events = Array.from({ length: 1000 }, (_, i) => ({ name: "bounds", external_customer_id: `c${i % 10}`, metadata }));
    const batch = await rawRequest(fx.server.url, fx.key, "POST", "/v1/events/ingest", { events });
    expect(batch.status, JSON.stringify(batch.body).slice(0, 300)).toBe(200);
    expect(batch.body).toMatchObject({ inserted: 1000 });
  });

  it("refuses more than 1,000 distinct key names in one body (objects with distinct keys made JSON.parse dear)", async () => {
    const distinct = (n: number) => `{"key":[${Array.from({ length: n }, (_, i) => `{"a${i}":1,"b${i}":2}`).join(",")}]}`;
    const msg = "JSON holding more than 1000 distinct key names";
    expectPolar422(await fx.send("POST", "/v1/products/", distinct(500), bearer(fx.key)), ["body"], "json_invalid", msg);
    expectPolar422(await fx.send("POST", "/v1/customer-portal/license-keys/validate", distinct(500)), ["body"], "json_invalid", msg);
    const auth = await fx.send("POST", "/api/auth/sign-in/email", distinct(500));
    expect(auth.status).toBe(400);
    expect(auth.json).toEqual({ message: "Invalid body parameters", code: "VALIDATION_ERROR", details: `[body] ${msg}` });
    // 999 names and the key: within the bound, so validated as usual
    const within = await fx.send("POST", "/v1/products/", distinct(499).replace('{"key"', '{"a_":1,"key"'), bearer(fx.key));
    expect(within.status).toBe(422);
    expect(JSON.stringify(within.json)).not.toContain("distinct key names");
    await fx.healthy();
  });

  it("routes anyone may call whose valid bodies are small answer 413 before reading a larger one, in their family's shape", async () => {
    const over = JSON.stringify({ key: "k".repeat(SMALL_BODY_LIMIT), organization_id: fx.seller.organizationId });
    for (const path of ["/v1/customer-portal/license-keys/validate", "/v1/customer-portal/license-keys/activate", "/v1/customer-portal/license-keys/deactivate"]) {
      const res = await fx.send("POST", path, over);
      expect(res.status, path).toBe(413);
      expect(res.json).toMatchObject({ error: "FST_ERR_CTP_BODY_TOO_LARGE", detail: expect.any(String) });
    }
    const auth = await fx.send("POST", "/api/auth/sign-in/email", JSON.stringify({ email: "a@example.com", password: "p".repeat(SMALL_BODY_LIMIT) }));
    expect(auth).toMatchObject({ status: 413, json: { code: "PAYLOAD_TOO_LARGE", message: `Request body is larger than ${SMALL_BODY_LIMIT / 1024} KiB` } });
    // just under the limit: read, parsed and answered as usual
    const under = JSON.stringify({ key: "k".repeat(SMALL_BODY_LIMIT - 200), organization_id: fx.seller.organizationId });
    const validated = await fx.send("POST", "/v1/customer-portal/license-keys/validate", under);
    expect(validated.status).toBe(422);
    expect(issues(validated.json).map((i) => i.loc.join("."))).toContain("body.key");
    const signIn = await fx.send("POST", "/api/auth/sign-in/email", JSON.stringify({ email: "a@example.com", password: "p".repeat(SMALL_BODY_LIMIT - 200) }));
    expect(signIn.status, signIn.text.slice(0, 200)).not.toBe(413);
    expect(signIn.status).toBeLessThan(500);
    // the seller's /v1 writes take up to V1_BODY_LIMIT
    expect((await fx.send("POST", "/v1/products/", JSON.stringify({ name: "n".repeat(SMALL_BODY_LIMIT * 2), prices: [] }), bearer(fx.key))).status).toBe(422);
    await fx.healthy();
  });

  it("a 422 echoes a small input and leaves a large one out", async () => {
    const small = await fx.send("POST", "/v1/products/", JSON.stringify({ name: "x", prices: [] }), bearer(fx.key));
    expect(issues(small.json).find((i) => i.loc.join(".") === "body.name")).toMatchObject({ input: "x" });
    const big = "y".repeat(300_000);
    const large = await fx.send("POST", "/v1/products/", JSON.stringify({ name: [big], prices: [] }), bearer(fx.key));
    expect(large.status).toBe(422);
    const issue = issues(large.json).find((i) => i.loc.join(".") === "body.name");
    expect(issue).toBeDefined();
    expect(issue).not.toHaveProperty("input");
    expect(large.text.length).toBeLessThan(2000);
    // nested 31 deep under a field of the wrong type: no echo either
    const nested = await fx.send("POST", "/v1/products/", `{"name":${deepObject(30)},"prices":[]}`, bearer(fx.key));
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
      tooLarge(await fx.send(method, path, over(SMALL_BODY_LIMIT)), SMALL_BODY_LIMIT, path);
    }
    for (const [method, path] of [
      ["POST", "/v1/products/"],
      ["POST", "/v1/customers/"],
      ["POST", "/v1/checkouts/"],
      ["PATCH", `/v1/products/${fx.fixed.id}`],
    ] as const) {
      tooLarge(await fx.send(method, path, over(V1_BODY_LIMIT), bearer(fx.key)), V1_BODY_LIMIT, path);
      // under it: read and validated as usual
      expect((await fx.send(method, path, JSON.stringify({ name: ["n".repeat(V1_BODY_LIMIT - 1000)] }), bearer(fx.key))).status, path).toBe(422);
    }
    for (const path of ["/v1/events/ingest", "/v1/files/"]) {
      tooLarge(await fx.send("POST", path, over(LARGE_BODY_LIMIT), bearer(fx.key)), LARGE_BODY_LIMIT, path);
      const under = await fx.send("POST", path, JSON.stringify({ events: "e".repeat(LARGE_BODY_LIMIT - 1000) }), bearer(fx.key));
      expect(under.status, path).toBe(422);
      expect(issues(under.json)[0]?.type).not.toBe("json_invalid");
    }
    await fx.healthy();
  });

  it("a large ingest batch is parsed and validated in slices with the same answers: stored, or every bad event named", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i % 2 ? i : `value ${i} ${"x".repeat(10)}`]));
    const events = Array.from({ length: 1000 }, (_, i) => ({ name: "sliced", external_customer_id: `c${i % 10}`, external_id: `sliced-${randomUUID()}`, metadata }));
    const body = JSON.stringify({ events });
    expect(body.length).toBeGreaterThan(SLICED_PARSE_THRESHOLD * 4);
    const ok = await fx.send("POST", "/v1/events/ingest", body, bearer(fx.key));
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expect(ok.json).toEqual({ inserted: 1000, duplicates: 0 });
    const stored = await fx.db().select({ n: count() }).from(event).where(eq(event.name, "sliced"));
    expect(stored[0]?.n).toBe(1000);

    // bad events far apart (different slices): every one named with its place, nothing stored
    const bad = events.map((e, i) => ({ ...e, name: "sliced-bad", external_id: `bad-${i}` }));
    bad[3] = { ...bad[3]!, name: "" };
    bad[777] = { ...bad[777]!, metadata: { ...metadata, key1: { nested: true } } as never };
    bad[999] = { ...bad[999]!, external_customer_id: undefined as never };
    const refused = await fx.send("POST", "/v1/events/ingest", JSON.stringify({ events: bad }), bearer(fx.key));
    expect(refused.status).toBe(422);
    expect(issues(refused.json).map((i) => i.loc.join("."))).toEqual(["body.events.3.name", "body.events.777.metadata.key1", "body.events.999.customer_id"]);
    const none = await fx.db().select({ n: count() }).from(event).where(eq(event.name, "sliced-bad"));
    expect(none[0]?.n).toBe(0);
  });

  it("large hostile bodies get the documented errors on the sliced path", async () => {
    const filler = Array.from({ length: 2000 }, (_, i) => ({ name: "x", external_customer_id: `c${i}`, metadata: { note: "m".repeat(40) } }));
    const large = (extra: string) => `{"events":[${filler.map((e) => JSON.stringify(e)).join(",")},${extra}]}`;
    expect(large("1").length).toBeGreaterThan(SLICED_PARSE_THRESHOLD);
    const ingest = (body: string) => fx.send("POST", "/v1/events/ingest", body, bearer(fx.key));
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
    await fx.healthy();
  });
});

describe("characters PostgreSQL cannot store", () => {
  it("an unpaired surrogate in any /v1 body value is a 422 at its place, and nothing is stored", async () => {
    const checkout = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const buyer = await fx.seller.sdk.customers.create({ email: uniqueBuyer("lone") });
    const session = await rawRequest(fx.server.url, fx.key, "POST", "/v1/customer-sessions/", { customer_id: buyer.id });
    expect(session.status).toBe(201);
    const portal = bearer(String(session.body.token));
    const before = {
      products: (await fx.db().select({ n: count() }).from(product))[0]!.n,
      customers: (await fx.db().select({ n: count() }).from(customer))[0]!.n,
      meters: (await fx.db().select({ n: count() }).from(meter))[0]!.n,
      events: (await fx.db().select({ n: count() }).from(event))[0]!.n,
      outbox: (await fx.db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, fx.seller.organizationId)))[0]!.n,
    };
    const cases: Array<[string, string, unknown, Record<string, string>, unknown[]]> = [
      ["POST", "/v1/products/", { name: "Lone", prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }], metadata: { note: LONE } }, bearer(fx.key), ["body", "metadata", "note"]],
      ["POST", "/v1/customers/", { email: uniqueBuyer("lone2"), metadata: { note: `a${LONE}b` } }, bearer(fx.key), ["body", "metadata", "note"]],
      ["POST", "/v1/checkouts/", { products: [fx.fixed.id], metadata: { [`k${LONE}`]: "v" } }, bearer(fx.key), ["body", "metadata", `k${LONE}`]],
      [
        "POST", "/v1/meters/",
        { name: "Lone meter", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "\udc00" }] }, aggregation: { func: "count" } },
        bearer(fx.key), ["body", "filter", "clauses", 0, "value"],
      ],
      ["POST", "/v1/events/ingest", { events: [{ name: "lone", external_customer_id: "c1", metadata: { k: LONE } }] }, bearer(fx.key), ["body", "events", 0, "metadata", "k"]],
      ["PATCH", `/v1/organizations/${fx.seller.organizationId}`, { details: { about: LONE } }, bearer(fx.key), ["body", "details", "about"]],
      ["PATCH", `/v1/checkouts/client/${checkout.clientSecret}`, { customer_billing_address: { country: "US", line1: LONE } }, {}, ["body", "customer_billing_address", "line1"]],
      ["POST", "/v1/customer-portal/license-keys/activate", { key: "TILL-NONE", organization_id: fx.seller.organizationId, label: "l", meta: { k: LONE } }, {}, ["body", "meta", "k"]],
      ["PATCH", "/v1/customer-portal/customers/me", { billing_address: { country: "US", line1: LONE } }, portal, ["body", "billing_address", "line1"]],
    ];
    for (const [method, path, body, headers, loc] of cases) {
      expectPolar422(await fx.send(method, path, JSON.stringify(body), headers), loc, "string_unicode", `${method} ${path}`);
    }
    // a NUL is refused the same way, anywhere in the body
    expectPolar422(await fx.send("POST", "/v1/customers/", JSON.stringify({ email: uniqueBuyer(), metadata: { a: "x\u0000" } }), bearer(fx.key)), ["body", "metadata", "a"], "string_nul", "NUL");
    expect({
      products: (await fx.db().select({ n: count() }).from(product))[0]!.n,
      customers: (await fx.db().select({ n: count() }).from(customer))[0]!.n,
      meters: (await fx.db().select({ n: count() }).from(meter))[0]!.n,
      events: (await fx.db().select({ n: count() }).from(event))[0]!.n,
      outbox: (await fx.db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, fx.seller.organizationId)))[0]!.n,
    }).toEqual(before);
    // a surrogate pair (any emoji, escaped or not) is text like any other
    const emoji = await rawRequest(fx.server.url, fx.key, "POST", "/v1/customers/", { email: uniqueBuyer("emoji"), metadata: { mood: "\ud83d\ude00 ok" } });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
    expect(emoji.body.metadata).toEqual({ mood: "😀 ok" });
    const escaped = await fx.send("POST", "/v1/customers/", `{"email":"${uniqueBuyer("esc")}","metadata":{"mood":"\\ud83d\\ude00"}}`, bearer(fx.key));
    expect(escaped.status, escaped.text).toBe(201);
  });

  it("a NUL or an unpaired surrogate in a path parameter or a query value is a 422, public routes included", async () => {
    for (const [method, suffix] of [["GET", ""], ["PATCH", ""], ["POST", "/confirm"], ["POST", "/test-card"], ["GET", "/stream"]] as const) {
      const res = await fx.send(method, `/v1/checkouts/client/%00${suffix}`, method === "GET" ? undefined : "{}");
      expectPolar422(res, ["path", "client_secret"], "string_nul", `${method} %00${suffix}`);
    }
    expectPolar422(await fx.send("GET", "/v1/customer-portal/organizations/a%00b"), ["path", "slug"], "string_nul", "portal slug");
    expectPolar422(await fx.send("GET", "/v1/customers/?query=a%00", undefined, bearer(fx.key)), ["query", "query"], "string_nul", "query");
    expectPolar422(await fx.send("GET", "/v1/products/?metadata%5Bk%5D=a%00", undefined, bearer(fx.key)), ["query", "metadata[k]"], "string_nul", "deepObject query");
    expectPolar422(await fx.send("GET", "/v1/products/?x%00=1", undefined, bearer(fx.key)), ["query", "x\u0000"], "string_nul", "query key");
  });

  it("/api/auth refuses an unpaired surrogate with 400 INVALID_CHARACTERS, as it does a NUL", async () => {
    const cookie = fx.cookieOf(fx.seller.client);
    for (const [path, body] of [
      ["/api/auth/organization/create", JSON.stringify({ name: "Lone", slug: `lone-${Date.now()}`, metadata: { k: LONE } })],
      ["/api/auth/update-user", JSON.stringify({ name: `x${LONE}` })],
      ["/api/auth/sign-up/email", JSON.stringify({ email: uniqueEmail("lone"), password: "correct-horse-battery", name: "\udfff" })],
    ]) {
      const res = await fx.send("POST", path!, body, cookie);
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.json).toEqual({ message: "Request contains unpaired surrogate characters", code: "INVALID_CHARACTERS" });
    }
    const form = await fx.send("POST", "/api/auth/device/code", undefined, { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBeLessThan(500);
    const formNul = await fetch(`${fx.server.url}/api/auth/device/code`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "client_id=a%00b" });
    expect(formNul.status).toBe(400);
    expect(await formNul.json()).toEqual({ message: "Request contains NUL characters", code: "INVALID_CHARACTERS" });
    const me = await fx.send("GET", "/api/auth/get-session", undefined, cookie);
    expect((me.json as { user: { name: string } }).user.name).toBe("Test User");
  });
});
