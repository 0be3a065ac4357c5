// /api/openapi.json is generated from the routes: every registered /v1 route is an operation with its request
// (path parameters, query, body) and response schemas, Polar's operationId where @polar-sh/sdk has the
// operation, and its kind of caller as a security requirement.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAMED_SUMMARIES } from "../../server/openapi/openapi-summaries.js";
import { startServer, type TestServer } from "../helpers/server.js";

type Schema = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  security?: Array<Record<string, string[]>>;
}
interface Doc {
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
}

/** Polar's operationId of each "METHOD /v1/path/{id}" the pinned SDK calls (its funcs/*.js say so). */
function polarOperationIds(): Map<string, string> {
  const require = createRequire(import.meta.url);
  const funcs = path.join(path.dirname(require.resolve("@polar-sh/sdk/package.json")), "dist/esm/funcs");
  const out = new Map<string, string>();
  for (const file of readdirSync(funcs).filter((f) => f.endsWith(".js"))) {
    const src = readFileSync(path.join(funcs, file), "utf8");
    const p = /pathToFunc\("([^"]+)"/.exec(src)?.[1];
    const op = /operationID: "([^"]+)"/.exec(src)?.[1];
    const method = /method: "([A-Z]+)"/.exec(src)?.[1];
    if (p && op && method) out.set(`${method} ${p}`, op);
  }
  return out;
}

/** Answers 200 with no body (S3's part upload: the ETag header is the answer). */
const EMPTY_200 = new Set(["PUT /v1/files/:id/parts/:number"]);

let server: TestServer;
let doc: Doc;

