// Money on the checkout, through both SDKs: a product with a static price and metered prices charges the
// static one now and subscribes to all of them (a metered price is refused as the checkout's price), seats
// reach the order and the subscription, and a currency is only ever an ISO 4217 code.
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { HTTPValidationError as HTTPValidationError049 } from "polar-sdk-049/models/errors/httpvalidationerror.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issues, rawRequest } from "../helpers/api.js";
import { pay, publicSdk } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { Polar as Polar049 } from "polar-sdk-049";

let server: TestServer;
let seller: Seller;
let meterId: string;
let hybrid: Product;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "checkout-pricing");
  const meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
    aggregation: { func: "count" },
  });
  meterId = meter.id;
  hybrid = await seller.sdk.products.create({
    name: "Pro with usage",
    recurringInterval: "month",
    prices: [
      { amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" },
      { amountType: "metered_unit", meterId, unitAmount: "0.5", priceCurrency: "usd" },
    ],
  });
});
afterAll(async () => server?.close());

const meteredOf = (p: Product) => p.prices.find((x) => x.amountType === "metered_unit")?.id ?? "";
const fixedOf = (p: Product) => p.prices.find((x) => x.amountType === "fixed")?.id ?? "";

describe("a static price with metered prices", () => {
  it("offers the static price, refuses the metered one as the checkout's price (both SDKs), and subscribes to both", async () => {
    const created = await seller.sdk.checkouts.create({ products: [hybrid.id] });
    expect(created).toMatchObject({ productPriceId: fixedOf(hybrid), amount: 1000, totalAmount: 1000 });

    // the customer's update, through 0.47.1 and 0.49.0
    const refused047 = await publicSdk(server)
      .checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { productPriceId: meteredOf(hybrid) } })
      .catch((e: unknown) => e);
    expect(refused047).toBeInstanceOf(HTTPValidationError);
    expect((refused047 as HTTPValidationError).detail?.[0]?.loc).toEqual(["body", "product_price_id"]);
    const refused049 = await new Polar049({ serverURL: server.url })
      .checkouts.clientUpdate({ clientSecret: created.clientSecret, checkoutUpdatePublic: { productPriceId: meteredOf(hybrid) } })
      .catch((e: unknown) => e);
    expect(refused049).toBeInstanceOf(HTTPValidationError049);
    expect((refused049 as HTTPValidationError049).detail?.[0]?.loc).toEqual(["body", "product_price_id"]);

    // the seller's update, and the raw shape
    const seller049 = await seller.sdk049.checkouts
      .update({ id: created.id, checkoutUpdate: { productPriceId: meteredOf(hybrid) } })
      .catch((e: unknown) => e);
    expect(seller049).toBeInstanceOf(HTTPValidationError049);
    const rawRefusal = await raw("PATCH", `/v1/checkouts/${created.id}`, { product_price_id: meteredOf(hybrid) });
    expect(rawRefusal.status).toBe(422);
    expect(issues(rawRefusal.body)).toEqual([
      expect.objectContaining({ loc: ["body", "product_price_id"], type: "value_error", msg: expect.stringMatching(/metered price cannot be the checkout's price/) }),
    ]);
    // nothing changed
    expect(await seller.sdk.checkouts.get({ id: created.id })).toMatchObject({ productPriceId: fixedOf(hybrid), amount: 1000 });

    await pay(server, created);
    const [order] = (await seller.sdk.orders.list({ productId: hybrid.id })).result.items;
    expect(order).toMatchObject({ subtotalAmount: 1000, totalAmount: 1000 });
    const [sub] = (await seller.sdk.subscriptions.list({ productId: hybrid.id })).result.items;
    expect(sub?.amount).toBe(1000);
    expect(new Set(sub?.prices.map((p) => p.id))).toEqual(new Set([fixedOf(hybrid), meteredOf(hybrid)]));
  });

  it("still checks out a product that has only metered prices (nothing up front)", async () => {
    const usageOnly = await seller.sdk.products.create({
      name: "Usage only",
      recurringInterval: "month",
      prices: [{ amountType: "metered_unit", meterId, unitAmount: "0.5", priceCurrency: "usd" }],
    });
    const created = await seller.sdk.checkouts.create({ products: [usageOnly.id] });
    const again = await publicSdk(server).checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { productPriceId: meteredOf(usageOnly) },
    });
    expect(again).toMatchObject({ productPriceId: meteredOf(usageOnly), amount: 0 });
  });
});

