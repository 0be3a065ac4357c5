// /v1/products updates through @polar-sh/sdk 0.47.1: fields, price replacement by archiving, benefits, medias
// and attached custom fields.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { productPrice } from "../../server/db/schema/index.js";
import { uploadFile } from "../helpers/files.js";
import { issues, locs } from "../helpers/api.js";
import { productFixture, fixed } from "./products-fixtures.js";

const fx = productFixture();

describe("/v1/products: update", () => {
  it("replaces prices: kept ones by id, new ones created, the rest archived", async () => {
    const product = await fx.seller.sdk.products.create({
      name: "Replaceable",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1000 },
        { amountType: "metered_unit", meterId: fx.meterId, unitAmount: "1" },
      ],
    });
    const [flat, metered] = product.prices;
    const updated = await fx.seller.sdk.products.update({
      id: product.id,
      productUpdate: {
        prices: [{ id: metered!.id }, { amountType: "custom", minimumAmount: 500 }],
      },
    });
    expect(updated.prices.map((p) => p.id)).toEqual([metered!.id, expect.any(String)]);
    expect(updated.prices[1]).toMatchObject({ amountType: "custom", minimumAmount: 500 });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const [row] = await fx.server.database.db.select().from(productPrice).where(eq(productPrice.id, flat!.id));
    expect(row?.isArchived).toBe(true);

    // an archived or unknown price can't be kept; nothing changes when refused
    const keepArchived = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, { prices: [{ id: flat!.id }] });
    expect(keepArchived.status).toBe(422);
    expect(locs(keepArchived.body)).toEqual([["body", "prices", 0, "id"]]);
    const twice = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, {
      prices: [{ id: metered!.id }, { id: metered!.id }],
    });
    expect(twice.status).toBe(422);
    const empty = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, { prices: [] });
    expect(empty.status).toBe(422);
    const twoStatic = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, {
      name: "Should not apply",
      prices: [...updated.prices.map((p) => ({ id: p.id })), fixed(700)],
    });
    expect(twoStatic.status).toBe(422);
    const after = await fx.seller.sdk.products.get({ id: product.id });
    expect(after.name).toBe("Replaceable");
    expect(after.prices.map((p) => p.id)).toEqual(updated.prices.map((p) => p.id));
  });

  it("updates the product's fields, archives and unarchives it", async () => {
    const product = await fx.seller.sdk.products.create({
      name: "Editable",
      description: "before",
      recurringInterval: "week",
      prices: [{ amountType: "fixed", priceAmount: 300 }],
      metadata: { a: "1" },
    });
    const updated = await fx.seller.sdk.products.update({
      id: product.id,
      productUpdate: {
        name: "Edited",
        description: "after",
        visibility: "draft",
        metadata: { b: 2 },
        trialInterval: "day",
        trialIntervalCount: 7,
        recurringInterval: "week",
        recurringIntervalCount: 1,
      },
    });
    expect(updated).toMatchObject({
      name: "Edited",
      description: "after",
      visibility: "draft",
      metadata: { b: 2 },
      trialInterval: "day",
      trialIntervalCount: 7,
    });
    const cleared = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, { description: "", trial_interval: null, trial_interval_count: null });
    expect(cleared.body).toMatchObject({ description: null, trial_interval: null, trial_interval_count: null });
    const archived = await fx.seller.sdk.products.update({ id: product.id, productUpdate: { isArchived: true } });
    expect(archived.isArchived).toBe(true);
    const archivedList = await fx.seller.sdk.products.list({ isArchived: true, query: "Edited" });
    expect(archivedList.result.items.map((p) => p.id)).toEqual([product.id]);
    const unarchived = await fx.seller.sdk.products.update({ id: product.id, productUpdate: { isArchived: false } });
    expect(unarchived.isArchived).toBe(false);

    for (const [body, loc] of [
      [{ recurring_interval: "month" }, ["body", "recurring_interval"]],
      [{ recurring_interval_count: 3 }, ["body", "recurring_interval_count"]],
      [{ name: "ab" }, ["body", "name"]],
      [{ visibility: "hidden" }, ["body", "visibility"]],
      [{ trial_interval: "fortnight" }, ["body", "trial_interval"]],
      [{ trial_interval: "day", trial_interval_count: null }, ["body", "trial_interval_count"]],
      [{ is_archived: "yes" }, ["body", "is_archived"]],
      [{ metadata: { k: [1] } }, ["body", "metadata", "k"]],
    ] as Array<[Record<string, unknown>, unknown[]]>) {
      const res = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${product.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    expect((await fx.seller.sdk.products.get({ id: product.id })).name).toBe("Edited");

    const oneTime = await fx.seller.sdk.products.create({ name: "One time", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    const toRecurring = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${oneTime.id}`, { recurring_interval: "month" });
    expect(toRecurring.status).toBe(422);
    const trialOnOneTime = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${oneTime.id}`, { trial_interval: "day", trial_interval_count: 3 });
    expect(trialOnOneTime.status).toBe(422);
  });

  it("replaces medias and attached custom fields", async () => {
    const a = await uploadFile(fx.seller.sdk, "a.png", Buffer.from("a"));
    const b = await uploadFile(fx.seller.sdk, "b.png", Buffer.from("b"));
    const f1 = await fx.seller.sdk.customFields.create({ type: "checkbox", slug: "agree", name: "Agree", properties: {} });
    const f2 = await fx.seller.sdk.customFields.create({ type: "number", slug: "count", name: "Count", properties: {} });
    const product = await fx.seller.sdk.products.create({
      name: "With medias",
      prices: [{ amountType: "fixed", priceAmount: 100 }],
      medias: [a.id],
      attachedCustomFields: [{ customFieldId: f1.id, required: false }],
    });
    const updated = await fx.seller.sdk.products.update({
      id: product.id,
      productUpdate: {
        medias: [b.id, a.id],
        attachedCustomFields: [
          { customFieldId: f2.id, required: true },
          { customFieldId: f1.id, required: false },
        ],
      },
    });
    expect(updated.medias.map((m) => m.id)).toEqual([b.id, a.id]);
    expect(updated.attachedCustomFields.map((f) => [f.customFieldId, f.order, f.required])).toEqual([
      [f2.id, 0, true],
      [f1.id, 1, false],
    ]);
    // deleting a field or a file takes it off the product
    await fx.seller.sdk.customFields.delete({ id: f2.id });
    await fx.seller.sdk.files.delete({ id: b.id });
    const after = await fx.seller.sdk.products.get({ id: product.id });
    expect(after.attachedCustomFields.map((f) => [f.customFieldId, f.order])).toEqual([[f1.id, 0]]);
    expect(after.medias.map((m) => m.id)).toEqual([a.id]);
    const cleared = await fx.seller.sdk.products.update({ id: product.id, productUpdate: { medias: [], attachedCustomFields: [] } });
    expect(cleared.medias).toEqual([]);
    expect(cleared.attachedCustomFields).toEqual([]);
  });

  it("updates benefits (full Benefit shapes, in order)", async () => {
    const b1 = await fx.seller.sdk.benefits.create({ type: "custom", description: "Priority support", properties: { note: "Mail us" } });
    const b2 = await fx.seller.sdk.benefits.create({ type: "custom", description: "Sticker pack", properties: {} });
    const product = await fx.seller.sdk.products.create({ name: "With benefits", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    const updated = await fx.seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [b2.id, b1.id] } });
    expect(updated.benefits.map((b) => b.id)).toEqual([b2.id, b1.id]);
    expect(updated.benefits[1]).toMatchObject({ type: "custom", description: "Priority support", properties: { note: "Mail us" } });
    const byBenefit = await fx.seller.sdk.products.list({ benefitId: b1.id });
    expect(byBenefit.result.items.map((p) => p.id)).toEqual([product.id]);
    const got049 = await fx.seller.sdk049.products.get({ id: product.id });
    expect(got049.benefits.map((b) => b.id)).toEqual([b2.id, b1.id]);

    const foreign = await fx.other.sdk.benefits.create({ type: "custom", description: "Theirs", properties: {} });
    const refused = await fx.raw(fx.seller.token, "POST", `/v1/products/${product.id}/benefits`, { benefits: [b1.id, foreign.id] });
    expect(refused.status).toBe(422);
    expect(issues(refused.body)).toEqual([
      { loc: ["body", "benefits", 1], msg: "Benefit does not exist.", type: "value_error", input: foreign.id },
    ]);
    expect((await fx.raw(fx.seller.token, "POST", `/v1/products/${product.id}/benefits`, { benefits: ["nope"] })).status).toBe(422);
    expect((await fx.raw(fx.seller.token, "POST", `/v1/products/${product.id}/benefits`, {})).status).toBe(422);
    expect((await fx.seller.sdk.products.get({ id: product.id })).benefits.map((b) => b.id)).toEqual([b2.id, b1.id]);
    const none = await fx.seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [] } });
    expect(none.benefits).toEqual([]);
  });
});
