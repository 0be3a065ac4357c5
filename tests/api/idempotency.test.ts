// Idempotency-Key on /v1 writes and POST /api/auth/checkout, through the real server: a repeat replays the first
// answer (Idempotent-Replayed: true) and writes nothing; another request under the same key is refused; parallel
// repeats make one write, also across two server instances on one database; an expired key runs again and the
// cleanup removes it; keys are per organization (or customer, checkout, user, address); the stored answer is
// encrypted; and the SDK sends the header through its per-call options.
import { createHash, randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import Fastify, { type FastifyInstance } from "fastify";
import { Polar } from "@polar-sh/sdk";
import { NotOpenCheckout } from "@polar-sh/sdk/models/errors/notopencheckout.js";
import { Polar as Polar049 } from "polar-sdk-049";
import { NotOpenCheckout as NotOpenCheckout049 } from "polar-sdk-049/models/errors/notopencheckout.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installIdempotency } from "../../server/http/idempotency.js";
import { checkout as checkoutTable, customer as customerTable, customerSession, idempotencyKey } from "../../server/db/schema/index.js";
import { openDatabase, type Database } from "../../server/db/client.js";
import { cleanupOnce } from "../../server/jobs/cleanup.js";
import { createProduct, publicRequest, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { freshDatabase } from "../helpers/db.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let second: TestServer;
let shared: Database & { url: string | undefined };
let secondHandle: Database | undefined;
let seller: Seller;
let other: Seller;

const db = () => server.database.db;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
}

async function send(base: string, method: string, path: string, opts: { token?: string; key?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.key !== undefined) headers["idempotency-key"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const v1 = (method: string, path: string, opts: { token?: string; key?: string; body?: unknown } = {}, base = server.url) =>
  send(base, method, path, { token: seller.token, ...opts });

const productBody = (name: string) => ({ name, prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }] });

async function productsNamed(name: string, s: Seller = seller): Promise<number> {
  const res = await send(server.url, "GET", `/v1/products/?query=${encodeURIComponent(name)}&limit=100`, { token: s.token });
  return (res.body?.items as Array<{ name: string }>).filter((p) => p.name === name).length;
}

beforeAll(async () => {
  // two instances on one database: on PostgreSQL each with its own connection pool, as two replicas
  shared = await freshDatabase();
  server = await startServer({}, { database: shared });
  secondHandle = shared.url ? await openDatabase({ url: shared.url, max: 5 }) : undefined;
  second = await startServer({}, { database: secondHandle ?? shared });
  seller = await createSeller(server, "idem");
  other = await createSeller(server, "idem-other");
});
afterAll(async () => {
  await second?.close();
  await server?.close();
  await secondHandle?.close();
  await shared?.close();
});

describe("Idempotency-Key on /v1 writes", () => {
  it("a repeat replays the first answer (status, body, Idempotent-Replayed) and writes nothing", async () => {
    const key = randomUUID();
    const name = `Replayed ${key}`;
    const first = await v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await productsNamed(name)).toBe(1);
  });

  it("without a key every request is its own write; a key on a GET is ignored", async () => {
    const name = `Unkeyed ${randomUUID()}`;
    await v1("POST", "/v1/products/", { body: productBody(name) });
    await v1("POST", "/v1/products/", { body: productBody(name) });
    expect(await productsNamed(name)).toBe(2);
    const list = await v1("GET", "/v1/products/?limit=1", { key: randomUUID() });
    expect(list.status).toBe(200);
    expect(list.headers.get("idempotent-replayed")).toBeNull();
  });

  it("the same key with another body or path is a 422 at header.Idempotency-Key and changes nothing", async () => {
    const key = randomUUID();
    const name = `Mismatch ${key}`;
    expect((await v1("POST", "/v1/products/", { key, body: productBody(name) })).status).toBe(201);
    const otherBody = await v1("POST", "/v1/products/", { key, body: productBody(`${name} 2`) });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      detail: [{ loc: ["header", "Idempotency-Key"], msg: expect.stringMatching(/different request/), type: "idempotency_key_reused" }],
    });
    const otherPath = await v1("POST", "/v1/benefits/", { key, body: productBody(name) });
    expect(otherPath.status).toBe(422);
    expect(await productsNamed(`${name} 2`)).toBe(0);
  });

  it("an over-long, empty or non-ASCII key is a 422 before anything is written", async () => {
    const name = `Bad key ${randomUUID()}`;
    for (const key of ["k".repeat(256), "", "   "]) {
      const res = await v1("POST", "/v1/products/", { key, body: productBody(name) });
      expect(res.status, JSON.stringify(key)).toBe(422);
      expect(res.body).toMatchObject({ detail: [{ loc: ["header", "Idempotency-Key"], type: "idempotency_key_invalid" }] });
    }
    expect((await v1("POST", "/v1/products/", { key: "k".repeat(255), body: productBody(name) })).status).toBe(201);
    expect(await productsNamed(name)).toBe(1);
  });

  it("keys are per organization: another organization's same key is its own request", async () => {
    const key = randomUUID();
    const name = `Tenant ${key}`;
    const mine = await v1("POST", "/v1/products/", { key, body: productBody(name) });
    const theirs = await send(server.url, "POST", "/v1/products/", { token: other.token, key, body: productBody(name) });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body?.id).not.toBe(mine.body?.id);
    expect(await productsNamed(name, other)).toBe(1);
    // an API key of the organization shares its keys with the member's session
    const apiKey = await seller.createKey();
    const viaKey = await send(server.url, "POST", "/v1/products/", { token: apiKey, key, body: productBody(name) });
    expect(viaKey.headers.get("idempotent-replayed")).toBe("true");
    expect(viaKey.body?.id).toBe(mine.body?.id);
  });

  it("parallel requests with one key make one write: the others wait and get its answer", async () => {
    const key = randomUUID();
    const name = `Parallel ${key}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => v1("POST", "/v1/products/", { key, body: productBody(name) })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body?.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(4);
    expect(await productsNamed(name)).toBe(1);
  });

  it("holds across two server instances on one database, sequential and parallel", async () => {
    const key = randomUUID();
    const name = `Replicas ${key}`;
    const onA = await v1("POST", "/v1/products/", { key, body: productBody(name) });
    const onB = await v1("POST", "/v1/products/", { key, body: productBody(name) }, second.url);
    expect(onB.headers.get("idempotent-replayed")).toBe("true");
    expect(onB.body).toEqual(onA.body);

    const racing = randomUUID();
    const raced = `Replicas race ${racing}`;
    const both = await Promise.all([
      v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }),
      v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }, second.url),
      v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }, second.url),
    ]);
    expect(new Set(both.map((a) => a.body?.id)).size).toBe(1);
    expect(await productsNamed(raced)).toBe(1);
  });

  it("a key is kept 24 hours: once expired the request runs again, and the cleanup deletes the row", async () => {
    const key = randomUUID();
    const name = `Expiry ${key}`;
    await v1("POST", "/v1/products/", { key, body: productBody(name) });
    const scope = `organization:${seller.organizationId}`;
    const rows = () => db().select().from(idempotencyKey).where(eq(idempotencyKey.scope, scope));
    const keyHash = createHash("sha256").update(key).digest("hex");
    const [row] = (await rows()).filter((r) => r.keyHash === keyHash);
    expect(row).toMatchObject({ route: "/v1/products/", method: "POST", status: "done", responseStatus: 201 });
    expect(row).toBeDefined();
    const ttl = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(ttl).toBe(24 * 60 * 60 * 1000);
    await db().update(idempotencyKey).set({ expiresAt: sql`now() - interval '1 second'` }).where(and(eq(idempotencyKey.scope, scope), eq(idempotencyKey.keyHash, keyHash)));
    const rerun = await v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(rerun.status).toBe(201);
    expect(rerun.headers.get("idempotent-replayed")).toBeNull();
    expect(await productsNamed(name)).toBe(2);

    await db().update(idempotencyKey).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(idempotencyKey.scope, scope));
    const removed = await cleanupOnce(db(), new Date(0));
    expect(removed.idempotencyKeys).toBeGreaterThan(0);
    expect(await rows()).toHaveLength(0);
  });

  it("stores neither the key nor the answer in clear, and only the route's pattern", async () => {
    const key = `visible-${randomUUID()}`;
    const name = `Sealed ${key}`;
    await v1("POST", "/v1/products/", { key, body: productBody(name) });
    const dump = JSON.stringify(await db().select().from(idempotencyKey));
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(name);
  });

  it("the SDK sends the header through its per-call options", async () => {
    const key = randomUUID();
    const name = `SDK ${key}`;
    const body = { name, prices: [{ amountType: "fixed" as const, priceAmount: 900 }] };
    const a = await seller.sdk.products.create(body, { headers: { "Idempotency-Key": key } });
    const b = await seller.sdk.products.create(body, { headers: { "Idempotency-Key": key } });
    expect(b.id).toBe(a.id);
    expect(await productsNamed(name)).toBe(1);
  });
});

describe("/api/openapi.json", () => {
  it("declares the Idempotency-Key header on every /v1 write and on POST /api/auth/checkout, and nowhere else", async () => {
    type Parameter = { name: string; in: string; required?: boolean; schema?: { maxLength?: number } };
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
    const declared = (p: string, method: string) => (doc.paths[p]?.[method]?.parameters ?? []).filter((x) => x.name === "Idempotency-Key");
    let writes = 0;
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const takes = (p.startsWith("/v1/") && ["post", "patch", "delete"].includes(method)) || (p === "/api/auth/checkout" && method === "post");
        expect(declared(p, method), `${method} ${p}`).toHaveLength(takes ? 1 : 0);
        if (takes) {
          writes++;
          expect(declared(p, method)[0]).toMatchObject({ in: "header", required: false, schema: { type: "string", maxLength: 255 } });
        }
      }
    }
    expect(declared("/api/auth/checkout", "post")).toHaveLength(1);
    expect(declared("/v1/products/", "post")).toHaveLength(1);
    expect(declared("/v1/products/{id}", "patch")).toHaveLength(1);
    expect(declared("/v1/subscriptions/{id}/renew", "post")).toHaveLength(1);
    expect(writes).toBeGreaterThan(40);
  });
});

describe("public writes: the credential in the path or the session is the scope", () => {
  it("a confirm retried with its key replays the confirmed checkout, session token included; the stored answer is sealed", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const token = await tokenize(server, checkout.clientSecret);
    const body = { customer_email: uniqueBuyer("idem"), customer_name: "Ada", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    const key = randomUUID();
    const path = `/v1/checkouts/client/${checkout.clientSecret}/confirm`;
    const first = await send(server.url, "POST", path, { key, body });
    expect(first.status).toBe(200);
    const sessionToken = first.body?.customer_session_token as string;
    expect(sessionToken).toMatch(/^till_cst_/);
    const again = await send(second.url, "POST", path, { key, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const orders = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    expect(orders).toHaveLength(1);
    const dump = JSON.stringify(await db().select().from(idempotencyKey));
    expect(dump).not.toContain(sessionToken);
    expect(dump).not.toContain(checkout.clientSecret);
    expect(dump).toContain("/v1/checkouts/client/:client_secret/confirm");
  });

  it("another checkout's client secret is another scope", async () => {
    const product = await createProduct(seller, "fixed");
    const a = await seller.sdk.checkouts.create({ products: [product.id] });
    const b = await seller.sdk.checkouts.create({ products: [product.id] });
    const key = randomUUID();
    const patch = { customer_name: "Same Body" };
    expect((await send(server.url, "PATCH", `/v1/checkouts/client/${a.clientSecret}`, { key, body: patch })).status).toBe(200);
    const onB = await send(server.url, "PATCH", `/v1/checkouts/client/${b.clientSecret}`, { key, body: patch });
    expect(onB.status).toBe(200);
    expect(onB.headers.get("idempotent-replayed")).toBeNull();
    expect(onB.body?.id).toBe(b.id);
  });

  it("customer portal writes are keyed per customer", async () => {
    const product = await createProduct(seller, "monthly");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await publicRequest(server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("portal-idem"),
      customer_name: "Ada",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(server, checkout.clientSecret),
    });
    const portalToken = confirmed.body.customer_session_token as string;
    const key = randomUUID();
    const first = await send(server.url, "PATCH", "/v1/customer-portal/customers/me", { token: portalToken, key, body: { billing_name: "Ada Corp" } });
    expect(first.status).toBe(200);
    const again = await send(server.url, "PATCH", "/v1/customer-portal/customers/me", { token: portalToken, key, body: { billing_name: "Ada Corp" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const [row] = await db().select().from(idempotencyKey).where(eq(idempotencyKey.route, "/v1/customer-portal/customers/me"));
    expect(row?.scope).toMatch(/^customer:[0-9a-f-]{36}$/);
  });
});

describe("POST /api/auth/checkout", () => {
  it("replays the checkout it opened for the same key; another body is 422, a bad key 400 VALIDATION_ERROR", async () => {
    const product = await createProduct(seller, "fixed");
    const shopper = new Client(server.url);
    const { user } = await shopper.signUp(uniqueEmail("idem-shopper"));
    const key = randomUUID();
    const first = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(first.status).toBe(200);
    const again = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.url).toBe(first.body.url);
    const [row] = await db().select().from(idempotencyKey).where(eq(idempotencyKey.scope, `user:${user.id}`));
    expect(row?.route).toBe("/api/auth/*");

    const mismatch = await shopper.post("/api/auth/checkout", { products: [product.id], redirect: true }, { "idempotency-key": key });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    const bad = await shopper.post("/api/auth/checkout", { products: [product.id] }, { "idempotency-key": "x".repeat(300) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR" });

    // a visitor without a session is keyed by its address: the signed-in user's answer is not replayed to it
    const visitor = new Client(server.url);
    const fresh = await visitor.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(fresh.status).toBe(200);
    expect(fresh.body.url).not.toBe(first.body.url);
  });
});

describe("the hook on a fixture route (what no real route does on purpose)", () => {
  // installIdempotency on a bare Fastify with routes that fail, hang or count, on the same database
  let app: FastifyInstance;
  let base: string;
  let runs = 0;
  let failNext = true;
  let hang: (() => void) | null = null;

  beforeAll(async () => {
    app = Fastify();
    installIdempotency(app, { db: db(), secret: "fixture-secret".padEnd(40, "x"), scopeOf: () => "fixture", waitMs: 400, leaseMs: 300 });
    app.post("/v1/flaky", async (_req, reply) => {
      runs++;
      if (failNext) {
        failNext = false;
        return reply.code(500).send({ error: "InternalServerError" });
      }
      return { runs };
    });
    app.post("/v1/hang", async () => {
      runs++;
      await new Promise<void>((resolve) => (hang = resolve));
      return { runs };
    });
    base = await app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => app?.close());

  it("a 5xx is not stored: the retry runs again, and its 2xx is what later repeats get", async () => {
    const key = randomUUID();
    const failed = await send(base, "POST", "/v1/flaky", { key, body: { a: 1 } });
    expect(failed.status).toBe(500);
    const retried = await send(base, "POST", "/v1/flaky", { key, body: { a: 1 } });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    const replayed = await send(base, "POST", "/v1/flaky", { key, body: { a: 1 } });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(retried.body);
  });

  it("a repeat waits a bounded time for a running first request, then answers 409; once it is done it replays", async () => {
    const key = randomUUID();
    const started = runs;
    const first = send(base, "POST", "/v1/hang", { key, body: {} });
    // until the first request runs (it then holds the key), not a fixed pause that a busy machine outlasts
    await expect.poll(() => runs, { timeout: 20_000, interval: 10 }).toBe(started + 1);
    const before = runs;
    const waiting = await send(base, "POST", "/v1/hang", { key, body: {} });
    expect(waiting.status).toBe(409);
    expect(waiting.body).toEqual({ error: "IdempotencyKeyInProgress", detail: expect.stringMatching(/still being processed/) });
    // the first request renews its lease while it runs (0.3 s here): a slow request is never taken over
    expect(runs).toBe(before);
    hang?.();
    const done = await first;
    const again = await send(base, "POST", "/v1/hang", { key, body: {} });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(done.body);
  });

  it("a key left in progress by a process that died (its lease lapsed) is taken over by the retry", async () => {
    const key = randomUUID();
    const sha = (v: string) => createHash("sha256").update(v).digest("hex");
    const body = JSON.stringify({ b: 2 });
    await db().insert(idempotencyKey).values({
      scope: "fixture",
      keyHash: sha(key),
      requestHash: sha(`POST\n/v1/flaky\n${sha(body)}`),
      method: "POST",
      route: "/v1/flaky",
      status: "in_progress",
      lockedUntil: new Date(Date.now() - 1000),
      expiresAt: new Date(Date.now() + 60_000),
    });
    const retried = await send(base, "POST", "/v1/flaky", { key, body: { b: 2 } });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("a confirm retried without a key after a lost answer", () => {
  async function openCheckout(kind: "fixed" | "free" = "fixed") {
    const product = await createProduct(seller, kind);
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const token = kind === "free" ? undefined : await tokenize(server, checkout.clientSecret);
    const body = { customer_email: uniqueBuyer("retry"), customer_name: "Ada", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    return { checkout, body, path: `/v1/checkouts/client/${checkout.clientSecret}/confirm` };
  }
  const ordersOf = async (checkoutId: string) => (await seller.sdk.orders.list({ checkoutId })).result.items.length;
  /** The portal sessions of the buyer: a retry must not start another. */
  const sessionsOf = async (email: string) =>
    (
      await db()
        .select({ id: customerSession.id })
        .from(customerSession)
        .innerJoin(customerTable, eq(customerTable.id, customerSession.customerId))
        .where(eq(customerTable.email, email))
    ).length;

  it("the same confirm (its confirmation token) again: the first answer, with its portal session token (no new session), and one order", async () => {
    const { checkout, body, path } = await openCheckout();
    const first = await publicRequest(server, "POST", path, body);
    expect(first.status).toBe(200);
    expect(first.body.customer_session_token).toMatch(/^till_cst_/);
    const retry = await publicRequest(server, "POST", path, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await sessionsOf(body.customer_email)).toBe(1);
    expect(await ordersOf(checkout.id)).toBe(1);
    // the row keeps the token's hash and the session token sealed: neither the confirmation token nor the session in clear
    const [row] = await db().select().from(checkoutTable).where(eq(checkoutTable.id, checkout.id));
    expect(row?.confirmationHash).toMatch(/^[0-9a-f]{64}\./);
    expect(row?.confirmationHash).not.toContain(first.body.customer_session_token as string);
    expect(row?.confirmationHash).not.toContain(body.confirmation_token_id as string);
  });

  it("two identical confirms at once: both answered with the same session token, one order", async () => {
    const { checkout, body, path } = await openCheckout();
    const results = await Promise.all([publicRequest(server, "POST", path, body), publicRequest(server, "POST", path, body)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results[0]?.body.id).toBe(results[1]?.body.id);
    expect(results[0]?.body.customer_session_token).toBe(results[1]?.body.customer_session_token);
    expect(await ordersOf(checkout.id)).toBe(1);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });

  it("the buyer's details and card sent again (a leaked checkout URL) open no portal: the card tokenizes to a new token, refused as not open", async () => {
    const { checkout, body, path } = await openCheckout();
    expect((await publicRequest(server, "POST", path, body)).status).toBe(200);
    const retokenized = await tokenize(server, checkout.clientSecret);
    expect(retokenized).not.toBe(body.confirmation_token_id);
    const replay = await publicRequest(server, "POST", path, { ...body, confirmation_token_id: retokenized });
    expect(replay).toEqual({ status: 403, body: { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` } });
    // as both SDKs see it: Polar's error for a checkout that is no longer open
    const again = async (sdk: Polar | Polar049) =>
      sdk.checkouts.clientConfirm({
        clientSecret: checkout.clientSecret,
        checkoutConfirmStripe: {
          customerEmail: body.customer_email,
          customerName: body.customer_name,
          customerBillingAddress: { country: "FR" },
          confirmationTokenId: await tokenize(server, checkout.clientSecret),
        },
      });
    await expect(again(new Polar({ serverURL: server.url }))).rejects.toBeInstanceOf(NotOpenCheckout);
    await expect(again(new Polar049({ serverURL: server.url }))).rejects.toBeInstanceOf(NotOpenCheckout049);
    expect(await sessionsOf(body.customer_email)).toBe(1);
    expect(await ordersOf(checkout.id)).toBe(1);
  });

  it("a free checkout's confirm sent again without a key is refused as not open; with its Idempotency-Key it is replayed", async () => {
    const { checkout, body, path } = await openCheckout("free");
    const key = randomUUID();
    const first = await send(server.url, "POST", path, { key, body });
    expect(first.status).toBe(200);
    const bare = await publicRequest(server, "POST", path, body);
    expect(bare).toEqual({ status: 403, body: { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` } });
    const keyed = await send(server.url, "POST", path, { key, body });
    expect(keyed.headers.get("idempotent-replayed")).toBe("true");
    expect(keyed.body).toEqual(first.body);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });

  it("another confirm (other fields or token), or the same one after five minutes, is refused as not open", async () => {
    const { checkout, body, path } = await openCheckout();
    expect((await publicRequest(server, "POST", path, body)).status).toBe(200);
    const notOpen = { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` };
    const otherEmail = await publicRequest(server, "POST", path, { ...body, customer_email: uniqueBuyer("intruder") });
    expect(otherEmail).toEqual({ status: 403, body: notOpen });
    const otherToken = await publicRequest(server, "POST", path, { ...body, confirmation_token_id: `${body.confirmation_token_id}x` });
    expect(otherToken).toEqual({ status: 403, body: notOpen });
    await db().update(checkoutTable).set({ modifiedAt: new Date(Date.now() - 4 * 60_000) }).where(eq(checkoutTable.id, checkout.id));
    expect((await publicRequest(server, "POST", path, body)).status).toBe(200);
    await db().update(checkoutTable).set({ modifiedAt: new Date(Date.now() - 5 * 60_000 - 1_000) }).where(eq(checkoutTable.id, checkout.id));
    expect(await publicRequest(server, "POST", path, body)).toEqual({ status: 403, body: notOpen });
    expect(await ordersOf(checkout.id)).toBe(1);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });
});