beforeAll(async () => {
  server = await startServer();
  const res = await fetch(`${server.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});
afterAll(async () => server?.close());

const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, "{$1}");

describe("/api/openapi.json", () => {
  it("has every registered /v1 route, with request and response schemas", () => {
    expect(server.v1Routes.length).toBeGreaterThan(150);
    const missing: string[] = [];
    for (const route of server.v1Routes) {
      const op = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      const where = `${route.method} ${route.url}`;
      if (!op) {
        missing.push(where);
        continue;
      }
      // path parameters declared, one per :name
      for (const name of [...route.url.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1])) {
        expect(op.parameters?.some((p) => p.in === "path" && p.name === name), `${where}: path parameter ${name}`).toBe(true);
      }
      // a body for writes that take one: declared with a schema
      if (op.requestBody) expect(op.requestBody.content?.["application/json"]?.schema, `${where}: body schema`).toBeDefined();
      const statuses = Object.keys(op.responses ?? {});
      const success = statuses.filter((s) => /^[23]/.test(s));
      expect(success.length, `${where}: a success response`).toBeGreaterThan(0);
      for (const s of success.filter((x) => x === "200" || x === "201")) {
        if (EMPTY_200.has(where)) continue;
        const r = op.responses?.[s];
        expect(Object.values(r?.content ?? {})[0]?.schema, `${where}: ${s} schema`).toBeDefined();
      }
      expect(op.security, `${where}: security`).toBeDefined();
      expect(op.operationId, `${where}: operationId`).toBeTruthy();
    }
    expect(missing).toEqual([]);
  });

  it("gives every /v1 operation a summary of its own, in words, and every group a description (the reference's sidebar and headings)", () => {
    const unnamed: string[] = [];
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      if (!p.startsWith("/v1/")) continue;
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${p}`;
        if (!op.summary) unnamed.push(`${where} (${op.operationId})`);
        // outside the customer portal (its own tag), no two operations read alike
        else if (!p.startsWith("/v1/customer-portal/")) {
          const other = seen.get(op.summary);
          if (other) repeated.push(`${where} and ${other}: ${op.summary}`);
          seen.set(op.summary, where);
        }
      }
    }
    expect(unnamed).toEqual([]);
    expect(repeated).toEqual([]);
    // every name given is an operation's (none left behind by a route renamed or removed)
    const ids = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId)));
    expect(Object.keys(NAMED_SUMMARIES).filter((id) => !ids.has(id))).toEqual([]);
    // and every group, a description
    const described = new Set((doc.tags ?? []).filter((t) => t.description).map((t) => t.name));
    const used = new Set(Object.entries(doc.paths).filter(([p]) => p.startsWith("/v1/")).flatMap(([, ops]) => Object.values(ops).flatMap((op) => op.tags ?? [])));
    expect([...used].filter((t) => !described.has(t))).toEqual([]);
    const summary = (p: string, m: string) => doc.paths[p]?.[m]?.summary;
    expect(summary("/v1/products/", "get")).toBe("List products");
    expect(summary("/v1/products/{id}", "get")).toBe("Get a product");
    expect(summary("/v1/organizations/", "post")).toBe("Create an organization");
    expect(summary("/v1/checkout-links/{id}", "delete")).toBe("Delete a checkout link");
    expect(summary("/v1/benefits/{id}/grants", "get")).toBe("List a benefit's grants");
    expect(summary("/v1/meters/{id}/quantities", "get")).toBe("Get a meter's quantities");
  });

  it("takes Polar's operationIds where @polar-sh/sdk has the operation", () => {
    const polar = polarOperationIds();
    const mismatched: string[] = [];
    let matched = 0;
    for (const route of server.v1Routes) {
      const key = `${route.method} ${openApiPath(route.url)}`;
      const expected = polar.get(key);
      if (!expected) continue;
      matched++;
      const got = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()]?.operationId;
      if (got !== expected) mismatched.push(`${key}: ${got} (Polar: ${expected})`);
    }
    expect(mismatched).toEqual([]);
    expect(matched).toBeGreaterThan(100);
  });

  it("resolves every response model it names", () => {
    const refs = JSON.stringify(doc.paths).matchAll(/"#\/components\/schemas\/([^"]+)"/g);
    for (const [, name] of refs) expect(doc.components.schemas[name ?? ""], name).toBeDefined();
    expect(doc.components.schemas.Product).toMatchObject({ type: "object" });
    expect(doc.components.schemas.HTTPValidationError).toMatchObject({ type: "object" });
  });

  it("makes every component schema real: an object with properties, a type, or a union of references", () => {
    const empty = Object.entries(doc.components.schemas)
      .filter(([, s]) => !(s.properties || s.type || s.$ref || s.oneOf || s.anyOf || s.allOf))
      .map(([name]) => name);
    expect(empty).toEqual([]);
    // the SDK's smart unions (Discount, Event, Payment, …), each its members by reference, each member real
    const members = (name: string) => ((doc.components.schemas[name]?.anyOf ?? []) as Array<{ $ref: string }>).map((r) => r.$ref.replace("#/components/schemas/", ""));
    expect(members("Discount")).toEqual(["DiscountFixedRepeatDuration", "DiscountFixedOnceForeverDuration", "DiscountPercentageRepeatDuration", "DiscountPercentageOnceForeverDuration"]);
    expect(members("Event")).toEqual(["UserEvent", "SystemEvent"]);
    expect(members("Payment")).toEqual(["CardPayment", "GenericPayment"]);
    expect(members("CustomerPaymentMethod")).toEqual(["PaymentMethodCard", "PaymentMethodGeneric"]);
    expect(members("CustomerBenefitGrant")).toHaveLength(7);
    expect(members("EventsListResponseEventsList")).toEqual(["ListResourceEvent", "ListResourceWithCursorPaginationEvent"]);
    expect(doc.components.schemas.DiscountFixedRepeatDuration).toMatchObject({ type: "object", properties: { duration: expect.anything(), amount: expect.anything() } });
    expect(doc.components.schemas.CardPayment).toMatchObject({ type: "object", properties: { amount: expect.anything(), status: expect.anything() } });
    // and every list of one refers to it, not to an untyped item
    const items = (list: string) => (doc.components.schemas[list]?.properties as { items?: { items?: Schema } } | undefined)?.items?.items;
    expect(items("ListResourceDiscount")).toEqual({ $ref: "#/components/schemas/Discount" });
    expect(items("ListResourcePayment")).toEqual({ $ref: "#/components/schemas/Payment" });
    expect(items("ListResourceCustomerBenefitGrant")).toEqual({ $ref: "#/components/schemas/CustomerBenefitGrant" });
    expect(items("ListResourceCustomerPaymentMethod")).toEqual({ $ref: "#/components/schemas/CustomerPaymentMethod" });
    expect(items("ListResourceEvent")).toEqual({ $ref: "#/components/schemas/Event" });
    // every reference anywhere in the document resolves
    for (const [, name] of JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas[name ?? ""], name).toBeDefined();
  });

  it("shows each route's kind of caller as its security requirement", () => {
    const op = (p: string, m: string) => doc.paths[p]?.[m];
    expect(op("/v1/products/", "get")?.security).toEqual([{ organization_token: ["products:read"] }]);
    expect(op("/v1/customer-portal/customers/me", "get")?.security).toEqual([{ customer_session: [] }]);
    expect(op("/v1/checkouts/client/{client_secret}", "get")?.security).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(["organization_token", "customer_session"]));
  });

  it("documents the query and the body from the route's zod schemas", () => {
    const list = op("/v1/products/", "get");
    const names = (list?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["organization_id", "is_archived", "page", "limit", "sorting"]));
    const body = op("/v1/products/", "post")?.requestBody?.content?.["application/json"]?.schema;
    expect(JSON.stringify(body)).toContain("prices");
    function op(p: string, m: string) {
      return doc.paths[p]?.[m];
    }
  });
});
