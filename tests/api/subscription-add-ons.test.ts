// Add-ons (till's own): a base product offers other products of its interval (`add_on_ids`); a subscription holds
// them as `items` (each with its product, price, quantity and amount), its Polar wire still the base product in
// `product` and every price in `prices` (both SDKs parse it). PATCH `items` adds, requantifies and removes them with
// each proration behavior, previewed to the cent; the renewal bills every add-on on a line of its own with one tax
// and one total; benefits, webhooks and the recurring revenue follow them.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { describe, expect, it } from "vitest";
import { benefitGrant, metricSubscriptionChange, outbox, subscriptionProration } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { prorationFixture } from "./proration-fixtures.js";

const fx = prorationFixture();

interface Item {
  id: string;
  product_id: string;
  price_id: string;
  quantity: number;
  amount: number;
  product: { name: string } | null;
  price: { id: string } | null;
}
interface Draft {
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number; tax_amount: number; proration: boolean }>;
}
interface Preview {
  proration_date: string;
  proration_behavior: string;
  order: Draft | null;
  carried_forward: Array<{ label: string; amount: number }>;
  next_renewal: Draft;
  subscription: { items: Item[]; amount: number };
}

/** A seller taxed in France (20%, exclusive): Team (2000/month) offering Storage (500 a unit) and Support (seats). */
async function seller(name: string) {
  const s = await createSeller(fx.server, name);
  await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } }, s);
  const storage = await s.sdk.products.create({ name: "Storage", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "eur" }] });
  const support = await s.sdk.products.create({
    name: "Support",
    recurringInterval: "month",
    prices: [{ amountType: "seat_based", priceCurrency: "eur", seatTiers: { tiers: [{ minSeats: 1, maxSeats: 50, pricePerSeat: 300 }] } }],
  });
  const yearly = await s.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "eur" }] });
  const created = await fx.raw("POST", "/v1/products/", {
    name: "Team",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "eur" }],
    add_on_ids: [storage.id, support.id],
  }, s);
  expect(created.status).toBe(201);
  expect(created.body.add_on_ids).toEqual([storage.id, support.id]);
  const team = await s.sdk.products.get({ id: created.body.id as string });
  return { s, team, storage, support, yearly };
}

const patch = (s: Seller, id: string, body: unknown) => fx.raw("PATCH", `/v1/subscriptions/${id}`, body, s);
const preview = async (s: Seller, id: string, body: unknown) => {
  const res = await fx.raw("POST", `/v1/subscriptions/${id}/preview`, body, s);
  expect(res.status).toBe(200);
  return res.body as unknown as Preview;
};
const lines = (d: { items: Array<{ label: string; amount: number; taxAmount?: number; tax_amount?: number; proration: boolean }> }) =>
  d.items.map((i) => ({ label: i.label, amount: i.amount, tax: i.taxAmount ?? i.tax_amount, proration: i.proration }));

async function subscribed(name: string) {
  const x = await seller(name);
  const sub = await fx.subscribe(x.team as Product, x.s);
  await fx.midPeriod(sub.id, 10);
  return { ...x, sub };
}

describe("products offer add-ons", () => {
  it("add_on_ids: another product of the same interval, never itself, one of another interval, nor an unknown one", async () => {
    const { s, team, storage, yearly } = await seller("addons-products");
    const bad = async (body: unknown, id = team.id) => (await fx.raw("PATCH", `/v1/products/${id}`, body, s)).status;
    expect(await bad({ add_on_ids: [yearly.id] })).toBe(422);
    expect(await bad({ add_on_ids: [team.id] })).toBe(422);
    expect(await bad({ add_on_ids: ["00000000-0000-4000-8000-000000000000"] })).toBe(422);
    expect(await bad({ add_on_ids: [storage.id, storage.id] })).toBe(422);
    // an add-on offers none of its own
    expect(await bad({ add_on_ids: [yearly.id] }, storage.id)).toBe(422);
    const cleared = await fx.raw("PATCH", `/v1/products/${team.id}`, { add_on_ids: [] }, s);
    expect(cleared.body.add_on_ids).toEqual([]);
  });
});

