// POST /v1/customer-portal/subscriptions/{id}/preview (till's own): the customer's own subscription only (another
// customer's is a 404, a change the seller's settings forbid a 403), and the portal's PATCH sent with the preview's
// proration_date bills exactly what the preview showed — plan and seat changes billed now, with a discount and tax.
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { order } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { buySeats } from "../helpers/seats.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { prorationFixture } from "./proration-fixtures.js";

const fx = prorationFixture();

interface Draft {
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  items: Array<{ label: string; amount: number; tax_amount: number }>;
}
interface Preview {
  proration_date: string;
  order: Draft | null;
  next_renewal: Draft | null;
  subscription: Record<string, unknown>;
}

const portal = (token: string, method: string, path: string, body?: unknown) => rawRequest(fx.server.url, token, method, `/v1/customer-portal${path}`, body);
const ordersCount = async (subscriptionId: string) =>
  (await fx.db().select({ n: count() }).from(order).where(eq(order.subscriptionId, subscriptionId)))[0]?.n;

/** A seller taxed in France (20%, exclusive) that bills changes now, with a Small and a Large monthly plan in euros. */
async function taxedSeller(name: string) {
  const s = await createSeller(fx.server, name);
  await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, {
    country: "FR",
    tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false },
    subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
  }, s);
  const small = await s.sdk.products.create({ name: "Small", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "eur" }] });
  const large = await s.sdk.products.create({ name: "Large", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "eur" }] });
  return { s, small, large };
}

async function sessionOf(s: Seller, customerId: string): Promise<string> {
  return (await s.sdk.customerSessions.create({ customerId })).token;
}

const amountsOf = (d: Draft) => ({
  subtotal_amount: d.subtotal_amount,
  discount_amount: d.discount_amount,
  tax_amount: d.tax_amount,
  total_amount: d.total_amount,
  items: d.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.tax_amount })),
});

