// Subscription.meters through @polar-sh/sdk 0.47.1 and 0.49.0: one SubscriptionMeter per metered price with the
// current period's usage (events of the customer by id or external id, selected by the meter's filter), its
// amount at the unit price capped at cap_amount, ids stable across reads; in lists, in webhook payloads, and
// back to zero once a renewal starts the next period; and in CustomerState.active_subscriptions[].meters.
import { asc, sql } from "drizzle-orm";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, subscribeThroughCheckout } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let meter: Meter;
let capped: Product;

const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);

const subscribe = (product: Product): Promise<Subscription> => subscribeThroughCheckout(server, seller.sdk, product.id);

async function ingest(count: number, who: Record<string, string>, name = "api-call") {
  const res = await raw("POST", "/v1/events/ingest", { events: Array.from({ length: count }, () => ({ name, ...who })) });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "sub-meters");
  meter = await seller.sdk.meters.create({
    name: "API calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api-call" }] },
    aggregation: { func: "count" },
  });
  capped = await seller.sdk.products.create({
    name: "capped plan",
    recurringInterval: "month",
    prices: [
      { amountType: "fixed", priceAmount: 500, priceCurrency: "usd" },
      { amountType: "metered_unit", meterId: meter.id, unitAmount: "30", capAmount: 200, priceCurrency: "usd" },
    ],
  });
});
afterAll(async () => server?.close());

describe("Subscription.meters", () => {
  it("reports the current period's consumed units and amount (capped), with stable ids, on GET and list, through both SDKs", async () => {
    const sub = await subscribe(capped);
    expect(sub.meters).toHaveLength(1);
    const [fresh] = sub.meters;
    expect(fresh).toMatchObject({ meterId: meter.id, consumedUnits: 0, creditedUnits: 0, amount: 0, meter: { id: meter.id, name: "API calls" } });
    expect(fresh?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // by customer id, and by the external id the customer carries; other names and other customers do not count
    await seller.sdk.customers.update({ id: sub.customerId, customerUpdate: { externalId: `ext-${sub.id}` } });
    await ingest(3, { customer_id: sub.customerId });
    await ingest(2, { external_customer_id: `ext-${sub.id}` });
    await ingest(4, { customer_id: sub.customerId }, "other-call");
    const stranger = await subscribe(capped);
    await ingest(7, { customer_id: stranger.customerId });

    const read = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(read.meters).toEqual([expect.objectContaining({ id: fresh?.id, meterId: meter.id, consumedUnits: 5, creditedUnits: 0, amount: 150 })]);
    // 10 calls at 30 are 300, capped at 200
    await ingest(5, { customer_id: sub.customerId });
    const again = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(again.meters[0]).toMatchObject({ id: fresh?.id, consumedUnits: 10, amount: 200 });
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters).toEqual(again.meters);

    const listed = (await seller.sdk.subscriptions.list({ productId: capped.id, limit: 100 })).result.items;
    expect(listed.find((s) => s.id === sub.id)?.meters).toEqual(again.meters);
    expect(listed.find((s) => s.id === stranger.id)?.meters[0]).toMatchObject({ consumedUnits: 7, amount: 200 });
    expect(listed.find((s) => s.id === stranger.id)?.meters[0]?.id).not.toBe(fresh?.id);

    const via049 = await seller.sdk049.subscriptions.get({ id: sub.id });
    expect(via049.meters[0]).toMatchObject({ id: fresh?.id, meterId: meter.id, consumedUnits: 10, creditedUnits: 0, amount: 200 });
  });

  it("bills an uncapped price at its unit amount (createProduct metered), and shows usage in webhook payloads", async () => {
    const product = await createProduct(seller, "metered", {}, meter.id);
    const sub = await subscribe(product);
    await ingest(7, { customer_id: sub.customerId });
    // 7 × 0.5 = 3.5 → 4 (rounded as the renewal bills it)
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 7, amount: 4 });

    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const rows = await server.database.db
      .select({ type: outbox.type, payload: outbox.payload })
      .from(outbox)
      .where(sql`${outbox.payload} ->> 'id' = ${sub.id}`)
      .orderBy(asc(outbox.createdAt));
    const updated = rows.filter((r) => r.type === "subscription.updated").at(-1)?.payload as { meters?: unknown[] } | undefined;
    expect(updated?.meters).toEqual([expect.objectContaining({ meter_id: meter.id, consumed_units: 7, credited_units: 0, amount: 4 })]);
  });

  it("starts the next period at zero after a renewal, which billed the period's usage", async () => {
    const sub = await subscribe(capped);
    await ingest(4, { customer_id: sub.customerId });
    const res = await raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    expect(res.status).toBe(200);
    expect((res.body as { meters: unknown[] }).meters).toEqual([expect.objectContaining({ consumed_units: 0, amount: 0 })]);
    const [cycle] = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"], limit: 1 })).result.items;
    expect(cycle?.items.map((i) => i.amount)).toEqual([500, 120]);
    const renewed = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(renewed.meters[0]).toMatchObject({ id: sub.meters[0]?.id, consumedUnits: 0, amount: 0 });
    await new Promise((r) => setTimeout(r, 20));
    await ingest(2, { customer_id: sub.customerId });
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).meters[0]).toMatchObject({ consumedUnits: 2, amount: 60 });
  });

  it("CustomerState.active_subscriptions[].meters: the same usage, without the embedded meter, by id and external id, through both SDKs", async () => {
    const sub = await subscribe(capped);
    const plain = await subscribe(await createProduct(seller, "monthly"));
    await seller.sdk.customers.update({ id: sub.customerId, customerUpdate: { externalId: `state-${sub.id}` } });
    await ingest(2, { customer_id: sub.customerId });
    await ingest(1, { external_customer_id: `state-${sub.id}` });
    const expected = { id: sub.meters[0]?.id, meterId: meter.id, consumedUnits: 3, creditedUnits: 0, amount: 90 };

    const state = await seller.sdk.customers.getState({ id: sub.customerId });
    const active = state.activeSubscriptions.find((s) => s.id === sub.id);
    expect(active?.meters).toEqual([expect.objectContaining(expected)]);
    const external = await seller.sdk049.customers.getStateExternal({ externalId: `state-${sub.id}` });
    expect(external.activeSubscriptions.find((s) => s.id === sub.id)?.meters).toEqual([expect.objectContaining(expected)]);
    const via049 = await seller.sdk049.customers.getState({ id: sub.customerId });
    expect(via049.activeSubscriptions.find((s) => s.id === sub.id)?.meters).toEqual([expect.objectContaining(expected)]);
    expect((await seller.sdk.customers.getState({ id: plain.customerId })).activeSubscriptions[0]?.meters).toEqual([]);

    // the wire shape is CustomerStateSubscriptionMeter exactly: no nested `meter`
    const res = await raw("GET", `/v1/customers/${sub.customerId}/state`);
    expect(res.status).toBe(200);
    const [wire] = (res.body as { active_subscriptions: Array<{ meters: Array<Record<string, unknown>> }> }).active_subscriptions[0]?.meters ?? [];
    expect(Object.keys(wire ?? {}).sort()).toEqual(["amount", "consumed_units", "created_at", "credited_units", "id", "meter_id", "modified_at"]);
  });

  it("a subscription without metered prices has none", async () => {
    const sub = await subscribe(await createProduct(seller, "monthly"));
    expect(sub.meters).toEqual([]);
  });
});