describe("a subscription's add-ons", () => {
  it("invoice: added mid-period, billed now line by line as previewed; the wire holds them for both SDKs", async () => {
    const { s, sub, storage, support } = await subscribed("addons-invoice");
    const body = { items: [{ product_id: storage.id, quantity: 3 }, { product_id: support.id, quantity: 2 }], proration_behavior: "invoice" };
    const p = await preview(s, sub.id, body);
    expect(p.subscription.items.map((i) => [i.product_id, i.quantity, i.amount])).toEqual([[storage.id, 3, 1500], [support.id, 2, 600]]);
    expect((await fx.ordersOf(sub.id, s)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    const res = await patch(s, sub.id, { ...body, proration_date: p.proration_date });
    expect(res.status).toBe(200);
    const billed = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_update");
    if (!billed || !p.order) throw new Error("no subscription_update order, or none previewed");
    expect(lines(billed)).toEqual(lines(p.order));
    expect(billed.totalAmount).toBe(p.order.total_amount);
    // 20 of 30 days left: 2/3 of 1500 and of 600, taxed 20%
    expect(billed.items.map((i) => i.amount)).toEqual([1000, 400]);
    expect(billed.taxAmount).toBe(280);

    // Polar's wire: the base product in `product`, every price in `prices`; the whole amount in `amount`
    const viaSdk = await s.sdk.subscriptions.get({ id: sub.id });
    expect(viaSdk.product.id).toBe(sub.productId);
    expect(viaSdk.prices.map((x) => x.id)).toEqual([...sub.prices.map((x) => x.id), storage.prices[0]!.id, support.prices[0]!.id]);
    expect(viaSdk.amount).toBe(2000 + 1500 + 600);
    const via049 = await s.sdk049.subscriptions.get({ id: sub.id });
    expect(via049.prices).toHaveLength(3);
    expect(via049.product.id).toBe(sub.productId);
    const raw = (await fx.raw("GET", `/v1/subscriptions/${sub.id}`, undefined, s)).body as { items: Item[] };
    expect(raw.items.map((i) => ({ name: i.product?.name, quantity: i.quantity, amount: i.amount, price: i.price?.id }))).toEqual([
      { name: "Storage", quantity: 3, amount: 1500, price: storage.prices[0]!.id },
      { name: "Support", quantity: 2, amount: 600, price: support.prices[0]!.id },
    ]);
    // the webhook carries them
    const [event] = await fx
      .db()
      .select({ payload: outbox.payload })
      .from(outbox)
      .where(and(eq(outbox.type, "subscription.updated"), sql`${outbox.payload} ->> 'id' = ${sub.id}`))
      .orderBy(sql`${outbox.createdAt} DESC`)
      .limit(1);
    expect((event?.payload as { items: Item[] }).items.map((i) => i.quantity)).toEqual([3, 2]);

    // the renewal bills the base and each add-on, one tax computation and one total; upcoming showed it
    const upcoming = (await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, s)).body as unknown as Draft;
    expect(upcoming.items.map((i) => [i.label, i.amount])).toEqual([["Team", 2000], ["Storage × 3", 1500], ["Support (2 seats)", 600]]);
    await fx.renew(sub.id, s);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    if (!cycle) throw new Error("no renewal order");
    expect(lines(cycle)).toEqual(lines(upcoming));
    expect(cycle.subtotalAmount).toBe(4100);
    expect(cycle.taxAmount).toBe(820);
    expect(cycle.totalAmount).toBe(4920);
  });

  it("prorate: a quantity change and a removal are carried to the renewal, as previewed", async () => {
    const { s, sub, storage, support } = await subscribed("addons-prorate");
    await patch(s, sub.id, { items: [{ product_id: storage.id, quantity: 1 }, { product_id: support.id, quantity: 1 }], proration_behavior: "invoice" });
    await fx.midPeriod(sub.id, 15);
    const body = { items: [{ product_id: storage.id, quantity: 2 }], proration_behavior: "prorate" };
    const p = await preview(s, sub.id, body);
    expect(p.order).toBeNull();
    await patch(s, sub.id, { ...body, proration_date: p.proration_date });
    const carried = await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id));
    expect(carried.map((c) => c.amount)).toEqual(p.carried_forward.map((c) => c.amount));
    // half a period: Storage 500 → 1000 (−250, +500); Support 300 → none (−150)
    expect(carried.map((c) => c.amount)).toEqual([-250, 500, -150]);
    await fx.renew(sub.id, s);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    if (!cycle) throw new Error("no renewal order");
    expect(lines(cycle)).toEqual(lines(p.next_renewal));
    expect(cycle.subtotalAmount).toBe(2000 + 1000 + 100);
  });

  it("next_period: the add-ons wait for the renewal, which bills them; nothing billed now", async () => {
    const { s, sub, storage } = await subscribed("addons-next");
    const body = { items: [{ product_id: storage.id, quantity: 4 }], proration_behavior: "next_period" };
    const p = await preview(s, sub.id, body);
    expect(p.proration_behavior).toBe("next_period");
    expect(p.next_renewal.subtotal_amount).toBe(4000);
    const res = await patch(s, sub.id, body);
    expect(res.body.items).toEqual([]);
    expect(res.body.pending_update).not.toBeNull();
    await fx.renew(sub.id, s);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    expect(cycle && lines(cycle)).toEqual(lines(p.next_renewal));
    const after = (await fx.raw("GET", `/v1/subscriptions/${sub.id}`, undefined, s)).body as { items: Item[]; pending_update: unknown };
    expect(after.items.map((i) => i.quantity)).toEqual([4]);
    expect(after.pending_update).toBeNull();
  });

  it("a plan change keeps the add-on change waiting for the renewal (next_period or now); the renewal writes both", async () => {
    const { s, sub, storage } = await subscribed("addons-pending-plan");
    const product = async (name: string, amount: number, addOnIds: string[]) =>
      (await fx.raw("POST", "/v1/products/", {
        name, recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: amount, price_currency: "eur" }], add_on_ids: addOnIds,
      }, s)).body.id as string;
    const plus = await product("Team Plus", 3000, [storage.id]);
    const max = await product("Team Max", 4000, [storage.id]);
    const solo = await product("Solo", 1000, []);
    expect((await patch(s, sub.id, { items: [{ product_id: storage.id, quantity: 2 }], proration_behavior: "next_period" })).status).toBe(200);
    // a product that does not offer the waiting add-on is refused
    expect((await patch(s, sub.id, { product_id: solo, proration_behavior: "next_period" })).status).toBe(422);
    const waiting = await patch(s, sub.id, { product_id: plus, proration_behavior: "next_period" });
    expect(waiting.status).toBe(200);
    expect((waiting.body.pending_update as { product_id?: string } | null)?.product_id).toBe(plus);
    const pending = await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, s);
    expect((pending.body as unknown as Draft).items.map((i) => [i.label, i.amount])).toEqual([["Team Plus", 3000], ["Storage × 2", 1000]]);
    // applied now, the product change leaves the add-ons waiting
    const now = await patch(s, sub.id, { product_id: max, proration_behavior: "invoice" });
    expect(now.status).toBe(200);
    expect(now.body.product_id).toBe(max);
    expect(now.body.items).toEqual([]);
    expect(now.body.pending_update).not.toBeNull();
    await fx.renew(sub.id, s);
    const after = (await fx.raw("GET", `/v1/subscriptions/${sub.id}`, undefined, s)).body as { product_id: string; items: Item[]; pending_update: unknown };
    expect([after.product_id, after.items.map((i) => i.quantity), after.pending_update]).toEqual([max, [2], null]);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    expect(cycle?.subtotalAmount).toBe(4000 + 1000);
  });

  it("refuses a product the base does not offer, a quantity outside the seats, and a canceled subscription", async () => {
    const { s, sub, support, yearly } = await subscribed("addons-refused");
    expect((await patch(s, sub.id, { items: [{ product_id: yearly.id }] })).status).toBe(422);
    expect((await patch(s, sub.id, { items: [{ product_id: support.id, quantity: 51 }] })).status).toBe(422);
    expect((await patch(s, sub.id, { items: [{ product_id: support.id, quantity: 0 }] })).status).toBe(422);
    expect((await patch(s, sub.id, { items: [], product_id: yearly.id })).status).toBe(422);
    await patch(s, sub.id, { cancel_at_period_end: true });
    expect((await patch(s, sub.id, { items: [{ product_id: support.id }] })).status).toBe(403);
  });

  it("benefits follow the add-ons; the recurring revenue counts them", async () => {
    const { s, sub, storage } = await subscribed("addons-benefits");
    const benefit = await s.sdk.benefits.create({ type: "custom", description: "Storage perks", properties: {} });
    await s.sdk.products.updateBenefits({ id: storage.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const granted = () =>
      fx.db().select({ id: benefitGrant.id }).from(benefitGrant)
        .where(and(eq(benefitGrant.subscriptionId, sub.id), eq(benefitGrant.benefitId, benefit.id), isNull(benefitGrant.revokedAt)));
    await patch(s, sub.id, { items: [{ product_id: storage.id, quantity: 2 }], proration_behavior: "invoice" });
    expect(await granted()).toHaveLength(1);
    const mrr = async () =>
      Number((await fx.db().select({ m: sql<number>`coalesce(sum(${metricSubscriptionChange.mrr}), 0)::float8` }).from(metricSubscriptionChange)
        .where(eq(metricSubscriptionChange.subscriptionId, sub.id)))[0]?.m);
    expect(await mrr()).toBe(3000);
    await patch(s, sub.id, { items: [], proration_behavior: "invoice" });
    expect(await granted()).toHaveLength(0);
    expect(await mrr()).toBe(2000);
  });
});

