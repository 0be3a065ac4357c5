// Webhooks end to end: /v1/webhooks through @polar-sh/sdk 0.47.1 (list/get/create through 0.49.0), deliveries to a
// receiver on loopback checked with each SDK's validateEvent, the retry schedule, 410 and repeated failures
// disabling an endpoint (with the owners' email), redelivery, refused private targets, and the inbound endpoint.
import { createHmac } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inboundWebhook, webhookDelivery, webhookEndpoint, webhookEvent } from "../../server/db/schema/index.js";
import { PAYMENT_EVENT_TYPES } from "../../shared/webhook-events.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { eventually, Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const INBOUND_SECRET = "polar_whs_inbound-test-secret";

let server: TestServer;
let seller: Seller;
let other: Seller;
let receiver: Receiver;

const db = () => server.database.db;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true", TILL_POLAR_WEBHOOK_SECRET: INBOUND_SECRET });
  await server.worker.start();
  seller = await createSeller(server, "webhooks");
  other = await createSeller(server, "intruder");
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const ALL_TYPES = PAYMENT_EVENT_TYPES;

let pathN = 0;
const freshPath = (tag: string) => `/${tag}-${pathN++}`;

async function endpointFor(s: Seller, path: string, events: readonly string[] = ALL_TYPES, format: "raw" | "discord" | "slack" = "raw") {
  return s.sdk.webhooks.createWebhookEndpoint({
    url: `${receiver.url}${path}`,
    format,
    events: [...events] as Parameters<Seller["sdk"]["webhooks"]["createWebhookEndpoint"]>[0]["events"],
  });
}

/** Both SDKs accept the hit (signature, timestamp, payload model); returns 0.47.1's parse. */
function validated(hit: Hit, secret: string) {
  const parsed = validateEvent(hit.body, hit.headers, secret);
  validateEvent049(hit.body, hit.headers, secret);
  return parsed;
}

const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;

