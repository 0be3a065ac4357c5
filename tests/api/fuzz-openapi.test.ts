// Property-based fuzzing of every operation of /api/openapi.json (the /api/auth endpoints better-auth documents
// and every /v1 route), with fast-check on a fixed seed and a bounded number of runs: hostile bodies (wrong
// types, 1e309 / -1e308 / 2147483648, deep nesting, NUL and unpaired surrogates, 1 MB strings, arrays for
// scalars, null and empty bodies), hostile query values and path parameters, each sent with the seller's
// credentials (an organization API key on /v1, a customer session on the portal, the session cookie on
// /api/auth) and without. The property: no answer is a 5xx, and the server answers /healthz afterwards.
// TILL_FUZZ_RUNS sets the runs per operation and mode (default 8); TILL_FUZZ_SEED the seed.
import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apikey, user } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const RUNS = Number(process.env.TILL_FUZZ_RUNS ?? 8);
const SEED = Number(process.env.TILL_FUZZ_SEED ?? 20261123);
const METHODS = ["get", "post", "patch", "put", "delete"] as const;

/**
 * Operations that end the credentials the walk runs with (the session, the key, the organization): fuzzed
 * without credentials only, so the authenticated walk keeps its access to the end (checked afterwards).
 */
const ENDS_CREDENTIALS = new Set([
  "/api/auth/sign-out",
  "/api/auth/revoke-sessions",
  "/api/auth/revoke-other-sessions",
  "/api/auth/revoke-session",
  "/api/auth/delete-user",
  "/api/auth/change-password",
  "/api/auth/delete-anonymous-user",
  "/api/auth/organization/delete",
  "/api/auth/organization/leave",
  "/api/auth/organization/remove-member",
  "/api/auth/organization/update-member-role",
  "/api/auth/api-key/delete",
  "/api/auth/api-key/update",
  "/api/auth/admin/impersonate-user",
  "/api/auth/admin/stop-impersonating",
  "/api/auth/admin/set-role",
]);

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  query: string[];
  bodyFields: string[];
}

interface Fixtures {
  ids: string[];
  key: string;
  portalToken: string;
  cookie: string;
}

/** JSON text inserted as is: numbers no JS number can hold (1e309), broken or empty documents. */
class Raw {
  constructor(readonly text: string) {}
}

