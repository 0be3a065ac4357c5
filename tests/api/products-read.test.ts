// Reading /v1/products: the list's filters, sorting and pages, and the loaders other domains use, scoped to the
// organization. Create and get: products.test.ts.
import { describe, expect, it } from "vitest";
import { fileIdsExist, loadProductMedias } from "../../server/billing/files/service.js";
import { loadAttachedCustomFields } from "../../server/billing/custom-fields/service.js";
import { loadPrices, loadProductSummaries, loadProducts, productIdsExist } from "../../server/billing/products/service.js";
import { uploadFile } from "../helpers/files.js";
import { productFixture, fixed } from "./products-fixtures.js";

const fx = productFixture();

describe("/v1/products: list", () => {
  it("filters by query, archived, recurring (and its interval), price kind, visibility, id and metadata; sorts and paginates", async () => {
    const tag = `L${Date.now().toString(36)}`;
    const make = (name: string, extra: Record<string, unknown>) =>
      fx.raw(fx.seller.token, "POST", "/v1/products/", { name: `${tag} ${name}`, prices: [fixed(1000)], ...extra }).then((r) => {
        if (r.status !== 201) throw new Error(JSON.stringify(r.body));
        return r.body.id as string;
      });
    const alpha = await make("alpha", { metadata: { tier: "gold", rank: 1 }, prices: [fixed(3000)] });
    const beta = await make("beta", { recurring_interval: "month", metadata: { tier: "silver" }, prices: [fixed(2000)] });
    const gamma = await make("gamma", { visibility: "draft", metadata: { tier: "gold" }, prices: [{ amount_type: "custom", minimum_amount: 100 }] });

    const q = await fx.seller.sdk.products.list({ query: tag.toLowerCase() });
    expect(q.result.items.map((p) => p.id)).toEqual([gamma, beta, alpha]);
    const byName = await fx.seller.sdk.products.list({ query: tag, sorting: ["name"] });
    expect(byName.result.items.map((p) => p.id)).toEqual([alpha, beta, gamma]);
    const byAmount = await fx.seller.sdk.products.list({ query: tag, sorting: ["-price_amount"] });
    expect(byAmount.result.items.map((p) => p.id)).toEqual([alpha, beta, gamma]);
    const byType = await fx.seller.sdk.products.list({ query: tag, sorting: ["price_amount_type", "name"] });
    expect(byType.result.items.map((p) => p.id)).toEqual([gamma, alpha, beta]);
    const recurring = await fx.seller.sdk.products.list({ query: tag, isRecurring: true });
    expect(recurring.result.items.map((p) => p.id)).toEqual([beta]);
    const oneTime = await fx.seller.sdk.products.list({ query: tag, isRecurring: false });
    expect(oneTime.result.items.map((p) => p.id).sort()).toEqual([alpha, gamma].sort());
    // till's own filters (the seller app's pricing filter): the interval billed on, the kinds of active prices
    const idsOf = async (query: string) => ((await fx.raw(fx.seller.token, "GET", `/v1/products/?query=${tag}&${query}`)).body.items as Array<{ id: string }>).map((p) => p.id);
    expect(await idsOf("recurring_interval=month")).toEqual([beta]);
    expect(await idsOf("recurring_interval=year&recurring_interval=month")).toEqual([beta]);
    expect(await idsOf("recurring_interval=week")).toEqual([]);
    expect(await idsOf("price_amount_type=custom")).toEqual([gamma]);
    expect((await idsOf("price_amount_type=fixed&price_amount_type=custom")).sort()).toEqual([alpha, beta, gamma].sort());
    expect(await idsOf("price_amount_type=seat_based")).toEqual([]);
    expect((await fx.raw(fx.seller.token, "GET", "/v1/products/?price_amount_type=per_unit")).status).toBe(422);
    const gold = await fx.seller.sdk.products.list({ query: tag, metadata: { tier: "gold" } });
    expect(gold.result.items.map((p) => p.id).sort()).toEqual([alpha, gamma].sort());
    const anyTier = await fx.seller.sdk.products.list({ query: tag, metadata: { tier: ["gold", "silver"] } });
    expect(anyTier.result.items).toHaveLength(3);
    const ranked = await fx.seller.sdk.products.list({ query: tag, metadata: { rank: 1 } });
    expect(ranked.result.items.map((p) => p.id)).toEqual([alpha]);
    const drafts = await fx.seller.sdk.products.list({ query: tag, visibility: ["draft"] });
    expect(drafts.result.items.map((p) => p.id)).toEqual([gamma]);
    const byId = await fx.seller.sdk.products.list({ id: [alpha, beta] });
    expect(byId.result.items.map((p) => p.id).sort()).toEqual([alpha, beta].sort());
    const ownOrg = await fx.seller.sdk.products.list({ query: tag, organizationId: fx.seller.organizationId });
    expect(ownOrg.result.items).toHaveLength(3);

    const first = await fx.seller.sdk.products.list({ query: tag, limit: 2 });
    expect(first.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const ids: string[] = [];
    for await (const p of first) ids.push(...p.result.items.map((x) => x.id));
    expect(ids).toEqual([gamma, beta, alpha]);
    // the total usually comes with the page's rows; past the last page it is counted on its own
    const past = await fx.seller.sdk.products.list({ query: tag, limit: 2, page: 3 });
    expect(past.result).toEqual({ items: [], pagination: { totalCount: 3, maxPage: 2 } });

    const list049 = await fx.seller.sdk049.products.list({ query: tag, limit: 10 });
    expect(list049.result.items.map((p) => p.id)).toEqual([gamma, beta, alpha]);

    for (const bad of ["is_archived=maybe", "sorting=price", "limit=1000", "page=0", "benefit_id=x", "visibility=secret", "id=1"]) {
      expect((await fx.raw(fx.seller.token, "GET", `/v1/products/?${bad}`)).status, bad).toBe(422);
    }
  });
});

describe("loaders other domains use", () => {
  it("load summaries, full products, prices, medias and custom fields, scoped to the organization", async () => {
    const db = fx.server.database.db;
    const media = await uploadFile(fx.seller.sdk, "loader.png", Buffer.from("loader"));
    const field = await fx.seller.sdk.customFields.create({ type: "checkbox", slug: "loader", name: "Loader", properties: {} });
    const product = await fx.seller.sdk.products.create({
      name: "Loaded",
      recurringInterval: "month",
      prices: [{ amountType: "fixed", priceAmount: 500 }],
      medias: [media.id],
      attachedCustomFields: [{ customFieldId: field.id, required: false }],
    });
    const legacy = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Loaded legacy",
      prices: [{ type: "recurring", recurring_interval: "year", amount_type: "free" }],
    });
    const legacyId = legacy.body.id as string;
    const foreign = await fx.other.sdk.products.create({ name: "Foreign", prices: [{ amountType: "fixed", priceAmount: 100 }] });
    const org = fx.seller.organizationId;

    const summaries = await loadProductSummaries(db, org, [product.id, legacyId, foreign.id, "junk"]);
    expect([...summaries.keys()].sort()).toEqual([product.id, legacyId].sort());
    expect(summaries.get(product.id)).toMatchObject({ name: "Loaded", is_recurring: true, recurring_interval: "month", meter_interval: null });
    expect(summaries.get(legacyId)).toMatchObject({ is_recurring: true, recurring_interval: null });
    expect("prices" in (summaries.get(product.id) ?? {})).toBe(false);
    expect(await productIdsExist(db, org, [product.id, foreign.id, "junk"])).toEqual([foreign.id, "junk"]);

    const full = await loadProducts(db, org, [product.id, foreign.id], fx.server.config.baseURL);
    expect([...full.keys()]).toEqual([product.id]);
    expect(full.get(product.id)?.medias[0]?.public_url).toBe(`${fx.server.config.baseURL}/v1/files/${media.id}/public`);
    const priceId = product.prices[0]?.id ?? "";
    await fx.seller.sdk.products.update({ id: product.id, productUpdate: { prices: [{ amountType: "fixed", priceAmount: 600 }] } });
    const prices = await loadPrices(db, org, [priceId, foreign.prices[0]?.id ?? ""]);
    expect([...prices.keys()]).toEqual([priceId]);
    expect(prices.get(priceId)).toMatchObject({ is_archived: true, price_amount: 500 });

    const medias = await loadProductMedias(db, org, [product.id, foreign.id]);
    expect(medias.get(product.id)?.map((m) => m.public_url)).toEqual([`/v1/files/${media.id}/public`]);
    expect(medias.get(foreign.id)).toEqual([]);
    expect(await fileIdsExist(db, org, [media.id], "downloadable")).toEqual([media.id]);
    expect(await fileIdsExist(db, org, [media.id], "product_media")).toEqual([]);
    expect(await fileIdsExist(db, fx.other.organizationId, [media.id])).toEqual([media.id]);
    const fields = await loadAttachedCustomFields(db, org, [product.id, legacyId]);
    expect(fields.get(product.id)?.map((f) => f.custom_field.slug)).toEqual(["loader"]);
    expect(fields.get(legacyId)).toEqual([]);
    expect((await loadAttachedCustomFields(db, fx.other.organizationId, [product.id])).get(product.id)).toEqual([]);
  });
});