describe("/v1/webhooks/endpoints (SDK 0.47.1)", () => {
  it("creates, lists, gets, updates, resets the secret of and deletes an endpoint", async () => {
    const created = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}/crud`,
      name: "My endpoint",
      format: "raw",
      events: ["order.paid", "product.created", "order.paid"],
    });
    expect(created).toMatchObject({
      url: `${receiver.url}/crud`,
      name: "My endpoint",
      format: "raw",
      events: ["order.paid", "product.created"],
      enabled: true,
      organizationId: seller.organizationId,
      modifiedAt: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await seller.sdk.webhooks.getWebhookEndpoint({ id: created.id });
    expect(got).toEqual(created);

    const list = await seller.sdk.webhooks.listWebhookEndpoints({ limit: 100 });
    expect(list.result.items.map((e) => e.id)).toContain(created.id);
    expect(list.result.pagination.totalCount).toBe(list.result.items.length);

    const updated = await seller.sdk.webhooks.updateWebhookEndpoint({
      id: created.id,
      webhookEndpointUpdate: { name: "Renamed", format: "slack", events: ["customer.created"], enabled: false },
    });
    expect(updated).toMatchObject({ name: "Renamed", format: "slack", events: ["customer.created"], enabled: false, secret: created.secret });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    // absent keys keep their values
    const again = await seller.sdk.webhooks.updateWebhookEndpoint({ id: created.id, webhookEndpointUpdate: { enabled: true } });
    expect(again).toMatchObject({ name: "Renamed", format: "slack", events: ["customer.created"], enabled: true });

    const reset = await seller.sdk.webhooks.resetWebhookEndpointSecret({ id: created.id });
    expect(reset.secret).toMatch(/^whsec_/);
    expect(reset.secret).not.toBe(created.secret);
    expect((await seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).secret).toBe(reset.secret);

    await seller.sdk.webhooks.deleteWebhookEndpoint({ id: created.id });
    await expect(seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    const raw = await rawRequest(server.url, seller.token, "DELETE", `/v1/webhooks/endpoints/${created.id}`);
    expect(raw).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Webhook endpoint not found" } });
  });

  it("paginates the endpoint list", async () => {
    const s = await createSeller(server, "paging");
    for (let i = 0; i < 3; i++) await endpointFor(s, `/paging-${i}`, ["order.paid"]);
    const first = await s.sdk.webhooks.listWebhookEndpoints({ limit: 2, page: 1 });
    expect(first.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    expect(first.result.items).toHaveLength(2);
    const second = await s.sdk.webhooks.listWebhookEndpoints({ limit: 2, page: 2 });
    expect(second.result.items).toHaveLength(1);
    // naming another organization: it does not exist for this caller
    await expect(s.sdk.webhooks.listWebhookEndpoints({ organizationId: other.organizationId })).rejects.toMatchObject({ statusCode: 404 });
    expect((await s.sdk.webhooks.listWebhookEndpoints({ organizationId: s.organizationId })).result.items).toHaveLength(3);
  });

  it("works through SDK 0.49.0 (list, get, create)", async () => {
    const created = await seller.sdk049.webhooks.createWebhookEndpoint({
      url: `${receiver.url}/sdk049`,
      format: "discord",
      events: ["subscription.paused", "order.created"],
    });
    expect(created).toMatchObject({ format: "discord", events: ["subscription.paused", "order.created"], enabled: true });
    expect(await seller.sdk049.webhooks.getWebhookEndpoint({ id: created.id })).toEqual(created);
    const list = await seller.sdk049.webhooks.listWebhookEndpoints({ limit: 100 });
    expect(list.result.items.map((e) => e.id)).toContain(created.id);
    // 0.47.1 reads an event type it does not know (open enum)
    expect((await seller.sdk.webhooks.getWebhookEndpoint({ id: created.id })).events).toContain("subscription.paused");
    await seller.sdk.webhooks.deleteWebhookEndpoint({ id: created.id });
  });

  it("refuses invalid bodies and queries with 422, changing nothing", async () => {
    const before = (await db().select().from(webhookEndpoint)).length;
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
      const res = await rawRequest(server.url, seller.token, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc)).toContainEqual(loc);
    }
    const { id } = await endpointFor(seller, "/unchanged", ["order.paid"]);
    for (const body of [{ url: "http://example.com" }, { format: "csv" }, { events: ["x"] }, { enabled: "yes" }]) {
      const res = await rawRequest(server.url, seller.token, "PATCH", `/v1/webhooks/endpoints/${id}`, body);
      expect(res.status).toBe(422);
    }
    expect(await seller.sdk.webhooks.getWebhookEndpoint({ id })).toMatchObject({ format: "raw", events: ["order.paid"], enabled: true });
    expect((await db().select().from(webhookEndpoint)).length).toBe(before + 1);
    await seller.sdk.webhooks.deleteWebhookEndpoint({ id });
  });

  it("needs the webhooks scopes", async () => {
    const readKey = await seller.createKey({ webhooks: ["read"] });
    const noKey = await seller.createKey({ products: ["read"] });
    const reader = sdkFor(server, readKey);
    const shown = await endpointFor(seller, "/secret-shown", ["order.paid"]);
    // the secret is for those who may manage endpoints
    expect((await reader.webhooks.getWebhookEndpoint({ id: shown.id })).secret).toBe("");
    expect((await reader.webhooks.listWebhookEndpoints({ limit: 100 })).result.items.every((e) => e.secret === "")).toBe(true);
    expect((await seller.sdk.webhooks.getWebhookEndpoint({ id: shown.id })).secret).toBe(shown.secret);
    await seller.sdk.webhooks.deleteWebhookEndpoint({ id: shown.id });
    await reader.webhooks.listWebhookDeliveries({});
    await expect(reader.webhooks.createWebhookEndpoint({ url: `${receiver.url}/x`, format: "raw", events: [] })).rejects.toMatchObject({
      statusCode: 403,
    });
    const res = await rawRequest(server.url, readKey, "POST", `/v1/webhooks/events/${crypto.randomUUID()}/redeliver`);
    expect(res.status).toBe(403);
    await expect(sdkFor(server, noKey).webhooks.listWebhookEndpoints({})).rejects.toMatchObject({ statusCode: 403 });
    const writer = sdkFor(server, await seller.createKey({ webhooks: ["write"] }));
    const made = await writer.webhooks.createWebhookEndpoint({ url: `${receiver.url}/by-key`, format: "raw", events: [] });
    expect(made.organizationId).toBe(seller.organizationId);
    await writer.webhooks.deleteWebhookEndpoint({ id: made.id });
  });

  it("keeps organizations apart", async () => {
    const mine = await endpointFor(seller, "/tenancy", ["order.paid"]);
    const foreign = other.sdk.webhooks;
    await expect(foreign.getWebhookEndpoint({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(foreign.updateWebhookEndpoint({ id: mine.id, webhookEndpointUpdate: { enabled: false } })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(foreign.resetWebhookEndpointSecret({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(foreign.deleteWebhookEndpoint({ id: mine.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await foreign.listWebhookEndpoints({ limit: 100 })).result.items.map((e) => e.id)).not.toContain(mine.id);
    expect(await seller.sdk.webhooks.getWebhookEndpoint({ id: mine.id })).toMatchObject({ enabled: true });
    await seller.sdk.webhooks.deleteWebhookEndpoint({ id: mine.id });
  });
});

describe("delivery", () => {
  it("delivers every event the catalog, customers and the organization cause, signed for both SDKs", async () => {
    const s = await createSeller(server, "events");
    const path = freshPath("all");
    const endpoint = await endpointFor(s, path);
    const narrowPath = freshPath("narrow");
    const narrow = await endpointFor(s, narrowPath, ["customer.deleted"]);

    const product = await s.sdk.products.create({ name: "Hooked product", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    await s.sdk.products.update({ id: product.id, productUpdate: { name: "Hooked product v2" } });
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Hooked benefit", properties: {} });
    await s.sdk.benefits.update({ id: benefit.id, requestBody: { type: "custom", description: "Hooked benefit v2" } });
    await s.sdk.organizations.update({ id: s.organizationId, organizationUpdate: { name: "Hooked organization" } });
    const customer = await s.sdk.customers.create({ email: `hooked-${Date.now()}@example.com`, name: "Hooked" });
    await s.sdk.customers.update({ id: customer.id, customerUpdate: { name: "Hooked again" } });
    await s.sdk.customers.delete({ id: customer.id });

    const expected = [
      "product.created", "product.updated", "benefit.created", "benefit.updated", "organization.updated",
      "customer.created", "customer.updated", "customer.deleted",
    ];
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return mine.length >= expected.length && mine;
    });
    expect(hits.map(typeOf).sort()).toEqual([...expected].sort());
    for (const hit of hits) {
      const event = validated(hit, endpoint.secret);
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(hit.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
      expect(Math.abs(Number(hit.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
      expect(event.timestamp).toBeInstanceOf(Date);
    }
    const byType = new Map(hits.map((h) => [typeOf(h), validated(h, endpoint.secret)]));
    expect(byType.get("product.created")).toMatchObject({ data: { id: product.id, name: "Hooked product" } });
    expect(byType.get("product.updated")).toMatchObject({ data: { id: product.id, name: "Hooked product v2" } });
    expect(byType.get("benefit.updated")).toMatchObject({ data: { id: benefit.id, description: "Hooked benefit v2" } });
    expect(byType.get("organization.updated")).toMatchObject({ data: { id: s.organizationId, name: "Hooked organization" } });
    expect(byType.get("customer.updated")).toMatchObject({ data: { id: customer.id, name: "Hooked again" } });
    const deleted = byType.get("customer.deleted");
    expect(deleted?.type === "customer.deleted" && deleted.data.deletedAt).toBeInstanceOf(Date);

    // the narrow endpoint got only what it asked for; the other organization's receiver nothing
    const narrowHits = await receiver.until((all) => all.filter((h) => h.path === narrowPath).length >= 1 && all.filter((h) => h.path === narrowPath));
    expect(narrowHits.map(typeOf)).toEqual(["customer.deleted"]);
    validated(narrowHits[0]!, narrow.secret);

    // the log: one successful first attempt per event, with what the receiver answered
    // (recorded just after the receiver answered)
    const log = await eventually(async () => {
      const page = await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id, limit: 100 });
      return page.result.pagination.totalCount === expected.length && page;
    });
    for (const d of log.result.items) {
      expect(d).toMatchObject({ succeeded: true, httpCode: 200, response: "ok 200" });
      expect(d.webhookEvent).toMatchObject({ succeeded: true, lastHttpCode: 200, skipped: false, isArchived: false });
      expect(hits.map((h) => h.headers["webhook-id"])).toContain(d.webhookEvent.id);
      expect(JSON.parse(d.webhookEvent.payload ?? "")).toEqual(JSON.parse(hits.find((h) => h.headers["webhook-id"] === d.webhookEvent.id)!.body));
    }
    const rawLog = await rawRequest(server.url, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&limit=1`);
    expect(rawLog.body.items).toEqual([
      expect.objectContaining({ attempt: 1, duration_ms: expect.any(Number), error: null, webhook_endpoint_id: endpoint.id }),
    ]);
    const log049 = await eventually(async () => {
      const page = await s.sdk049.webhooks.listWebhookDeliveries({ endpointId: [endpoint.id, narrow.id] });
      return page.result.pagination.totalCount === expected.length + 1 && page;
    });
    expect(log049.result.items.every((d) => d.succeeded)).toBe(true);
    // filters
    const typed = await s.sdk.webhooks.listWebhookDeliveries({ eventType: ["customer.created", "customer.updated"] });
    expect(typed.result.items.map((d) => d.webhookEvent.type).sort()).toEqual(["customer.created", "customer.updated"]);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ succeeded: false })).result.items).toEqual([]);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ httpCodeClass: "2xx", endpointId: narrow.id })).result.items).toHaveLength(1);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ httpCodeClass: "5xx" })).result.items).toEqual([]);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ query: "Hooked benefit v2" })).result.items.map((d) => d.webhookEvent.type)).toEqual([
      "benefit.updated",
    ]);
    const future = new Date(Date.now() + 3_600_000);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ startTimestamp: future })).result.items).toEqual([]);
    expect((await s.sdk.webhooks.listWebhookDeliveries({ endTimestamp: future, limit: 3 })).result.pagination.totalCount).toBe(expected.length + 1);
    // another organization sees none of it
    expect((await other.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items).toEqual([]);
  });

  it("delivers what a purchase causes (checkout, customer, subscription, order, grant), signed for both SDKs", async () => {
    const s = await createSeller(server, "purchase");
    const path = freshPath("purchase");
    const endpoint = await endpointFor(s, path);
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Purchased benefit", properties: {} });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout);

    const expected = [
      "checkout.created", "checkout.updated", "customer.created", "subscription.created", "subscription.active",
      "order.created", "order.paid", "benefit_grant.created", "customer.state_changed",
    ];
    const hits = await receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      const updates = mine.filter((h) => typeOf(h) === "checkout.updated").length;
      return expected.every((t) => mine.some((h) => typeOf(h) === t)) && updates >= 2 && mine;
    });
    for (const hit of hits) validated(hit, endpoint.secret);
    const byType = new Map(hits.map((h) => [typeOf(h), validated(h, endpoint.secret)]));
    expect(byType.get("order.paid")).toMatchObject({ data: { status: "paid", productId: product.id } });
    expect(byType.get("subscription.active")).toMatchObject({ data: { status: "active", productId: product.id } });
    expect(byType.get("benefit_grant.created")).toMatchObject({ data: { benefitId: benefit.id } });
    // the state is computed when the event is fanned out: it holds what the purchase created
    expect(byType.get("customer.state_changed")).toMatchObject({
      data: {
        email: checkout.customerEmail ?? expect.any(String),
        activeSubscriptions: [expect.objectContaining({ productId: product.id, status: "active" })],
        grantedBenefits: [expect.objectContaining({ benefitId: benefit.id })],
      },
    });
    const updates = hits.filter((h) => typeOf(h) === "checkout.updated").map((h) => JSON.parse(h.body) as { data: { status: string } });
    expect(updates.map((e) => e.data.status).sort()).toEqual(["confirmed", "succeeded"]);
  });

  it("formats discord and slack messages (still signed)", async () => {
    const s = await createSeller(server, "chat");
    const discordPath = freshPath("discord");
    const slackPath = freshPath("slack");
    const discord = await endpointFor(s, discordPath, ["product.created"], "discord");
    await endpointFor(s, slackPath, ["product.created"], "slack");
    await s.sdk.products.create({ name: "Chatty product", prices: [{ amountType: "free" }] });
    const [d] = await receiver.until((all) => all.some((h) => h.path === discordPath) && all.filter((h) => h.path === discordPath));
    const [sl] = await receiver.until((all) => all.some((h) => h.path === slackPath) && all.filter((h) => h.path === slackPath));
    expect(JSON.parse(d!.body)).toMatchObject({ embeds: [{ title: "product.created", fields: expect.arrayContaining([{ name: "Name", value: "Chatty product", inline: true }]) }] });
    expect(JSON.parse(sl!.body)).toMatchObject({ text: "product.created" });
    const id = d!.headers["webhook-id"]!;
    const ts = d!.headers["webhook-timestamp"]!;
    const sig = createHmac("sha256", Buffer.from(discord.secret, "utf8")).update(`${id}.${ts}.${d!.body}`).digest("base64");
    expect(d!.headers["webhook-signature"]!.split(" ")).toContain(`v1,${sig}`);
  });

  it("retries with backoff until the endpoint answers, with the same webhook-id", async () => {
    const s = await createSeller(server, "retry");
    const path = freshPath("retry");
    receiver.answer(path, { status: 500, body: "boom ".repeat(1000) }, 503);
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Retried benefit", properties: {} });

    const eventRow = async () => (await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id)))[0];
    const afterFirst = await eventually(async () => {
      const e = await eventRow();
      return e?.attempts === 1 && e.lockedBy === null && e;
    });
    expect(afterFirst).toMatchObject({ succeeded: false, lastHttpCode: 500 });
    const firstDelay = afterFirst.nextAttemptAt!.getTime() - afterFirst.modifiedAt!.getTime();
    expect(firstDelay).toBeGreaterThan(15_000 * 0.9 - 1000);
    expect(firstDelay).toBeLessThan(15_000 * 1.1 + 1000);

    // move the clock instead of waiting
    const due = async () => {
      await db().update(webhookEvent).set({ nextAttemptAt: sql`now() - interval '1 second'` }).where(eq(webhookEvent.id, afterFirst.id));
      server.worker.wake();
    };
    await due();
    const afterSecond = await eventually(async () => {
      const e = await eventRow();
      return e?.attempts === 2 && e.lockedBy === null && e;
    });
    expect(afterSecond.lastHttpCode).toBe(503);
    const secondDelay = afterSecond.nextAttemptAt!.getTime() - afterSecond.modifiedAt!.getTime();
    expect(secondDelay).toBeGreaterThan(120_000 * 0.9 - 1000);
    expect(secondDelay).toBeLessThan(120_000 * 1.1 + 1000);
    await due();
    const done = await eventually(async () => {
      const e = await eventRow();
      return e?.attempts === 3 && e.lockedBy === null && e;
    });
    expect(done).toMatchObject({ succeeded: true, lastHttpCode: 200, nextAttemptAt: null });

    const hits = receiver.at(path);
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers["webhook-id"]))).toEqual(new Set([afterFirst.id]));
    for (const h of hits) validated(h, endpoint.secret);

    const log = await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id });
    const items = [...log.result.items].reverse();
    expect(items.map((d) => [d.succeeded, d.httpCode])).toEqual([[false, 500], [false, 503], [true, 200]]);
    // the body is kept up to 2 KB
    expect(items[0]!.response).toHaveLength(2048);
    const raw = await rawRequest(server.url, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&succeeded=false`);
    expect((raw.body.items as Array<{ attempt: number; error: string }>).map((d) => [d.attempt, d.error])).toEqual([[2, "HTTP 503"], [1, "HTTP 500"]]);
  });

  it("records an unreachable endpoint's error as the response", async () => {
    const s = await createSeller(server, "unreachable");
    const dead = new Receiver();
    const url = await dead.start();
    await dead.stop();
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${url}/gone-away`, format: "raw", events: ["benefit.created"] });
    await s.sdk.benefits.create({ type: "custom", description: "Nobody listens", properties: {} });
    const d = await eventually(async () => (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items[0]);
    expect(d).toMatchObject({ succeeded: false, httpCode: null });
    expect(d.response).toMatch(/ECONNREFUSED/);
  });

  it("disables an endpoint that answers 410 Gone and tells the owners", async () => {
    const s = await createSeller(server, "gone");
    const path = freshPath("gone");
    receiver.answer(path, 410);
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Gone benefit", properties: {} });
    await eventually(async () => !(await s.sdk.webhooks.getWebhookEndpoint({ id: endpoint.id })).enabled);
    const mail = await server.mailbox.waitFor(s.user.email, /Webhook endpoint disabled/);
    expect(mail.text).toContain("410 Gone");
    expect(mail.text).toContain(endpoint.id);
    const [event] = await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
    expect(event).toMatchObject({ attempts: 1, succeeded: false, lastHttpCode: 410, nextAttemptAt: null });
    // nothing more goes there
    await s.sdk.benefits.create({ type: "custom", description: "Not sent", properties: {} });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at(path)).toHaveLength(1);
    await expect(s.sdk.webhooks.redeliverWebhookEvent({ id: event!.id })).rejects.toMatchObject({ statusCode: 422 });
  });

  it("disables an endpoint after 5 events in a row used up their attempts, and tells the owners", async () => {
    const s = await createSeller(server, "failing");
    const path = freshPath("failing");
    receiver.answer(path, ...new Array<number>(20).fill(500));
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    for (let i = 0; i < 5; i++) await s.sdk.benefits.create({ type: "custom", description: `Failing ${i}`, properties: {} });
    const events = await eventually(async () => {
      const rows = await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return rows.length === 5 && rows.every((r) => r.attempts === 1 && r.lockedBy === null) && rows;
    });
    // four events reach their last attempt: the endpoint stays enabled
    const lastAttempt = async (ids: string[]) => {
      for (const id of ids) {
        await db().update(webhookEvent).set({ attempts: 9, nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, id));
      }
      server.worker.wake();
    };
    await lastAttempt(events.slice(0, 4).map((e) => e.id));
    await eventually(async () => {
      const rows = await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return rows.filter((r) => r.attempts === 10 && r.lockedBy === null).length === 4;
    });
    const [mid] = await db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id));
    expect(mid).toMatchObject({ enabled: true, failedEventsInRow: 4 });
    const finished = await db().select().from(webhookEvent).where(and(eq(webhookEvent.endpointId, endpoint.id), eq(webhookEvent.attempts, 10)));
    expect(finished.every((e) => e.nextAttemptAt === null && e.succeeded === false)).toBe(true);
    await lastAttempt([events[4]!.id]);
    await eventually(async () => !(await s.sdk.webhooks.getWebhookEndpoint({ id: endpoint.id })).enabled);
    const mail = await server.mailbox.waitFor(s.user.email, /Webhook endpoint disabled/);
    expect(mail.text).toContain("5 events in a row");
    // enabling it again restarts the count
    const enabled = await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: true } });
    expect(enabled.enabled).toBe(true);
    const [after] = await db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id));
    expect(after).toMatchObject({ failedEventsInRow: 0, disabledReason: null });
  });

  it("a success in between restarts the count of failed events", async () => {
    const s = await createSeller(server, "flaky");
    const path = freshPath("flaky");
    receiver.answer(path, 500, 500, 500);
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    for (let i = 0; i < 3; i++) await s.sdk.benefits.create({ type: "custom", description: `Flaky ${i}`, properties: {} });
    const rows = await eventually(async () => {
      const r = await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return r.length === 3 && r.every((e) => e.attempts === 1 && e.lockedBy === null) && r;
    });
    await db().update(webhookEvent).set({ attempts: 9, nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, rows[0]!.id));
    receiver.answer(path, 500);
    server.worker.wake();
    await eventually(async () => (await db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id)))[0]?.failedEventsInRow === 1);
    await db().update(webhookEvent).set({ nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, rows[1]!.id));
    server.worker.wake();
    await eventually(async () => (await db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id)))[0]?.failedEventsInRow === 0);
  });

  it("redelivers an event on request, with the same webhook-id", async () => {
    const s = await createSeller(server, "redeliver");
    const path = freshPath("redeliver");
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Twice", properties: {} });
    const [first] = await receiver.until((all) => all.some((h) => h.path === path) && all.filter((h) => h.path === path));
    const eventId = first!.headers["webhook-id"]!;
    await eventually(async () => (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items.length === 1);

    const res = await s.sdk.webhooks.redeliverWebhookEvent({ id: eventId });
    expect(res).toEqual({});
    const hits = await receiver.until((all) => all.filter((h) => h.path === path).length === 2 && all.filter((h) => h.path === path));
    expect(hits.map((h) => h.headers["webhook-id"])).toEqual([eventId, eventId]);
    expect(hits[1]!.body).toBe(hits[0]!.body);
    validated(hits[1]!, endpoint.secret);
    const log = await eventually(async () => {
      const items = (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items;
      return items.length === 2 && items;
    });
    expect(log.every((d) => d.webhookEvent.id === eventId && d.succeeded)).toBe(true);

    const raw = await rawRequest(server.url, s.token, "POST", `/v1/webhooks/events/${eventId}/redeliver`);
    expect(raw).toEqual({ status: 202, body: {} });
    await expect(other.sdk.webhooks.redeliverWebhookEvent({ id: eventId })).rejects.toMatchObject({ statusCode: 404 });
    await expect(s.sdk.webhooks.redeliverWebhookEvent({ id: crypto.randomUUID() })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("skips the pending events of an endpoint the seller disables", async () => {
    const s = await createSeller(server, "paused");
    const path = freshPath("paused");
    receiver.answer(path, 500);
    const endpoint = await endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Pending", properties: {} });
    const e = await eventually(async () => {
      const [row] = await db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return row?.attempts === 1 && row.lockedBy === null && row;
    });
    expect(e.nextAttemptAt).not.toBeNull();
    await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: false } });
    const [skipped] = await db().select().from(webhookEvent).where(eq(webhookEvent.id, e.id));
    expect(skipped).toMatchObject({ skipped: true, nextAttemptAt: null });
    await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: true } });
    await s.sdk.webhooks.redeliverWebhookEvent({ id: e.id });
    await receiver.until((all) => all.filter((h) => h.path === path).length === 2);
    const log = await eventually(async () => {
      const items = (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items;
      return items.length === 2 && items;
    });
    expect(log[0]!.webhookEvent).toMatchObject({ skipped: false, succeeded: true });
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
      `${receiver.url}/hook`,
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
    await strict.database.db.update(webhookEndpoint).set({ url: `${receiver.url}${path}` }).where(eq(webhookEndpoint.id, endpoint.id));
    await strictSeller.sdk.organizations.update({ id: strictSeller.organizationId, organizationUpdate: { name: "Sneaky org" } });
    const d = await eventually(async () => (await strictSeller.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items[0]);
    expect(d).toMatchObject({ succeeded: false, httpCode: null });
    expect(d.response).toMatch(/private or loopback/);
    expect(receiver.at(path)).toEqual([]);
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
    const res = await fetch(`${server.url}/api/auth/polar/webhooks`, {
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
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ "webhook-id": id, "webhook-timestamp": String(ts) }, 400, "Missing required headers"],
      [{ "webhook-timestamp": String(ts), "webhook-signature": good["webhook-signature"] }, 400, "Missing required headers"],
      [{}, 400, "Missing required headers"],
      [{ ...good, "webhook-timestamp": "soon" }, 400, "Invalid Signature Headers"],
      [{ ...good, "webhook-timestamp": String(ts - 301), "webhook-signature": sign(key, id, ts - 301, body) }, 401, "Message timestamp too old"],
      [{ ...good, "webhook-timestamp": String(ts + 301), "webhook-signature": sign(key, id, ts + 301, body) }, 401, "Message timestamp too new"],
      [{ ...good, "webhook-signature": sign(Buffer.from("other"), id, ts, body) }, 401, "No matching signature found"],
      [{ ...good, "webhook-signature": `v2,${good["webhook-signature"].slice(3)}` }, 401, "No matching signature found"],
      [{ ...good, "webhook-id": `${id}-other` }, 401, "No matching signature found"],
    ];
    for (const [headers, status, message] of cases) {
      const res = await post(headers, body);
      expect(res, JSON.stringify(headers)).toEqual({ status, body: { message, code: message.toUpperCase().replace(/ /g, "_") } });
    }
    // a body changed after signing
    expect((await post(good, body.replace("order.paid", "order.refunded"))).body.message).toBe("No matching signature found");
    // within the tolerance both ways
    for (const t of [ts - 299, ts + 299]) {
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
    const rows = await db().select().from(inboundWebhook).where(eq(inboundWebhook.webhookId, id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: "order.paid", timestamp: new Date(ts * 1000) });
  });

  it("refuses a verified body that is not a webhook payload", async () => {
    const id = `msg_std_${Date.now()}`;
    const ts = now();
    const res = await post({ "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": sign(key, id, ts, "not json") }, "not json");
    expect(res).toEqual({ status: 400, body: { message: "Invalid webhook payload", code: "INVALID_WEBHOOK_PAYLOAD" } });
    expect(await db().select().from(inboundWebhook).where(eq(inboundWebhook.webhookId, id))).toEqual([]);
  });
});

describe("delivery log rows", () => {
  it("are only written for attempts made", async () => {
    const rows = await db().select().from(webhookDelivery);
    expect(rows.every((r) => r.attempt >= 1 && r.durationMs >= 0)).toBe(true);
  });
});
