// Webhooks: /v1/webhooks through @polar-sh/sdk 0.47.1 (list/get/create through 0.49.0), refused private targets,
// the inbound endpoint and the delivery log's rows. Deliveries, retries, disabling and redelivery:
// webhooks-delivery.test.ts.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inboundWebhook, webhookDelivery, webhookEndpoint } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { eventually } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { webhookFixture, INBOUND_SECRET, freshPath } from "./webhooks-fixtures.js";

const fx = webhookFixture();

describe("/v1/webhooks/endpoints (SDK 0.47.1)", () => {
  it("creates, lists, gets, updates, resets the secret of and deletes an endpoint", async () => {
    const created = await fx.seller.sdk.webhooks.createWebhookEndpoint({
      url: `${fx.receiver.url}/crud`,
      name: "My endpoint",
      format: "raw",
      events: ["order.paid", "product.created", "order.paid"],
    });
    expect(created).toMatchObject({
      url: `${fx.receiver.url}/crud`,
      name: "My endpoint",
      format: "raw",
      events: ["order.paid", "product.created"],
      enabled: true,
      organizationId: fx.seller.organizationId,
      modifiedAt: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await fx.seller.sdk.webhooks.getWebhookEndpoint({ id: created.id });
    expect(got).toEqual(created);

    const list = await fx.seller.sdk.webhooks.listWebhookEndpoints({ limit: 100 });
    expect(list.result.items.map((e) => e.id)).toContain(created.id);
    expect(list.result.pagination.totalCount).toBe(list.result.items.length);

    const updated = await fx.seller.sdk.webhooks.updateWebhookEndpoint({
      id: created.id,
      webhookEndpointUpdate: { name: "Renamed", format: "slack", events: ["customer.created"], enabled: false },
    });
    expect(updated).toMatchObject({ name: "Renamed", format: "slack", events: ["customer.created"], enabled: false, secret: created.secret });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    // absent keys keep their values
    const again = await fx.seller.sdk.webhooks.updateWebhookEndpoint({ id: created.id, webhookEndpointUpdate: { enabled: true } });
    expect(again).toMatchObject({ name: "Renamed", format: "slack", events: ["customer.created"], enabled: true });

    const reset = await fx.seller.sdk.webhooks.resetWebhookEndpointSecret({ id: created.id });
    expect(reset.secret).toMatch(/^whsec_/);
    expect(reset.secret).not.toBe(created.secret);
    expect((await fx.seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).secret).toBe(reset.secret);

    await fx.seller.sdk.webhooks.deleteWebhookEndpoint({ id: created.id });
    await expect(fx.seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    const raw = await rawRequest(fx.server.url, fx.seller.token, "DELETE", `/v1/webhooks/endpoints/${created.id}`);
    expect(raw).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Webhook endpoint not found" } });
  });

  it("paginates the endpoint list", async () => {
    const s = await createSeller(fx.server, "paging");
    for (let i = 0; i < 3; i++) await fx.endpointFor(s, `/paging-${i}`, ["order.paid"]);
    const first = await s.sdk.webhooks.listWebhookEndpoints({ limit: 2, page: 1 });
    expect(first.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    expect(first.result.items).toHaveLength(2);
    const second = await s.sdk.webhooks.listWebhookEndpoints({ limit: 2, page: 2 });
    expect(second.result.items).toHaveLength(1);
    // naming another organization: it does not exist for this caller
    await expect(s.sdk.webhooks.listWebhookEndpoints({ organizationId: fx.other.organizationId })).rejects.toMatchObject({ statusCode: 404 });
    expect((await s.sdk.webhooks.listWebhookEndpoints({ organizationId: s.organizationId })).result.items).toHaveLength(3);
  });

  it("works through SDK 0.49.0 (list, get, create)", async () => {
    const created = await fx.seller.sdk049.webhooks.createWebhookEndpoint({
      url: `${fx.receiver.url}/sdk049`,
      format: "discord",
      events: ["subscription.paused", "order.created"],
    });
    expect(created).toMatchObject({ format: "discord", events: ["subscription.paused", "order.created"], enabled: true });
    expect(await fx.seller.sdk049.webhooks.getWebhookEndpoint({ id: created.id })).toEqual(created);
    const list = await fx.seller.sdk049.webhooks.listWebhookEndpoints({ limit: 100 });
    expect(list.result.items.map((e) => e.id)).toContain(created.id);
    // 0.47.1 reads an event type it does not know (open enum)
    expect((await fx.seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).events).toContain("subscription.paused");
    await fx.seller.sdk.webhooks.deleteWebhookEndpoint({ id: created.id });
  });

  it("refuses invalid bodies and queries with 422, changing nothing", async () => {
    const before = (await fx.db().select().from(webhookEndpoint)).length;
    const cases: Array<[string, string, unknown, unknown[]]> = [
      ["POST", "/v1/webhooks/endpoints", { format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: "not a url", format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: "ftp://example.com/x", format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: "http://example.com/x", format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://user:pw@example.com/x", format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: `https://example.com/${"x".repeat(2100)}`, format: "raw", events: [] }, ["body", "url"]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://example.com/x", format: "xml", events: [] }, ["body", "format"]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://example.com/x", format: "raw", events: ["order.exploded"] }, ["body", "events", 0]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://example.com/x", format: "raw", events: "order.paid" }, ["body", "events"]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://example.com/x", format: "raw", events: [], name: 5 }, ["body", "name"]],
      ["POST", "/v1/webhooks/endpoints", { url: "https://example.com/\u0000", format: "raw", events: [] }, ["body", "url"]],
      ["GET", "/v1/webhooks/endpoints?limit=0", undefined, ["query", "limit"]],
      ["GET", "/v1/webhooks/endpoints?page=x", undefined, ["query", "page"]],
      ["GET", "/v1/webhooks/endpoints/not-a-uuid", undefined, ["path", "id"]],
      ["GET", "/v1/webhooks/deliveries?endpoint_id=nope", undefined, ["query", "endpoint_id", 0]],
      ["GET", "/v1/webhooks/deliveries?start_timestamp=yesterday", undefined, ["query", "start_timestamp"]],
      ["GET", "/v1/webhooks/deliveries?succeeded=maybe", undefined, ["query", "succeeded"]],
      ["GET", "/v1/webhooks/deliveries?http_code_class=6xx", undefined, ["query", "http_code_class"]],
      ["GET", "/v1/webhooks/deliveries?event_type=nope", undefined, ["query", "event_type", 0]],
      ["POST", "/v1/webhooks/events/xyz/redeliver", undefined, ["path", "id"]],
    ];
    for (const [method, path, body, loc] of cases) {
      const res = await rawRequest(fx.server.url, fx.seller.token, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc)).toContainEqual(loc);
    }
    const { id } = await fx.endpointFor(fx.seller, "/unchanged", ["order.paid"]);
    for (const body of [{ url: "http://example.com" }, { format: "csv" }, { events: ["x"] }, { enabled: "yes" }]) {
      const res = await rawRequest(fx.server.url, fx.seller.token, "PATCH", `/v1/webhooks/endpoints/${id}`, body);
      expect(res.status).toBe(422);
    }
    expect(await fx.seller.sdk.webhooks.getWebhookEndpoint({ id })).toMatchObject({ format: "raw", events: ["order.paid"], enabled: true });
    expect((await fx.db().select().from(webhookEndpoint)).length).toBe(before + 1);
    await fx.seller.sdk.webhooks.deleteWebhookEndpoint({ id });
  });

  it("needs the webhooks scopes", async () => {
    const readKey = await fx.seller.createKey({ webhooks: ["read"] });
    const noKey = await fx.seller.createKey({ products: ["read"] });
    const reader = sdkFor(fx.server, readKey);
    const shown = await fx.endpointFor(fx.seller, "/secret-shown", ["order.paid"]);
    // the secret is for those who may manage endpoints
    expect((await reader.webhooks.getWebhookEndpoint({ id: shown.id })).secret).toBe("");
    expect((await reader.webhooks.listWebhookEndpoints({ limit: 100 })).result.items.every((e) => e.secret === "")).toBe(true);
    expect((await fx.seller.sdk.webhooks.getWebhookEndpoint({ id: shown.id })).secret).toBe(shown.secret);
    await fx.seller.sdk.webhooks.deleteWebhookEndpoint({ id: shown.id });
    await reader.webhooks.listWebhookDeliveries({});
    await expect(reader.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}/x`, format: "raw", events: [] })).rejects.toMatchObject({
      statusCode: 403,
    });
    const res = await rawRequest(fx.server.url, readKey, "POST", `/v1/webhooks/events/${crypto.randomUUID()}/redeliver`);
    expect(res.status).toBe(403);
    await expect(sdkFor(fx.server, noKey).webhooks.listWebhookEndpoints({})).rejects.toMatchObject({ statusCode: 403 });
    const writer = sdkFor(fx.server, await fx.seller.createKey({ webhooks: ["write"] }));
    const made = await writer.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}/by-key`, format: "raw", events: [] });
    expect(made.organizationId).toBe(fx.seller.organizationId);
    await writer.webhooks.deleteWebhookEndpoint({ id: made.id });
  });

  it("keeps organizations apart", async () => {
    const mine = await fx.endpointFor(fx.seller, "/tenancy", ["order.paid"]);
    const foreign = fx.other.sdk.webhooks;
    await expect(foreign.getWebhookEndpoint({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(foreign.updateWebhookEndpoint({ id: mine.id, webhookEndpointUpdate: { enabled: false } })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(foreign.resetWebhookEndpointSecret({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(foreign.deleteWebhookEndpoint({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await foreign.listWebhookEndpoints({ limit: 100 })).result.items.map((e) => e.id)).not.toContain(mine.id);
    expect(await fx.seller.sdk.webhooks.getWebhookEndpoint({ id: mine.id })).toMatchObject({ enabled: true });
    await fx.seller.sdk.webhooks.deleteWebhookEndpoint({ id: mine.id });
  });
});

describe("private targets", () => {
  let strict: TestServer;
  let strictSeller: Seller;
  beforeAll(async () => {
    strict = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "false" });
    await strict.worker.start();
    strictSeller = await createSeller(strict, "strict");
  });
  afterAll(async () => strict?.close());

  it("refuses URLs on private, loopback and link-local addresses, and plain http", async () => {
    for (const url of [
      "https://127.0.0.1/hook",
      "https://127.9.9.9:8443/hook",
      "https://10.1.2.3/hook",
      "https://172.20.0.1/hook",
      "https://192.168.1.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/hook",
      "https://0.0.0.0/hook",
      "https://[::1]/hook",
      "https://[fd00::1]/hook",
      "https://[fe80::1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://[::ffff:7f00:1]/hook",
      "https://[64:ff9b::a00:1]/hook",
      "https://localhost/hook",
      "https://api.localhost/hook",
      "http://93.184.216.34/hook",
      `${fx.receiver.url}/hook`,
    ]) {
      const res = await rawRequest(strict.url, strictSeller.token, "POST", "/v1/webhooks/endpoints", { url, format: "raw", events: [] });
      expect(res.status, url).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>)[0]!.loc).toEqual(["body", "url"]);
    }
    const ok = await strictSeller.sdk.webhooks.createWebhookEndpoint({ url: "https://93.184.216.34/hook", format: "raw", events: [] });
    await expect(
      strictSeller.sdk.webhooks.updateWebhookEndpoint({ id: ok.id, webhookEndpointUpdate: { url: "https://10.0.0.1/x" } }),
    ).rejects.toMatchObject({ statusCode: 422 });
    await strictSeller.sdk.webhooks.deleteWebhookEndpoint({ id: ok.id });
  });

  it("checks the target again on delivery, and sends nothing there", async () => {
    const path = freshPath("sneaky");
    const endpoint = await strictSeller.sdk.webhooks.createWebhookEndpoint({
      url: "https://93.184.216.34/hook",
      format: "raw",
      events: ["organization.updated"],
    });
    // as if the address had changed after the check
    await strict.database.db.update(webhookEndpoint).set({ url: `${fx.receiver.url}${path}` }).where(eq(webhookEndpoint.id, endpoint.id));
    await strictSeller.sdk.organizations.update({ id: strictSeller.organizationId, organizationUpdate: { name: "Sneaky org" } });
    const d = await eventually(async () => (await strictSeller.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items[0]);
    expect(d).toMatchObject({ succeeded: false, httpCode: null });
    expect(d.response).toMatch(/private or loopback/);
    expect(fx.receiver.at(path)).toEqual([]);
  });

  it("has no inbound webhook route without TILL_POLAR_WEBHOOK_SECRET", async () => {
    const res = await fetch(`${strict.url}/api/auth/polar/webhooks`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(404);
  });
});

describe("POST /api/auth/polar/webhooks", () => {
  const sign = (key: Buffer, id: string, ts: number, body: string) =>
    `v1,${createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64")}`;
  const now = () => Math.floor(Date.now() / 1000);
  const post = async (headers: Record<string, string>, body: string) => {
    const res = await fetch(`${fx.server.url}/api/auth/polar/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const body = JSON.stringify({ type: "order.paid", timestamp: new Date().toISOString(), data: { id: "x" } });
  const key = Buffer.from(INBOUND_SECRET, "utf8");

  it("answers each verification failure with its message", async () => {
    const id = `msg_${Date.now()}`;
    const ts = now();
    const good = { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": sign(key, id, ts, body) };
    // the times are read as each request is built, 10 s past the 300 s tolerance or short of it: a loaded
    // machine's request may take a second or more to be verified
    const signedAt = (t: number) => ({ ...good, "webhook-timestamp": String(t), "webhook-signature": sign(key, id, t, body) });
    const cases: Array<[() => Record<string, string>, number, string]> = [
      [() => ({ "webhook-id": id, "webhook-timestamp": String(ts) }), 400, "Missing required headers"],
      [() => ({ "webhook-timestamp": String(ts), "webhook-signature": good["webhook-signature"] }), 400, "Missing required headers"],
      [() => ({}), 400, "Missing required headers"],
      [() => ({ ...good, "webhook-timestamp": "soon" }), 400, "Invalid Signature Headers"],
      [() => signedAt(now() - 310), 401, "Message timestamp too old"],
      [() => signedAt(now() + 310), 401, "Message timestamp too new"],
      [() => ({ ...good, "webhook-signature": sign(Buffer.from("other"), id, ts, body) }), 401, "No matching signature found"],
      [() => ({ ...good, "webhook-signature": `v2,${good["webhook-signature"].slice(3)}` }), 401, "No matching signature found"],
      [() => ({ ...good, "webhook-id": `${id}-other` }), 401, "No matching signature found"],
    ];
    for (const [build, status, message] of cases) {
      const headers = build();
      const res = await post(headers, body);
      expect(res, JSON.stringify(headers)).toEqual({ status, body: { message, code: message.toUpperCase().replace(/ /g, "_") } });
    }
    // a body changed after signing
    expect((await post(good, body.replace("order.paid", "order.refunded"))).body.message).toBe("No matching signature found");
    // within the tolerance both ways
    for (const offset of [-290, 290]) {
      const t = now() + offset;
      const res = await post({ ...good, "webhook-id": `${id}-${t}`, "webhook-timestamp": String(t), "webhook-signature": sign(key, `${id}-${t}`, t, body) }, body);
      expect(res).toEqual({ status: 200, body: { received: true } });
    }
  });

  it("accepts a signed message once and acknowledges a repeated webhook-id without handling it again", async () => {
    const id = `msg_once_${Date.now()}`;
    const ts = now();
    const headers = { "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": `v1,bogus ${sign(key, id, ts, body)}` };
    expect(await post(headers, body)).toEqual({ status: 200, body: { received: true } });
    expect(await post(headers, body)).toEqual({ status: 200, body: { received: true } });
    const rows = await fx.db().select().from(inboundWebhook).where(eq(inboundWebhook.webhookId, id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: "order.paid", timestamp: new Date(ts * 1000) });
  });

  it("refuses a verified body that is not a webhook payload", async () => {
    const id = `msg_std_${Date.now()}`;
    const ts = now();
    const res = await post({ "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": sign(key, id, ts, "not json") }, "not json");
    expect(res).toEqual({ status: 400, body: { message: "Invalid webhook payload", code: "INVALID_WEBHOOK_PAYLOAD" } });
    expect(await fx.db().select().from(inboundWebhook).where(eq(inboundWebhook.webhookId, id))).toEqual([]);
  });
});

describe("delivery log rows", () => {
  it("are only written for attempts made", async () => {
    const rows = await fx.db().select().from(webhookDelivery);
    expect(rows.every((r) => r.attempt >= 1 && r.durationMs >= 0)).toBe(true);
  });
});
