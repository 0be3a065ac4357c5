// /v1/meters through @polar-sh/sdk 0.47.1 (and 0.49.0): create, list, get, update, validation, scopes and
// tenancy. Quantities, filters compiled to SQL and aggregations: meters-quantities.test.ts.
import { describe, expect, it } from "vitest";
import { countApiCalls, metersFixture } from "./meters-fixtures.js";

const fx = metersFixture();

describe("/v1/meters CRUD", () => {
  it("creates, gets, lists and updates a meter through 0.47.1", async () => {
    const meter = await fx.seller.sdk.meters.create({
      name: "API calls",
      filter: countApiCalls,
      aggregation: { func: "count" },
      metadata: { team: "core", tier: 2 },
    });
    expect(meter).toMatchObject({
      name: "API calls",
      unit: "scalar",
      organizationId: fx.seller.organizationId,
      filter: countApiCalls,
      aggregation: { func: "count" },
      metadata: { team: "core", tier: 2 },
      modifiedAt: null,
      archivedAt: null,
    });
    const got = await fx.seller.sdk.meters.get({ id: meter.id });
    expect(got.id).toBe(meter.id);

    const updated = await fx.seller.sdk.meters.update({
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

    const archived = await fx.seller.sdk.meters.update({ id: meter.id, meterUpdate: { isArchived: true } });
    expect(archived.archivedAt).toBeInstanceOf(Date);
    const listArchived = await fx.seller.sdk.meters.list({ isArchived: true });
    expect(listArchived.result.items.map((m) => m.id)).toContain(meter.id);
    const listLive = await fx.seller.sdk.meters.list({ isArchived: false });
    expect(listLive.result.items.map((m) => m.id)).not.toContain(meter.id);
    const unarchived = await fx.seller.sdk.meters.update({ id: meter.id, meterUpdate: { isArchived: false } });
    expect(unarchived.archivedAt).toBeNull();
  });

  it("lists with query, metadata, sorting and pagination", async () => {
    const names = ["zeta meter", "alpha meter", "mid meter"];
    for (const name of names) {
      await fx.sdk.meters.create({ name, filter: countApiCalls, aggregation: { func: "count" }, metadata: { group: "listing" } });
    }
    const byName = await fx.sdk.meters.list({ metadata: { group: "listing" }, sorting: ["name"] });
    expect(byName.result.items.map((m) => m.name)).toEqual(["alpha meter", "mid meter", "zeta meter"]);
    const desc = await fx.sdk.meters.list({ metadata: { group: "listing" }, sorting: ["-name"] });
    expect(desc.result.items.map((m) => m.name)).toEqual(["zeta meter", "mid meter", "alpha meter"]);
    const q = await fx.sdk.meters.list({ query: "ALPHA" });
    expect(q.result.items.map((m) => m.name)).toEqual(["alpha meter"]);
    const paged = await fx.sdk.meters.list({ metadata: { group: "listing" }, sorting: ["name"], limit: 2, page: 2 });
    expect(paged.result.items.map((m) => m.name)).toEqual(["zeta meter"]);
    expect(paged.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const byOrg = await fx.sdk.meters.list({ organizationId: fx.seller.organizationId, metadata: { group: "listing" } });
    expect(byOrg.result.pagination.totalCount).toBe(3);
    const all: string[] = [];
    for await (const p of await fx.sdk.meters.list({ metadata: { group: "listing" }, limit: 1 })) {
      all.push(...p.result.items.map((m) => m.name));
    }
    expect(all.sort()).toEqual(["alpha meter", "mid meter", "zeta meter"]);
  });

  it("works through 0.49.0 (create, get, list)", async () => {
    const meter = await fx.seller.sdk049.meters.create({
      name: "v049 meter",
      filter: countApiCalls,
      aggregation: { func: "unique", property: "user" },
    });
    expect(meter.aggregation).toEqual({ func: "unique", property: "user" });
    expect((await fx.seller.sdk049.meters.get({ id: meter.id })).name).toBe("v049 meter");
    const list = await fx.seller.sdk049.meters.list({ query: "v049" });
    expect(list.result.items.map((m) => m.id)).toEqual([meter.id]);
  });
});

describe("/v1/meters validation, scopes and tenancy", () => {
  it("refuses invalid definitions with 422 and stores nothing", async () => {
    const before = (await fx.sdk.meters.list({ limit: 100 })).result.pagination.totalCount;
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
      const res = await fx.raw(fx.key, "POST", "/v1/meters/", body);
      expect(res.status, label).toBe(422);
      const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
      expect(detail.length, label).toBeGreaterThan(0);
      expect(detail[0]?.loc[0], label).toBe("body");
    }
    const json = await fx.raw(fx.key, "POST", "/v1/meters/", "{not json");
    expect(json.status).toBe(422);
    expect((await fx.sdk.meters.list({ limit: 100 })).result.pagination.totalCount).toBe(before);

    const meter = await fx.sdk.meters.create(good as Parameters<typeof fx.sdk.meters.create>[0]);
    const patch = await fx.raw(fx.key, "PATCH", `/v1/meters/${meter.id}`, { unit: "custom" });
    expect(patch.status).toBe(422);
    const badPatch = await fx.raw(fx.key, "PATCH", `/v1/meters/${meter.id}`, { filter: { conjunction: "and", clauses: [{}] } });
    expect(badPatch.status).toBe(422);
    expect((await fx.sdk.meters.get({ id: meter.id })).unit).toBe("scalar");
    const badList = await fx.raw(fx.key, "GET", "/v1/meters/?limit=1000");
    expect(badList.status).toBe(422);
    const badSort = await fx.raw(fx.key, "GET", "/v1/meters/?sorting=weight");
    expect(badSort.status).toBe(422);
    const badArchived = await fx.raw(fx.key, "GET", "/v1/meters/?is_archived=maybe");
    expect(badArchived.status).toBe(422);
    const badId = await fx.raw(fx.key, "GET", "/v1/meters/not-a-uuid");
    expect(badId.status).toBe(422);
  });

  it("needs meters:read / meters:write", async () => {
    const readOnly = await fx.seller.createKey({ meters: ["read"] });
    const meter = await fx.sdk.meters.create({ name: "scoped", filter: countApiCalls, aggregation: { func: "count" } });
    expect((await fx.raw(readOnly, "GET", `/v1/meters/${meter.id}`)).status).toBe(200);
    const create = await fx.raw(readOnly, "POST", "/v1/meters/", { name: "x", filter: countApiCalls, aggregation: { func: "count" } });
    expect(create.status).toBe(403);
    expect(create.body.error).toBe("NotPermitted");
    expect((await fx.raw(readOnly, "PATCH", `/v1/meters/${meter.id}`, { name: "y" })).status).toBe(403);
    const noMeters = await fx.seller.createKey({ products: ["read"] });
    expect((await fx.raw(noMeters, "GET", "/v1/meters/")).status).toBe(403);
    expect((await fx.raw(noMeters, "GET", `/v1/meters/${meter.id}/quantities?start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-01-02T00:00:00Z&interval=day`)).status).toBe(403);
  });

  it("never shows another organization's meters", async () => {
    const mine = await fx.sdk.meters.create({ name: "tenant meter", filter: countApiCalls, aggregation: { func: "count" } });
    const otherKey = await fx.other.createKey();
    for (const [method, path, body] of [
      ["GET", `/v1/meters/${mine.id}`, undefined],
      ["PATCH", `/v1/meters/${mine.id}`, { name: "stolen" }],
      ["GET", `/v1/meters/${mine.id}/quantities?start_timestamp=2024-01-01T00:00:00Z&end_timestamp=2024-01-02T00:00:00Z&interval=day`, undefined],
    ] as const) {
      const res = await fx.raw(otherKey, method, path, body);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    const theirs = await fx.raw(otherKey, "GET", "/v1/meters/?limit=100");
    expect((theirs.body.items as Array<{ id: string }>).map((m) => m.id)).not.toContain(mine.id);
    const foreignOrg = await fx.raw(fx.key, "GET", `/v1/meters/?organization_id=${fx.other.organizationId}`);
    expect(foreignOrg.status).toBe(404);
    expect((await fx.sdk.meters.get({ id: mine.id })).name).toBe("tenant meter");
  });
});
