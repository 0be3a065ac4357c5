// Hostile input to the /v1 routes added with refunds, the seller's subscription changes, renewals, the listen
// stream, the cascading customer delete and organization.updated from better-auth: wrong types, nulls, huge or
// negative numbers, enormous strings, NUL characters, malformed and uppercase ids, unknown enum values, arrays
// for objects, broken JSON, repeated query parameters, oversized metadata, garbage cursors, several
// subscription variants at once and concurrent changes. Every refusal is a 4xx in Polar's shapes
// ({"error","detail"} or 422 {"detail":[{loc,msg,type}]}), never a 5xx, and changes nothing: the objects
// read back the same and the outbox holds no new row.
import { randomUUID } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { rawRequest, type RawResponse } from "../helpers/api.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let oneTime: Product;
let monthly: Product;
let yearly: Product;
let free: Product;

const db = () => server.database.db;
const raw = (method: string, path: string, body?: unknown, token = seller.token) => rawRequest(server.url, token, method, path, body);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "robust");
  other = await createSeller(server, "robust-other");
  [oneTime, monthly, yearly, free] = await Promise.all([
    createProduct(seller, "fixed"),
    createProduct(seller, "monthly"),
    seller.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 9900, priceCurrency: "usd" }] }),
    createProduct(seller, "free"),
  ]);
});
afterAll(async () => {
  await server?.close();
});

async function buy(product: Product, s: Seller = seller): Promise<Order> {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, {}, product.prices.some((p) => "priceAmount" in p && p.priceAmount === 0) ? null : undefined);
  const [o] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!o) throw new Error("no order");
  return o;
}

async function subscribe(product: Product = monthly): Promise<Subscription> {
  const o = await buy(product);
  if (!o.subscriptionId) throw new Error("no subscription");
  return seller.sdk.subscriptions.get({ id: o.subscriptionId });
}

const outboxRows = async (organizationId = seller.organizationId) =>
  (await db().select({ n: count() }).from(outbox).where(eq(outbox.organizationId, organizationId)))[0]!.n;

/** A refusal in one of Polar's shapes: 4xx, `{error, detail}` or 422 `{detail: [{loc, msg, type}]}`. */
function expectRefused(res: RawResponse, what: string): void {
  const context = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  expect(res.status, context).toBeGreaterThanOrEqual(400);
  expect(res.status, context).toBeLessThan(500);
  if (res.status === 422) {
    const detail = res.body.detail as unknown;
    expect(Array.isArray(detail), context).toBe(true);
    for (const issue of detail as Array<Record<string, unknown>>) {
      expect(Array.isArray(issue.loc), context).toBe(true);
      expect(typeof issue.msg, context).toBe("string");
      expect(typeof issue.type, context).toBe("string");
    }
  } else {
    expect(typeof res.body.error, context).toBe("string");
    expect(typeof res.body.detail, context).toBe("string");
  }
}

/** Sends each request, expects each refused, and that `read` and the organization's outbox are unchanged. */
async function refusesAll(cases: Array<[string, () => Promise<RawResponse>]>, read: () => Promise<unknown>): Promise<void> {
  const before = await read();
  const rows = await outboxRows();
  for (const [what, send] of cases) expectRefused(await send(), what);
  expect(await read()).toEqual(before);
  expect(await outboxRows()).toBe(rows);
}

const HUGE = "x".repeat(1_100_000);
const NUL = "a\u0000b";
const mangledIds = (id: string): Array<[string, string]> => [
  ["not a uuid", "not-a-uuid"],
  ["a NUL in the id", encodeURIComponent(`${id.slice(0, 8)}\u0000${id.slice(9)}`)],
  ["an encoded NUL", "%00"],
  ["a uuid with a NUL after it", encodeURIComponent(`${id}\u0000`)],
  ["a very long id", "a".repeat(5000)],
  ["an unknown uuid", randomUUID()],
  ["a uuid with braces", `%7B${id}%7D`],
  ["a malformed percent-encoding", "%E0%A4%A"],
];

