// /v1/discounts through @polar-sh/sdk 0.47.1 (list/get/create again through 0.49.0): fixed and percentage,
// once/forever/repeating, codes, redemption limits, product restrictions, soft deletion, validation, scopes
// and tenancy.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discount, product } from "../../server/db/schema/index.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let productA: string;
let productB: string;
let foreignProduct: string;

const db = () => server.database.db;

async function insertProduct(organizationId: string, name: string): Promise<string> {
  const [row] = await db().insert(product).values({ organizationId, name, description: `${name} description` }).returning();
  return row!.id;
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "discounts");
  other = await createSeller(server, "intruder");
  productA = await insertProduct(seller.organizationId, "Product A");
  productB = await insertProduct(seller.organizationId, "Product B");
  foreignProduct = await insertProduct(other.organizationId, "Foreign product");
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

async function discountCount(organizationId: string): Promise<number> {
  return (await db().select().from(discount).where(eq(discount.organizationId, organizationId))).length;
}

let codeN = 0;
const freshCode = () => `CODE${Date.now().toString(36).toUpperCase()}${codeN++}`;

const percentOnce = (name: string, extra: Record<string, unknown> = {}) => ({
  type: "percentage" as const,
  duration: "once" as const,
  basisPoints: 1000,
  name,
  ...extra,
});

describe("/v1/discounts create and read (SDK 0.47.1)", () => {
  it("creates fixed and percentage discounts of every duration", async () => {
    const startsAt = new Date("2030-01-01T00:00:00.000Z");
    const endsAt = new Date("2030-02-01T00:00:00.000Z");
    const fixed = await seller.sdk.discounts.create({
      type: "fixed",
      duration: "once",
      amount: 500,
      currency: "eur",
      name: "Five off",
      code: "FIVEOFF",
      startsAt,
      endsAt,
      maxRedemptions: 100,
      products: [productB, productA],
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
      organizationId: seller.organizationId,
      metadata: { campaign: "spring", round: 2, active: true },
      modifiedAt: null,
    });
    expect(fixed.products.map((p) => p.id)).toEqual([productA, productB]);
    expect(fixed.products[0]).toMatchObject({
      id: productA,
      name: "Product A",
      description: "Product A description",
      isArchived: false,
      organizationId: seller.organizationId,
      metadata: {},
    });

    const fixedRepeat = await seller.sdk.discounts.create({
      type: "fixed",
      duration: "repeating",
      durationInMonths: 3,
      amount: 300,
      name: "Three months off",
    });
    expect(fixedRepeat).toMatchObject({ duration: "repeating", durationInMonths: 3, amount: 300, currency: "usd", code: null, products: [] });

    const pctForever = await seller.sdk.discounts.create({ type: "percentage", duration: "forever", basisPoints: 2500, name: "Quarter off" });
    expect(pctForever).toMatchObject({ type: "percentage", duration: "forever", basisPoints: 2500, startsAt: null, endsAt: null, maxRedemptions: null });
    expect(pctForever).not.toHaveProperty("amount");

    const pctRepeat = await seller.sdk.discounts.create({
      type: "percentage",
      duration: "repeating",
      durationInMonths: 12,
      basisPoints: 10000,
      name: "Free year",
    });
    expect(pctRepeat).toMatchObject({ durationInMonths: 12, basisPoints: 10000 });

    const pctOnce = await seller.sdk.discounts.create(percentOnce("Ten off once", { basisPoints: 1 }));
    expect(pctOnce).toMatchObject({ duration: "once", basisPoints: 1 });

    const rawGet = await raw(seller.token, "GET", `/v1/discounts/${pctOnce.id}`);
    for (const key of ["modified_at", "code", "starts_at", "ends_at", "max_redemptions"]) expect(rawGet.body).toHaveProperty(key, null);
    expect(rawGet.body).not.toHaveProperty("duration_in_months");
  });

  it("accepts per-currency amounts (0.49.0's amounts map)", async () => {
    const multi = await seller.sdk.discounts.create({
      type: "fixed",
      duration: "forever",
      name: "Multi currency",
      amounts: { usd: 1000, eur: 900, gbp: 800 },
    });
    expect(multi).toMatchObject({ amount: 1000, currency: "usd", amounts: { usd: 1000, eur: 900, gbp: 800 } });
    const withPrimary = await raw(seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Primary euro",
      currency: "eur",
      amounts: { usd: 1000, eur: 900 },
    });
    expect(withPrimary.status).toBe(201);
    expect(withPrimary.body).toMatchObject({ amount: 900, currency: "eur", amounts: { usd: 1000, eur: 900 } });
    const both = await raw(seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Both",
      amount: 700,
      currency: "usd",
      amounts: { eur: 650 },
    });
    expect(both.body).toMatchObject({ amount: 700, currency: "usd", amounts: { usd: 700, eur: 650 } });
    const conflict = await raw(seller.token, "POST", "/v1/discounts/", {
      type: "fixed",
      duration: "once",
      name: "Conflict",
      amount: 700,
      currency: "usd",
      amounts: { usd: 650 },
    });
    expect(conflict.status).toBe(422);
    expect(conflict.body.detail).toMatchObject([{ loc: ["body", "amounts"] }]);

    const updated = await seller.sdk.discounts.update({ id: multi.id, discountUpdate: { amount: 1100 } });
    expect(updated).toMatchObject({ amount: 1100, currency: "usd", amounts: { usd: 1100, eur: 900, gbp: 800 } });
    const switched = await seller.sdk.discounts.update({ id: multi.id, discountUpdate: { currency: "gbp" } });
    expect(switched).toMatchObject({ amount: 800, currency: "gbp" });
    const replaced = await seller.sdk.discounts.update({ id: multi.id, discountUpdate: { amounts: { gbp: 500, cad: 400 } } });
    expect(replaced).toMatchObject({ amount: 500, currency: "gbp", amounts: { gbp: 500, cad: 400 } });
  });

  it("gets a discount; unknown and foreign ids are 404, malformed 422", async () => {
    const created = await seller.sdk.discounts.create(percentOnce("Gettable"));
    expect(await seller.sdk.discounts.get({ id: created.id })).toEqual(created);
    await expect(seller.sdk.discounts.get({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.sdk.discounts.get({ id: created.id })).rejects.toMatchObject({ statusCode: 404 });
    expect(await raw(other.token, "GET", `/v1/discounts/${created.id}`)).toEqual({
      status: 404,
      body: { error: "ResourceNotFound", detail: "Discount not found" },
    });
    const malformed = await raw(seller.token, "GET", "/v1/discounts/123");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toMatchObject([{ loc: ["path", "id"], type: "uuid_parsing" }]);
  });

  it("lists with query, sorting and pagination; only the caller's discounts", async () => {
    const s = await createSeller(server, "lister");
    const a = await s.sdk.discounts.create(percentOnce("Alpha sale", { code: "ZETA1" }));
    const b = await s.sdk.discounts.create(percentOnce("Beta sale", { code: "ALPHA2", endsAt: new Date("2031-01-01T00:00:00Z") }));
    const c = await s.sdk.discounts.create({ type: "fixed", duration: "once", amount: 100, name: "Gamma deal" });
    await db().update(discount).set({ redemptionsCount: 5 }).where(eq(discount.id, b.id));

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
    expect((await other.sdk.discounts.list({ limit: 100 })).result.items.some((d) => [a.id, b.id, c.id].includes(d.id))).toBe(false);
    const key = await s.createKey();
    expect((await raw(key, "GET", `/v1/discounts/?organization_id=${other.organizationId}`)).status).toBe(404);
    expect((await raw(s.token, "GET", "/v1/discounts")).status).toBe(200);
  });
});

