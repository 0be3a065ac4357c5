// Idempotency-Key on /v1 writes, through the real server: a repeat replays the first answer
// (Idempotent-Replayed: true) and writes nothing; another request under the same key is refused; parallel
// repeats make one write, also across two server instances on one database; an expired key runs again and the
// cleanup removes it; keys are per organization; the stored answer is encrypted; a body the route's contract
// (or the handler's own parse, as the events ingest's) refuses leaves its key unused, the check being each write
// route's last preHandler; the SDK sends the header
// through its per-call options; the hook on a fixture route, where a read runs none of it. Public writes and checkouts:
// idempotency-public.test.ts.
import { createHash, randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installIdempotency } from "../../server/http/idempotency.js";
import { idempotencyKey } from "../../server/db/schema/index.js";
import { cleanupOnce } from "../../server/jobs/cleanup.js";
import { idempotencyFixture, send, productBody } from "./idempotency-fixtures.js";

const fx = idempotencyFixture();

const sha = (v: string) => createHash("sha256").update(v).digest("hex");
/** The stored rows of a key (none while it is unused). */
const keyRows = (key: string) => fx.db().select().from(idempotencyKey).where(eq(idempotencyKey.keyHash, sha(key)));

describe("Idempotency-Key on /v1 writes", () => {
  it("a repeat replays the first answer (status, body, Idempotent-Replayed) and writes nothing", async () => {
    const key = randomUUID();
    const name = `Replayed ${key}`;
    const first = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    expect(await fx.productsNamed(name)).toBe(1);
  });

  it("without a key every request is its own write; a key on a GET is ignored", async () => {
    const name = `Unkeyed ${randomUUID()}`;
    await fx.v1("POST", "/v1/products/", { body: productBody(name) });
    await fx.v1("POST", "/v1/products/", { body: productBody(name) });
    expect(await fx.productsNamed(name)).toBe(2);
    const list = await fx.v1("GET", "/v1/products/?limit=1", { key: randomUUID() });
    expect(list.status).toBe(200);
    expect(list.headers.get("idempotent-replayed")).toBeNull();
  });

  it("the same key with another body or path is a 422 at header.Idempotency-Key and changes nothing", async () => {
    const key = randomUUID();
    const name = `Mismatch ${key}`;
    expect((await fx.v1("POST", "/v1/products/", { key, body: productBody(name) })).status).toBe(201);
    const otherBody = await fx.v1("POST", "/v1/products/", { key, body: productBody(`${name} 2`) });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      detail: [{ loc: ["header", "Idempotency-Key"], msg: expect.stringMatching(/different request/), type: "idempotency_key_reused" }],
    });
    const otherPath = await fx.v1("POST", "/v1/benefits/", { key, body: productBody(name) });
    expect(otherPath.status).toBe(422);
    expect(await fx.productsNamed(`${name} 2`)).toBe(0);
  });

  it("a body the route's contract refuses leaves its key unused: the corrected body may take it (as on Stripe)", async () => {
    const key = randomUUID();
    const name = `Corrected ${key}`;
    const invalid = { ...productBody(name), prices: "not a list" };
    for (let i = 0; i < 2; i++) {
      const refused = await fx.v1("POST", "/v1/products/", { key, body: invalid });
      expect(refused.status).toBe(422);
      expect(refused.headers.get("idempotent-replayed")).toBeNull();
      expect(refused.body).toMatchObject({ detail: [{ loc: ["body", "prices"] }] });
    }
    expect(await keyRows(key)).toEqual([]);
    const corrected = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(corrected.status).toBe(201);
    const again = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await fx.productsNamed(name)).toBe(1);
  });

  it("a body the handler's own parse refuses (the events ingest parses its own) leaves its key unused too", async () => {
    const key = randomUUID();
    const name = `ingest.${key}`;
    const event = (i: number) => ({ name, external_customer_id: `c-${i}`, external_id: `${key}-${i}` });
    // an event without a name; then, under the same key, another body: an event whose metadata is not flat
    const refusals = [
      { body: { events: [event(1), { external_customer_id: "c-2" }] }, loc: ["body", "events", 1, "name"] },
      { body: { events: [event(1), { ...event(2), metadata: { k: { not: "a scalar" } } }] }, loc: ["body", "events", 1, "metadata", "k"] },
    ];
    for (const { body, loc } of refusals) {
      const refused = await fx.v1("POST", "/v1/events/ingest", { key, body });
      expect(refused.status).toBe(422);
      expect(refused.headers.get("idempotent-replayed")).toBeNull();
      expect(refused.body).toMatchObject({ detail: [{ loc }] });
    }
    expect(await keyRows(key)).toEqual([]);
    const body = { events: [event(1), event(2)] };
    const stored = await fx.v1("POST", "/v1/events/ingest", { key, body });
    expect(stored.status).toBe(200);
    const again = await fx.v1("POST", "/v1/events/ingest", { key, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(stored.body);
    const listed = await fx.v1("GET", `/v1/events/?name=${encodeURIComponent(name)}&limit=10`);
    expect((listed.body?.pagination as { total_count: number }).total_count).toBe(2);
  });

  it("so does a body that is not JSON, short or long, sent to a handler that parses its own", async () => {
    const event = JSON.stringify({ name: `malformed.${randomUUID()}`, external_customer_id: "c-1" });
    // a short body goes through Fastify's JSON parser, one of 64 KiB or more through the sliced parse
    for (const text of [`{"events": [${event},]}`, `{"events": [${`${event},`.repeat(1_000)}]}`]) {
      const key = randomUUID();
      const refused = await fetch(`${fx.server.url}/v1/events/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${fx.seller.token}`, "content-type": "application/json", "idempotency-key": key },
        body: text,
      });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ detail: [{ type: "json_invalid" }] });
      expect(await keyRows(key)).toEqual([]);
    }
  });

  it("the check is every write route's last preHandler: after its authentication and its input's validation", () => {
    const lists = fx.server.app.printRoutes({ includeHooks: true, commonPrefix: false }).match(/\(preHandler\) \[[^\]]*\]/g) ?? [];
    const checked = lists.filter((l) => l.includes("idempotencyPreHandler()"));
    expect(checked.length).toBeGreaterThan(100);
    for (const list of checked) expect(list).toMatch(/"idempotencyPreHandler\(\)"\]$/);
    // a portal write: the customer session is authenticated first, then the body validated, then the key checked
    expect(checked).toContainEqual(expect.stringMatching(/"authenticatePortal\(\)", ?"validateContract\(\)", ?"idempotencyPreHandler\(\)"\]$/));
  });

  it("an over-long, empty or non-ASCII key is a 422 before anything is written", async () => {
    const name = `Bad key ${randomUUID()}`;
    for (const key of ["k".repeat(256), "", "   "]) {
      const res = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
      expect(res.status, JSON.stringify(key)).toBe(422);
      expect(res.body).toMatchObject({ detail: [{ loc: ["header", "Idempotency-Key"], type: "idempotency_key_invalid" }] });
    }
    expect((await fx.v1("POST", "/v1/products/", { key: "k".repeat(255), body: productBody(name) })).status).toBe(201);
    expect(await fx.productsNamed(name)).toBe(1);
  });

  it("keys are per organization: another organization's same key is its own request", async () => {
    const key = randomUUID();
    const name = `Tenant ${key}`;
    const mine = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    const theirs = await send(fx.server.url, "POST", "/v1/products/", { token: fx.other.token, key, body: productBody(name) });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body?.id).not.toBe(mine.body?.id);
    expect(await fx.productsNamed(name, fx.other)).toBe(1);
    // an API key of the organization shares its keys with the member's session
    const apiKey = await fx.seller.createKey();
    const viaKey = await send(fx.server.url, "POST", "/v1/products/", { token: apiKey, key, body: productBody(name) });
    expect(viaKey.headers.get("idempotent-replayed")).toBe("true");
    expect(viaKey.body?.id).toBe(mine.body?.id);
  });

  it("parallel requests with one key make one write: the others wait and get its answer", async () => {
    const key = randomUUID();
    const name = `Parallel ${key}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => fx.v1("POST", "/v1/products/", { key, body: productBody(name) })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body?.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(4);
    expect(await fx.productsNamed(name)).toBe(1);
  });

  it("holds across two server instances on one database, sequential and parallel", async () => {
    const key = randomUUID();
    const name = `Replicas ${key}`;
    const onA = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    const onB = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) }, fx.second.url);
    expect(onB.headers.get("idempotent-replayed")).toBe("true");
    expect(onB.body).toEqual(onA.body);

    const racing = randomUUID();
    const raced = `Replicas race ${racing}`;
    const both = await Promise.all([
      fx.v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }),
      fx.v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }, fx.second.url),
      fx.v1("POST", "/v1/products/", { key: racing, body: productBody(raced) }, fx.second.url),
    ]);
    expect(new Set(both.map((a) => a.body?.id)).size).toBe(1);
    expect(await fx.productsNamed(raced)).toBe(1);
  });

  it("a key is kept 24 hours: once expired the request runs again, and the cleanup deletes the row", async () => {
    const key = randomUUID();
    const name = `Expiry ${key}`;
    await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    const scope = `organization:${fx.seller.organizationId}`;
    const rows = () => fx.db().select().from(idempotencyKey).where(eq(idempotencyKey.scope, scope));
    const keyHash = sha(key);
    const [row] = (await rows()).filter((r) => r.keyHash === keyHash);
    expect(row).toMatchObject({ route: "/v1/products/", method: "POST", status: "done", responseStatus: 201 });
    expect(row).toBeDefined();
    const ttl = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(ttl).toBe(24 * 60 * 60 * 1000);
    await fx.db().update(idempotencyKey).set({ expiresAt: sql`now() - interval '1 second'` }).where(and(eq(idempotencyKey.scope, scope), eq(idempotencyKey.keyHash, keyHash)));
    const rerun = await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    expect(rerun.status).toBe(201);
    expect(rerun.headers.get("idempotent-replayed")).toBeNull();
    expect(await fx.productsNamed(name)).toBe(2);

    await fx.db().update(idempotencyKey).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(idempotencyKey.scope, scope));
    const removed = await cleanupOnce(fx.db(), new Date(0));
    expect(removed.idempotencyKeys).toBeGreaterThan(0);
    expect(await rows()).toHaveLength(0);
  });

  it("stores neither the key nor the answer in clear, and only the route's pattern", async () => {
    const key = `visible-${randomUUID()}`;
    const name = `Sealed ${key}`;
    await fx.v1("POST", "/v1/products/", { key, body: productBody(name) });
    const dump = JSON.stringify(await fx.db().select().from(idempotencyKey));
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(name);
  });

  it("the SDK sends the header through its per-call options", async () => {
    const key = randomUUID();
    const name = `SDK ${key}`;
    const body = { name, prices: [{ amountType: "fixed" as const, priceAmount: 900 }] };
    const a = await fx.seller.sdk.products.create(body, { headers: { "Idempotency-Key": key } });
    const b = await fx.seller.sdk.products.create(body, { headers: { "Idempotency-Key": key } });
    expect(b.id).toBe(a.id);
    expect(await fx.productsNamed(name)).toBe(1);
  });
});

describe("/api/openapi.json", () => {
  it("declares the Idempotency-Key header on every /v1 write and on POST /api/auth/checkout, and nowhere else", async () => {
    type Parameter = { name: string; in: string; required?: boolean; schema?: { maxLength?: number } };
    const doc = (await (await fetch(`${fx.server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
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

describe("the hook on a fixture route (what no real route does on purpose)", () => {
  // installIdempotency on a bare Fastify with routes that fail, hang or count, on the same database
  let app: FastifyInstance;
  let base: string;
  let runs = 0;
  let failNext = true;
  let hang: (() => void) | null = null;

  beforeAll(async () => {
    app = Fastify();
    installIdempotency(app, { db: fx.db(), secret: "fixture-secret".padEnd(40, "x"), scopeOf: () => "fixture", waitMs: 400, leaseMs: 300 });
    app.post("/v1/flaky", async (_req, reply) => {
      runs++;
      if (failNext) {
        failNext = false;
        return reply.code(500).send({ error: "InternalServerError" });
      }
      return { runs };
    });
    app.get("/v1/read", async () => ({ read: true }));
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
    const body = JSON.stringify({ b: 2 });
    await fx.db().insert(idempotencyKey).values({
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

  it("only the write routes carry its hooks: a read runs none of them", () => {
    const hooksOf = (method: string) => app.printRoutes({ method, includeHooks: true, commonPrefix: false });
    // the read (and its HEAD) has no hook at all but the HEAD's own; app-wide hooks would show on it
    expect(hooksOf("GET")).not.toMatch(/\((preParsing|preHandler|onSend|onResponse)\)/);
    for (const hook of ["(preParsing) [\"hashBody()\"]", "(preHandler) [\"idempotencyPreHandler()\"]", "(onSend) [\"storeAnswer()\"]", "(onResponse) [\"releaseUnanswered()\"]"]) {
      expect(hooksOf("POST").split(hook)).toHaveLength(3); // /v1/flaky and /v1/hang
    }
  });
});