function jsonText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v).map(([k, item]) => `${JSON.stringify(k)}:${jsonText(item)}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** Percent-encodes a string for a path or query; an unpaired surrogate becomes its WTF-8 bytes (not UTF-8). */
function encode(s: string): string {
  let out = "";
  for (const ch of s) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      const c = ch.charCodeAt(0);
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    }
  }
  return out;
}

const MEGA = "m".repeat(1_000_000);
const COMMON_FIELDS = [
  "name", "email", "metadata", "prices", "products", "product_id", "customer_id", "external_customer_id", "external_id",
  "amount", "price_amount", "price_currency", "amount_type", "recurring_interval", "organization_id", "discount_id", "code",
  "type", "properties", "filter", "aggregation", "events", "url", "format", "key", "label", "meta", "conditions",
  "billing_address", "customer_billing_address", "customer_email", "confirmation_token_id", "seats", "cancel_at_period_end",
  "reason", "comment", "order_id", "success_url", "is_archived", "benefits", "limit", "page", "id", "data", "settings",
];
const COMMON_QUERY = ["limit", "page", "organization_id", "query", "sorting", "id", "customer_id", "product_id", "metadata[k]", "offset"];

const hostileNumber = fc.constantFrom<unknown>(
  new Raw("1e309"), new Raw("-1e309"), new Raw("-1e308"), -1e308, 1e308, 2147483648, -2147483649, new Raw("9007199254740993"), 1.5, -1, 0, 1e21,
  new Raw("1E400"), new Raw("-0"), new Raw("123456789012345678901234567890"),
);

function hostileString(ids: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "", "\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800", "\ud83d\ude00", "null", "1e309", "-1e308",
        "2147483648", "0000-01-01T00:00:00Z", "275760-09-13T00:00:01Z", "../../etc", "%00", "' OR 1=1 --", "usd",
        "month", "x".repeat(5000),
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
    { weight: 2, arbitrary: fc.constantFrom(...ids, randomUUID(), randomUUID().toUpperCase()) },
    { weight: 1, arbitrary: fc.constant(MEGA) },
  );
}

function hostileValue(ids: string[], fields: string[]): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(hostileString(ids), hostileNumber, fc.boolean(), fc.constant(null));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.oneof(fc.constantFrom(...fields, "__proto__", "constructor"), fc.string({ unit: "binary", maxLength: 8 })), tie("value"), { maxKeys: 4 }),
    ),
  }));
  return value;
}

function body(op: Operation, ids: string[]): fc.Arbitrary<unknown> {
  const fields = op.bodyFields.length > 0 ? op.bodyFields : COMMON_FIELDS;
  const value = hostileValue(ids, fields);
  const known = fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: Math.min(6, fields.length) });
  const nested = fc.constantFrom(31, 32, 33, 6000).chain((n) =>
    fc.constantFrom(new Raw("[".repeat(n) + "]".repeat(n)), new Raw(`{"${fields[0]}":${'{"a":'.repeat(n)}1${"}".repeat(n + 1)}`)),
  );
  return fc.oneof(
    { weight: 5, arbitrary: known },
    { weight: 2, arbitrary: value },
    { weight: 1, arbitrary: nested },
    { weight: 1, arbitrary: fc.constantFrom(new Raw("null"), new Raw(""), new Raw("[]"), new Raw("{"), new Raw('"x"'), new Raw("{}"), undefined) },
  );
}

function pathParam(ids: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids, randomUUID()) },
    { weight: 3, arbitrary: fc.constantFrom("%00", "a%00b", "%ED%A0%80", "%FF", "1e309", "-1e308", "2147483648", "null", "%5B%5D", "x".repeat(101), "%F0%9F%98%80", "..%2F..", "a%20b", "%25") },
    { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map(encode) },
  );
}

function query(op: Operation, ids: string[]): fc.Arbitrary<string> {
  const keys = [...new Set([...op.query, ...COMMON_QUERY])];
  const value = fc.oneof(hostileString(ids).filter((s) => s.length < 10_000), fc.constantFrom("1e309", "-1e308", "1.5", "-1", "2147483648", "NaN", "true", ""));
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&"));
}

type Mode = "credentials" | "none";

async function send(base: string, op: Operation, mode: Mode, fx: Fixtures, url: string, payload: unknown): Promise<number> {
  const headers: Record<string, string> = { origin: base };
  if (mode === "credentials") {
    if (op.path.startsWith("/api/auth")) headers.cookie = fx.cookie;
    else headers.authorization = `Bearer ${op.path.startsWith("/v1/customer-portal/") ? fx.portalToken : fx.key}`;
  }
  let data: string | undefined;
  if (payload !== undefined && op.method !== "get") {
    headers["content-type"] = "application/json";
    data = jsonText(payload);
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20_000);
  try {
    const res = await fetch(`${base}${url}`, { method: op.method.toUpperCase(), headers, body: data, redirect: "manual", signal: abort.signal });
    // event streams stay open: the status is all that is asked
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) abort.abort();
    else await res.arrayBuffer();
    return res.status;
  } finally {
    clearTimeout(timer);
  }
}

const seedOf = (op: Operation, mode: Mode) => (SEED ^ createHash("sha256").update(`${op.method} ${op.path} ${mode}`).digest().readInt32LE(0)) | 0;

let server: TestServer;
let seller: Seller;
let fx: Fixtures;
let operations: Operation[];

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "fuzz");
  // a platform admin, so the admin endpoints get past their permission checks
  await server.database.db.update(user).set({ role: "admin" }).where(eq(user.id, seller.user.id));
  const key = await seller.createKey();
  // without the key's own limit (1,000 requests a minute), which a walk of more than 8 runs per operation passes:
  // its 429s would stand in for the handlers the walk is there to reach
  await server.database.db.update(apikey).set({ rateLimitEnabled: false }).where(eq(apikey.referenceId, seller.organizationId));
  const victim = new Client(server.url);
  const { user: other } = await victim.signUp(uniqueEmail("fuzz-victim"));
  const product = await createProduct(seller, "fixed");
  const customer = await seller.sdk.customers.create({ email: uniqueEmail("fuzz-buyer"), externalId: "fuzz-ext" });
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [product.id] });
  const session = await rawRequest(server.url, key, "POST", "/v1/customer-sessions/", { customer_id: customer.id });
  if (session.status !== 201) throw new Error(`customer session: ${session.status}`);
  fx = {
    ids: [seller.organizationId, seller.slug, other.id, product.id, product.prices[0]!.id, customer.id, "fuzz-ext", checkout.id, checkout.clientSecret, link.id, link.clientSecret],
    key,
    portalToken: String(session.body.token),
    cookie: [...seller.client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
  };
  const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => ops[m]).map((method) => ({
      method,
      path,
      query: (ops[method]!.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      bodyFields: Object.keys(ops[method]!.requestBody?.content?.["application/json"]?.schema?.properties ?? {}),
    })),
  );
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe("fuzzing every operation of /api/openapi.json", () => {
  it("lists the /api/auth and /v1 operations, the hostile-input review's rows among them", () => {
    const names = new Set(operations.map((o) => `${o.method} ${o.path}`));
    for (const op of [
      "post /api/auth/sign-up/email",
      "post /api/auth/update-user",
      "post /api/auth/organization/update",
      "get /api/auth/organization/list-members",
      "post /api/auth/organization/has-permission",
      "post /api/auth/admin/ban-user",
      "post /api/auth/request-password-reset",
      "post /api/auth/forget-password",
      "post /v1/checkouts/client/{client_secret}/confirm",
      "post /v1/customer-portal/license-keys/validate",
      "post /v1/events/ingest",
    ]) {
      expect(names, op).toContain(op);
    }
    expect(operations.length).toBeGreaterThan(150);
  });

  it("answers no hostile request with a 5xx, and still answers afterwards", async () => {
    const failures: string[] = [];
    // /v1 operations a call with the key was refused for its rate: the walk did not reach their handlers
    const limited = new Set<string>();
    for (const mode of ["credentials", "none"] as const) {
      for (const op of operations) {
        if (mode === "credentials" && ENDS_CREDENTIALS.has(op.path)) continue;
        const params = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        const request = fc.record({
          params: fc.tuple(...params.map(() => pathParam(fx.ids))),
          query: query(op, fx.ids),
          body: body(op, fx.ids),
        });
        const property = fc.asyncProperty(request, async ({ params: values, query: q, body: payload }) => {
          let i = 0;
          const path = op.path.replace(/\{[^}]+\}/g, () => values[i++] ?? "x");
          const status = await send(server.url, op, mode, fx, q ? `${path}?${q}` : path, payload);
          if (status === 429 && mode === "credentials" && op.path.startsWith("/v1/") && !op.path.startsWith("/v1/customer-portal/")) limited.add(`${op.method} ${op.path}`);
          if (status >= 500) {
            const sent = payload === undefined || op.method === "get" ? "(none)" : jsonText(payload).slice(0, 300);
            throw new Error(`${status}: ${op.method.toUpperCase()} ${path}?${q.slice(0, 200)} body ${sent}`);
          }
        });
        const out = await fc.check(property, { seed: seedOf(op, mode), numRuns: RUNS, endOnFailure: true });
        if (out.failed) failures.push(`[${mode}] ${String(out.errorInstance instanceof Error ? out.errorInstance.message : out.errorInstance)}`);
      }
    }
    expect(failures).toEqual([]);
    expect([...limited]).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // the authenticated walk kept its credentials to the end
    expect((await rawRequest(server.url, fx.key, "GET", "/v1/products/")).status).toBe(200);
    expect((await seller.client.get<{ user: unknown } | null>("/api/auth/get-session")).body?.user).toBeTruthy();
  }, 600_000);
});