describe("/v1/discounts update and delete", () => {
  it("updates name, code, dates, limits, products and metadata", async () => {
    const d = await seller.sdk.discounts.create(percentOnce("Editable", { code: freshCode(), products: [productA] }));
    const code = freshCode();
    const updated = await seller.sdk.discounts.update({
      id: d.id,
      discountUpdate: {
        name: "Edited",
        code,
        startsAt: new Date("2030-01-01T00:00:00Z"),
        endsAt: new Date("2030-06-01T00:00:00Z"),
        maxRedemptions: 10,
        products: [productB],
        metadata: { edited: true },
        basisPoints: 1500,
      },
    });
    expect(updated).toMatchObject({
      name: "Edited",
      code,
      maxRedemptions: 10,
      metadata: { edited: true },
      basisPoints: 1500,
      type: "percentage",
      duration: "once",
    });
    expect(updated.products.map((p) => p.id)).toEqual([productB]);
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    // sending the current type and duration is fine; null clears code, dates and the limit
    const cleared = await raw(seller.token, "PATCH", `/v1/discounts/${d.id}`, {
      type: "percentage",
      duration: "once",
      code: null,
      starts_at: null,
      ends_at: null,
      max_redemptions: null,
      products: [],
      name: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ name: "Edited", code: null, starts_at: null, ends_at: null, max_redemptions: null, products: [] });

    const repeating = await seller.sdk.discounts.create({ type: "fixed", duration: "repeating", durationInMonths: 2, amount: 100, name: "Repeat" });
    const longer = await seller.sdk.discounts.update({ id: repeating.id, discountUpdate: { durationInMonths: 6, amount: 150, currency: "eur" } });
    expect(longer).toMatchObject({ durationInMonths: 6, amount: 150, currency: "eur", amounts: { eur: 150 } });
  });

  it("refuses changes of type and duration and fields of the other type (422, nothing changed)", async () => {
    const pct = await seller.sdk.discounts.create(percentOnce("Fixed terms"));
    const fixed = await seller.sdk.discounts.create({ type: "fixed", duration: "forever", amount: 100, name: "Fixed amount" });
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      [pct.id, { type: "fixed", amount: 100 }, "type"],
      [pct.id, { duration: "forever" }, "duration"],
      [pct.id, { duration: "repeating", duration_in_months: 3 }, "duration"],
      [pct.id, { duration_in_months: 3 }, "duration_in_months"],
      [pct.id, { amount: 100 }, "amount"],
      [fixed.id, { basis_points: 100 }, "basis_points"],
      [fixed.id, { currency: "xyz" }, "currency"],
      [fixed.id, { amount: 0 }, "amount"],
      [pct.id, { basis_points: 10001 }, "basis_points"],
      [pct.id, { max_redemptions: 0 }, "max_redemptions"],
      [pct.id, { starts_at: "2030-02-01T00:00:00Z", ends_at: "2030-01-01T00:00:00Z" }, "ends_at"],
      [pct.id, { code: "no spaces" }, "code"],
      [pct.id, { starts_at: "yesterday" }, "starts_at"],
      [pct.id, { products: ["00000000-0000-4000-8000-000000000000"] }, "products"],
      [pct.id, { products: [foreignProduct] }, "products"],
      [pct.id, { metadata: { nested: { a: 1 } } }, "metadata"],
    ];
    for (const [id, body, field] of refusals) {
      const before = await seller.sdk.discounts.get({ id });
      const res = await raw(seller.token, "PATCH", `/v1/discounts/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>).some((d) => d.loc[1] === field), JSON.stringify(res.body)).toBe(true);
      expect(await seller.sdk.discounts.get({ id })).toEqual(before);
    }

    // ends_at is checked against the stored starts_at too
    const dated = await seller.sdk.discounts.create(percentOnce("Dated", { startsAt: new Date("2030-03-01T00:00:00Z") }));
    const early = await raw(seller.token, "PATCH", `/v1/discounts/${dated.id}`, { ends_at: "2030-02-01T00:00:00Z" });
    expect(early.status).toBe(422);
  });

  it("once redeemed, the value is fixed and max_redemptions cannot go below the count", async () => {
    const d = await seller.sdk.discounts.create({ type: "fixed", duration: "repeating", durationInMonths: 3, amount: 500, name: "Redeemed" });
    await db().update(discount).set({ redemptionsCount: 4 }).where(eq(discount.id, d.id));
    for (const body of [{ amount: 400 }, { duration_in_months: 5 }, { currency: "eur" }, { max_redemptions: 3 }]) {
      const res = await raw(seller.token, "PATCH", `/v1/discounts/${d.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const same = await seller.sdk.discounts.update({ id: d.id, discountUpdate: { amount: 500, maxRedemptions: 4, name: "Still redeemed" } });
    expect(same).toMatchObject({ amount: 500, maxRedemptions: 4, name: "Still redeemed", redemptionsCount: 4 });
    // redemptions_count is read-only
    const ignored = await raw(seller.token, "PATCH", `/v1/discounts/${d.id}`, { redemptions_count: 0 });
    expect(ignored.body).toMatchObject({ redemptions_count: 4 });
  });

  it("codes are unique per organization, case-insensitively, among live discounts", async () => {
    const code = freshCode();
    const first = await seller.sdk.discounts.create(percentOnce("First", { code }));
    const before = await discountCount(seller.organizationId);
    const dup = await raw(seller.token, "POST", "/v1/discounts/", {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Dup",
      code: code.toLowerCase(),
    });
    expect(dup.status).toBe(422);
    expect(dup.body.detail).toMatchObject([{ loc: ["body", "code"], msg: "A discount with this code already exists." }]);
    expect(await discountCount(seller.organizationId)).toBe(before);

    const second = await seller.sdk.discounts.create(percentOnce("Second", { code: freshCode() }));
    const clash = await raw(seller.token, "PATCH", `/v1/discounts/${second.id}`, { code: code.toLowerCase() });
    expect(clash.status).toBe(422);
    // keeping its own code (in another case) is not a clash
    expect((await raw(seller.token, "PATCH", `/v1/discounts/${first.id}`, { code: code.toLowerCase() })).status).toBe(200);

    // another organization may use the same code
    expect((await other.sdk.discounts.create(percentOnce("Theirs", { code }))).code).toBe(code);

    // deleting frees the code
    await seller.sdk.discounts.delete({ id: first.id });
    expect((await seller.sdk.discounts.create(percentOnce("Reuse", { code }))).code).toBe(code);
  });

  it("deletes softly (204): gone from get and list, row kept", async () => {
    const d = await seller.sdk.discounts.create(percentOnce("Doomed"));
    expect((await raw(other.token, "DELETE", `/v1/discounts/${d.id}`)).status).toBe(404);
    await expect(other.sdk.discounts.update({ id: d.id, discountUpdate: { name: "Hijack" } })).rejects.toMatchObject({ statusCode: 404 });
    const res = await raw(seller.token, "DELETE", `/v1/discounts/${d.id}`);
    expect(res).toEqual({ status: 204, body: null });
    await expect(seller.sdk.discounts.get({ id: d.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await seller.sdk.discounts.list({ limit: 100 })).result.items.some((x) => x.id === d.id)).toBe(false);
    const [row] = await db().select().from(discount).where(eq(discount.id, d.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    await expect(seller.sdk.discounts.delete({ id: d.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await raw(seller.token, "PATCH", `/v1/discounts/${d.id}`, { name: "Back" })).status).toBe(404);
  });
});

describe("/v1/discounts through SDK 0.49.0", () => {
  it("creates, gets and lists", async () => {
    const created = await seller.sdk049.discounts.create({
      type: "fixed",
      duration: "repeating",
      durationInMonths: 2,
      name: "049 deal",
      amounts: { usd: 200, eur: 180 },
      products: [productA],
    });
    expect(created).toMatchObject({ amount: 200, currency: "usd", amounts: { usd: 200, eur: 180 }, durationInMonths: 2 });
    expect(created.products.map((p) => p.id)).toEqual([productA]);
    expect((await seller.sdk049.discounts.get({ id: created.id })).id).toBe(created.id);
    const pct = await seller.sdk049.discounts.create({ type: "percentage", duration: "once", basisPoints: 500, name: "049 pct" });
    const listed = await seller.sdk049.discounts.list({ limit: 100 });
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
    ["foreign product", { ...base, products: [foreignProduct] }, "products"],
    ["metadata with an array", { ...base, metadata: { tags: ["a"] } }, "metadata"],
    ["metadata key too long", { ...base, metadata: { ["k".repeat(41)]: "v" } }, "metadata"],
  ];

  it.each(cases)("refuses %s with 422 and creates nothing", async (_name, body, field) => {
    const before = await discountCount(seller.organizationId);
    const res = await raw(seller.token, "POST", "/v1/discounts/", body);
    expect(res.status).toBe(422);
    const detail = res.body.detail as Array<{ loc: unknown[]; msg: string; type: string }>;
    expect(detail.some((d) => d.loc[0] === "body" && d.loc[1] === field), JSON.stringify(detail)).toBe(true);
    expect(await discountCount(seller.organizationId)).toBe(before);
  });

  it("refuses malformed JSON and bad list queries", async () => {
    expect((await raw(seller.token, "POST", "/v1/discounts/", "[1,")).status).toBe(422);
    expect((await raw(seller.token, "POST", "/v1/discounts/", [1, 2])).status).toBe(422);
    for (const q of ["query=%00", "sorting=amount", "limit=0", "limit=1000", "page=-1", "organization_id=nope"]) {
      expect((await raw(seller.token, "GET", `/v1/discounts/?${q}`)).status, q).toBe(422);
    }
  });
});

describe("scopes", () => {
  it("needs discounts:write to write and discounts:read to read", async () => {
    const d = await seller.sdk.discounts.create(percentOnce("Scoped"));
    const reader = sdkFor(server, await seller.createKey({ discounts: ["read"] }));
    expect((await reader.discounts.get({ id: d.id })).id).toBe(d.id);
    expect((await reader.discounts.list({})).result.pagination.totalCount).toBeGreaterThan(0);
    await expect(reader.discounts.create(percentOnce("Nope"))).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.discounts.update({ id: d.id, discountUpdate: { name: "Nope" } })).rejects.toMatchObject({ statusCode: 403 });
    await expect(reader.discounts.delete({ id: d.id })).rejects.toMatchObject({ statusCode: 403 });
    const stranger = await seller.createKey({ benefits: ["read", "write"] });
    for (const [method, path] of [
      ["GET", "/v1/discounts/"],
      ["GET", `/v1/discounts/${d.id}`],
      ["DELETE", `/v1/discounts/${d.id}`],
    ] as const) {
      const res = await raw(stranger, method, path);
      expect(res.status, path).toBe(403);
      expect(res.body.error).toBe("NotPermitted");
    }
    const writer = sdkFor(server, await seller.createKey({ discounts: ["write"] }));
    const created = await writer.discounts.create(percentOnce("Writer"));
    await writer.discounts.delete({ id: created.id });
    expect((await seller.sdk.discounts.get({ id: d.id })).name).toBe("Scoped");
  });
});
