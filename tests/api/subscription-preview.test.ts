// POST /v1/subscriptions/{id}/preview and GET /v1/subscriptions/{id}/upcoming (till's own): a preview writes
// nothing, and the PATCH with the same body (and the preview's proration_date) bills exactly what it showed — the
// order billed now and the next renewal's — over each proration behavior, with a discount and tax.
import { count, eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { describe, expect, it } from "vitest";
import { customerBalanceEntry, discount, order, outbox, subscription, subscriptionProration } from "../../server/db/schema/index.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { prorationFixture } from "./proration-fixtures.js";

const fx = prorationFixture();

interface Draft {
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  applied_balance_amount: number;
  due_amount: number;
  items: Array<{ label: string; amount: number; tax_amount: number; proration: boolean }>;
}

/**
 * Everything a change may write: the subscription row, its orders and prorations, the outbox, the balance, the
 * discount's redemptions.
 */
async function snapshot(s: Seller, subscriptionId: string, discountId: string | null) {
  const db = fx.db();
  const [sub] = await db.select().from(subscription).where(eq(subscription.id, subscriptionId));
  const orders = await db.select({ n: count() }).from(order).where(eq(order.subscriptionId, subscriptionId));
  const events = await db.select({ n: count() }).from(outbox).where(eq(outbox.organizationId, s.organizationId));
  const prorations = await db.select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, subscriptionId));
  const ledger = await db.select({ n: count() }).from(customerBalanceEntry).where(eq(customerBalanceEntry.organizationId, s.organizationId));
  const redemptions = discountId ? (await db.select({ n: discount.redemptionsCount }).from(discount).where(eq(discount.id, discountId)))[0]?.n : null;
  return { sub, orders: orders[0]?.n, events: events[0]?.n, prorations, ledger: ledger[0]?.n, redemptions };
}

/** The amounts of an order (the SDK's) in the preview's wire terms. */
interface SdkOrder {
  subtotalAmount: number;
  discountAmount: number;
  taxAmount: number;
  totalAmount: number;
  items: Array<{ label: string; amount: number; taxAmount: number; proration: boolean }>;
}
const amounts = (o: SdkOrder) => ({
  subtotal_amount: o.subtotalAmount,
  discount_amount: o.discountAmount,
  tax_amount: o.taxAmount,
  total_amount: o.totalAmount,
  items: o.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.taxAmount, proration: i.proration })),
});
const draftAmounts = (d: Draft) => ({
  subtotal_amount: d.subtotal_amount,
  discount_amount: d.discount_amount,
  tax_amount: d.tax_amount,
  total_amount: d.total_amount,
  items: d.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.tax_amount, proration: i.proration })),
});

/** A seller taxed in France (20%, exclusive), a Small and a Large monthly plan in euros, and a 25% discount forever. */
async function taxedSeller(name: string) {
  const s = await createSeller(fx.server, name);
  await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } }, s);
  const small = await s.sdk.products.create({ name: "Small", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "eur" }] });
  const large = await s.sdk.products.create({ name: "Large", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "eur" }] });
  const off = await s.sdk.discounts.create({ type: "percentage", basisPoints: 2500, duration: "forever", name: `${name} quarter off` });
  return { s, small, large, off };
}

async function discounted(s: Seller, product: Product, discountId: string) {
  const sub = await fx.subscribe(product, s);
  await fx.midPeriod(sub.id, 10);
  await s.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { discountId } });
  return sub;
}