describe("POST /v1/refunds/", () => {
  let order: Order;
  const readOrder = async () => ({ order: await seller.sdk.orders.get({ id: order.id }), refunds: (await seller.sdk.refunds.list({ orderId: order.id })).result.items });
  const refund = (body: unknown) => () => raw("POST", "/v1/refunds/", body);
  const valid = () => ({ order_id: order.id, reason: "customer_request", amount: 100 });

  beforeAll(async () => {
    order = await buy(oneTime);
  });

  it("refuses bad amounts, types, enums, strings and metadata, and refunds nothing", async () => {
    const base = valid();
    const manyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    await refusesAll(
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
        ["metadata number 1e400 (Infinity as JSON)", () => raw("POST", "/v1/refunds/", `{"order_id":"${order.id}","reason":"other","amount":100,"metadata":{"k":1e400}}`)],
        ["amount 1e400", () => raw("POST", "/v1/refunds/", `{"order_id":"${order.id}","reason":"other","amount":1e400}`)],
        ["body array", refund([base])],
        ["body null", refund(null)],
        ["body string", refund("\"refund\"")],
        ["body number", refund(42)],
        ["empty body with content-type json", refund("")],
        ["non-JSON body", refund("order_id=1&amount=2")],
        ["truncated JSON", refund(`{"order_id":"${order.id}",`)],
        ["empty object", refund({})],
        ["__proto__ key", refund(`{"__proto__":{"amount":100},"order_id":"${order.id}","reason":"other"}`)],
        ["another organization's order", () => raw("POST", "/v1/refunds/", base, other.token)],
      ],
      readOrder,
    );
  });

  it("refuses an order of another organization, a free order and an unpaid one, changing nothing", async () => {
    const foreign = await buy(await createProduct(other, "fixed"), other);
    const freeOrder = await buy(free);
    expect(freeOrder.totalAmount).toBe(0);
    const readBoth = async () => ({ mine: await readOrder(), free: await seller.sdk.orders.get({ id: freeOrder.id }), foreign: await other.sdk.orders.get({ id: foreign.id }) });
    const otherRows = await outboxRows(other.organizationId);
    await refusesAll(
      [
        ["another organization's order", refund({ order_id: foreign.id, reason: "other", amount: 100 })],
        ["another organization's order, uppercase", refund({ order_id: foreign.id.toUpperCase(), reason: "other", amount: 100 })],
        ["a free order, 1", refund({ order_id: freeOrder.id, reason: "other", amount: 1 })],
        ["a free order, 0", refund({ order_id: freeOrder.id, reason: "other", amount: 0 })],
        ["a free order, revoking", refund({ order_id: freeOrder.id, reason: "other", amount: 1, revoke_benefits: true })],
      ],
      readBoth,
    );
    expect(await outboxRows(other.organizationId)).toBe(otherRows);
  });

  it("takes an uppercase order id as the same order", async () => {
    const res = await raw("POST", "/v1/refunds/", { ...valid(), order_id: order.id.toUpperCase(), amount: 1 });
    expect(res.status).toBe(201);
    expect(res.body.order_id).toBe(order.id);
  });
});

