// Webhook deliveries end to end: to a receiver on loopback checked with each SDK's validateEvent, the retry
// schedule, 410 and repeated failures disabling an endpoint (with the owners' email), redelivery, and the
// pending events of a disabled endpoint.
import { createHmac } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { describe, expect, it } from "vitest";
import { webhookEndpoint, webhookEvent } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { eventually, Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller } from "../helpers/seller.js";
import { webhookFixture, freshPath } from "./webhooks-fixtures.js";

const fx = webhookFixture();

/** Both SDKs accept the hit (signature, timestamp, payload model); returns 0.47.1's parse. */
function validated(hit: Hit, secret: string) {
  const parsed = validateEvent(hit.body, hit.headers, secret);
  validateEvent049(hit.body, hit.headers, secret);
  return parsed;
}

const typeOf = (h: Hit) => (JSON.parse(h.body) as { type: string }).type;

describe("delivery", () => {
  it("delivers every event the catalog, customers and the organization cause, signed for both SDKs", async () => {
    const s = await createSeller(fx.server, "events");
    const path = freshPath("all");
    const endpoint = await fx.endpointFor(s, path);
    const narrowPath = freshPath("narrow");
    const narrow = await fx.endpointFor(s, narrowPath, ["customer.deleted"]);

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
    const hits = await fx.receiver.until((all) => {
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
    const narrowHits = await fx.receiver.until((all) => all.filter((h) => h.path === narrowPath).length >= 1 && all.filter((h) => h.path === narrowPath));
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
    const rawLog = await rawRequest(fx.server.url, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&limit=1`);
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
    expect((await fx.other.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items).toEqual([]);
  });

  it("delivers what a purchase causes (checkout, customer, subscription, order, grant), signed for both SDKs", async () => {
    const s = await createSeller(fx.server, "purchase");
    const path = freshPath("purchase");
    const endpoint = await fx.endpointFor(s, path);
    const product = await createProduct(s, "monthly");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Purchased benefit", properties: {} });
    await s.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout);

    const expected = [
      "checkout.created", "checkout.updated", "customer.created", "subscription.created", "subscription.active",
      "order.created", "order.paid", "benefit_grant.created", "customer.state_changed",
    ];
    const hits = await fx.receiver.until((all) => {
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
    const s = await createSeller(fx.server, "chat");
    const discordPath = freshPath("discord");
    const slackPath = freshPath("slack");
    const discord = await fx.endpointFor(s, discordPath, ["product.created"], "discord");
    await fx.endpointFor(s, slackPath, ["product.created"], "slack");
    await s.sdk.products.create({ name: "Chatty product", prices: [{ amountType: "free" }] });
    const [d] = await fx.receiver.until((all) => all.some((h) => h.path === discordPath) && all.filter((h) => h.path === discordPath));
    const [sl] = await fx.receiver.until((all) => all.some((h) => h.path === slackPath) && all.filter((h) => h.path === slackPath));
    expect(JSON.parse(d!.body)).toMatchObject({ embeds: [{ title: "product.created", fields: expect.arrayContaining([{ name: "Name", value: "Chatty product", inline: true }]) }] });
    expect(JSON.parse(sl!.body)).toMatchObject({ text: "product.created" });
    const id = d!.headers["webhook-id"]!;
    const ts = d!.headers["webhook-timestamp"]!;
    const sig = createHmac("sha256", Buffer.from(discord.secret, "utf8")).update(`${id}.${ts}.${d!.body}`).digest("base64");
    expect(d!.headers["webhook-signature"]!.split(" ")).toContain(`v1,${sig}`);
  });

  it("retries with backoff until the endpoint answers, with the same webhook-id", async () => {
    const s = await createSeller(fx.server, "retry");
    const path = freshPath("retry");
    fx.receiver.answer(path, { status: 500, body: "boom ".repeat(1000) }, 503);
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Retried benefit", properties: {} });

    const eventRow = async () => (await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id)))[0];
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
      await fx.db().update(webhookEvent).set({ nextAttemptAt: sql`now() - interval '1 second'` }).where(eq(webhookEvent.id, afterFirst.id));
      fx.server.worker.wake();
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

    const hits = fx.receiver.at(path);
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers["webhook-id"]))).toEqual(new Set([afterFirst.id]));
    for (const h of hits) validated(h, endpoint.secret);

    const log = await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id });
    const items = [...log.result.items].reverse();
    expect(items.map((d) => [d.succeeded, d.httpCode])).toEqual([[false, 500], [false, 503], [true, 200]]);
    // the body is kept up to 2 KB
    expect(items[0]!.response).toHaveLength(2048);
    const raw = await rawRequest(fx.server.url, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&succeeded=false`);
    expect((raw.body.items as Array<{ attempt: number; error: string }>).map((d) => [d.attempt, d.error])).toEqual([[2, "HTTP 503"], [1, "HTTP 500"]]);
  });

  it("records an unreachable endpoint's error as the response", async () => {
    const s = await createSeller(fx.server, "unreachable");
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
    const s = await createSeller(fx.server, "gone");
    const path = freshPath("gone");
    fx.receiver.answer(path, 410);
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Gone benefit", properties: {} });
    await eventually(async () => !(await s.sdk.webhooks.getWebhookEndpoint({ id: endpoint.id })).enabled);
    const mail = await fx.server.mailbox.waitFor(s.user.email, /Webhook endpoint disabled/);
    expect(mail.text).toContain("410 Gone");
    expect(mail.text).toContain(endpoint.id);
    const [event] = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
    expect(event).toMatchObject({ attempts: 1, succeeded: false, lastHttpCode: 410, nextAttemptAt: null });
    // nothing more goes there
    await s.sdk.benefits.create({ type: "custom", description: "Not sent", properties: {} });
    await new Promise((r) => setTimeout(r, 500));
    expect(fx.receiver.at(path)).toHaveLength(1);
    await expect(s.sdk.webhooks.redeliverWebhookEvent({ id: event!.id })).rejects.toMatchObject({ statusCode: 422 });
  });

  it("disables an endpoint after 5 events in a row used up their attempts, and tells the owners", async () => {
    const s = await createSeller(fx.server, "failing");
    const path = freshPath("failing");
    fx.receiver.answer(path, ...new Array<number>(20).fill(500));
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    for (let i = 0; i < 5; i++) await s.sdk.benefits.create({ type: "custom", description: `Failing ${i}`, properties: {} });
    const events = await eventually(async () => {
      const rows = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return rows.length === 5 && rows.every((r) => r.attempts === 1 && r.lockedBy === null) && rows;
    });
    // four events reach their last attempt: the endpoint stays enabled
    const lastAttempt = async (ids: string[]) => {
      for (const id of ids) {
        await fx.db().update(webhookEvent).set({ attempts: 9, nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, id));
      }
      fx.server.worker.wake();
    };
    await lastAttempt(events.slice(0, 4).map((e) => e.id));
    await eventually(async () => {
      const rows = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return rows.filter((r) => r.attempts === 10 && r.lockedBy === null).length === 4;
    });
    const [mid] = await fx.db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id));
    expect(mid).toMatchObject({ enabled: true, failedEventsInRow: 4 });
    const finished = await fx.db().select().from(webhookEvent).where(and(eq(webhookEvent.endpointId, endpoint.id), eq(webhookEvent.attempts, 10)));
    expect(finished.every((e) => e.nextAttemptAt === null && e.succeeded === false)).toBe(true);
    await lastAttempt([events[4]!.id]);
    await eventually(async () => !(await s.sdk.webhooks.getWebhookEndpoint({ id: endpoint.id })).enabled);
    const mail = await fx.server.mailbox.waitFor(s.user.email, /Webhook endpoint disabled/);
    expect(mail.text).toContain("5 events in a row");
    // enabling it again restarts the count
    const enabled = await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: true } });
    expect(enabled.enabled).toBe(true);
    const [after] = await fx.db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id));
    expect(after).toMatchObject({ failedEventsInRow: 0, disabledReason: null });
  });

  it("a success in between restarts the count of failed events", async () => {
    const s = await createSeller(fx.server, "flaky");
    const path = freshPath("flaky");
    fx.receiver.answer(path, 500, 500, 500);
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    for (let i = 0; i < 3; i++) await s.sdk.benefits.create({ type: "custom", description: `Flaky ${i}`, properties: {} });
    const rows = await eventually(async () => {
      const r = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return r.length === 3 && r.every((e) => e.attempts === 1 && e.lockedBy === null) && r;
    });
    await fx.db().update(webhookEvent).set({ attempts: 9, nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, rows[0]!.id));
    fx.receiver.answer(path, 500);
    fx.server.worker.wake();
    await eventually(async () => (await fx.db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id)))[0]?.failedEventsInRow === 1);
    await fx.db().update(webhookEvent).set({ nextAttemptAt: sql`now()` }).where(eq(webhookEvent.id, rows[1]!.id));
    fx.server.worker.wake();
    await eventually(async () => (await fx.db().select().from(webhookEndpoint).where(eq(webhookEndpoint.id, endpoint.id)))[0]?.failedEventsInRow === 0);
  });

  it("redelivers an event on request, with the same webhook-id", async () => {
    const s = await createSeller(fx.server, "redeliver");
    const path = freshPath("redeliver");
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Twice", properties: {} });
    const [first] = await fx.receiver.until((all) => all.some((h) => h.path === path) && all.filter((h) => h.path === path));
    const eventId = first!.headers["webhook-id"]!;
    await eventually(async () => (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items.length === 1);

    const res = await s.sdk.webhooks.redeliverWebhookEvent({ id: eventId });
    expect(res).toEqual({});
    const hits = await fx.receiver.until((all) => all.filter((h) => h.path === path).length === 2 && all.filter((h) => h.path === path));
    expect(hits.map((h) => h.headers["webhook-id"])).toEqual([eventId, eventId]);
    expect(hits[1]!.body).toBe(hits[0]!.body);
    validated(hits[1]!, endpoint.secret);
    const log = await eventually(async () => {
      const items = (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items;
      return items.length === 2 && items;
    });
    expect(log.every((d) => d.webhookEvent.id === eventId && d.succeeded)).toBe(true);

    const raw = await rawRequest(fx.server.url, s.token, "POST", `/v1/webhooks/events/${eventId}/redeliver`);
    expect(raw).toEqual({ status: 202, body: {} });
    await expect(fx.other.sdk.webhooks.redeliverWebhookEvent({ id: eventId })).rejects.toMatchObject({ statusCode: 404 });
    await expect(s.sdk.webhooks.redeliverWebhookEvent({ id: crypto.randomUUID() })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("skips the pending events of an endpoint the seller disables", async () => {
    const s = await createSeller(fx.server, "paused");
    const path = freshPath("paused");
    fx.receiver.answer(path, 500);
    const endpoint = await fx.endpointFor(s, path, ["benefit.created"]);
    await s.sdk.benefits.create({ type: "custom", description: "Pending", properties: {} });
    const e = await eventually(async () => {
      const [row] = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpoint.id));
      return row?.attempts === 1 && row.lockedBy === null && row;
    });
    expect(e.nextAttemptAt).not.toBeNull();
    await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: false } });
    const [skipped] = await fx.db().select().from(webhookEvent).where(eq(webhookEvent.id, e.id));
    expect(skipped).toMatchObject({ skipped: true, nextAttemptAt: null });
    await s.sdk.webhooks.updateWebhookEndpoint({ id: endpoint.id, webhookEndpointUpdate: { enabled: true } });
    await s.sdk.webhooks.redeliverWebhookEvent({ id: e.id });
    await fx.receiver.until((all) => all.filter((h) => h.path === path).length === 2);
    const log = await eventually(async () => {
      const items = (await s.sdk.webhooks.listWebhookDeliveries({ endpointId: endpoint.id })).result.items;
      return items.length === 2 && items;
    });
    expect(log[0]!.webhookEvent).toMatchObject({ skipped: false, succeeded: true });
  });
});
