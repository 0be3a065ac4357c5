// /v1/meters through @polar-sh/sdk 0.47.1 (and 0.49.0): create, list, get, update, quantities; filters
// compiled to SQL (operators, nesting, metadata types), aggregations, validation, scopes and tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Polar } from "@polar-sh/sdk";
import { type Seller, startWithSellers } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import type { TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let key: string;
let sdk: Polar;

beforeAll(async () => {
  ({ server, seller, other, key, sdk } = await startWithSellers("meters"));
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

const countApiCalls = {
  conjunction: "and" as const,
  clauses: [{ property: "name", operator: "eq" as const, value: "api_call" }],
};

async function ingest(events: Array<Record<string, unknown>>, token = key) {
  const res = await raw(token, "POST", "/v1/events/ingest", { events });
  expect(res.status).toBe(200);
  return res.body as { inserted: number; duplicates: number };
}

async function createCustomer(email: string, externalId?: string) {
  return sdk.customers.create({ email, ...(externalId ? { externalId } : {}) });
}

/** A meter over fresh events of its own name, and the quantity it measures over a wide range. */
async function measure(filter: unknown, aggregation: unknown, events: Array<Record<string, unknown>>) {
  const tag = `ev_${Math.random().toString(36).slice(2, 10)}`;
  const customer = await createCustomer(`${tag}@example.com`);
  await ingest(events.map((e) => ({ name: tag, customer_id: customer.id, ...e })));
  const created = await raw(key, "POST", "/v1/meters/", {
    name: tag,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: tag }, filter] },
    aggregation,
  });
  expect(created.status).toBe(201);
  const q = await sdk.meters.quantities({
    id: created.body.id as string,
    startTimestamp: new Date(Date.now() - 86_400_000),
    endTimestamp: new Date(Date.now() + 60_000),
    interval: "day",
    customerId: customer.id,
  });
  return q.total;
}

