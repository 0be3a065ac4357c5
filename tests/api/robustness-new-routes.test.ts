// Hostile input to the /v1 routes added with refunds, the listen stream and organization.updated from
// better-auth: wrong types, nulls, huge or negative numbers, enormous strings, NUL characters, malformed ids,
// unknown enum values, arrays for objects, broken JSON, repeated query parameters, oversized metadata, garbage
// cursors. Every refusal is a 4xx in Polar's shapes ({"error","detail"} or 422 {"detail":[{loc,msg,type}]}),
// never a 5xx, and changes nothing: the objects read back the same and the outbox holds no new row. The
// subscription and customer routes: robustness-new-routes-subscriptions.test.ts.
import { randomUUID } from "node:crypto";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import { beforeAll, describe, expect, it } from "vitest";
import { type RawResponse } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { robustnessFixture, HUGE, NUL } from "./robustness-new-routes-fixtures.js";

const fx = robustnessFixture();

describe("POST /v1/refunds/", () => {
  let order: Order;
  const readOrder = async () => ({ order: await fx.seller.sdk.orders.get({ id: order.id }), refunds: (await fx.seller.sdk.refunds.list({ orderId: order.id })).result.items });
  const refund = (body: unknown) => () => fx.raw("POST", "/v1/refunds/", body);
  const valid = () => ({ order_id: order.id, reason: "customer_request", amount: 100 });

  beforeAll(async () => {
    order = await fx.buy(fx.oneTime);
  });

  it("refuses bad amounts, types, enums, strings and metadata, and refunds nothing", async () => {
    const base = valid();
    const manyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    await fx.refusesAll(
      [
        ["amount 1e30", refund({ ...base, amount: 1e30 })],
        ["amount 2^53", refund({ ...base, amount: 2 ** 53 })],
        ["amount 2^31", refund({ ...base, amount: 2 ** 31 })],
        ["amount negative", refund({ ...base, amount: -100 })],
        ["amount zero", refund({ ...base, amount: 0 })],
        ["amount float", refund({ ...base, amount: 10.5 })],
        ["amount string", refund({ ...base, amount: "100" })],
        ["amount null", refund({ ...base, amount: null })],
        ["amount array", refund({ ...base, amount: [100] })],
        ["amount object", refund({ ...base, amount: { value: 100 } })],
        ["amount missing", refund({ order_id: order.id, reason: "customer_request" })],
        ["amount above the order", refund({ ...base, amount: 2501 })],
        ["reason unknown", refund({ ...base, reason: "because" })],
        ["reason null", refund({ ...base, reason: null })],
        ["reason NUL", refund({ ...base, reason: NUL })],
        ["order_id null", refund({ ...base, order_id: null })],
        ["order_id number", refund({ ...base, order_id: 12 })],
        ["order_id not a uuid", refund({ ...base, order_id: "order-1" })],
        ["order_id NUL", refund({ ...base, order_id: `${order.id}\u0000` })],
        ["order_id unknown", refund({ ...base, order_id: randomUUID() })],
        ["comment NUL", refund({ ...base, comment: NUL })],
        ["comment enormous", refund({ ...base, comment: HUGE })],
        ["comment number", refund({ ...base, comment: 5 })],
        ["revoke_benefits string", refund({ ...base, revoke_benefits: "yes" })],
        ["metadata 51 keys", refund({ ...base, metadata: manyKeys })],
        ["metadata nested", refund({ ...base, metadata: { a: { b: 1 } } })],
        ["metadata array value", refund({ ...base, metadata: { a: [1] } })],
        ["metadata null value", refund({ ...base, metadata: { a: null } })],
        ["metadata array", refund({ ...base, metadata: ["a"] })],
        ["metadata NUL value", refund({ ...base, metadata: { a: NUL } })],
        ["metadata NUL key", refund({ ...base, metadata: { [NUL]: "x" } })],
        ["metadata long key", refund({ ...base, metadata: { ["k".repeat(41)]: "x" } })],
        ["metadata empty key", refund({ ...base, metadata: { "": "x" } })],
        ["metadata long value", refund({ ...base, metadata: { k: "v".repeat(501) } })],
        ["metadata number 1e400 (Infinity as JSON)", () => fx.raw("POST", "/v1/refunds/", `{"order_id":"${order.id}","reason":"other","amount":100,"metadata":{"k":1e400}}`)],
        ["amount 1e400", () => fx.raw("POST", "/v1/refunds/", `{"order_id":"${order.id}","reason":"other","amount":1e400}`)],
        ["body array", refund([base])],
        ["body null", refund(null)],
        ["body string", refund("\"refund\"")],
        ["body number", refund(42)],
        ["empty body with content-type json", refund("")],
        ["non-JSON body", refund("order_id=1&amount=2")],
        ["truncated JSON", refund(`{"order_id":"${order.id}",`)],
        ["empty object", refund({})],
        ["__proto__ key", refund(`{"__proto__":{"amount":100},"order_id":"${order.id}","reason":"other"}`)],
        ["another organization's order", () => fx.raw("POST", "/v1/refunds/", base, fx.other.token)],
      ],
      readOrder,
    );
  });

  it("refuses an order of another organization, a free order and an unpaid one, changing nothing", async () => {
    const foreign = await fx.buy(await createProduct(fx.other, "fixed"), fx.other);
    const freeOrder = await fx.buy(fx.free);
    expect(freeOrder.totalAmount).toBe(0);
    const readBoth = async () => ({ mine: await readOrder(), free: await fx.seller.sdk.orders.get({ id: freeOrder.id }), foreign: await fx.other.sdk.orders.get({ id: foreign.id }) });
    const otherRows = await fx.outboxRows(fx.other.organizationId);
    await fx.refusesAll(
      [
        ["another organization's order", refund({ order_id: foreign.id, reason: "other", amount: 100 })],
        ["another organization's order, uppercase", refund({ order_id: foreign.id.toUpperCase(), reason: "other", amount: 100 })],
        ["a free order, 1", refund({ order_id: freeOrder.id, reason: "other", amount: 1 })],
        ["a free order, 0", refund({ order_id: freeOrder.id, reason: "other", amount: 0 })],
        ["a free order, revoking", refund({ order_id: freeOrder.id, reason: "other", amount: 1, revoke_benefits: true })],
      ],
      readBoth,
    );
    expect(await fx.outboxRows(fx.other.organizationId)).toBe(otherRows);
  });

  it("takes an uppercase order id as the same order", async () => {
    const res = await fx.raw("POST", "/v1/refunds/", { ...valid(), order_id: order.id.toUpperCase(), amount: 1 });
    expect(res.status).toBe(201);
    expect(res.body.order_id).toBe(order.id);
  });
});