describe("the portal's preview of a change", () => {
  it("a plan change: the preview writes nothing, and the PATCH with its proration_date bills it to the cent", async () => {
    const { s, small, large } = await taxedSeller("portal-preview-plan");
    const sub = await fx.subscribe(small, s);
    await fx.midPeriod(sub.id, 10);
    const off = await s.sdk.discounts.create({ type: "percentage", basisPoints: 2500, duration: "forever", name: "portal quarter off" });
    await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId: off.id } });
    const token = await sessionOf(s, sub.customerId);
    const before = await ordersCount(sub.id);

    const res = await portal(token, "POST", `/subscriptions/${sub.id}/preview`, { product_id: large.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const preview = res.body as unknown as Preview;
    expect(preview.order?.total_amount).toBeGreaterThan(0);
    expect(preview.order?.tax_amount).toBeGreaterThan(0);
    expect(preview.next_renewal).toMatchObject({ subtotal_amount: 4000, discount_amount: 1000, tax_amount: 600, total_amount: 3600 });
    // the customer's wire: the product with its seller, no seller-only fields
    expect(preview.subscription).toMatchObject({ product: { id: large.id, organization: { id: s.organizationId } } });
    expect(preview.subscription).not.toHaveProperty("metadata");
    expect(await ordersCount(sub.id)).toBe(before);
    expect((await s.sdk.subscriptions.get({ id: sub.id })).productId).toBe(small.id);
    // in the language the portal page speaks (here the browser's), as the invoice says it; the same amounts
    const german = await fetch(`${fx.server.url}/v1/customer-portal/subscriptions/${sub.id}/preview`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "accept-language": "de-DE,de;q=0.9,en;q=0.5" },
      body: JSON.stringify({ product_id: large.id }),
    });
    const inGerman = (await german.json()) as Preview;
    expect(preview.order?.items.map((i) => i.label)).toEqual([expect.stringMatching(/^Unused time on Small/), expect.stringMatching(/^Remaining time on Large/)]);
    expect(inGerman.order?.items.map((i) => i.label)).toEqual(["Nicht genutzte Zeit für Small", "Verbleibende Zeit für Large"]);
    expect(inGerman.order?.items.map((i) => i.amount)).toEqual(preview.order?.items.map((i) => i.amount));

    const changed = await portal(token, "PATCH", `/subscriptions/${sub.id}`, { product_id: large.id, proration_date: preview.proration_date });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const orders = await fx.ordersOf(sub.id, s);
    const billed = orders.at(-1);
    expect(orders).toHaveLength(Number(before) + 1);
    expect(billed && amountsOf({
      subtotal_amount: billed.subtotalAmount,
      discount_amount: billed.discountAmount,
      tax_amount: billed.taxAmount,
      total_amount: billed.totalAmount,
      items: billed.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.taxAmount })),
    })).toEqual(preview.order && amountsOf(preview.order));
  });

  it("a seat change: the order the PATCH bills with the preview's proration_date is the preview's", async () => {
    const { s } = await taxedSeller("portal-preview-seats");
    const seats = await createProduct(s, "seats");
    const bought = await buySeats(fx.server, s, seats, 2, "portal-preview-seats");
    await fx.midPeriod(bought.subscriptionId, 12);
    const token = await sessionOf(s, bought.customerId);
    const res = await portal(token, "POST", `/subscriptions/${bought.subscriptionId}/preview`, { seats: 5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const preview = res.body as unknown as Preview;
    expect(preview.order?.total_amount).toBeGreaterThan(0);
    expect(preview.subscription).toMatchObject({ seats: 5 });
    expect((await s.sdk.subscriptions.get({ id: bought.subscriptionId })).seats).toBe(2);
    const changed = await portal(token, "PATCH", `/subscriptions/${bought.subscriptionId}`, { seats: 5, proration_date: preview.proration_date });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const billed = (await fx.ordersOf(bought.subscriptionId, s)).at(-1);
    expect(billed?.billingReason).toBe("subscription_update");
    expect(billed && amountsOf({
      subtotal_amount: billed.subtotalAmount,
      discount_amount: billed.discountAmount,
      tax_amount: billed.taxAmount,
      total_amount: billed.totalAmount,
      items: billed.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.taxAmount })),
    })).toEqual(preview.order && amountsOf(preview.order));
  });

  it("another customer's subscription is a 404, a bad body a 422, a change the seller forbids a 403", async () => {
    const { s, small, large } = await taxedSeller("portal-preview-tenancy");
    const ada = await fx.subscribe(small, s);
    const bob = await fx.subscribe(small, s);
    const bobToken = await sessionOf(s, bob.customerId);
    const adaToken = await sessionOf(s, ada.customerId);
    const foreign = await portal(bobToken, "POST", `/subscriptions/${ada.id}/preview`, { product_id: large.id });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain(ada.customerId);
    expect((await portal(bobToken, "POST", `/subscriptions/${crypto.randomUUID()}/preview`, { product_id: large.id })).status).toBe(404);
    expect((await portal(adaToken, "POST", `/subscriptions/${ada.id}/preview`, { product_id: "x" })).status).toBe(422);
    expect((await portal(adaToken, "POST", `/subscriptions/${ada.id}/preview`, { seats: 0 })).status).toBe(422);
    expect((await portal(adaToken, "POST", `/subscriptions/${ada.id}/preview`, { product_id: large.id, proration_date: "soon" })).status).toBe(422);
    expect((await rawRequest(fx.server.url, "nope", "POST", `/v1/customer-portal/subscriptions/${ada.id}/preview`, { product_id: large.id })).status).toBe(401);
    await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, { customer_portal_settings: { usage: { show: true }, subscription: { update_seats: true, update_plan: false } } }, s);
    const refused = await portal(adaToken, "POST", `/subscriptions/${ada.id}/preview`, { product_id: large.id });
    expect(refused.status).toBe(403);
  });
});
