// Credit pools per subscription are visible and alertable: a customer with two subscriptions on one meter, each with a
// pool of its own, sees each pool (its subscription, credited, consumed, balance) beside the customer's total in
// /v1/customer-meters and the customer state (the portal's customer meters read the same); a balance alert on the
// meter fires for the subscription whose own pool ran out, measured over the events naming it, and not the other.
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import { describe, expect, it } from "vitest";
import { pay, subscribeThroughCheckout } from "../helpers/checkout.js";
import { clockFixture } from "./test-clock-fixtures.js";

const fx = clockFixture();

async function ingest(meter: Meter, customerId: string, count: number, subscriptionId: string) {
  const events = Array.from({ length: count }, () => ({ name: meter.name, customer_id: customerId, metadata: { subscription_id: subscriptionId } }));
  expect((await fx.raw("POST", "/v1/events/ingest", { events })).status).toBe(200);
}

describe("credit pools per subscription", () => {
  it("are listed on the customer's meter and alerted per subscription", async () => {
    const meter = await fx.sdk.meters.create({ name: "pooled", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "pooled" }] }, aggregation: { func: "count" } });
    const b = await fx.raw("POST", "/v1/benefits/", { type: "meter_credit", description: "Pooled credits", properties: { units: 10, rollover: false, meter_id: meter.id, pool: "subscription" } });
    const product = await fx.raw("POST", "/v1/products/", {
      name: "Pooled plan",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }, { amount_type: "metered_unit", meter_id: meter.id, unit_amount: "10", price_currency: "usd" }],
    });
    await fx.raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [b.body.id] });
    await fx.sdk.organizations.update({
      id: (await fx.clock()).organization_id,
      organizationUpdate: {
        subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
      },
    });
    const alert = await fx.raw("POST", "/v1/usage-alerts/", { meter_id: meter.id, kind: "balance", threshold: 0 });
    expect(alert.status).toBe(201);
    const path = "/pool-alerts";
    await fx.sdk.webhooks.createWebhookEndpoint({ url: `${fx.receiver.url}${path}`, format: "raw", events: ["till.usage_alert.triggered"] as never });
    const first = await subscribeThroughCheckout(fx.server, fx.sdk, product.body.id as string, "pools-1");
    const checkout = await fx.sdk.checkouts.create({ products: [product.body.id as string], externalCustomerId: "pools-1" });
    await pay(fx.server, checkout, { customerEmail: "pools-1@example.com" });
    const [order] = (await fx.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const secondId = order?.subscriptionId ?? "";
    // 15 on the first pool (10 credited: exhausted), 3 on the second
    await ingest(meter, first.customerId, 15, first.id);
    await ingest(meter, first.customerId, 3, secondId);
    const listed = await fx.raw("GET", `/v1/customer-meters/?customer_id=${first.customerId}&meter_id=${meter.id}`);
    expect(listed.status).toBe(200);
    const [cm] = listed.body.items as Array<Record<string, unknown>>;
    expect(cm).toMatchObject({ consumed_units: 18, credited_units: 20, balance: 2 });
    const pools = [
      { subscription_id: first.id, consumed_units: 15, credited_units: 10, balance: -5 },
      { subscription_id: secondId, consumed_units: 3, credited_units: 10, balance: 7 },
    ];
    expect(cm?.pools).toEqual(pools);
    const state = await fx.raw("GET", `/v1/customers/${first.customerId}/state`);
    const active = (state.body.active_meters as Array<Record<string, unknown>>).find((m) => m.meter_id === meter.id);
    expect(active?.pools).toEqual(pools);
    // the SDK reads the customer meter as Polar's (it drops till's key)
    const viaSdk = await fx.sdk.customerMeters.list({ customerId: first.customerId, meterId: meter.id });
    expect(viaSdk.result.items[0]).toMatchObject({ consumedUnits: 18, creditedUnits: 20, balance: 2 });
    // the balance alert: the first subscription's pool, not the customer's total (2 left) nor the second pool
    const hits = await fx.receiver.until((all) => {
      const mine = all.filter((h) => h.path === path);
      return mine.length >= 1 && mine;
    }, 30_000);
    const crossing = JSON.parse(hits[0]?.body ?? "{}") as { data: Record<string, unknown> };
    expect(crossing.data).toMatchObject({ subscription_id: first.id, consumed_units: 15, credited_units: 10, value: -5 });
    await ingest(meter, first.customerId, 1, secondId);
    expect(fx.receiver.hits.filter((h) => h.path === path)).toHaveLength(1);
  });
});