describe("GET /v1/refunds/", () => {
  it("refuses malformed filters, sorting and pagination with 422", async () => {
    const list = (q: string) => () => fx.raw("GET", `/v1/refunds/?${q}`);
    await fx.refusesAll(
      [
        ["order_id garbage", list("order_id=nope")],
        ["order_id NUL", list(`order_id=${encodeURIComponent(`${randomUUID()}\u0000`)}`)],
        ["one good one bad order_id", list(`order_id=${randomUUID()}&order_id=x`)],
        ["succeeded garbage", list("succeeded=maybe")],
        ["succeeded repeated", list("succeeded=true&succeeded=false")],
        ["sorting unknown", list("sorting=price")],
        ["sorting NUL", list("sorting=%00")],
        ["page 0", list("page=0")],
        ["page negative", list("page=-1")],
        ["page huge", list("page=99999999999999999999")],
        ["page float", list("page=1.5")],
        ["page repeated", list("page=1&page=2")],
        ["limit 1000", list("limit=1000")],
        ["limit text", list("limit=ten")],
        ["external_customer_id enormous", list(`external_customer_id=${"e".repeat(300)}`)],
        ["external_customer_id NUL", list("external_customer_id=%00")],
        ["organization_id garbage", list("organization_id=x")],
      ],
      async () => null,
    );
  });

  it("answers a page for many repeated filters", async () => {
    const ids = Array.from({ length: 200 }, () => `order_id=${randomUUID()}`).join("&");
    const res = await fx.raw("GET", `/v1/refunds/?${ids}`);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });
});

