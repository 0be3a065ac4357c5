// /v1/discounts updates and soft deletion through @polar-sh/sdk 0.47.1, and tenancy.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { discount } from "../../server/db/schema/index.js";
import { discountFixture, percentOnce } from "./discounts-fixtures.js";

const fx = discountFixture();

let codeN = 0;
const freshCode = () => `CODE${Date.now().toString(36).toUpperCase()}${codeN++}`;

describe("/v1/discounts update and delete", () => {
  it("updates name, code, dates, limits, products and metadata", async () => {
    const d = await fx.seller.sdk.discounts.create(percentOnce("Editable", { code: freshCode(), products: [fx.productA] }));
    const code = freshCode();
    const updated = await fx.seller.sdk.discounts.update({
      id: d.id,
      discountUpdate: {
        name: "Edited",
        code,
        startsAt: new Date("2030-01-01T00:00:00Z"),
        endsAt: new Date("2030-06-01T00:00:00Z"),
        maxRedemptions: 10,
        products: [fx.productB],
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
    expect(updated.products.map((p) => p.id)).toEqual([fx.productB]);
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    // sending the current type and duration is fine; null clears code, dates and the limit
    const cleared = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${d.id}`, {
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

    const repeating = await fx.seller.sdk.discounts.create({ type: "fixed", duration: "repeating", durationInMonths: 2, amount: 100, name: "Repeat" });
    const longer = await fx.seller.sdk.discounts.update({ id: repeating.id, discountUpdate: { durationInMonths: 6, amount: 150, currency: "eur" } });
    expect(longer).toMatchObject({ durationInMonths: 6, amount: 150, currency: "eur", amounts: { eur: 150 } });
  });

  it("refuses changes of type and duration and fields of the other type (422, nothing changed)", async () => {
    const pct = await fx.seller.sdk.discounts.create(percentOnce("Fixed terms"));
    const fixed = await fx.seller.sdk.discounts.create({ type: "fixed", duration: "forever", amount: 100, name: "Fixed amount" });
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
      [pct.id, { products: [fx.foreignProduct] }, "products"],
      [pct.id, { metadata: { nested: { a: 1 } } }, "metadata"],
    ];
    for (const [id, body, field] of refusals) {
      const before = await fx.seller.sdk.discounts.get({ id });
      const res = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>).some((d) => d.loc[1] === field), JSON.stringify(res.body)).toBe(true);
      expect(await fx.seller.sdk.discounts.get({ id })).toEqual(before);
    }

    // ends_at is checked against the stored starts_at too
    const dated = await fx.seller.sdk.discounts.create(percentOnce("Dated", { startsAt: new Date("2030-03-01T00:00:00Z") }));
    const early = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${dated.id}`, { ends_at: "2030-02-01T00:00:00Z" });
    expect(early.status).toBe(422);
  });

  it("once redeemed, the value is fixed and max_redemptions cannot go below the count", async () => {
    const d = await fx.seller.sdk.discounts.create({ type: "fixed", duration: "repeating", durationInMonths: 3, amount: 500, name: "Redeemed" });
    await fx.db().update(discount).set({ redemptionsCount: 4 }).where(eq(discount.id, d.id));
    for (const body of [{ amount: 400 }, { duration_in_months: 5 }, { currency: "eur" }, { max_redemptions: 3 }]) {
      const res = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${d.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const same = await fx.seller.sdk.discounts.update({ id: d.id, discountUpdate: { amount: 500, maxRedemptions: 4, name: "Still redeemed" } });
    expect(same).toMatchObject({ amount: 500, maxRedemptions: 4, name: "Still redeemed", redemptionsCount: 4 });
    // redemptions_count is read-only
    const ignored = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${d.id}`, { redemptions_count: 0 });
    expect(ignored.body).toMatchObject({ redemptions_count: 4 });
  });

  it("codes are unique per organization, case-insensitively, among live discounts", async () => {
    const code = freshCode();
    const first = await fx.seller.sdk.discounts.create(percentOnce("First", { code }));
    const before = await fx.discountCount(fx.seller.organizationId);
    const dup = await fx.raw(fx.seller.token, "POST", "/v1/discounts/", {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Dup",
      code: code.toLowerCase(),
    });
    expect(dup.status).toBe(422);
    expect(dup.body.detail).toMatchObject([{ loc: ["body", "code"], msg: "A discount with this code already exists." }]);
    expect(await fx.discountCount(fx.seller.organizationId)).toBe(before);

    const second = await fx.seller.sdk.discounts.create(percentOnce("Second", { code: freshCode() }));
    const clash = await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${second.id}`, { code: code.toLowerCase() });
    expect(clash.status).toBe(422);
    // keeping its own code (in another case) is not a clash
    expect((await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${first.id}`, { code: code.toLowerCase() })).status).toBe(200);

    // another organization may use the same code
    expect((await fx.other.sdk.discounts.create(percentOnce("Theirs", { code }))).code).toBe(code);

    // deleting frees the code
    await fx.seller.sdk.discounts.delete({ id: first.id });
    expect((await fx.seller.sdk.discounts.create(percentOnce("Reuse", { code }))).code).toBe(code);
  });

  it("deletes softly (204): gone from get and list, row kept", async () => {
    const d = await fx.seller.sdk.discounts.create(percentOnce("Doomed"));
    expect((await fx.raw(fx.other.token, "DELETE", `/v1/discounts/${d.id}`)).status).toBe(404);
    await expect(fx.other.sdk.discounts.update({ id: d.id, discountUpdate: { name: "Hijack" } })).rejects.toMatchObject({ statusCode: 404 });
    const res = await fx.raw(fx.seller.token, "DELETE", `/v1/discounts/${d.id}`);
    expect(res).toEqual({ status: 204, body: null });
    await expect(fx.seller.sdk.discounts.get({ id: d.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.seller.sdk.discounts.list({ limit: 100 })).result.items.some((x) => x.id === d.id)).toBe(false);
    const [row] = await fx.db().select().from(discount).where(eq(discount.id, d.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    await expect(fx.seller.sdk.discounts.delete({ id: d.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.raw(fx.seller.token, "PATCH", `/v1/discounts/${d.id}`, { name: "Back" })).status).toBe(404);
  });
});
