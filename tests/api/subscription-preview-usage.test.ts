// The preview's exactness with usage in the period: for each proration behavior, a plan change of a metered
// subscription with a discount and tax previews the order billed now and the next renewal (the period's usage priced,
// beyond the meter credits) that the PATCH sent with the preview's proration_date and the renewal then bill, to the
// cent; a new plan whose meter credit the change grants (the regrant previewed in a rolled-back transaction); and a
// customer's credit on the balance, used by the order billed now and by the renewal.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { describe, expect, it } from "vitest";
import { customerBalanceEntry } from "../../server/db/schema/index.js";
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
interface Preview {
  proration_date: string;
  proration_behavior: string;
  order: Draft | null;
  carried_forward: Array<{ amount: number }>;
  next_renewal: Draft;
}
interface SdkOrder {
  billingReason: string;
  subtotalAmount: number;
  discountAmount: number;
  taxAmount: number;
  totalAmount: number;
  dueAmount: number;
  items: Array<{ label: string; amount: number; taxAmount: number; proration: boolean }>;
}

const fromOrder = (o: SdkOrder) => ({
  subtotal_amount: o.subtotalAmount,
  discount_amount: o.discountAmount,
  tax_amount: o.taxAmount,
  total_amount: o.totalAmount,
  due_amount: o.dueAmount,
  items: o.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.taxAmount, proration: i.proration })),
});
const fromDraft = (d: Draft) => ({
  subtotal_amount: d.subtotal_amount,
  discount_amount: d.discount_amount,
  tax_amount: d.tax_amount,
  total_amount: d.total_amount,
  due_amount: d.due_amount,
  items: d.items.map((i) => ({ label: i.label, amount: i.amount, tax_amount: i.tax_amount, proration: i.proration })),
});

/** A seller taxed in France (20%, exclusive) with a metered Small and Large plan in euros on one meter, and 25% off. */
async function meteredSeller(name: string) {
  const s = await createSeller(fx.server, name);
  await fx.raw("PATCH", `/v1/organizations/${s.organizationId}`, { country: "FR", tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false } }, s);
  const event = `${name}-call`;
  const meter = await s.sdk.meters.create({
    name: `${name} calls`,
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: event }] },
    aggregation: { func: "count" },
  });
  const plan = (label: string, amount: number, unit: string) =>
    s.sdk.products.create({
      name: label,
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: amount, priceCurrency: "eur" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: unit, priceCurrency: "eur" },
      ],
    });
  const small = await plan("Small", 1000, "3");
  const large = await plan("Large", 4000, "2");
  const off = await s.sdk.discounts.create({ type: "percentage", basisPoints: 2500, duration: "forever", name: `${name} quarter off` });
  const ingest = async (customerId: string, n: number) => {
    const res = await fx.raw("POST", "/v1/events/ingest", { events: Array.from({ length: n }, () => ({ name: event, customer_id: customerId })) }, s);
    expect(res.status).toBe(200);
  };
  return { s, small, large, off, meter, ingest };
}

/** Previews `body`, PATCHes it with the preview's proration_date, renews; the orders billed against the preview. */
async function previewThenBill(s: Seller, subscriptionId: string, body: Record<string, unknown>) {
  const res = await fx.raw("POST", `/v1/subscriptions/${subscriptionId}/preview`, body, s);
  expect(res.status).toBe(200);
  const preview = res.body as unknown as Preview;
  const patched = await fx.raw("PATCH", `/v1/subscriptions/${subscriptionId}`, { ...body, proration_date: preview.proration_date }, s);
  expect(patched.status).toBe(200);
  const update = (await fx.ordersOf(subscriptionId, s)).find((o) => o.billingReason === "subscription_update") as SdkOrder | undefined;
  await fx.renew(subscriptionId, s);
  const cycle = (await fx.ordersOf(subscriptionId, s)).find((o) => o.billingReason === "subscription_cycle") as SdkOrder | undefined;
  if (!cycle) throw new Error("no renewal order");
  return { preview, update, cycle };
}

async function subscribedWithUsage(m: Awaited<ReturnType<typeof meteredSeller>>, product: Product, events: number) {
  const sub = await fx.subscribe(product, m.s);
  await fx.midPeriod(sub.id, 10);
  expect((await fx.raw("PATCH", `/v1/subscriptions/${sub.id}`, { discount_id: m.off.id }, m.s)).status).toBe(200);
  await m.ingest(sub.customerId, events);
  return sub;
}

describe("a preview with usage, a discount and tax bills what the change and the renewal then bill", () => {
  for (const behavior of ["invoice", "prorate", "next_period"] as const) {
    it(`${behavior}: an upgrade of a metered plan`, async () => {
      const m = await meteredSeller(`usage-${behavior}`);
      const sub = await subscribedWithUsage(m, m.small, 7);
      const { preview, update, cycle } = await previewThenBill(m.s, sub.id, { product_id: m.large.id, proration_behavior: behavior });
      expect(preview.proration_behavior).toBe(behavior);
      if (behavior === "invoice") {
        if (!update || !preview.order) throw new Error("no subscription_update order, or none previewed");
        expect(fromOrder(update)).toEqual(fromDraft(preview.order));
      } else {
        expect(preview.order).toBeNull();
        expect(update).toBeUndefined();
      }
      expect(preview.carried_forward.length).toBe(behavior === "prorate" ? 2 : 0);
      expect(fromOrder(cycle)).toEqual(fromDraft(preview.next_renewal));
      // the usage line: 7 calls at the price the period ran under (3 before the change's period end, 2 after)
      const usage = cycle.items.find((i) => i.label.includes("calls"));
      expect(usage?.amount).toBe(behavior === "next_period" ? 21 : 14);
    });
  }

  it("prorate: a plan with a meter credit the change grants — the renewal previewed bills only the usage beyond it", async () => {
    const m = await meteredSeller("usage-credit");
    const credit = await m.s.sdk.benefits.create({ type: "meter_credit", description: "Five calls", properties: { units: 5, rollover: false, meterId: m.meter.id } });
    await m.s.sdk.products.updateBenefits({ id: m.large.id, productBenefitsUpdate: { benefits: [credit.id] } });
    const sub = await subscribedWithUsage(m, m.small, 8);
    const { preview, cycle } = await previewThenBill(m.s, sub.id, { product_id: m.large.id, proration_behavior: "prorate" });
    expect(fromOrder(cycle)).toEqual(fromDraft(preview.next_renewal));
    // 8 calls, 5 credited: 3 × 2 cents
    expect(cycle.items.find((i) => i.label.includes("calls"))?.amount).toBe(6);
  });

  it("invoice: a credit on the customer's balance pays the order billed now, and the rest of it the renewal", async () => {
    const m = await meteredSeller("usage-balance");
    const sub = await subscribedWithUsage(m, m.small, 4);
    await fx.db().insert(customerBalanceEntry).values({
      organizationId: m.s.organizationId,
      customerId: sub.customerId,
      currency: "eur",
      amount: 3000,
      reason: "adjustment",
    });
    const { preview, update, cycle } = await previewThenBill(m.s, sub.id, { product_id: m.large.id, proration_behavior: "invoice" });
    if (!update || !preview.order) throw new Error("no subscription_update order, or none previewed");
    expect(preview.order.applied_balance_amount).toBeLessThan(0);
    expect(fromOrder(update)).toEqual(fromDraft(preview.order));
    expect(fromOrder(cycle)).toEqual(fromDraft(preview.next_renewal));
    expect(preview.next_renewal.applied_balance_amount).toBe(-(3000 + preview.order.applied_balance_amount));
  });
});