describe("seats", () => {
  it("the seats the customer chose reach the order and the subscription", async () => {
    const product = await seller.sdk.products.create({
      name: "Team",
      recurringInterval: "month",
      prices: [
        {
          amountType: "seat_based",
          priceCurrency: "usd",
          seatTiers: {
            seatTierType: "volume",
            tiers: [
              { minSeats: 2, maxSeats: 9, pricePerSeat: 1200 },
              { minSeats: 10, maxSeats: 50, pricePerSeat: 900 },
            ],
          },
        },
      ],
    });
    const created = await seller.sdk049.checkouts.create({ products: [product.id] });
    expect(created).toMatchObject({ seats: 2, amount: 2400 });
    const updated = await new Polar049({ serverURL: server.url }).checkouts.clientUpdate({
      clientSecret: created.clientSecret,
      checkoutUpdatePublic: { seats: 12 },
    });
    expect(updated).toMatchObject({ seats: 12, amount: 10_800 });
    await pay(server, created);
    const [order] = (await seller.sdk.orders.list({ productId: product.id })).result.items;
    expect(order).toMatchObject({ seats: 12, subtotalAmount: 10_800 });
    const [sub] = (await seller.sdk049.subscriptions.list({ productId: product.id })).result.items;
    expect(sub).toMatchObject({ seats: 12, amount: 10_800 });
  });
});

describe("currencies are ISO 4217 codes", () => {
  it("refuses a made-up code on prices, the organization's default and event costs; takes real ones", async () => {
    // both SDKs already refuse a code outside Polar's presentment list before sending; the server refuses it too
    const bad = await raw("POST", "/v1/products/", { name: "Bad currency", prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "xyz" }] });
    expect(bad.status).toBe(422);
    expect(issues(bad.body)).toEqual([expect.objectContaining({ loc: ["body", "prices", 0, "price_currency"], type: "value_error" })]);
    for (const code of ["xau", "xts", "USD", "us"]) {
      const res = await raw("POST", "/v1/products/", { name: "Bad currency", prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: code }] });
      expect(res.status, code).toBe(422);
    }
    // a metered price names its currency too
    const meteredBad = await raw("POST", "/v1/products/", {
      name: "Bad metered",
      recurring_interval: "month",
      prices: [
        { amount_type: "fixed", price_amount: 1000, price_currency: "usd" },
        { amount_type: "metered_unit", meter_id: meterId, unit_amount: "0.5", price_currency: "abc" },
      ],
    });
    expect(meteredBad.status).toBe(422);
    expect(issues(meteredBad.body)[0]?.loc).toEqual(["body", "prices", 1, "price_currency"]);
    expect((await raw("GET", `/v1/products/?query=Bad`)).body).toMatchObject({ items: [] });

    const jpy = await seller.sdk.products.create({ name: "Yen", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "jpy" }] });
    expect(jpy.prices[0]).toMatchObject({ priceCurrency: "jpy" });

    const org = await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { default_presentment_currency: "xyz" });
    expect(org.status).toBe(422);
    const discount = await raw("POST", "/v1/discounts/", { type: "fixed", duration: "once", amount: 100, currency: "xyz", name: "Bad" });
    expect(discount.status).toBe(422);
    const checkout = await raw("POST", "/v1/checkouts/", { products: [hybrid.id], currency: "xyz" });
    expect(checkout.status).toBe(422);

    const event = await raw("POST", "/v1/events/ingest", {
      events: [{ name: "api.call", external_customer_id: "cost-buyer", metadata: { _cost: { amount: 1, currency: "xyz" } } }],
    });
    expect(event.status).toBe(422);
    const fine = await raw("POST", "/v1/events/ingest", {
      events: [{ name: "api.call", external_customer_id: "cost-buyer", metadata: { _cost: { amount: 1, currency: "EUR" } } }],
    });
    expect(fine.status).toBe(200);
  });
});
