// /v1/products through @polar-sh/sdk 0.47.1 (and 0.49.0): create and get with every price kind, legacy recurring
// products, benefits, medias and attached custom fields. The list and the loaders other domains use:
// products-read.test.ts; updates: products-update.test.ts; validation, scopes and tenancy:
// products-validation.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { productPrice } from "../../server/db/schema/index.js";
import { uploadFile } from "../helpers/files.js";
import { issues, locs } from "../helpers/api.js";
import { productFixture, fixed } from "./products-fixtures.js";

const fx = productFixture();

describe("/v1/products: create and get", () => {
  it("creates a one-time product with a fixed price, medias, custom fields and metadata", async () => {
    const media = await uploadFile(fx.seller.sdk, "cover.png", Buffer.from("png bytes"));
    const field = await fx.seller.sdk.customFields.create({ type: "text", slug: "company", name: "Company", properties: {} });
    const product = await fx.seller.sdk.products.create({
      name: "  E-book  ",
      description: "A book",
      prices: [{ amountType: "fixed", priceAmount: 1999, priceCurrency: "eur" }],
      medias: [media.id],
      attachedCustomFields: [{ customFieldId: field.id, required: true }],
      metadata: { sku: "EB-1", stock: 3, featured: true },
    });
    expect(product).toMatchObject({
      name: "E-book",
      description: "A book",
      visibility: "public",
      recurringInterval: null,
      recurringIntervalCount: null,
      trialInterval: null,
      trialIntervalCount: null,
      isRecurring: false,
      isArchived: false,
      organizationId: fx.seller.organizationId,
      metadata: { sku: "EB-1", stock: 3, featured: true },
      benefits: [],
    });
    expect(product.modifiedAt).toBeNull();
    expect(product.prices).toHaveLength(1);
    expect(product.prices[0]).toMatchObject({
      amountType: "fixed",
      priceAmount: 1999,
      priceCurrency: "eur",
      isArchived: false,
      productId: product.id,
      source: "catalog",
      taxBehavior: null,
    });
    expect(product.medias).toHaveLength(1);
    expect(product.medias[0]).toMatchObject({ id: media.id, service: "product_media", isUploaded: true, name: "cover.png" });
    expect(product.medias[0]?.publicUrl).toBe(`${fx.server.config.baseURL}/v1/files/${media.id}/public`);
    expect(product.attachedCustomFields).toEqual([
      { customFieldId: field.id, customField: field, order: 0, required: true },
    ]);

    const got = await fx.seller.sdk.products.get({ id: product.id });
    expect(got).toEqual(product);
    const got049 = await fx.seller.sdk049.products.get({ id: product.id });
    expect(got049.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 1999 });
    expect(got049.meterInterval).toBeNull();

    // the wire carries Polar's deprecated per-price fields
    const wire = await fx.raw(fx.seller.token, "GET", `/v1/products/${product.id}`);
    expect((wire.body.prices as Array<Record<string, unknown>>)[0]).toMatchObject({ type: "one_time", recurring_interval: null });
    expect("legacy" in (wire.body.prices as Array<Record<string, unknown>>)[0]!).toBe(false);
  });

  it("creates a recurring product with a trial, a fixed and a metered price", async () => {
    const product = await fx.seller.sdk.products.create({
      name: "Pro plan",
      recurringInterval: "month",
      trialInterval: "week",
      trialIntervalCount: 2,
      prices: [
        { amountType: "fixed", priceAmount: 900 },
        { amountType: "metered_unit", meterId: fx.meterId, unitAmount: "0.50", capAmount: 10000 },
        { amountType: "metered_unit", meterId: fx.meterId, unitAmount: 0.000001 },
      ],
      visibility: "private",
    });
    expect(product).toMatchObject({
      recurringInterval: "month",
      recurringIntervalCount: 1,
      trialInterval: "week",
      trialIntervalCount: 2,
      isRecurring: true,
      visibility: "private",
    });
    const [flat, metered, tiny] = product.prices;
    expect(flat).toMatchObject({ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" });
    expect(metered).toMatchObject({
      amountType: "metered_unit",
      unitAmount: "0.5",
      capAmount: 10000,
      meterId: fx.meterId,
      meter: { id: fx.meterId, name: "API calls", unit: "scalar" },
    });
    expect(tiny).toMatchObject({ unitAmount: "0.000001", capAmount: null });
    const wire = await fx.raw(fx.seller.token, "GET", `/v1/products/${product.id}`);
    expect((wire.body.prices as Array<Record<string, unknown>>)[1]).toMatchObject({
      type: "recurring",
      recurring_interval: "month",
      meter: { id: fx.meterId, name: "API calls", unit: "scalar", custom_label: null, custom_multiplier: null },
    });
    const got049 = await fx.seller.sdk049.products.get({ id: product.id });
    expect(got049.prices[1]).toMatchObject({ amountType: "metered_unit", unitAmount: "0.5" });
  });

  it("creates custom (pay what you want) prices within their bounds", async () => {
    const product = await fx.seller.sdk.products.create({
      name: "Donation",
      prices: [{ amountType: "custom", minimumAmount: 0, maximumAmount: 100000, presetAmount: 2500 }],
    });
    expect(product.prices[0]).toMatchObject({ amountType: "custom", minimumAmount: 0, maximumAmount: 100000, presetAmount: 2500 });
    const defaults = await fx.raw(fx.seller.token, "POST", "/v1/products/", { name: "Tip jar", prices: [{ amount_type: "custom" }] });
    expect(defaults.status).toBe(201);
    expect((defaults.body.prices as unknown[])[0]).toMatchObject({ minimum_amount: 50, maximum_amount: null, preset_amount: null });

    const bad: Array<[Record<string, unknown>, unknown[]]> = [
      [{ minimum_amount: 1000, preset_amount: 500 }, ["body", "prices", 0, "preset_amount"]],
      [{ minimum_amount: 1000, maximum_amount: 500 }, ["body", "prices", 0, "maximum_amount"]],
      [{ minimum_amount: 100, maximum_amount: 500, preset_amount: 600 }, ["body", "prices", 0, "preset_amount"]],
      [{ minimum_amount: -1 }, ["body", "prices", 0, "minimum_amount"]],
      [{ minimum_amount: 20 }, ["body", "prices", 0, "minimum_amount"]],
      [{ preset_amount: 10 }, ["body", "prices", 0, "preset_amount"]],
      [{ maximum_amount: 0 }, ["body", "prices", 0, "maximum_amount"]],
    ];
    for (const [amounts, loc] of bad) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/products/", { name: "Bad custom", prices: [{ amount_type: "custom", ...amounts }] });
      expect(res.status, JSON.stringify(amounts)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
  });

  it("creates a free price through 0.47.1 that both SDKs read: the wire writes it as a fixed price of 0", async () => {
    const product = await fx.seller.sdk.products.create({ name: "Freebie", recurringInterval: "month", prices: [{ amountType: "free" }] });
    expect(product.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0, priceCurrency: "usd", isArchived: false });
    const raw047 = await fx.raw(fx.seller.token, "GET", `/v1/products/${product.id}`);
    expect((raw047.body.prices as unknown[])[0]).toMatchObject({ amount_type: "fixed", price_amount: 0, price_currency: "usd" });
    // the same product through both versions (their zod schemas validate every answer)
    const got047 = await fx.seller.sdk.products.get({ id: product.id });
    const got049 = await fx.seller.sdk049.products.get({ id: product.id });
    expect(got047.prices[0]).toMatchObject({ id: product.prices[0]?.id, amountType: "fixed", priceAmount: 0 });
    expect(got049.prices[0]).toMatchObject({ id: product.prices[0]?.id, amountType: "fixed", priceAmount: 0 });
    const listed049 = (await fx.seller.sdk049.products.list({ query: "Freebie" })).result.items;
    expect(listed049.map((p) => p.id)).toContain(product.id);
    // still the spec's free price: a checkout of it is free, with nothing to discount, pay or save
    const checkout = await fx.seller.sdk049.checkouts.create({ products: [product.id] });
    expect(checkout).toMatchObject({ totalAmount: 0, isFreeProductPrice: true, isDiscountApplicable: false, isPaymentRequired: false, isPaymentSetupRequired: false });
    expect(checkout.products[0]?.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0 });
    // a legacy recurring free price too (LegacyRecurringProductPriceFixed in both)
    const legacy = await fx.raw(fx.seller.token, "POST", "/v1/products/", { name: "Legacy freebie", prices: [{ type: "recurring", recurring_interval: "year", amount_type: "free" }] });
    expect(legacy.status).toBe(201);
    for (const got of [await fx.seller.sdk.products.get({ id: legacy.body.id as string }), await fx.seller.sdk049.products.get({ id: legacy.body.id as string })]) {
      expect(got.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0, legacy: true, recurringInterval: "year" });
    }
  });

  it("creates a fixed price of 0, 0.49.0's free price, through both SDKs (1 to 49 stay refused)", async () => {
    const product = await fx.seller.sdk049.products.create({ name: "Free tier", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 0, priceCurrency: "usd" }] });
    expect(product.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0 });
    expect((await fx.seller.sdk.products.get({ id: product.id })).prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 0 });
    // a checkout of it is free: nothing to pay, no card to save
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    expect(checkout).toMatchObject({ totalAmount: 0, isFreeProductPrice: true, isPaymentRequired: false, isPaymentSetupRequired: false });
    for (const amount of [1, 49]) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/products/", { name: "Almost free", prices: [fixed(amount)] });
      expect(res.status).toBe(422);
      expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "prices", 0, "price_amount"], msg: "Amount must be 0 or at least 50" });
    }
  });

  it("creates seat-based prices with contiguous tiers", async () => {
    const product = await fx.seller.sdk.products.create({
      name: "Team plan",
      recurringInterval: "year",
      recurringIntervalCount: 2,
      prices: [
        {
          amountType: "seat_based",
          seatTiers: {
            tiers: [
              { minSeats: 11, maxSeats: null, pricePerSeat: 800 },
              { minSeats: 1, maxSeats: 10, pricePerSeat: 1000 },
            ],
          },
        },
      ],
    });
    expect(product.recurringIntervalCount).toBe(2);
    expect(product.prices[0]).toMatchObject({
      amountType: "seat_based",
      seatTiers: {
        seatTierType: "volume",
        tiers: [
          { minSeats: 1, maxSeats: 10, pricePerSeat: 1000 },
          { minSeats: 11, maxSeats: null, pricePerSeat: 800 },
        ],
        minimumSeats: 1,
        maximumSeats: null,
      },
    });
    const bounded = await fx.seller.sdk049.products.create({
      name: "Small team",
      recurringInterval: "month",
      prices: [{ amountType: "seat_based", seatTiers: { seatTierType: "graduated", tiers: [{ minSeats: 2, maxSeats: 5, pricePerSeat: 0 }] } }],
    });
    expect(bounded.prices[0]).toMatchObject({ seatTiers: { seatTierType: "graduated", minimumSeats: 2, maximumSeats: 5 } });

    const bad: Array<[unknown, string]> = [
      [[{ min_seats: 1, max_seats: 5, price_per_seat: 100 }, { min_seats: 7, price_per_seat: 90 }], "gap"],
      [[{ min_seats: 1, max_seats: 5, price_per_seat: 100 }, { min_seats: 5, price_per_seat: 90 }], "overlap"],
      [[{ min_seats: 1, price_per_seat: 100 }, { min_seats: 5, price_per_seat: 90 }], "unlimited not last"],
      [[{ min_seats: 0, price_per_seat: 100 }], "min_seats 0"],
      [[{ min_seats: 1, price_per_seat: -1 }], "negative price"],
      [[{ min_seats: 5, max_seats: 2, price_per_seat: 1 }], "max below min"],
      [[], "no tiers"],
    ];
    for (const [tiers, why] of bad) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
        name: "Bad seats",
        recurring_interval: "month",
        prices: [{ amount_type: "seat_based", seat_tiers: { tiers } }],
      });
      expect(res.status, why).toBe(422);
      expect(JSON.stringify(locs(res.body)), why).toContain('["body","prices",0,"seat_tiers"');
    }
  });

  it("creates and migrates legacy recurring products (prices carrying their own interval)", async () => {
    const created = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Legacy plan",
      prices: [
        { type: "recurring", recurring_interval: "month", amount_type: "fixed", price_amount: 1000 },
        { type: "recurring", recurring_interval: "year", amount_type: "custom", minimum_amount: 5000 },
      ],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const legacy = await fx.seller.sdk.products.get({ id });
    expect(legacy).toMatchObject({ recurringInterval: null, isRecurring: true });
    expect(legacy.prices).toHaveLength(2);
    expect(legacy.prices[0]).toMatchObject({ legacy: true, type: "recurring", recurringInterval: "month", amountType: "fixed", priceAmount: 1000 });
    expect(legacy.prices[1]).toMatchObject({ legacy: true, type: "recurring", recurringInterval: "year", amountType: "custom" });
    const legacy049 = await fx.seller.sdk049.products.get({ id });
    expect(legacy049.prices[0]).toMatchObject({ legacy: true, recurringInterval: "month" });
    const recurringOnes = await fx.seller.sdk.products.list({ isRecurring: true, query: "Legacy plan" });
    expect(recurringOnes.result.items.map((p) => p.id)).toEqual([id]);

    // legacy prices follow legacy rules
    const twoMonthly = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Legacy dup",
      prices: [
        { type: "recurring", recurring_interval: "month", amount_type: "fixed", price_amount: 1000 },
        { type: "recurring", recurring_interval: "month", amount_type: "fixed", price_amount: 2000 },
      ],
    });
    expect(twoMonthly.status).toBe(422);
    const mixed = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Legacy mixed",
      prices: [{ type: "recurring", recurring_interval: "month", amount_type: "fixed", price_amount: 1000 }, fixed(500)],
    });
    expect(mixed.status).toBe(422);
    const onCurrent = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Not legacy",
      recurring_interval: "month",
      prices: [{ type: "recurring", recurring_interval: "year", amount_type: "fixed", price_amount: 1000 }],
    });
    expect(onCurrent.status).toBe(422);
    const noInterval = await fx.raw(fx.seller.token, "POST", "/v1/products/", {
      name: "Legacy half",
      prices: [{ type: "recurring", amount_type: "fixed", price_amount: 1000 }],
    });
    expect(noInterval.status).toBe(422);
    expect(locs(noInterval.body)).toEqual([["body", "prices", 0, "recurring_interval"]]);

    // setting the interval needs new prices, and ends the legacy shape
    const withoutPrices = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${id}`, { recurring_interval: "month" });
    expect(withoutPrices.status).toBe(422);
    const keepLegacy = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${id}`, {
      recurring_interval: "month",
      prices: [{ id: legacy.prices[0]?.id }],
    });
    expect(keepLegacy.status).toBe(422);
    const migrated = await fx.seller.sdk.products.update({
      id,
      productUpdate: { recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1200 }] },
    });
    expect(migrated).toMatchObject({ recurringInterval: "month", recurringIntervalCount: 1, isRecurring: true });
    expect(migrated.prices).toHaveLength(1);
    expect(migrated.prices[0]).toMatchObject({ amountType: "fixed", priceAmount: 1200 });
    expect("legacy" in migrated.prices[0]!).toBe(false);
    const archived = await fx.server.database.db.select().from(productPrice).where(eq(productPrice.productId, id));
    expect(archived.filter((p) => p.legacy).every((p) => p.isArchived)).toBe(true);
    // and now it is fixed
    const change = await fx.raw(fx.seller.token, "PATCH", `/v1/products/${id}`, { recurring_interval: "year" });
    expect(change.status).toBe(422);
  });

  it("creates through 0.49.0 (with a meter interval)", async () => {
    const product = await fx.seller.sdk049.products.create({
      name: "Usage plan 049",
      recurringInterval: "month",
      meterInterval: "day",
      prices: [{ amountType: "metered_unit", meterId: fx.meterId, unitAmount: "2" }],
    });
    expect(product).toMatchObject({ meterInterval: "day", meterIntervalCount: 1, recurringInterval: "month" });
    expect(product.prices[0]).toMatchObject({ amountType: "metered_unit", unitAmount: "2" });
  });
});
