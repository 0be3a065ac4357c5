// /v1/discounts through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0): fixed and percentage,
// once/forever/repeating, codes, redemption limits, product restrictions, validation and scopes. Updates and
// soft deletion: discounts-update.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { discount } from "../../server/db/schema/index.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { discountFixture, percentOnce } from "./discounts-fixtures.js";

const fx = discountFixture();

describe("/v1/discounts create and read (SDK 0.47.1)", () => {
  it("creates fixed and percentage discounts of every duration", async () => {
    const startsAt = new Date("2030-01-01T00:00:00.000Z");
    const endsAt = new Date("2030-02-01T00:00:00.000Z");
    const fixed = await fx.seller.sdk.discounts.create({
      type: "fixed",
      duration: "once",
      amount: 500,
      currency: "eur",
      name: "Five off",
      code: "FIVEOFF",
      startsAt,
      endsAt,
      maxRedemptions: 100,
      products: [fx.productB, fx.productA],
      metadata: { campaign: "spring", round: 2, active: true },
    });
    expect(fixed).toMatchObject({
      type: "fixed",
      duration: "once",
      amount: 500,
      currency: "eur",
      amounts: { eur: 500 },
      name: "Five off",
      code: "FIVEOFF",
      startsAt,
      endsAt,
      maxRedemptions: 100,
      redemptionsCount: 0,
      organizationId: fx.seller.organizationId,
      metadata: { campaign: "spring", round: 2, active: true },
      modifiedAt: null,
    });
    expect(fixed.products.map((p) => p.id)).toEqual([fx.productA, fx.productB]);
    expect(fixed.products[0]).toMatchObject({
      id: fx.productA,
      name: "Product A",
      description: "Product A description",
      isArchived: false,
      organizationId: fx.seller.organizationId,
      metadata: {},
    });

    const fixedRepeat = await fx.seller.sdk.discounts.create({
      type: "fixed",
      duration: "repeating",
      durationInMonths: 3,
      amount: 300,
      name: "Three months off",
    });
    expect(fixedRepeat).toMatchObject({ duration: "repeating", durationInMonths: 3, amount: 300, currency: "usd", code: null, products: [] });

    const pctForever = await fx.seller.sdk.discounts.create({ type: "percentage", duration: "forever", basisPoints: 2500, name: "Quarter off" });
    expect(pctForever).toMatchObject({ type: "percentage", duration: "forever", basisPoints: 2500, startsAt: null, endsAt: null, maxRedemptions: null });
    expect(pctForever).not.toHaveProperty("amount");

    const pctRepeat = await fx.seller.sdk.discounts.create({
      type: "percentage",
      duration: "repeating",
      durationInMonths: 12,
      basisPoints: 10000,
      name: "Free year",
    });
    expect(pctRepeat).toMatchObject({ durationInMonths: 12, basisPoints: 10000 });

    const pctOnce = await fx.seller.sdk.discounts.create(percentOnce("Ten off once", { basisPoints: 1 }));
    expect(pctOnce).toMatchObject({ duration: "once", basisPoints: 1 });

    const rawGet = await fx.raw(fx.seller.token, "GET", `/v1/discounts/${pctOnce.id}`);
    for (const key of ["modified_at", "code", "starts_at", "ends_at", "max_redemptions"]) expect(rawGet.body).toHaveProperty(key, null);
    expect(rawGet.body).not.toHaveProperty("duration_in_months");
  });

  it("accepts per-currency amounts (0.49.0's amounts map)", async () => {
    const multi = await fx.seller.sdk.discounts.create({
      type: "fixed",
      duration: "forever",
      name: "Multi currency",
      amounts: { usd: 1000, eur: 900, gbp: 800 },
    });
    expect(multi).toMatchObject({ amount: 1000, currency: "usd", amounts: { usd: 1000, eur: 900, gbp: 800 } });
    const withPrimary = await fx.raw(fx.seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Primary euro",
      currency: "eur",
      amounts: { usd: 1000, eur: 900 },
    });
    expect(withPrimary.status).toBe(201);
    expect(withPrimary.body).toMatchObject({ amount: 900, currency: "eur", amounts: { usd: 1000, eur: 900 } });
    const both = await fx.raw(fx.seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Both",
      amount: 700,
      currency: "usd",
      amounts: { eur: 650 },
    });
    expect(both.body).toMatchObject({ amount: 700, currency: "usd", amounts: { usd: 700, eur: 650 } });
    const conflict = await fx.raw(fx.seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Conflict",
      amount: 700,
      currency: "usd",
      amounts: { usd: 650 },
    });
    expect(conflict.status).toBe(422);
    expect(conflict.body.detail).toMatchObject([{ loc: ["body", "amounts"] }]);

    const updated = await fx.seller.sdk.discounts.update({ id: multi.id, discountUpdate: { amount: 1100 } });
    expect(updated).toMatchObject({ amount: 1100, currency: "usd", amounts: { usd: 1100, eur: 900, gbp: 800 } });
    const switched = await fx.seller.sdk.discounts.update({ id: multi.id, discountUpdate: { currency: "gbp" } });
    expect(switched).toMatchObject({ amount: 800, currency: "gbp" });
    const replaced = await fx.seller.sdk.discounts.update({ id: multi.id, discountUpdate: { amounts: { gbp: 500, cad: 400 } } });
    expect(replaced).toMatchObject({ amount: 500, currency: "gbp", amounts: { gbp: 500, cad: 400 } });
  });

  it("gets a discount; unknown and foreign ids are 404, malformed 422", async () => {
    const created = await fx.seller.sdk.discounts.create(percentOnce("Gettable"));
    expect(await fx.seller.sdk.discounts.get({ id: created.id })).toEqual(created);
    await expect(fx.seller.sdk.discounts.get({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ statusCode: 404 });
    await expect(fx.other.sdk.discounts.get({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    expect(await fx.raw(fx.other.token, "GET", `/v1/discounts/${created.id}`)).toEqual({
      status: 404,
      body: { error: "ResourceNotFound", detail: "Discount not found" },
    });
    const malformed = await fx.raw(fx.seller.token, "GET", "/v1/discounts/123");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toMatchObject([{ loc: ["path", "id"], type: "uuid_parsing" }]);
  });

  it("lists with query, sorting and pagination; only the caller's discounts", async () => {
    const s = await createSeller(fx.server, "lister");
    const a = await s.sdk.discounts.create(percentOnce("Alpha sale", { code: "ZETA1" }));
    const b = await s.sdk.discounts.create(percentOnce("Beta sale", { code: "ALPHA2", endsAt: new Date("2031-01-01T00:00:00Z") }));
    const c = await s.sdk.discounts.create({ type: "fixed", duration: "once", amount: 100, name: "Gamma deal" });
    await fx.db().update(discount).set({ redemptionsCount: 5 }).where(eq(discount.id, b.id));

    const all = await s.sdk.discounts.list({});
    expect(all.result.items.map((d) => d.id)).toEqual([c.id, b.id, a.id]);
    expect(all.result.pagination).toEqual({ totalCount: 3, maxPage: 1 });

    expect((await s.sdk.discounts.list({ query: "alpha" })).result.items.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
    expect((await s.sdk.discounts.list({ query: "deal" })).result.items.map((d) => d.id)).toEqual([c.id]);
    expect((await s.sdk.discounts.list({ query: "_" })).result.items).toEqual([]);

    expect((await s.sdk.discounts.list({ sorting: ["name"] })).result.items.map((d) => d.name)).toEqual(["Alpha sale", "Beta sale", "Gamma deal"]);
    expect((await s.sdk.discounts.list({ sorting: ["-name"] })).result.items.map((d) => d.id)).toEqual([c.id, b.id, a.id]);
    expect((await s.sdk.discounts.list({ sorting: ["code"] })).result.items.map((d) => d.id)).toEqual([b.id, a.id, c.id]);
    expect((await s.sdk.discounts.list({ sorting: ["-redemptions_count", "created_at"] })).result.items.map((d) => d.id)).toEqual([
      b.id,
      a.id,
      c.id,
    ]);
    expect((await s.sdk.discounts.list({ sorting: ["ends_at"] })).result.items[0]?.id).toBe(b.id);

    const first = await s.sdk.discounts.list({ limit: 2, sorting: ["created_at"] });
    expect(first.result.items.map((d) => d.id)).toEqual([a.id, b.id]);
    expect(first.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    expect((await first.next())?.result.items.map((d) => d.id)).toEqual([c.id]);

    expect((await s.sdk.discounts.list({ organizationId: s.organizationId })).result.pagination.totalCount).toBe(3);
    expect((await fx.other.sdk.discounts.list({ limit: 100 })).result.items.some((d) => [a.id, b.id, c.id].includes(d.id))).toBe(false);
    const key = await s.createKey();
    expect((await fx.raw(key, "GET", `/v1/discounts/?organization_id=${fx.other.organizationId}`)).status).toBe(404);
    expect((await fx.raw(s.token, "GET", "/v1/discounts")).status).toBe(200);
  });
});

describe("/v1/discounts through SDK 0.49.0", () => {
  it("creates, gets and lists", async () => {
    const created = await fx.seller.sdk049.discounts.create({
      type: "fixed",
      duration: "repeating",
      durationInMonths: 2,
      name: "049 deal",
      amounts: { usd: 200, eur: 180 },
      products: [fx.productA],
    });
    expect(created).toMatchObject({ amount: 200, currency: "usd", amounts: { usd: 200, eur: 180 }, durationInMonths: 2 });
    expect(created.products.map((p) => p.id)).toEqual([fx.productA]);
    expect((await fx.seller.sdk049.discounts.get({ id: created.id })).id).toBe(created.id);
    const pct = await fx.seller.sdk049.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "049 pct" });
    const listed = await fx.seller.sdk049.discounts.list({ limit: 100 });
    expect(listed.result.items.map((d) => d.id)).toEqual(expect.arrayContaining([created.id, pct.id]));
  });
});

describe("/v1/discounts validation", () => {
  const base = { type: "percentage", duration: "once", basis_points: 1000, name: "Valid" };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["unknown type", { ...base, type: "bogo" }, "type"],
    ["missing type", { duration: "once", basis_points: 1000, name: "x" }, "type"],
    ["unknown duration", { ...base, duration: "weekly" }, "duration"],
    ["missing name", { type: "percentage", duration: "once", basis_points: 1000 }, "name"],
    ["empty name", { ...base, name: "  " }, "name"],
    ["NUL in name", { ...base, name: "Sale\u0000" }, "name"],
    ["basis points 0", { ...base, basis_points: 0 }, "basis_points"],
    ["basis points over 10000", { ...base, basis_points: 10001 }, "basis_points"],
    ["basis points fractional", { ...base, basis_points: 10.5 }, "basis_points"],
    ["basis points as string", { ...base, basis_points: "1000" }, "basis_points"],
    ["missing basis points", { type: "percentage", duration: "once", name: "x" }, "basis_points"],
    ["repeating without months", { ...base, duration: "repeating" }, "duration_in_months"],
    ["repeating with 0 months", { ...base, duration: "repeating", duration_in_months: 0 }, "duration_in_months"],
    ["months on once", { ...base, duration_in_months: 3 }, "duration_in_months"],
    ["months on forever", { ...base, duration: "forever", duration_in_months: 3 }, "duration_in_months"],
    ["fixed without amount", { type: "fixed", duration: "once", name: "x" }, "amount"],
    ["fixed amount 0", { type: "fixed", duration: "once", name: "x", amount: 0 }, "amount"],
    ["fixed negative amount", { type: "fixed", duration: "once", name: "x", amount: -5 }, "amount"],
    ["unknown currency", { type: "fixed", duration: "once", name: "x", amount: 5, currency: "zzz" }, "currency"],
    ["upper-case currency", { type: "fixed", duration: "once", name: "x", amount: 5, currency: "USD" }, "currency"],
    ["amounts with unknown currency", { type: "fixed", duration: "once", name: "x", amounts: { xyz: 5 } }, "amounts"],
    ["empty amounts", { type: "fixed", duration: "once", name: "x", amounts: {} }, "amounts"],
    ["currency missing from amounts", { type: "fixed", duration: "once", name: "x", currency: "eur", amounts: { usd: 5 } }, "currency"],
    ["code with a dash", { ...base, code: "SUMMER-24" }, "code"],
    ["code too short", { ...base, code: "AB" }, "code"],
    ["code not a string", { ...base, code: 1234 }, "code"],
    ["max redemptions 0", { ...base, max_redemptions: 0 }, "max_redemptions"],
    ["malformed starts_at", { ...base, starts_at: "2030-01-01" }, "starts_at"],
    ["datetime without offset", { ...base, ends_at: "2030-01-01T00:00:00" }, "ends_at"],
    ["ends before starts", { ...base, starts_at: "2030-01-02T00:00:00Z", ends_at: "2030-01-01T00:00:00Z" }, "ends_at"],
    ["ends equal starts", { ...base, starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-01T00:00:00+00:00" }, "ends_at"],
    ["unknown product", { ...base, products: ["00000000-0000-4000-8000-000000000000"] }, "products"],
    ["malformed product id", { ...base, products: ["nope"] }, "products"],
    ["foreign product", { ...base, products: [fx.foreignProduct] }, "products"],
    ["metadata with an array", { ...base, metadata: { tags: ["a"] } }, "metadata"],
    ["metadata key too long", { ...base, metadata: { ["k".repeat(41)]: "v" } }, "metadata"],
  ];

  it.each(cases)("refuses %s with 422 and creates nothing", async (_name, body, field) => {
    const before = await fx.discountCount(fx.seller.organizationId);
    const res = await fx.raw(fx.seller.token, "POST", "/v1/discounts/", body);
    expect(res.status).toBe(422);
    const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
    expect(detail.some((d) => d.loc[0] === "body" && d.loc[1] === field), JSON.stringify(detail)).toBe(true);
    expect(await fx.discountCount(fx.seller.organizationId)).toBe(before);
  });

  it("refuses malformed JSON and bad list queries", async () => {
    expect((await fx.raw(fx.seller.token, "POST", "/v1/discounts/", "[1,")).status).toBe(422);
    expect((await fx.raw(fx.seller.token, "POST", "/v1/discounts/", [1, 2])).status).toBe(422);
    for (const q of ["query=%00", "sorting=amount", "limit=0", "limit=1000", "page=-1", "organization_id=nope"]) {
      expect((await fx.raw(fx.seller.token, "GET", `/v1/discounts/?${q}`)).status, q).toBe(422);
    }
  });
});

describe("scopes", () => {
  it("needs discounts:write to write and discounts:read to read", async () => {
    const d = await fx.seller.sdk.discounts.create(percentOnce("Scoped"));
    const reader = sdkFor(fx.server, await fx.seller.createKey({ discounts: ["read"] }));
    expect((await reader.discounts.get({ id: d.id })).id).toBe(d.id);
    expect((await reader.discounts.list({})).result.pagination.totalCount).toBeGreaterThan(0);
    await expect(reader.discounts.create(percentOnce("Nope"))).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.discounts.update({ id: d.id, discountUpdate: { name: "Nope" } })).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.discounts.delete({ id: d.id })).rejects.toMatchObject({ statusCode: 403 });
    const stranger = await fx.seller.createKey({ benefits: ["read", "write"] });
    for (const [method, path] of [
      ["GET", "/v1/discounts/"],
      ["GET", `/v1/discounts/${d.id}`],
      ["DELETE", `/v1/discounts/${d.id}`],
    ] as const) {
      const res = await fx.raw(stranger, method, path);
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe("NotPermitted");
    }
    const writer = sdkFor(fx.server, await fx.seller.createKey({ discounts: ["write"] }));
    const created = await writer.discounts.create(percentOnce("Writer"));
    await writer.discounts.delete({ id: created.id });
    expect((await fx.seller.sdk.discounts.get({ id: d.id })).name).toBe("Scoped");
  });
});