describe("meter_credit benefits", () => {
  it("credit their units when granted: the grant records the credit, Subscription.meters and the customer's meter balance count it, until revoked", async () => {
    const credit = await seller.sdk.benefits.create({ type: "meter_credit", description: "100 free calls", properties: { meterId: meter.id, units: 100, rollover: false } });
    const plan = await seller.sdk.products.create({
      name: "plan with credits",
      recurringInterval: "month",
      prices: [{ amountType: "metered_unit", meterId: meter.id, unitAmount: "2", priceCurrency: "usd" }],
    });
    await seller.sdk.products.updateBenefits({ id: plan.id, productBenefitsUpdate: { benefits: [credit.id] } });
    const sub = await subscribe(plan);
    expect(sub.meters[0]).toMatchObject({ meterId: meter.id, consumedUnits: 0, creditedUnits: 100 });

    // (read raw: the SDK's union of grant properties takes the custom shape, {}, first)
    const grants = await raw("GET", `/v1/benefits/${credit.id}/grants?limit=10`);
    const grant = (grants.body as { items: Array<{ id: string; subscription_id: string; properties: Record<string, unknown> }> }).items.find((g) => g.subscription_id === sub.id);
    expect(grant?.properties).toMatchObject({ last_credited_meter_id: meter.id, last_credited_units: 100 });
    expect(Number.isNaN(Date.parse(String(grant?.properties.last_credited_at)))).toBe(false);
    // the benefit_grant.created payload carries the same properties
    const events = await server.database.db.select().from(outbox).orderBy(asc(outbox.createdAt));
    const created = events.find((e) => e.type === "benefit_grant.created" && (e.payload as { id?: string }).id === grant?.id);
    expect((created?.payload as { properties?: Record<string, unknown> }).properties).toMatchObject({ last_credited_meter_id: meter.id, last_credited_units: 100 });

    await ingest(30, { customer_id: sub.customerId });
    const read = await seller.sdk.subscriptions.get({ id: sub.id });
    expect(read.meters[0]).toMatchObject({ consumedUnits: 30, creditedUnits: 100 });
    const state = await seller.sdk.customers.getState({ id: sub.customerId });
    expect(state.activeMeters.find((m) => m.meterId === meter.id)).toMatchObject({ consumedUnits: 30, creditedUnits: 100, balance: 70 });

    await seller.sdk.subscriptions.revoke({ id: sub.id });
    const after = await seller.sdk.customers.getState({ id: sub.customerId });
    expect(after.activeMeters.find((m) => m.meterId === meter.id)).toMatchObject({ consumedUnits: 30, creditedUnits: 0, balance: -30 });
  });
});