describe("/v1/meters CRUD", () => {
  it("creates, gets, lists and updates a meter through 0.47.1", async () => {
    const meter = await seller.sdk.meters.create({
      name: "API calls",
      filter: countApiCalls,
      aggregation: { func: "count" },
      metadata: { team: "core", tier: 2 },
    });
    expect(meter).toMatchObject({
      name: "API calls",
      unit: "scalar",
      organizationId: seller.organizationId,
      filter: countApiCalls,
      aggregation: { func: "count" },
      metadata: { team: "core", tier: 2 },
      modifiedAt: null,
      archivedAt: null,
    });
    const got = await seller.sdk.meters.get({ id: meter.id });
    expect(got.id).toBe(meter.id);

    const updated = await seller.sdk.meters.update({
      id: meter.id,
      meterUpdate: {
        name: "Tokens",
        unit: "custom",
        customLabel: "token",
        customMultiplier: 1000,
        aggregation: { func: "sum", property: "tokens" },
        filter: {
          conjunction: "or",
          clauses: [
            { property: "name", operator: "eq", value: "llm" },
            { conjunction: "and", clauses: [{ property: "metadata.model", operator: "like", value: "gpt" }] },
          ],
        },
        metadata: { team: "ml" },
      },
    });
    expect(updated).toMatchObject({
      name: "Tokens",
      unit: "custom",
      customLabel: "token",
      customMultiplier: 1000,
      aggregation: { func: "sum", property: "tokens" },
      metadata: { team: "ml" },
    });
    expect(updated.filter.clauses).toHaveLength(2);
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const archived = await seller.sdk.meters.update({ id: meter.id, meterUpdate: { isArchived: true } });
    expect(archived.archivedAt).toBeInstanceOf(Date);
    const listArchived = await seller.sdk.meters.list({ isArchived: true });
    expect(listArchived.result.items.map((m) => m.id)).toContain(meter.id);
    const listLive = await seller.sdk.meters.list({ isArchived: false });
    expect(listLive.result.items.map((m) => m.id)).not.toContain(meter.id);
    const unarchived = await seller.sdk.meters.update({ id: meter.id, meterUpdate: { isArchived: false } });
    expect(unarchived.archivedAt).toBeNull();
  });

  it("lists with query, metadata, sorting and pagination", async () => {
    const names = ["zeta meter", "alpha meter", "mid meter"];
    for (const name of names) {
      await sdk.meters.create({ name, filter: countApiCalls, aggregation: { func: "count" }, metadata: { group: "listing" } });
    }
    const byName = await sdk.meters.list({ metadata: { group: "listing" }, sorting: ["name"] });
    expect(byName.result.items.map((m) => m.name)).toEqual(["alpha meter", "mid meter", "zeta meter"]);
    const desc = await sdk.meters.list({ metadata: { group: "listing" }, sorting: ["-name"] });
    expect(desc.result.items.map((m) => m.name)).toEqual(["zeta meter", "mid meter", "alpha meter"]);
    const q = await sdk.meters.list({ query: "ALPHA" });
    expect(q.result.items.map((m) => m.name)).toEqual(["alpha meter"]);
    const paged = await sdk.meters.list({ metadata: { group: "listing" }, sorting: ["name"], limit: 2, page: 2 });
    expect(paged.result.items.map((m) => m.name)).toEqual(["zeta meter"]);
    expect(paged.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const byOrg = await sdk.meters.list({ organizationId: seller.organizationId, metadata: { group: "listing" } });
    expect(byOrg.result.pagination.totalCount).toBe(3);
    const all: string[] = [];
    for await (const p of await sdk.meters.list({ metadata: { group: "listing" }, limit: 1 })) {
      all.push(...p.result.items.map((m) => m.name));
    }
    expect(all.sort()).toEqual(["alpha meter", "mid meter", "zeta meter"]);
  });

  it("works through 0.49.0 (create, get, list)", async () => {
    const meter = await seller.sdk049.meters.create({
      name: "v049 meter",
      filter: countApiCalls,
      aggregation: { func: "unique", property: "user" },
    });
    expect(meter.aggregation).toEqual({ func: "unique", property: "user" });
    expect((await seller.sdk049.meters.get({ id: meter.id })).name).toBe("v049 meter");
    const list = await seller.sdk049.meters.list({ query: "v049" });
    expect(list.result.items.map((m) => m.id)).toEqual([meter.id]);
  });
});

describe("/v1/meters quantities", () => {
  it("buckets per interval, zero-filled, with the total, computed from the events", async () => {
    const customer = await createCustomer("quantities@example.com", "ext-quantities");
    const meter = await sdk.meters.create({
      name: "q meter",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "q_call" }] },
      aggregation: { func: "sum", property: "units" },
    });
    const day = (d: number, h = 12) => new Date(Date.UTC(2024, 0, d, h)).toISOString();
    await ingest([
      { name: "q_call", customer_id: customer.id, timestamp: day(1), metadata: { units: 3 } },
      { name: "q_call", customer_id: customer.id, timestamp: day(1, 20), metadata: { units: 4.5 } },
      { name: "q_call", external_customer_id: "ext-quantities", timestamp: day(3), metadata: { units: 10 } },
      { name: "q_call", external_customer_id: "someone-else", timestamp: day(3), metadata: { units: 100 } },
      { name: "q_call", customer_id: customer.id, timestamp: day(4), metadata: { units: "not a number" } },
      { name: "other", customer_id: customer.id, timestamp: day(2), metadata: { units: 1000 } },
    ]);
    const q = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(5, 0)),
      interval: "day",
      customerId: customer.id,
    });
    expect(q.quantities.map((b) => [b.timestamp.toISOString(), b.quantity])).toEqual([
      ["2024-01-01T00:00:00.000Z", 7.5],
      ["2024-01-02T00:00:00.000Z", 0],
      ["2024-01-03T00:00:00.000Z", 10],
      ["2024-01-04T00:00:00.000Z", 0],
      ["2024-01-05T00:00:00.000Z", 0],
    ]);
    expect(q.total).toBe(17.5);

    const byExternal = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(5, 0)),
      interval: "week",
      externalCustomerId: ["ext-quantities"],
    });
    expect(byExternal.total).toBe(17.5);
    expect(byExternal.quantities.map((b) => b.timestamp.toISOString())).toEqual(["2024-01-01T00:00:00.000Z"]);

    const everyone = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
    });
    expect(everyone.quantities).toHaveLength(1);
    expect(everyone.total).toBe(117.5);

    // per customer first (7.5 + 10 = 17.5 for one, 100 for the other), then the max of those
    const perCustomer = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
      customerAggregationFunction: "max",
    });
    expect(perCustomer.total).toBe(100);

    const hourly = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(1, 23)),
      interval: "hour",
      customerId: customer.id,
    });
    expect(hourly.quantities).toHaveLength(24);
    expect(hourly.quantities[12]?.quantity).toBe(3);
    expect(hourly.quantities[20]?.quantity).toBe(4.5);

    // in another time zone the day boundaries move
    const tokyo = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(2, 0)),
      interval: "day",
      timezone: "Asia/Tokyo",
      customerId: customer.id,
    });
    expect(tokyo.quantities.map((b) => [b.timestamp.toISOString(), b.quantity])).toEqual([
      ["2023-12-31T15:00:00.000Z", 3],
      ["2024-01-01T15:00:00.000Z", 4.5],
    ]);

    const filtered = await sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
      metadata: { units: "10" },
    });
    expect(filtered.total).toBe(10);

    const q049 = await seller.sdk049.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(2, 0)),
      interval: "day",
      customerId: customer.id,
    });
    expect(q049.total).toBe(7.5);
  });

  it("compiles every operator on columns and typed metadata", async () => {
    const events = [
      { metadata: { n: 5, s: "apple", b: true } },
      { metadata: { n: 10, s: "banana", b: false } },
      { metadata: { n: "10", s: "cherry" } },
      { metadata: { n: 20.5 } },
    ];
    const count = { func: "count" };
    expect(await measure({ property: "n", operator: "eq", value: 10 }, count, events)).toBe(2); // number 10 and string "10"
    expect(await measure({ property: "n", operator: "gt", value: 9 }, count, events)).toBe(2); // numerically: 10, 20.5
    expect(await measure({ property: "n", operator: "gte", value: 10 }, count, events)).toBe(3); // and "10" >= "10" as text
    expect(await measure({ property: "n", operator: "lt", value: 10 }, count, events)).toBe(1);
    expect(await measure({ property: "metadata.n", operator: "lte", value: 10 }, count, events)).toBe(3);
    expect(await measure({ property: "n", operator: "ne", value: 5 }, count, events)).toBe(3);
    expect(await measure({ property: "s", operator: "like", value: "an" }, count, events)).toBe(1);
    expect(await measure({ property: "s", operator: "not_like", value: "an" }, count, events)).toBe(2);
    expect(await measure({ property: "b", operator: "eq", value: true }, count, events)).toBe(1);
    expect(await measure({ property: "b", operator: "eq", value: "true" }, count, events)).toBe(0);
    expect(await measure({ property: "s", operator: "gt", value: "b" }, count, events)).toBe(2); // banana, cherry
    expect(await measure({ property: "source", operator: "eq", value: "user" }, count, events)).toBe(4);
    expect(await measure({ property: "name", operator: "eq", value: 1 }, count, events)).toBe(0);
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect(await measure({ property: "timestamp", operator: "gt", value: hourAgo }, count, events)).toBe(4);
    expect(await measure({ property: "timestamp", operator: "lt", value: hourAgo }, count, events)).toBe(0);
    expect(await measure({ property: "s", operator: "like", value: "%" }, count, events)).toBe(0); // literal %
    const nested = {
      conjunction: "or",
      clauses: [
        { property: "s", operator: "eq", value: "apple" },
        { conjunction: "and", clauses: [{ property: "n", operator: "gt", value: 15 }, { property: "n", operator: "lt", value: 25 }] },
      ],
    };
    expect(await measure(nested, count, events)).toBe(2);
    expect(await measure({ conjunction: "and", clauses: [] }, count, events)).toBe(4);
  });

  it("aggregates count, sum, max, min, avg and unique", async () => {
    const events = [
      { metadata: { v: 2, user: "a" } },
      { metadata: { v: 4, user: "b" } },
      { metadata: { v: 9, user: "a" } },
      { metadata: { v: "x", user: "c" } },
    ];
    const all = { conjunction: "and", clauses: [] };
    expect(await measure(all, { func: "count" }, events)).toBe(4);
    expect(await measure(all, { func: "sum", property: "v" }, events)).toBe(15);
    expect(await measure(all, { func: "max", property: "metadata.v" }, events)).toBe(9);
    expect(await measure(all, { func: "min", property: "v" }, events)).toBe(2);
    expect(await measure(all, { func: "avg", property: "v" }, events)).toBe(5);
    expect(await measure(all, { func: "unique", property: "user" }, events)).toBe(3);
  });

  it("refuses bad quantities queries with 422 and unknown meters with 404", async () => {
    const meter = await sdk.meters.create({ name: "bad q", filter: countApiCalls, aggregation: { func: "count" } });
    const base = `/v1/meters/${meter.id}/quantities`;
    const range = "start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-01-02T00:00:00Z";
    for (const query of [
      "",
      `${range}`,
      `${range}&interval=minute`,
      `start_timestamp=yesterday&end_timestamp=2024-01-02T00:00:00Z&interval=day`,
      `start_timestamp=2024-01-01T00:00:00&end_timestamp=2024-01-02T00:00:00Z&interval=day`,
      `${range}&interval=day&timezone=Mars/Olympus`,
      // UTC offsets are not zone names, though Node 22+'s Intl takes them
      `${range}&interval=day&timezone=%2B05:00`,
      `${range}&interval=day&timezone=-0800`,
      `${range}&interval=day&timezone=%2B05`,
      `${range}&interval=day&customer_id=nope`,
      `${range}&interval=day&customer_aggregation_function=median`,
      `start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-03-01T00:00:00Z&interval=hour`,
      `start_timestamp=2024-02-01T00:00:00Z&end_timestamp=2024-01-01T00:00:00Z&interval=day`,
    ]) {
      const res = await raw(key, "GET", `${base}?${query}`);
      expect(res.status, query).toBe(422);
      expect(Array.isArray(res.body.detail), query).toBe(true);
    }
    const early = await raw(key, "GET", `${base}?start_timestamp=0001-01-01T00:00:00%2B05:00&end_timestamp=0001-01-02T00:00:00Z&interval=day`);
    expect(early.status).toBe(200);
    expect((early.body.quantities as unknown[]).length).toBe(3);
    const missing = await raw(key, "GET", `/v1/meters/00000000-0000-4000-8000-000000000000/quantities?${range}&interval=day`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("ResourceNotFound");
  });
});

