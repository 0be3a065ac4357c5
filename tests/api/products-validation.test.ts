// /v1/products: validation of every input (422 and its loc), scopes and tenancy.
import { describe, expect, it } from "vitest";
import { uploadFile } from "../helpers/files.js";
import { locs } from "../helpers/api.js";
import { sdkFor } from "../helpers/seller.js";
import { productFixture, fixed } from "./products-fixtures.js";

const fx = productFixture();

describe("/v1/products: validation, scopes and tenancy", () => {
  it("refuses invalid creates with 422 and creates nothing", async () => {
    const count = async () => (await fx.seller.sdk.products.list({ limit: 1 })).result.pagination.totalCount;
    const before = await count();
    const otherMeter = await fx.other.sdk.meters.create({
      name: "Theirs",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    const theirField = await fx.other.sdk.customFields.create({ type: "checkbox", slug: "theirs", name: "Theirs", properties: {} });
    const theirMedia = await uploadFile(fx.other.sdk, "theirs.png", Buffer.from("theirs"));
    const ownDownload = await uploadFile(fx.seller.sdk, "doc.pdf", Buffer.from("pdf"), "downloadable");
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ name: "No prices", prices: [] }, ["body", "prices"]],
      [{ prices: [fixed(100)] }, ["body", "name"]],
      [{ name: "ab", prices: [fixed(100)] }, ["body", "name"]],
      [{ name: "x".repeat(65), prices: [fixed(100)] }, ["body", "name"]],
      [{ name: "Low", prices: [fixed(49)] }, ["body", "prices", 0, "price_amount"]],
      [{ name: "Float", prices: [fixed(10.5)] }, ["body", "prices", 0, "price_amount"]],
      [{ name: "Huge", prices: [fixed(100_000_000)] }, ["body", "prices", 0, "price_amount"]],
      [{ name: "Kind", prices: [{ amount_type: "tiered" }] }, ["body", "prices", 0, "amount_type"]],
      [{ name: "Currency", prices: [{ ...fixed(100), price_currency: "USD" }] }, ["body", "prices", 0, "price_currency"]],
      [{ name: "Tax", prices: [{ ...fixed(100), tax_behavior: "sometimes" }] }, ["body", "prices", 0, "tax_behavior"]],
      [{ name: "Two static", prices: [fixed(100), { amount_type: "free" }] }, ["body", "prices", 1]],
      [{ name: "Metered once", prices: [{ amount_type: "metered_unit", meter_id: fx.meterId, unit_amount: "1" }] }, ["body", "prices", 0]],
      [{ name: "Unit zero", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: fx.meterId, unit_amount: "0" }] }, ["body", "prices", 0, "unit_amount"]],
      [{ name: "Unit text", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: fx.meterId, unit_amount: "abc" }] }, ["body", "prices", 0, "unit_amount"]],
      [{ name: "Unit digits", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: fx.meterId, unit_amount: "0.0000000000001" }] }, ["body", "prices", 0, "unit_amount"]],
      [{ name: "Cap", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: fx.meterId, unit_amount: "1", cap_amount: -5 }] }, ["body", "prices", 0, "cap_amount"]],
      [{ name: "Their meter", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: otherMeter.id, unit_amount: "1" }] }, ["body", "prices", 0, "meter_id"]],
      [{ name: "Bad meter id", recurring_interval: "month", prices: [{ amount_type: "metered_unit", meter_id: "m-1", unit_amount: "1" }] }, ["body", "prices", 0, "meter_id"]],
      [{ name: "Interval", recurring_interval: "fortnight", prices: [fixed(100)] }, ["body", "recurring_interval"]],
      [{ name: "Count", recurring_interval: "month", recurring_interval_count: 0, prices: [fixed(100)] }, ["body", "recurring_interval_count"]],
      [{ name: "Count once", recurring_interval_count: 2, prices: [fixed(100)] }, ["body", "recurring_interval_count"]],
      [{ name: "Trial once", trial_interval: "day", trial_interval_count: 3, prices: [fixed(100)] }, ["body", "trial_interval"]],
      [{ name: "Trial half", recurring_interval: "month", trial_interval: "day", prices: [fixed(100)] }, ["body", "trial_interval_count"]],
      [{ name: "Trial long", recurring_interval: "month", trial_interval: "day", trial_interval_count: 1001, prices: [fixed(100)] }, ["body", "trial_interval_count"]],
      [{ name: "Their media", medias: [theirMedia.id], prices: [fixed(100)] }, ["body", "medias", 0]],
      [{ name: "Download media", medias: [ownDownload.id], prices: [fixed(100)] }, ["body", "medias", 0]],
      [{ name: "Their field", attached_custom_fields: [{ custom_field_id: theirField.id, required: true }], prices: [fixed(100)] }, ["body", "attached_custom_fields", 0, "custom_field_id"]],
      [{ name: "Field shape", attached_custom_fields: [{ custom_field_id: theirField.id }], prices: [fixed(100)] }, ["body", "attached_custom_fields", 0, "required"]],
      [{ name: "Metadata", metadata: { a: null }, prices: [fixed(100)] }, ["body", "metadata", "a"]],
      [{ name: "Visibility", visibility: "secret", prices: [fixed(100)] }, ["body", "visibility"]],
    ];
    for (const [body, loc] of cases) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/products/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    expect((await fx.raw(fx.seller.token, "POST", "/v1/products/", "{bad json")).status).toBe(422);
    expect((await fx.raw(fx.seller.token, "POST", "/v1/products/", [1, 2])).status).toBe(422);
    expect((await fx.raw(fx.seller.token, "GET", "/v1/products/not-a-uuid")).status).toBe(422);
    expect(await count()).toBe(before);
  });

  it("enforces scopes", async () => {
    // a product to read: this file's other tests make none that lasts
    await fx.seller.sdk.products.create({ name: "Readable", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    const readKey = await fx.seller.createKey({ products: ["read"] });
    const reader = sdkFor(fx.server, readKey);
    const listed = await reader.products.list({ limit: 1 });
    const some = listed.result.items[0];
    if (!some) throw new Error("no product");
    expect((await reader.products.get({ id: some.id })).id).toBe(some.id);
    expect((await fx.raw(readKey, "POST", "/v1/products/", { name: "Nope", prices: [fixed(100)] })).status).toBe(403);
    expect((await fx.raw(readKey, "PATCH", `/v1/products/${some.id}`, { name: "Nope" })).status).toBe(403);
    const denied = await fx.raw(readKey, "POST", `/v1/products/${some.id}/benefits`, { benefits: [] });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: "NotPermitted" });
    const noProducts = await fx.seller.createKey({ files: ["read"] });
    expect((await fx.raw(noProducts, "GET", "/v1/products/")).status).toBe(403);
    const writer = sdkFor(fx.server, await fx.seller.createKey({ products: ["write"] }));
    const made = await writer.products.create({ name: "By key", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    expect(made.organizationId).toBe(fx.seller.organizationId);
  });

  it("keeps organizations apart", async () => {
    const mine = await fx.seller.sdk.products.create({ name: "Mine only", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    await expect(fx.other.sdk.products.get({ id: mine.id })).rejects.toMatchObject({ error: "ResourceNotFound" });
    await expect(fx.other.sdk.products.update({ id: mine.id, productUpdate: { name: "Hijack" } })).rejects.toMatchObject({
      error: "ResourceNotFound",
    });
    const benefits = await fx.raw(fx.other.token, "POST", `/v1/products/${mine.id}/benefits`, { benefits: [] });
    expect(benefits.status).toBe(404);
    expect(benefits.body).toMatchObject({ error: "ResourceNotFound" });
    const theirs = await fx.other.sdk.products.list({ limit: 100 });
    expect(theirs.result.items.every((p) => p.organizationId === fx.other.organizationId)).toBe(true);
    expect((await fx.other.sdk.products.list({ id: [mine.id] })).result.items).toEqual([]);
    expect((await fx.raw(fx.seller.token, "GET", `/v1/products/?organization_id=${fx.other.organizationId}`)).status).toBe(404);
    const key = await fx.seller.createKey();
    expect((await fx.raw(key, "POST", "/v1/products/", { name: "Elsewhere", organization_id: fx.other.organizationId, prices: [fixed(100)] })).status).toBe(404);
    // a price id of another organization's product can't be kept
    const theirProduct = await fx.other.sdk.products.create({ name: "Theirs", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    const steal = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${mine.id}`, { prices: [{ id: theirProduct.prices[0]?.id }] });
    expect(steal.status).toBe(422);
    expect((await fx.seller.sdk.products.get({ id: mine.id })).name).toBe("Mine only");
  });
});
