// Add-ons at checkout (till's own `add_ons` on checkout create and update, the seller's and the customer's): the
// checkout offers the product's add-ons (`available_add_ons`), prices the chosen ones in its totals with one tax
// computation (the discount stays the product's), refuses one the product does not offer with a 422 that changes
// nothing, and the confirm bills each on a line of its own, starts the subscription with them (`items`) and grants
// their benefits.
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

interface CheckoutBody {
  id: string;
  client_secret: string;
  amount: number;
  net_amount: number;
  tax_amount: number | null;
  total_amount: number;
  add_ons: Array<{ product_id: string; quantity: number; amount: number; name: string | null }>;
  available_add_ons: Array<{ id: string; name: string }>;
}

const raw = (s: Seller, method: string, path: string, body?: unknown) => rawRequest(server.url, s.token, method, path, body);
const client = (secret: string, method: string, body?: unknown) => rawRequest(server.url, "", method, `/v1/checkouts/client/${secret}`, body);

/** A seller taxed in France (20%, exclusive): Team (2000/month) offering Storage (500 a unit) and Support (seats). */
async function seller() {
  const s = await createSeller(server, "checkout-addons");
  await raw(s, "PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } });
  const monthly = (name: string, amount: number) => s.sdk.products.create({ name, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "eur" }] });
  const storage = await monthly("Storage", 500);
  const other = await monthly("Other", 700);
  const support = await s.sdk.products.create({
    name: "Support",
    recurringInterval: "month",
    prices: [{ amountType: "seat_based", priceCurrency: "eur", seatTiers: { tiers: [{ minSeats: 1, maxSeats: 50, pricePerSeat: 300 }] } }],
  });
  const team = await raw(s, "POST", "/v1/products/", {
    name: "Team", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "eur" }], add_on_ids: [storage.id, support.id],
  });
  expect(team.status).toBe(201);
  const benefit = await s.sdk.benefits.create({ type: "custom", description: "Storage perks", properties: {} });
  await s.sdk.products.updateBenefits({ id: storage.id, productBenefitsUpdate: { benefits: [benefit.id] } });
  return { s, team: team.body.id as string, storage: storage.id, support: support.id, other: other.id, benefit: benefit.id };
}

describe("add-ons at checkout", () => {
  it("offered, priced in one total with one tax, billed line by line; the subscription holds them with their benefits", async () => {
    const x = await seller();
    const created = await raw(x.s, "POST", "/v1/checkouts/", { products: [x.team], add_ons: [{ product_id: x.storage, quantity: 3 }] });
    expect(created.status).toBe(201);
    const checkout = created.body as unknown as CheckoutBody;
    expect(checkout.available_add_ons.map((p) => p.name)).toEqual(["Storage", "Support"]);
    expect(checkout.add_ons.map((a) => [a.name, a.quantity, a.amount])).toEqual([["Storage", 3, 1500]]);
    expect([checkout.amount, checkout.total_amount]).toEqual([2000, 3500]);

    // the customer's page: Support for 2 seats added; the address gives the tax, computed once over every line
    const updated = await client(checkout.client_secret, "PATCH", {
      add_ons: [{ product_id: x.storage, quantity: 3 }, { product_id: x.support, quantity: 2 }],
      customer_billing_address: { country: "FR" },
    });
    expect(updated.status).toBe(200);
    const priced = updated.body as unknown as CheckoutBody;
    expect([priced.net_amount, priced.tax_amount, priced.total_amount]).toEqual([4100, 820, 4920]);

    // refused with a 422 at the add-on, nothing changed: not offered, another organization's, outside the seats
    const foreign = await createSeller(server, "checkout-addons-other");
    const theirs = await foreign.sdk.products.create({ name: "Theirs", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "eur" }] });
    for (const [addOns, loc] of [
      [[{ product_id: x.other }], ["body", "add_ons", 0, "product_id"]],
      [[{ product_id: theirs.id }], ["body", "add_ons", 0, "product_id"]],
      [[{ product_id: x.support, quantity: 51 }], ["body", "add_ons", 0, "quantity"]],
      [[{ product_id: x.storage }, { product_id: x.storage }], ["body", "add_ons", 1, "product_id"]],
    ] as const) {
      const refused = await client(checkout.client_secret, "PATCH", { add_ons: addOns });
      expect(refused.status).toBe(422);
      expect((refused.body.detail as Array<{ loc: unknown }>)[0]?.loc).toEqual(loc);
    }
    expect(((await client(checkout.client_secret, "GET")).body as unknown as CheckoutBody).total_amount).toBe(4920);

    await pay(server, { clientSecret: checkout.client_secret });
    const [order] = (await x.s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!order?.subscriptionId) throw new Error("no subscription order");
    expect(order.items.map((i) => [i.label, i.amount])).toEqual([["Team", 2000], ["Storage × 3", 1500], ["Support (2 seats)", 600]]);
    expect([order.subtotalAmount, order.taxAmount, order.totalAmount]).toEqual([4100, 820, 4920]);
    const sub = await raw(x.s, "GET", `/v1/subscriptions/${order.subscriptionId}`);
    expect((sub.body.items as Array<{ product_id: string; quantity: number; amount: number }>).map((i) => [i.product_id, i.quantity, i.amount])).toEqual([
      [x.storage, 3, 1500],
      [x.support, 2, 600],
    ]);
    expect(sub.body.amount).toBe(4100);
    const grants = await server.database.db.select({ id: benefitGrant.id }).from(benefitGrant)
      .where(and(eq(benefitGrant.subscriptionId, order.subscriptionId), eq(benefitGrant.benefitId, x.benefit), isNull(benefitGrant.revokedAt)));
    expect(grants).toHaveLength(1);
  });

  it("the seller's update sets them; a product without add-ons leaves them out", async () => {
    const x = await seller();
    const plain = await x.s.sdk.products.create({ name: "Plain", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "eur" }] });
    const created = await raw(x.s, "POST", "/v1/checkouts/", { products: [x.team, plain.id] });
    const id = created.body.id as string;
    const set = await raw(x.s, "PATCH", `/v1/checkouts/${id}`, { add_ons: [{ product_id: x.support, quantity: 4 }] });
    expect(set.status).toBe(200);
    expect((set.body as unknown as CheckoutBody).total_amount).toBe(2000 + 1200);
    const switched = await raw(x.s, "PATCH", `/v1/checkouts/${id}`, { product_id: plain.id });
    expect((switched.body as unknown as CheckoutBody).add_ons).toEqual([]);
    expect((switched.body as unknown as CheckoutBody).total_amount).toBe(900);
    expect((await raw(x.s, "PATCH", `/v1/checkouts/${id}`, { add_ons: [{ product_id: x.storage }] })).status).toBe(422);
  });
});