describe("GET /v1/cli/listen", () => {
  const listen = async (query: string, headers: Record<string, string> = {}): Promise<RawResponse> => {
    const res = await fetch(`${fx.server.url}/v1/cli/listen?${query}`, { headers: { authorization: `Bearer ${fx.seller.token}`, ...headers } });
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { text };
    }
    return { status: res.status, body };
  };
  const id = `1-1-${randomUUID()}`;

  it("refuses garbage filters and cursors with 422", async () => {
    await fx.refusesAll(
      [
        ["an unknown event type", () => listen("events=order.exploded")],
        ["an event type with NUL", () => listen("events=order.created%00")],
        ["1,000 entries with one unknown", () => listen(`events=${Array.from({ length: 999 }, () => "order.paid").join(",")}&events=nope`)],
        ["a comma list with an unknown", () => listen("events=order.created,,nope")],
        ["follow garbage", () => listen("follow=perhaps")],
        ["follow repeated", () => listen("follow=false&follow=true")],
        ["last_event_id repeated", () => listen(`last_event_id=${id}&last_event_id=${id}`)],
        ["last_event_id very long", () => listen(`last_event_id=${"9".repeat(10_000)}`)],
        ["last_event_id negative", () => listen(`last_event_id=-1-1-${randomUUID()}`)],
        ["last_event_id non-numeric", () => listen(`last_event_id=a-b-${randomUUID()}`)],
        ["last_event_id 2^63", () => listen(`last_event_id=9223372036854775808-1-${randomUUID()}`)],
        ["last_event_id from the future", () => listen(`last_event_id=9223372036854775807-1-${randomUUID()}`)],
        ["last_event_id no uuid", () => listen("last_event_id=1-1-x")],
        ["last_event_id NUL", () => listen(`last_event_id=1-1-${randomUUID()}%00`)],
        ["last_event_id as an object", () => listen("last_event_id[a]=1")],
        ["Last-Event-ID header garbage", () => listen("", { "last-event-id": "12" })],
        ["Last-Event-ID header very long", () => listen("", { "last-event-id": "1".repeat(8000) })],
        ["Last-Event-ID header negative", () => listen("", { "last-event-id": `-5-1-${randomUUID()}` })],
        ["events as an object", () => listen("events[a]=order.created")],
      ],
      async () => null,
    );
  });

  it("streams for 1,000 known entries (follow=false)", async () => {
    const res = await fetch(`${fx.server.url}/v1/cli/listen?follow=false&events=${Array.from({ length: 1000 }, () => "order.paid").join(",")}`, {
      headers: { authorization: `Bearer ${fx.seller.token}` },
    });
    expect(res.status).toBe(200);
    await res.text();
  });
});

describe("POST /api/auth/organization/update", () => {
  it("refuses hostile data with a 4xx and records no organization.updated", async () => {
    const update = (data: unknown) => () =>
      fx.seller.client.post("/api/auth/organization/update", { organizationId: fx.seller.organizationId, data }).then((r) => ({ status: r.status, body: { error: "auth", detail: r.text } }));
    const before = await fx.outboxRows();
    const read = () => fx.seller.sdk.organizations.get({ id: fx.seller.organizationId });
    const org = await read();
    for (const [what, send] of [
      ["name NUL", update({ name: NUL })],
      ["slug NUL", update({ slug: NUL })],
      ["logo NUL", update({ logo: `https://example.com/${NUL}` })],
      ["name enormous", update({ name: HUGE })],
      ["name number", update({ name: 5 })],
      ["data array", update([{ name: "x" }])],
      ["data null", update(null)],
    ] as Array<[string, () => Promise<RawResponse>]>) {
      const res = await send();
      expect(res.status, `${what} → ${res.status} ${String(res.body.detail).slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${what} → ${res.status} ${String(res.body.detail).slice(0, 200)}`).toBeLessThan(500);
    }
    expect(await read()).toEqual(org);
    expect(await fx.outboxRows()).toBe(before);
  });
});