describe("GET /v1/refunds/", () => {
  it("refuses malformed filters, sorting and pagination with 422", async () => {
    const list = (q: string) => () => raw("GET", `/v1/refunds/?${q}`);
    await refusesAll(
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
    const res = await raw("GET", `/v1/refunds/?${ids}`);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });
});

describe("PATCH and DELETE /v1/subscriptions/{id}", () => {
  let sub: Subscription;
  const read = async () => seller.sdk.subscriptions.get({ id: sub.id });
  const patch = (body: unknown, id = sub.id) => () => raw("PATCH", `/v1/subscriptions/${id}`, body);

  beforeAll(async () => {
    sub = await subscribe();
  });

  it("refuses malformed bodies and changes nothing", async () => {
    await refusesAll(
      [
        ["empty object", patch({})],
        ["body null", patch(null)],
        ["body array", patch([{ revoke: true }])],
        ["body string", patch("\"revoke\"")],
        ["empty body", patch("")],
        ["non-JSON", patch("revoke=true")],
        ["revoke false", patch({ revoke: false })],
        ["revoke string", patch({ revoke: "true" })],
        ["revoke null", patch({ revoke: null })],
        ["cancel string", patch({ cancel_at_period_end: "yes" })],
        ["cancel null", patch({ cancel_at_period_end: null })],
        ["cancel reason unknown", patch({ cancel_at_period_end: true, customer_cancellation_reason: "bored" })],
        ["cancel comment NUL", patch({ cancel_at_period_end: true, customer_cancellation_comment: NUL })],
        ["cancel comment enormous", patch({ cancel_at_period_end: true, customer_cancellation_comment: HUGE })],
        ["product_id garbage", patch({ product_id: "p" })],
        ["product_id unknown", patch({ product_id: randomUUID() })],
        ["product_id one-time", patch({ product_id: oneTime.id })],
        ["product_id NUL", patch({ product_id: `${yearly.id}\u0000` })],
        ["proration unknown", patch({ product_id: yearly.id, proration_behavior: "always" })],
        ["discount_id garbage", patch({ discount_id: 5 })],
        ["discount_id unknown", patch({ discount_id: randomUUID() })],
        ["trial_end garbage", patch({ trial_end: "tomorrow" })],
        ["trial_end past", patch({ trial_end: "2001-01-01T00:00:00Z" })],
        ["trial_end year 0", patch({ trial_end: "0000-01-01T00:00:00Z" })],
        ["seats on a fixed price", patch({ seats: 3 })],
        ["seats 1e30", patch({ seats: 1e30 })],
        ["seats negative", patch({ seats: -1 })],
        ["seats float", patch({ seats: 1.5 })],
        ["seats string", patch({ seats: "2" })],
        ["period end garbage", patch({ current_billing_period_end: "soon" })],
        ["period end past", patch({ current_billing_period_end: "2001-01-01T00:00:00Z" })],
        ["period end null", patch({ current_billing_period_end: null })],
        ["period end year 275760", patch({ current_billing_period_end: "+275760-09-13T00:00:00Z" })],
        ["cancel and a product change", patch({ cancel_at_period_end: true, product_id: yearly.id })],
        ["revoke and a product change", patch({ revoke: true, product_id: yearly.id })],
        ["revoke and cancel", patch({ revoke: true, cancel_at_period_end: true })],
        ["seats and a product change", patch({ seats: 2, product_id: yearly.id })],
        ["cancel and a period end", patch({ cancel_at_period_end: true, current_billing_period_end: new Date(Date.now() + 86_400_000 * 40).toISOString() })],
        ["another organization's token", () => raw("PATCH", `/v1/subscriptions/${sub.id}`, { revoke: true }, other.token)],
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [`PATCH ${what}`, patch({ revoke: true }, id)]),
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [`DELETE ${what}`, () => raw("DELETE", `/v1/subscriptions/${id}`)]),
        ["DELETE by another organization", () => raw("DELETE", `/v1/subscriptions/${sub.id}`, undefined, other.token)],
      ],
      read,
    );
  });

  it("refuses seats whose amount would not fit the amount column, changing nothing", async () => {
    const unbounded = await seller.sdk.products.create({
      name: "Seats without an upper bound",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: null, pricePerSeat: 1000 }] } }],
    });
    const dearer = await seller.sdk.products.create({
      name: "Dear seats",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: null, pricePerSeat: 3_000_000 }] } }],
    });
    const checkout = await seller.sdk.checkouts.create({ products: [unbounded.id], seats: 1000 });
    await pay(server, checkout);
    const [o] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const id = o!.subscriptionId!;
    await refusesAll(
      [
        ["seats 2^31 - 1", patch({ seats: 2_147_483_647 }, id)],
        ["seats 3,000,000", patch({ seats: 3_000_000 }, id)],
        ["a product whose price for the seats exceeds the amount column", patch({ product_id: dearer.id }, id)],
      ],
      () => seller.sdk.subscriptions.get({ id }),
    );
  });

  it("takes an uppercase id as the same subscription", async () => {
    const s = await subscribe();
    const res = await raw("PATCH", `/v1/subscriptions/${s.id.toUpperCase()}`, { cancel_at_period_end: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: s.id, cancel_at_period_end: true });
  });

  it("a PATCH and a DELETE at once: one outcome, no 5xx, the events of what happened", async () => {
    for (let i = 0; i < 3; i++) {
      const s = await subscribe();
      const [a, b, c] = await Promise.all([
        raw("PATCH", `/v1/subscriptions/${s.id}`, { product_id: yearly.id }),
        raw("DELETE", `/v1/subscriptions/${s.id}`),
        raw("PATCH", `/v1/subscriptions/${s.id}`, { cancel_at_period_end: true }),
      ]);
      for (const res of [a, b, c]) {
        if (res.status !== 200) expectRefused(res, "concurrent change");
      }
      expect(b.status).toBe(200);
      const after = await seller.sdk.subscriptions.get({ id: s.id });
      expect(after.status).toBe("canceled");
      expect(after.endedAt).not.toBeNull();
    }
  });
});

