// A plan change not billed at once, through @polar-sh/sdk 0.47.1 and 0.49.0: `prorate` carries the proration
// lines to the next renewal's order as its own lines, `next_period` bills nothing for the change, and the
// organization's proration_behavior (subscription_settings) applies when the request names none. Billed now
// (`invoice`), the balance, tax and webhooks: proration.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { subscriptionProration } from "../../server/db/schema/index.js";
import { createSeller } from "../helpers/seller.js";
import { prorationFixture } from "./proration-fixtures.js";

const fx = prorationFixture();

describe("proration_behavior prorate", () => {
  it("carries the lines to the next renewal's order as its own lines; nothing is billed at the change", async () => {
    const sub = await fx.subscribe(fx.basic);
    await fx.midPeriod(sub.id, 10);
    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.pro.id, prorationBehavior: "prorate" } });
    expect((await fx.ordersOf(sub.id)).map((o) => o.billingReason)).toEqual(["subscription_create"]);
    const pending = await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id));
    expect(pending.map((p) => [p.amount, p.orderId])).toEqual([
      [-667, null],
      [2667, null],
    ]);
    await fx.renew(sub.id);
    const cycle = (await fx.ordersOf(sub.id))[1]!;
    expect(cycle.items.map((i) => ({ label: i.label, amount: i.amount, proration: i.proration }))).toEqual([
      { label: "Pro", amount: 4000, proration: false },
      { label: "Unused time on Basic", amount: -667, proration: true },
      { label: "Remaining time on Pro", amount: 2667, proration: true },
    ]);
    expect(cycle).toMatchObject({ billingReason: "subscription_cycle", status: "paid", subtotalAmount: 6000, totalAmount: 6000, dueAmount: 6000 });
    // billed once: the next renewal has the period's amount only
    await fx.renew(sub.id);
    expect((await fx.ordersOf(sub.id))[2]).toMatchObject({ subtotalAmount: 4000, totalAmount: 4000 });
  });

  it("the organization's behavior applies when the request names none; next_period bills nothing for the change", async () => {
    const sub = await fx.subscribe(fx.basic);
    await fx.midPeriod(sub.id, 10);
    // the organization's default is prorate
    await fx.seller.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: fx.pro.id } });
    expect(await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toHaveLength(2);
    const other = await fx.subscribe(fx.basic);
    await fx.midPeriod(other.id, 10);
    await fx.seller.sdk.subscriptions.update({ id: other.id, subscriptionUpdate: { productId: fx.pro.id, prorationBehavior: "next_period" } });
    expect(await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, other.id))).toEqual([]);
    expect(await fx.ordersOf(other.id)).toHaveLength(1);
  });
});

describe("the organization's proration_behavior", () => {
  it("invoice, set on the organization (subscription_settings), bills a change whose request names no behavior now", async () => {
    const s = await createSeller(fx.server, "proration-org-invoice");
    await s.sdk.organizations.update({
      id: s.organizationId,
      organizationUpdate: {
        subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
      },
    });
    const [a, b] = await Promise.all(
      [1000, 4000].map((priceAmount, i) =>
        s.sdk.products.create({ name: `Org plan ${i}`, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount, priceCurrency: "usd" }] }),
      ),
    );
    const sub = await fx.subscribe(a!, s);
    await fx.midPeriod(sub.id, 15);
    await s.sdk049.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: b!.id } });
    const orders = await fx.ordersOf(sub.id, s);
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_update"]);
    // −500 for half of 1000, +2000 for half of 4000 (a second may have passed: ±1 on each line)
    expect(orders[1]).toMatchObject({ status: "paid", paid: true });
    expect(Math.abs(orders[1]!.totalAmount - 1500)).toBeLessThanOrEqual(2);
    expect(await fx.db().select().from(subscriptionProration).where(eq(subscriptionProration.subscriptionId, sub.id))).toEqual([]);
  });
});