describe("a preview bills, to the cent, what the change then bills", () => {
  for (const behavior of ["invoice", "prorate", "next_period"] as const) {
    it(`${behavior}: the order billed now and the next renewal, with a discount and tax; the preview wrote nothing`, async () => {
      const { s, small, large, off } = await taxedSeller(`preview-${behavior}`);
      const sub = await discounted(s, small, off.id);
      const body = { product_id: large.id, proration_behavior: behavior };
      const before = await snapshot(s, sub.id, off.id);
      const res = await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, body, s);
      expect(res.status).toBe(200);
      const preview = res.body as { proration_date: string; proration_behavior: string; order: Draft | null; carried_forward: Array<{ amount: number }>; next_renewal: Draft };
      expect(preview.proration_behavior).toBe(behavior);
      expect(await snapshot(s, sub.id, off.id)).toEqual(before);
      // the upcoming renewal is the one before the change
      const upcoming = await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, s);
      expect(upcoming.status).toBe(200);
      // Small 1000 − 25% = 750, + 20% tax = 900
      expect(upcoming.body).toMatchObject({ subtotal_amount: 1000, discount_amount: 250, tax_amount: 150, total_amount: 900, due_amount: 900 });

      const patched = await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { ...body, proration_date: preview.proration_date }, s);
      expect(patched.status).toBe(200);
      const orders = await fx.ordersOf(sub.id, s);
      if (behavior === "invoice") {
        const billed = orders.find((o) => o.billingReason === "subscription_update");
        if (!billed || !preview.order) throw new Error("no subscription_update order, or none previewed");
        expect(amounts(billed)).toEqual(draftAmounts(preview.order));
        expect(billed.dueAmount).toBe(preview.order.due_amount);
        // the proration lines are taxed, never discounted
        expect(preview.order.tax_amount).not.toBe(0);
      } else {
        expect(preview.order).toBeNull();
        expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create"]);
      }
      const carried = await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id));
      expect(preview.carried_forward.map((l) => l.amount)).toEqual(carried.map((p) => p.amount));
      if (behavior === "prorate") expect(carried).toHaveLength(2);
      // the renewal as it stands after the change is the one previewed; then the renewal bills it
      const after = await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, s);
      expect(draftAmounts(after.body as unknown as Draft)).toEqual(draftAmounts(preview.next_renewal));
      await fx.renew(sub.id, s);
      const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
      if (!cycle) throw new Error("no renewal order");
      expect(amounts(cycle)).toEqual(draftAmounts(preview.next_renewal));
      expect(cycle.dueAmount).toBe(preview.next_renewal.due_amount);
      // Large 4000 − 25% = 3000 + 20% = 3600 (prorate: and the carried lines, taxed)
      if (behavior !== "prorate") expect(cycle.totalAmount).toBe(3600);
    });
  }

  it("a downgrade billed now: its credit goes to the balance, as previewed", async () => {
    const { s, small, large } = await taxedSeller("preview-downgrade");
    const sub = await fx.subscribe(large, s);
    await fx.midPeriod(sub.id, 12);
    const body = { product_id: small.id, proration_behavior: "invoice" };
    const preview = (await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, body, s)).body as { proration_date: string; order: Draft; next_renewal: Draft };
    expect(preview.order.total_amount).toBeLessThan(0);
    expect(preview.order.applied_balance_amount).toBe(-preview.order.total_amount);
    expect(await fx.balanceOf(sub.customerId)).toBe(0);
    await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { ...body, proration_date: preview.proration_date }, s);
    const billed = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_update");
    if (!billed) throw new Error("no subscription_update order");
    expect(amounts(billed)).toEqual(draftAmounts(preview.order));
    expect(await fx.balanceOf(sub.customerId)).toBe(preview.order.applied_balance_amount);
    // the next renewal previewed is paid partly by that credit, as the renewal then bills it
    const next = preview.next_renewal;
    expect(next.applied_balance_amount).toBeLessThan(0);
    await fx.renew(sub.id, s);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    if (!cycle) throw new Error("no renewal order");
    expect(amounts(cycle)).toEqual(draftAmounts(next));
    expect(cycle.dueAmount).toBe(next.due_amount);
  });
});

describe("usage so far", () => {
  it("upcoming and a preview bill the usage so far at the meter price, with the discount on the plan only", async () => {
    const { s, off } = await taxedSeller("preview-usage");
    const meter = await s.sdk.meters.create({
      name: "Preview calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "preview-call" }] },
      aggregation: { func: "count" },
    });
    const plan = await s.sdk.products.create({
      name: "Metered",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 900, priceCurrency: "eur" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "3", priceCurrency: "eur" },
      ],
    });
    const sub = await fx.subscribe(plan, s);
    const ingest = await fx.raw("POST", "/v1/events/ingest", { events: Array.from({ length: 7 }, () => ({ name: "preview-call", customer_id: sub.customerId })) }, s);
    expect(ingest.status).toBe(200);
    const upcoming = (await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, s)).body as unknown as Draft;
    // 900 + 7 × 3 = 921, + 20% tax
    expect(upcoming.items.map((i) => i.amount)).toEqual([900, 21]);
    expect(upcoming).toMatchObject({ subtotal_amount: 921, discount_amount: 0, total_amount: 1105 });
    const body = { discount_id: off.id };
    const preview = (await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, body, s)).body as { order: Draft | null; next_renewal: Draft };
    expect(preview.order).toBeNull();
    // 25% off the plan's 900 only
    expect(preview.next_renewal).toMatchObject({ subtotal_amount: 921, discount_amount: 225 });
    expect((await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, body, s)).status).toBe(200);
    await fx.renew(sub.id, s);
    const cycle = (await fx.ordersOf(sub.id, s)).find((o) => o.billingReason === "subscription_cycle");
    if (!cycle) throw new Error("no renewal order");
    expect(amounts(cycle)).toEqual(draftAmounts(preview.next_renewal));
  });
});

describe("what a preview refuses", () => {
  it("another organization's subscription is 404; bad input 422; a past or future proration_date 422", async () => {
    const sub = await fx.subscribe(fx.basic);
    await fx.midPeriod(sub.id, 5);
    const other = await createSeller(fx.server, "preview-other");
    expect((await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, { cancel_at_period_end: true }, other)).status).toBe(404);
    expect((await fx.raw("GET", `/v1/subscriptions/${sub.id}/upcoming`, undefined, other)).status).toBe(404);
    const bad = await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, { product_id: "nope" });
    expect(bad.status).toBe(422);
    expect((await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, {})).status).toBe(422);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const late = await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, { product_id: fx.pro.id, proration_date: future });
    expect(late.status).toBe(422);
    expect((late.body as { detail: Array<{ loc: string[] }> }).detail[0]?.loc).toEqual(["body", "proration_date"]);
    // a cancel at the period end previews no next renewal, and changes nothing
    const cancel = await fx.raw("POST", `/v1/subscriptions/${sub.id}/preview`, { cancel_at_period_end: true });
    expect(cancel.body).toMatchObject({ changes: true, order: null, next_renewal: null, subscription: { cancel_at_period_end: true } });
    expect((await fx.raw("GET", `/v1/subscriptions/${sub.id}`)).body.cancel_at_period_end).toBe(false);
  });
});
