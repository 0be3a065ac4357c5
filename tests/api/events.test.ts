// /v1/events through @polar-sh/sdk 0.47.1 (and 0.49.0): ingest (batches, deduplication, customers, parents,
// clock skew), list with every filter, get, names; validation, scopes and tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Polar } from "@polar-sh/sdk";
import type { Event } from "@polar-sh/sdk/models/components/event.js";
import { sdk049For, sdkFor, type Seller, startWithSellers } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import type { TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let key: string;
let sdk: Polar;

beforeAll(async () => {
  ({ server, seller, other, key, sdk } = await startWithSellers("events"));
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

const unique = (p: string) => `${p}_${Math.random().toString(36).slice(2, 10)}`;

/** Every event of a list request (the SDK's events.list returns one page). */
async function eventsOf(req: Parameters<Polar["events"]["list"]>[0]): Promise<Event[]> {
  const res = await sdk.events.list({ limit: 100, ...req });
  return res.items;
}

async function countStored(name: string): Promise<number> {
  const res = await sdk.events.list({ name, limit: 1 });
  return "totalCount" in res.pagination ? res.pagination.totalCount : -1;
}

describe("POST /v1/events/ingest", () => {
  it("ingests for a customer id or an external customer id and deduplicates by external_id", async () => {
    const name = unique("ingest");
    const customer = await sdk.customers.create({ email: `${name}@example.com` });
    const first = await sdk.events.ingest({
      events: [
        { name, customerId: customer.id, externalId: `${name}-1`, metadata: { tokens: 12, model: "m1", ok: true } },
        { name, externalCustomerId: "no-such-customer-yet", externalId: `${name}-2` },
        { name, customerId: customer.id, externalId: `${name}-1` }, // duplicate within the batch
        { name, customerId: customer.id }, // no external id: never a duplicate
      ],
    });
    expect(first).toEqual({ inserted: 3, duplicates: 1 });
    const again = await sdk.events.ingest({
      events: [
        { name, customerId: customer.id, externalId: `${name}-1` },
        { name, customerId: customer.id, externalId: `${name}-3` },
      ],
    });
    expect(again).toEqual({ inserted: 1, duplicates: 1 });
    expect(await countStored(name)).toBe(4);

    // external ids are per organization: another seller may reuse them
    const otherKey = await other.createKey();
    const theirs = await raw(otherKey, "POST", "/v1/events/ingest", {
      events: [{ name, external_customer_id: "x", external_id: `${name}-1` }],
    });
    expect(theirs.body).toEqual({ inserted: 1, duplicates: 0 });

    // the same batch sent five times at once is stored once
    const racing = Array.from({ length: 50 }, (_, i) => ({ name, external_customer_id: "race", external_id: `${name}-race-${i}` }));
    const raced = await Promise.all(Array.from({ length: 5 }, () => raw(key, "POST", "/v1/events/ingest", { events: racing })));
    expect(raced.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(raced.reduce((n, r) => n + (r.body.inserted as number), 0)).toBe(50);
    expect(raced.reduce((n, r) => n + (r.body.duplicates as number), 0)).toBe(200);

    const empty = await sdk.events.ingest({ events: [] });
    expect(empty).toEqual({ inserted: 0, duplicates: 0 });
  });

  it("keeps timestamps, allows 5 minutes of clock skew and refuses later ones", async () => {
    const name = unique("time");
    const past = new Date(Date.UTC(2024, 4, 1, 12, 30));
    const ok = await sdk.events.ingest({
      events: [
        { name, externalCustomerId: "c1", timestamp: past },
        { name, externalCustomerId: "c1", timestamp: new Date(Date.now() + 4 * 60_000) },
      ],
    });
    expect(ok.inserted).toBe(2);
    const stored = await eventsOf({ name, sorting: ["timestamp"] });
    expect(stored[0]?.timestamp.toISOString()).toBe(past.toISOString());

    const future = await raw(key, "POST", "/v1/events/ingest", {
      events: [
        { name, external_customer_id: "c1" },
        { name, external_customer_id: "c1", timestamp: new Date(Date.now() + 6 * 60_000).toISOString() },
      ],
    });
    expect(future.status).toBe(422);
    expect(future.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "events", 1, "timestamp"], msg: "Timestamp must be in the past." }),
    ]);
    expect(await countStored(name)).toBe(2);
  });

  it("refuses a batch over 1000 events, and bad events, storing nothing", async () => {
    const name = unique("bad");
    const customer = await sdk.customers.create({ email: `${name}@example.com` });
    const foreignCustomer = await sdkFor(server, await other.createKey()).customers.create({ email: `${name}@example.com` });
    const ok = { name, external_customer_id: "c" };
    const tooMany = await raw(key, "POST", "/v1/events/ingest", { events: Array.from({ length: 1001 }, () => ok) });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body.detail as Array<{ loc: unknown[] }>)[0]?.loc).toEqual(["body", "events"]);
    const exactly = await raw(key, "POST", "/v1/events/ingest", { events: Array.from({ length: 1000 }, () => ok) });
    expect(exactly.body).toEqual({ inserted: 1000, duplicates: 0 });

    const bad: Array<[string, unknown, unknown[]]> = [
      ["no events", {}, ["body", "events"]],
      ["events not a list", { events: "x" }, ["body", "events"]],
      ["missing name", { events: [ok, { external_customer_id: "c" }] }, ["body", "events", 1, "name"]],
      ["empty name", { events: [{ ...ok, name: "" }] }, ["body", "events", 0, "name"]],
      ["no customer", { events: [{ name }] }, ["body", "events", 0, "customer_id"]],
      ["malformed customer id", { events: [{ name, customer_id: "nope" }] }, ["body", "events", 0, "customer_id"]],
      ["unknown customer", { events: [ok, { name, customer_id: "00000000-0000-4000-8000-000000000000" }] }, ["body", "events", 1, "customer_id"]],
      ["foreign customer", { events: [{ name, customer_id: foreignCustomer.id }] }, ["body", "events", 0, "customer_id"]],
      ["naive timestamp", { events: [{ ...ok, timestamp: "2024-01-01T00:00:00" }] }, ["body", "events", 0, "timestamp"]],
      ["bad timestamp", { events: [{ ...ok, timestamp: "yesterday" }] }, ["body", "events", 0, "timestamp"]],
      ["year zero", { events: [{ ...ok, timestamp: "0000-01-01T00:00:00Z" }] }, ["body", "events", 0, "timestamp"]],
      ["nested metadata", { events: [{ ...ok, metadata: { a: { b: 1 } } }] }, ["body", "events", 0, "metadata", "a"]],
      ["null metadata value", { events: [{ ...ok, metadata: { a: null } }] }, ["body", "events", 0, "metadata", "a"]],
      ["long metadata key", { events: [{ ...ok, metadata: { ["k".repeat(41)]: 1 } }] }, ["body", "events", 0, "metadata", "k".repeat(41)]],
      ["bad _cost", { events: [{ ...ok, metadata: { _cost: { amount: "lots", currency: "usd" } } }] }, ["body", "events", 0, "metadata", "_cost", "amount"]],
      ["unknown parent", { events: [{ ...ok, parent_id: "nobody" }] }, ["body", "events", 0, "parent_id"]],
      ["other organization", { events: [{ ...ok, organization_id: other.organizationId }] }, ["body", "events", 0, "organization_id"]],
    ];
    for (const [label, body, loc] of bad) {
      const res = await raw(key, "POST", "/v1/events/ingest", body);
      expect(res.status, label).toBe(422);
      const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
      expect(detail.map((d) => d.loc), label).toContainEqual(loc);
    }
    const unknownCustomer = await raw(key, "POST", "/v1/events/ingest", {
      events: [{ name, customer_id: "00000000-0000-4000-8000-000000000000" }],
    });
    expect((unknownCustomer.body.detail as Array<{ msg: string }>)[0]?.msg).toBe("Customer not found.");
    expect((await raw(key, "POST", "/v1/events/ingest", "{")).status).toBe(422);
    expect(await countStored(name)).toBe(1000);
    expect((await eventsOf({ customerId: customer.id })).length).toBe(0);
  });

  it("accepts _cost and _llm metadata and links parents by id or external id", async () => {
    const name = unique("tree");
    const res = await sdk.events.ingest({
      events: [
        {
          name,
          externalCustomerId: "c",
          externalId: `${name}-root`,
          metadata: {
            _cost: { amount: 12.5, currency: "USD" },
            _llm: { vendor: "openai", model: "gpt", inputTokens: 10, outputTokens: 5, totalTokens: 15 },
          },
        },
        { name, externalCustomerId: "c", externalId: `${name}-child`, parentId: `${name}-root` },
      ],
    });
    expect(res.inserted).toBe(2);
    const [root] = await eventsOf({ name, depth: 0 });
    expect(root?.metadata).toMatchObject({ _cost: { amount: "12.5", currency: "usd" } });
    expect(root && "childCount" in root ? root.childCount : undefined).toBe(1);
    const more = await sdk.events.ingest({
      events: [
        { name, externalCustomerId: "c", parentId: root?.id ?? "" },
        { name, externalCustomerId: "c", parentId: `${name}-child` },
      ],
    });
    expect(more.inserted).toBe(2);
    const children = await eventsOf({ parentId: root?.id ?? "" });
    expect(children).toHaveLength(2);
    expect(children.every((e) => e.parentId === root?.id)).toBe(true);
  });
});

