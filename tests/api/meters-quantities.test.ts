// /v1/meters quantities through @polar-sh/sdk 0.47.1: buckets per interval from the events, filters compiled to
// SQL (every operator, nesting, metadata types), each aggregation, and 422/404 for bad queries. Create, list, get,
// update, validation, scopes and tenancy: meters.test.ts.
import { describe, expect, it } from "vitest";
import { countApiCalls, metersFixture } from "./meters-fixtures.js";

const fx = metersFixture();

async function ingest(events: Array<Record<string, unknown>>, token = fx.key) {
  const res = await fx.raw(token, "POST", "/v1/events/ingest", { events });
  expect(res.status).toBe(200);
  return res.body as { inserted: number; duplicates: number };
}

async function createCustomer(email: string, externalId?: string) {
  return fx.sdk.customers.create({ email, ...(externalId ? { externalId } : {}) });
}

/** A meter over fresh events of its own name, and the quantity it measures over a wide range. */
async function measure(filter: unknown, aggregation: unknown, events: Array<Record<string, unknown>>) {
  const tag = `ev_${Math.random().toString(36).slice(2, 10)}`;
  const customer = await createCustomer(`${tag}@example.com`);
  await ingest(events.map((e) => ({ name: tag, customer_id: customer.id, ...e })));
  const created = await fx.raw(fx.key, "POST", "/v1/meters/", {
    name: tag,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: tag }, filter] },
    aggregation,
  });
  expect(created.status).toBe(201);
  const q = await fx.sdk.meters.quantities({
    id: created.body.id as string,
    startTimestamp: new Date(Date.now() - 86_400_000),
    endTimestamp: new Date(Date.now() + 60_000),
    interval: "day",
    customerId: customer.id,
  });
  return q.total;
}

describe("/v1/meters quantities", () => {
  it("buckets per interval, zero-filled, with the total, computed from the events", async () => {
    const customer = await createCustomer("quantities@example.com", "ext-quantities");
    const meter = await fx.sdk.meters.create({
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
    const q = await fx.sdk.meters.quantities({
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

    const byExternal = await fx.sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(5, 0)),
      interval: "week",
      externalCustomerId: ["ext-quantities"],
    });
    expect(byExternal.total).toBe(17.5);
    expect(byExternal.quantities.map((b) => b.timestamp.toISOString())).toEqual(["2024-01-01T00:00:00.000Z"]);

    const everyone = await fx.sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
    });
    expect(everyone.quantities).toHaveLength(1);
    expect(everyone.total).toBe(117.5);

    // per customer first (7.5 + 10 = 17.5 for one, 100 for the other), then the max of those
    const perCustomer = await fx.sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
      customerAggregationFunction: "max",
    });
    expect(perCustomer.total).toBe(100);

    const hourly = await fx.sdk.meters.quantities({
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
    const tokyo = await fx.sdk.meters.quantities({
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

    const filtered = await fx.sdk.meters.quantities({
      id: meter.id,
      startTimestamp: new Date(day(1, 0)),
      endTimestamp: new Date(day(31, 0)),
      interval: "month",
      metadata: { units: "10" },
    });
    expect(filtered.total).toBe(10);

    const q049 = await fx.seller.sdk049.meters.quantities({
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
    const meter = await fx.sdk.meters.create({ name: "bad q", filter: countApiCalls, aggregation: { func: "count" } });
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
      const res = await fx.raw(fx.key, "GET", `${base}?${query}`);
      expect(res.status, query).toBe(422);
      expect(Array.isArray(res.body.detail), query).toBe(true);
    }
    const early = await fx.raw(fx.key, "GET", `${base}?start_timestamp=0001-01-01T00:00:00%2B05:00&end_timestamp=0001-01-02T00:00:00Z&interval=day`);
    expect(early.status).toBe(200);
    expect((early.body.quantities as unknown[]).length).toBe(3);
    const missing = await fx.raw(fx.key, "GET", `/v1/meters/00000000-0000-4000-8000-000000000000/quantities?${range}&interval=day`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("ResourceNotFound");
  });
});