describe("POST /v1/subscriptions/{id}/renew", () => {
  it("refuses malformed and foreign ids, and a revoked subscription, changing nothing", async () => {
    const sub = await subscribe();
    const read = async () => ({ sub: await seller.sdk.subscriptions.get({ id: sub.id }), orders: (await seller.sdk.orders.list({ customerId: sub.customerId })).result.items.length });
    await refusesAll(
      [
        ...mangledIds(sub.id).map(([what, id]): [string, () => Promise<RawResponse>] => [what, () => raw("POST", `/v1/subscriptions/${id}/renew`)]),
        ["another organization", () => raw("POST", `/v1/subscriptions/${sub.id}/renew`, undefined, other.token)],
        ["non-JSON body", () => raw("POST", `/v1/subscriptions/${sub.id}/renew`, "{")],
      ],
      read,
    );
    await seller.sdk.subscriptions.revoke({ id: sub.id });
    await refusesAll([["revoked", () => raw("POST", `/v1/subscriptions/${sub.id}/renew`)]], read);
  });

  it("renews through an uppercase id", async () => {
    const sub = await subscribe();
    const res = await raw("POST", `/v1/subscriptions/${sub.id.toUpperCase()}/renew`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(sub.id);
  });
});

describe("GET /v1/cli/listen", () => {
  const listen = async (query: string, headers: Record<string, string> = {}): Promise<RawResponse> => {
    const res = await fetch(`${server.url}/v1/cli/listen?${query}`, { headers: { authorization: `Bearer ${seller.token}`, ...headers } });
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
    await refusesAll(
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
    const res = await fetch(`${server.url}/v1/cli/listen?follow=false&events=${Array.from({ length: 1000 }, () => "order.paid").join(",")}`, {
      headers: { authorization: `Bearer ${seller.token}` },
    });
    expect(res.status).toBe(200);
    await res.text();
  });
});

describe("DELETE /v1/customers/{id} (cascading)", () => {
  it("refuses malformed ids and query and changes nothing", async () => {
    const sub = await subscribe();
    const read = async () => ({
      customer: await seller.sdk.customers.get({ id: sub.customerId }),
      sub: await seller.sdk.subscriptions.get({ id: sub.id }),
    });
    await refusesAll(
      [
        ...mangledIds(sub.customerId).map(([what, id]): [string, () => Promise<RawResponse>] => [what, () => raw("DELETE", `/v1/customers/${id}`)]),
        ["anonymize garbage", () => raw("DELETE", `/v1/customers/${sub.customerId}?anonymize=1`)],
        ["anonymize repeated", () => raw("DELETE", `/v1/customers/${sub.customerId}?anonymize=true&anonymize=false`)],
        ["another organization", () => raw("DELETE", `/v1/customers/${sub.customerId}`, undefined, other.token)],
        ["external id NUL", () => raw("DELETE", "/v1/customers/external/a%00b")],
        ["external id enormous", () => raw("DELETE", `/v1/customers/external/${"e".repeat(3000)}`)],
      ],
      read,
    );
  });

  it("two deletes at once: one 204, the other 404, the customer deleted once", async () => {
    const sub = await subscribe();
    const [a, b] = await Promise.all([raw("DELETE", `/v1/customers/${sub.customerId}`), raw("DELETE", `/v1/customers/${sub.customerId.toUpperCase()}`)]);
    expect([a.status, b.status].sort()).toEqual([204, 404]);
    const deleted = await db()
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.type, "customer.deleted"), sql`${outbox.payload} ->> 'id' = ${sub.customerId}`));
    expect(deleted[0]!.n).toBe(1);
    const revoked = await db()
      .select({ n: count() })
      .from(outbox)
      .where(and(eq(outbox.type, "subscription.revoked"), sql`${outbox.payload} ->> 'id' = ${sub.id}`));
    expect(revoked[0]!.n).toBe(1);
  });
});

describe("DELETE /v1/customers/{id} beside subscription changes", () => {
  it("a customer delete, a product change and a renewal at once: no 5xx, the subscription revoked", async () => {
    for (let i = 0; i < 3; i++) {
      const sub = await subscribe();
      const answers = await Promise.all([
        raw("PATCH", `/v1/subscriptions/${sub.id}`, { product_id: yearly.id }),
        raw("DELETE", `/v1/customers/${sub.customerId}`),
        raw("POST", `/v1/subscriptions/${sub.id}/renew`),
        raw("DELETE", `/v1/customers/${sub.customerId}`),
      ]);
      for (const res of answers) {
        if (res.status !== 200 && res.status !== 204) expectRefused(res, "concurrent change");
      }
      expect(answers.filter((res) => res.status === 204)).toHaveLength(1);
      const after = await seller.sdk.subscriptions.get({ id: sub.id });
      expect(after.status).toBe("canceled");
    }
  });
});

describe("POST /api/auth/organization/update", () => {
  it("refuses hostile data with a 4xx and records no organization.updated", async () => {
    const update = (data: unknown) => () =>
      seller.client.post("/api/auth/organization/update", { organizationId: seller.organizationId, data }).then((r) => ({ status: r.status, body: { error: "auth", detail: r.text } }));
    const before = await outboxRows();
    const read = () => seller.sdk.organizations.get({ id: seller.organizationId });
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
    expect(await outboxRows()).toBe(before);
  });
});