describe("/v1/meters validation, scopes and tenancy", () => {
  it("refuses invalid definitions with 422 and stores nothing", async () => {
    const before = (await sdk.meters.list({ limit: 100 })).result.pagination.totalCount;
    const good = { name: "ok", filter: countApiCalls, aggregation: { func: "count" } };
    const bad: Array<[string, unknown]> = [
      ["missing name", { filter: countApiCalls, aggregation: { func: "count" } }],
      ["empty name", { ...good, name: "" }],
      ["missing filter", { name: "x", aggregation: { func: "count" } }],
      ["bad conjunction", { ...good, filter: { conjunction: "xor", clauses: [] } }],
      ["bad operator", { ...good, filter: { conjunction: "and", clauses: [{ property: "name", operator: "regex", value: "a" }] } }],
      ["float value", { ...good, filter: { conjunction: "and", clauses: [{ property: "n", operator: "eq", value: 1.5 }] } }],
      ["huge int", { ...good, filter: { conjunction: "and", clauses: [{ property: "n", operator: "eq", value: 2 ** 40 }] } }],
      ["object value", { ...good, filter: { conjunction: "and", clauses: [{ property: "n", operator: "eq", value: { a: 1 } }] } }],
      ["empty property", { ...good, filter: { conjunction: "and", clauses: [{ property: "", operator: "eq", value: 1 }] } }],
      ["long key", { ...good, filter: { conjunction: "and", clauses: [{ property: "k".repeat(41), operator: "eq", value: 1 }] } }],
      ["control char", { ...good, filter: { conjunction: "and", clauses: [{ property: "a\u0000b", operator: "eq", value: 1 }] } }],
      ["bare prefix", { ...good, filter: { conjunction: "and", clauses: [{ property: "metadata.", operator: "eq", value: 1 }] } }],
      ["clauses not a list", { ...good, filter: { conjunction: "and", clauses: "name" } }],
      ["unknown func", { ...good, aggregation: { func: "median", property: "v" } }],
      ["sum without property", { ...good, aggregation: { func: "sum" } }],
      ["sum over name", { ...good, aggregation: { func: "sum", property: "name" } }],
      ["unit", { ...good, unit: "meters" }],
      ["custom without label", { ...good, unit: "custom" }],
      ["multiplier 0", { ...good, unit: "custom", custom_label: "x", custom_multiplier: 0 }],
      ["metadata nested", { ...good, metadata: { a: { b: 1 } } }],
      ["metadata null", { ...good, metadata: { a: null } }],
      ["too many metadata keys", { ...good, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }],
    ];
    const deep = (n: number): unknown =>
      n === 0 ? { property: "a", operator: "eq", value: 1 } : { conjunction: "and", clauses: [deep(n - 1)] };
    bad.push(["too deep", { ...good, filter: deep(6) }]);
    bad.push(["too many clauses", { ...good, filter: { conjunction: "or", clauses: Array.from({ length: 51 }, () => countApiCalls.clauses[0]) } }]);
    for (const [label, body] of bad) {
      const res = await raw(key, "POST", "/v1/meters/", body);
      expect(res.status, label).toBe(422);
      const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
      expect(detail.length, label).toBeGreaterThan(0);
      expect(detail[0]?.loc[0], label).toBe("body");
    }
    const json = await raw(key, "POST", "/v1/meters/", "{not json");
    expect(json.status).toBe(422);
    expect((await sdk.meters.list({ limit: 100 })).result.pagination.totalCount).toBe(before);

    const meter = await sdk.meters.create(good as Parameters<typeof sdk.meters.create>[0]);
    const patch = await raw(key, "PATCH", `/v1/meters/${meter.id}`, { unit: "custom" });
    expect(patch.status).toBe(422);
    const badPatch = await raw(key, "PATCH", `/v1/meters/${meter.id}`, { filter: { conjunction: "and", clauses: [{}] } });
    expect(badPatch.status).toBe(422);
    expect((await sdk.meters.get({ id: meter.id })).unit).toBe("scalar");
    const badList = await raw(key, "GET", "/v1/meters/?limit=1000");
    expect(badList.status).toBe(422);
    const badSort = await raw(key, "GET", "/v1/meters/?sorting=weight");
    expect(badSort.status).toBe(422);
    const badArchived = await raw(key, "GET", "/v1/meters/?is_archived=maybe");
    expect(badArchived.status).toBe(422);
    const badId = await raw(key, "GET", "/v1/meters/not-a-uuid");
    expect(badId.status).toBe(422);
  });

  it("needs meters:read / meters:write", async () => {
    const readOnly = await seller.createKey({ meters: ["read"] });
    const meter = await sdk.meters.create({ name: "scoped", filter: countApiCalls, aggregation: { func: "count" } });
    expect((await raw(readOnly, "GET", `/v1/meters/${meter.id}`)).status).toBe(200);
    const create = await raw(readOnly, "POST", "/v1/meters/", { name: "x", filter: countApiCalls, aggregation: { func: "count" } });
    expect(create.status).toBe(403);
    expect(create.body.error).toBe("NotPermitted");
    expect((await raw(readOnly, "PATCH", `/v1/meters/${meter.id}`, { name: "y" })).status).toBe(403);
    const noMeters = await seller.createKey({ products: ["read"] });
    expect((await raw(noMeters, "GET", "/v1/meters/")).status).toBe(403);
    expect((await raw(noMeters, "GET", `/v1/meters/${meter.id}/quantities?start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-01-02T00:00:00Z&interval=day`)).status).toBe(403);
  });

  it("never shows another organization's meters", async () => {
    const mine = await sdk.meters.create({ name: "tenant meter", filter: countApiCalls, aggregation: { func: "count" } });
    const otherKey = await other.createKey();
    for (const [method, path, body] of [
      ["GET", `/v1/meters/${mine.id}`, undefined],
      ["PATCH", `/v1/meters/${mine.id}`, { name: "stolen" }],
      ["GET", `/v1/meters/${mine.id}/quantities?start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-01-02T00:00:00Z&interval=day`, undefined],
    ] as const) {
      const res = await raw(otherKey, method, path, body);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    const theirs = await raw(otherKey, "GET", "/v1/meters/?limit=100");
    expect((theirs.body.items as Array<{ id: string }>).map((m) => m.id)).not.toContain(mine.id);
    const foreignOrg = await raw(key, "GET", `/v1/meters/?organization_id=${other.organizationId}`);
    expect(foreignOrg.status).toBe(404);
    expect((await sdk.meters.get({ id: mine.id })).name).toBe("tenant meter");
  });
});