describe("GET /v1/events", () => {
  it("lists with customer, name, source, time, metadata, filter, meter, query and sorting filters", async () => {
    const name = unique("list");
    const ext = unique("ext");
    const customer = await sdk.customers.create({ email: `${name}@example.com`, externalId: ext, name: "Ada Lovelace" });
    const t = (m: number) => new Date(Date.UTC(2024, 5, 1, 0, m));
    await sdk.events.ingest({
      events: [
        { name, customerId: customer.id, timestamp: t(1), metadata: { plan: "pro", n: 1 } },
        { name, externalCustomerId: ext, timestamp: t(2), metadata: { plan: "free", n: 2 } },
        { name: `${name}_other`, customerId: customer.id, timestamp: t(3), metadata: { plan: "pro", n: 3 } },
        { name, externalCustomerId: "stranger", timestamp: t(4), metadata: { plan: "pro", n: 4 } },
      ],
    });
    const ns = (events: Event[]) => events.map((e) => (e.metadata as Record<string, unknown>).n);

    // a customer's events: by its id, or by the external id it carries
    expect(ns(await eventsOf({ customerId: customer.id, sorting: ["timestamp"] }))).toEqual([1, 2, 3]);
    expect(ns(await eventsOf({ externalCustomerId: ext, sorting: ["timestamp"] }))).toEqual([1, 2, 3]);
    expect(ns(await eventsOf({ name, sorting: ["-timestamp"] }))).toEqual([4, 2, 1]);
    expect(ns(await eventsOf({ name: [name, `${name}_other`] }))).toHaveLength(4);
    expect(ns(await eventsOf({ name, source: "user" }))).toHaveLength(3);
    expect(ns(await eventsOf({ name, source: ["system"] }))).toEqual([]);
    expect(ns(await eventsOf({ name, startTimestamp: t(2), endTimestamp: t(3), sorting: ["timestamp"] }))).toEqual([2]);
    expect(ns(await eventsOf({ name, metadata: { plan: "pro" }, sorting: ["timestamp"] }))).toEqual([1, 4]);
    expect(ns(await eventsOf({ name, metadata: { plan: ["pro", "free"] }, sorting: ["timestamp"] }))).toEqual([1, 2, 4]);
    const filter = JSON.stringify({ conjunction: "and", clauses: [{ property: "n", operator: "gte", value: 2 }] });
    expect(ns(await eventsOf({ name, filter, sorting: ["timestamp"] }))).toEqual([2, 4]);
    expect(ns(await eventsOf({ query: "lovelace", sorting: ["timestamp"] }))).toEqual([1, 3]);
    expect(ns(await eventsOf({ query: `${name}_oth` }))).toEqual([3]);

    const meter = await sdk.meters.create({
      name: "list meter",
      filter: {
        conjunction: "and",
        clauses: [
          { property: "name", operator: "eq", value: name },
          { property: "plan", operator: "eq", value: "pro" },
        ],
      },
      aggregation: { func: "count" },
    });
    expect(ns(await eventsOf({ meterId: meter.id, sorting: ["timestamp"] }))).toEqual([1, 4]);

    const events = await eventsOf({ customerId: customer.id, sorting: ["timestamp"] });
    const [byId, byExternal] = events;
    expect(byId?.customer?.id).toBe(customer.id);
    expect(byExternal?.customerId).toBe(customer.id);
    expect(byExternal?.externalCustomerId).toBe(ext);
    expect(byExternal?.customer?.email).toBe(`${name}@example.com`);
    const stranger = (await eventsOf({ externalCustomerId: "stranger", name }))[0];
    expect(stranger?.customer).toBeNull();
    expect(stranger && "label" in stranger ? stranger.label : undefined).toBe(name);

    const paged = await sdk.events.list({ name, sorting: ["timestamp"], limit: 2, page: 2 });
    expect(ns(paged.items)).toEqual([4]);
    expect(paged.pagination).toEqual({ totalCount: 3, maxPage: 2 });
  });

  it("gets one event, lists names and works through 0.49.0", async () => {
    const name = unique("names");
    await sdk.events.ingest({
      events: [
        { name, externalCustomerId: "c", timestamp: new Date(Date.UTC(2024, 0, 1)) },
        { name, externalCustomerId: "c", timestamp: new Date(Date.UTC(2024, 0, 5)) },
        { name: `${name}_b`, externalCustomerId: "c", timestamp: new Date(Date.UTC(2024, 0, 3)) },
      ],
    });
    const [event] = await eventsOf({ name, sorting: ["timestamp"] });
    const got = await sdk.events.get({ id: event?.id ?? "" });
    expect(got).toMatchObject({ id: event?.id, name, source: "user", organizationId: seller.organizationId });

    const names = await sdk.events.listNames({ query: name, sorting: ["name"] });
    expect(names.result.items.map((n) => [n.name, n.occurrences, n.firstSeen.toISOString(), n.lastSeen.toISOString()])).toEqual([
      [name, 2, "2024-01-01T00:00:00.000Z", "2024-01-05T00:00:00.000Z"],
      [`${name}_b`, 1, "2024-01-03T00:00:00.000Z", "2024-01-03T00:00:00.000Z"],
    ]);
    const byOccurrences = await sdk.events.listNames({ query: name, sorting: ["occurrences"] });
    expect(byOccurrences.result.items.map((n) => n.name)).toEqual([`${name}_b`, name]);
    const byLastSeen = await sdk.events.listNames({ query: name });
    expect(byLastSeen.result.items.map((n) => n.name)).toEqual([name, `${name}_b`]);
    expect(byLastSeen.result.pagination).toEqual({ totalCount: 2, maxPage: 1 });

    const sdk049 = sdk049For(server, key);
    const ingested = await sdk049.events.ingest({ events: [{ name, externalCustomerId: "c" }] });
    expect(ingested.inserted).toBe(1);
    const list049 = await sdk049.events.list({ name, limit: 10 });
    expect(list049.items).toHaveLength(3);
    expect((await sdk049.events.get({ id: event?.id ?? "" })).id).toBe(event?.id);
    expect((await sdk049.events.listNames({ query: name })).result.items).toHaveLength(2);
  });

  it("refuses bad queries with 422", async () => {
    for (const query of [
      "limit=0",
      "page=0",
      "sorting=name",
      "source=robot",
      "customer_id=nope",
      "meter_id=nope",
      "meter_id=00000000-0000-4000-8000-000000000000",
      "start_timestamp=tomorrow",
      "depth=9",
      "filter=notjson",
      `filter=${encodeURIComponent(JSON.stringify({ conjunction: "and", clauses: [{ property: "n", operator: "is", value: 1 }] }))}`,
    ]) {
      const res = await raw(key, "GET", `/v1/events/?${query}`);
      expect(res.status, query).toBe(422);
    }
    expect((await raw(key, "GET", "/v1/events/names?sorting=size")).status).toBe(422);
    expect((await raw(key, "GET", "/v1/events/not-a-uuid")).status).toBe(422);
    const missing = await raw(key, "GET", "/v1/events/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("ResourceNotFound");
  });
});

describe("/v1/events scopes and tenancy", () => {
  it("needs events:write to ingest and events:read to read", async () => {
    const readOnly = await seller.createKey({ events: ["read"] });
    const ingest = await raw(readOnly, "POST", "/v1/events/ingest", { events: [] });
    expect(ingest.status).toBe(403);
    expect(ingest.body.error).toBe("NotPermitted");
    expect((await raw(readOnly, "GET", "/v1/events/")).status).toBe(200);
    const none = await seller.createKey({ meters: ["read"] });
    expect((await raw(none, "GET", "/v1/events/")).status).toBe(403);
    expect((await raw(none, "GET", "/v1/events/names")).status).toBe(403);
  });

  it("never shows another organization's events", async () => {
    const name = unique("tenant");
    await sdk.events.ingest({ events: [{ name, externalCustomerId: "shared-ext" }] });
    const [mine] = await eventsOf({ name });
    const otherKey = await other.createKey();
    const get = await raw(otherKey, "GET", `/v1/events/${mine?.id}`);
    expect(get.status).toBe(404);
    expect(get.body.error).toBe("ResourceNotFound");
    const list = await raw(otherKey, "GET", `/v1/events/?name=${name}`);
    expect(list.body.items).toEqual([]);
    const byExt = await raw(otherKey, "GET", "/v1/events/?external_customer_id=shared-ext");
    expect(byExt.body.items).toEqual([]);
    const names = await raw(otherKey, "GET", `/v1/events/names?query=${name}`);
    expect(names.body.items).toEqual([]);
    // a parent must be an event of the same organization
    const parent = await raw(otherKey, "POST", "/v1/events/ingest", {
      events: [{ name, external_customer_id: "x", parent_id: mine?.id }],
    });
    expect(parent.status).toBe(422);
  });
});