describe("the customer's add-ons in the portal", () => {
  it("the customer's wire holds them; the customer changes them as previewed; the seller's setting and another customer refuse", async () => {
    const { s, team, sub, storage, support } = await subscribed("addons-portal");
    const org = `/v1/organizations/${s.organizationId}`;
    await fx.raw("PATCH", org, { subscription_settings: { allow_multiple_subscriptions: false, allow_customer_updates: true, proration_behavior: "invoice" } }, s);
    const tokenOf = async (customerId: string) => (await s.sdk.customerSessions.create({ customerId })).token;
    const token = await tokenOf(sub.customerId);
    const portal = (method: string, path: string, body?: unknown, t = token) => rawRequest(fx.server.url, t, method, `/v1/customer-portal/subscriptions/${sub.id}${path}`, body);
    // the add-ons its product offers, with their prices (what the portal page offers), in the seller's order
    const offered = async () => ((await portal("GET", "")).body.available_add_ons as Array<{ id: string; prices: unknown[] }>).map((p) => [p.id, p.prices.length]);
    expect(await offered()).toEqual([[storage.id, 1], [support.id, 1]]);
    const body = { items: [{ product_id: storage.id, quantity: 2 }] };
    const p = await portal("POST", "/preview", body);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const previewed = (p.body as unknown as Preview).order;
    if (!previewed) throw new Error("the preview bills nothing now");
    expect((await fx.ordersOf(sub.id, s)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    const res = await portal("PATCH", "", { ...body, proration_date: p.body.proration_date });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((res.body.items as Item[]).map((i) => [i.product_id, i.quantity, i.amount])).toEqual([[storage.id, 2, 1000]]);
    const billed = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_update");
    expect(billed?.totalAmount).toBe(previewed.total_amount);
    expect(((await portal("GET", "")).body.items as Item[]).map((i) => i.quantity)).toEqual([2]);
    // an archived add-on is offered no more; the list is on every subscription the portal answers with
    await s.sdk.products.update({ id: support.id, productUpdate: { isArchived: true } });
    expect(await offered()).toEqual([[storage.id, 1]]);
    const listed = await rawRequest(fx.server.url, token, "GET", "/v1/customer-portal/subscriptions/");
    expect((listed.body.items as Array<{ available_add_ons: Array<{ name: string }> }>)[0]?.available_add_ons.map((p) => p.name)).toEqual(["Storage"]);
    // a product the base does not offer: 422, nothing changed
    expect((await portal("PATCH", "", { items: [{ product_id: team.id, quantity: 1 }] })).status).toBe(422);
    // another customer's subscription: 404
    const other = await fx.subscribe(team as Product, s);
    expect((await portal("POST", "/preview", body, await tokenOf(other.customerId))).status).toBe(404);
    // the seller's portal settings forbid plan changes: add-ons with them
    await fx.raw("PATCH", org, { customer_portal_settings: { usage: { show: true }, subscription: { update_seats: true, update_plan: false } } }, s);
    expect((await portal("POST", "/preview", { items: [] })).status).toBe(403);
    expect((await portal("PATCH", "", { items: [] })).status).toBe(403);
    expect(((await portal("GET", "")).body.items as Item[]).map((i) => i.quantity)).toEqual([2]);
  });
});
