// Credit pools per subscription in the portal, in a real Chromium: a customer holding two subscriptions whose credits
// are both on one meter, each pooled to its own subscription (docs/credits.md), with usage sent for each. Each
// subscription's usage table shows its own pool — consumed, credited, billed past the credits — and its limits line
// the credits used of its own, side by side and never the customer's total; the same figures the API answers (the
// portal's customer meters and the seller's `/v1/customer-meters` `pools`). Axe finds nothing serious. The screenshot
// goes to /work/notes/shots-credits when that folder exists (for a person to look at), else to the temporary folder.
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { seriousViolations } from "../helpers/browser.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { usePortalPages } from "../helpers/portal-pages.js";

const portal = usePortalPages("portal-pools");
const SHOTS = existsSync("/work/notes/shots-credits") ? "/work/notes/shots-credits" : os.tmpdir();
const raw = portal.api;

interface Pool {
  subscription_id: string;
  consumed_units: number;
  credited_units: number;
  balance: number;
}

/** A monthly plan with a base price, a metered price on the meter and `units` credits pooled to each subscription. */
async function pooledPlan(name: string, meterId: string, units: number): Promise<string> {
  const b = await raw("POST", "/v1/benefits/", { type: "meter_credit", description: `${name} credits`, properties: { units, rollover: false, meter_id: meterId, pool: "subscription" } });
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  const product = await raw("POST", "/v1/products/", {
    name,
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }, { amount_type: "metered_unit", meter_id: meterId, unit_amount: "10", price_currency: "usd" }],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  await raw("POST", `/v1/products/${product.body.id}/benefits`, { benefits: [b.body.id] });
  return product.body.id as string;
}

/** Buys the product (for the customer when given); its subscription's id and the customer's. */
async function subscribe(productId: string, customerId?: string): Promise<{ subscriptionId: string; customerId: string }> {
  const checkout = await portal.seller.sdk.checkouts.create({ products: [productId], ...(customerId ? { customerId } : {}) });
  const confirmed = await pay(portal.server, checkout, customerId ? {} : { customerEmail: uniqueBuyer("portal-pools") });
  const [order] = (await portal.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId || !confirmed.customerId) throw new Error("no subscription");
  return { subscriptionId: order.subscriptionId, customerId: confirmed.customerId };
}

async function ingest(meterName: string, customerId: string, subscriptionId: string, count: number) {
  const events = Array.from({ length: count }, () => ({ name: meterName, customer_id: customerId, metadata: { subscription_id: subscriptionId } }));
  expect((await raw("POST", "/v1/events/ingest", { events })).status).toBe(200);
}

/** Waits until the customer's meter lists both pools with the usage sent (the grants are made by the worker). */
async function poolsOf(customerId: string, meterId: string, consumed: number): Promise<Pool[]> {
  // bounded for a hang only: a loaded machine's worker may take a while to make the grants
  for (const end = Date.now() + 45_000; Date.now() < end; ) {
    const listed = await raw("GET", `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`);
    const pools = ((listed.body.items as Array<{ pools?: Pool[] }> | undefined)?.[0]?.pools ?? []);
    if (pools.length === 2 && pools.every((p) => p.credited_units > 0) && pools.reduce((n, p) => n + p.consumed_units, 0) === consumed) return pools;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the pools never showed the usage sent");
}

/** One subscription's usage table, as the customer reads it: its meter row's cells, and its limits line. */
async function shown(page: Page, product: string, meter: string) {
  const table = page.getByRole("table", { name: `Usage of ${product} this period` });
  const row = table.getByRole("row", { name: new RegExp(`^${meter}\\b`) });
  const cells = await row.getByRole("cell").allInnerTexts();
  const limits = await page.getByRole("list", { name: `Limits of ${product} this period` }).innerText();
  return { consumed: cells[0], credited: cells[1], billed: cells[2], limits };
}

describe("credit pools per subscription in the portal", () => {
  it("shows each subscription's own pool beside the other's, as the API counts them", async () => {
    const meter = await portal.seller.sdk.meters.create({
      name: "Pooled tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "Pooled tokens" }] },
      aggregation: { func: "count" },
    });
    await portal.seller.sdk.organizations.update({
      id: portal.seller.organizationId,
      organizationUpdate: {
        subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "invoice", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
      },
    });
    const alphaPlan = await pooledPlan("Team Alpha", meter.id, 10);
    const betaPlan = await pooledPlan("Team Beta", meter.id, 25);
    const alpha = await subscribe(alphaPlan);
    const beta = await subscribe(betaPlan, alpha.customerId);
    const customerId = alpha.customerId;
    // Alpha's pool overdrawn (15 of 10: 5 billed), Beta's within its credits (7 of 25)
    await ingest(meter.name, customerId, alpha.subscriptionId, 15);
    await ingest(meter.name, customerId, beta.subscriptionId, 7);

    const pools = await poolsOf(customerId, meter.id, 22);
    const poolOf = (subscriptionId: string) => pools.find((p) => p.subscription_id === subscriptionId);
    expect(poolOf(alpha.subscriptionId)).toEqual({ subscription_id: alpha.subscriptionId, consumed_units: 15, credited_units: 10, balance: -5 });
    expect(poolOf(beta.subscriptionId)).toEqual({ subscription_id: beta.subscriptionId, consumed_units: 7, credited_units: 25, balance: 18 });

    // the customer's own API answers the same pools (the customer signed in to the portal)
    const { page, session } = await portal.open(customerId);
    const own = await rawRequest(portal.server.url, session.token, "GET", `/v1/customer-portal/meters/?meter_id=${meter.id}`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const ownPools = (own.body.items as Array<{ pools?: Pool[] }>)[0]?.pools ?? [];
    expect([...ownPools].sort((a, b) => a.subscription_id.localeCompare(b.subscription_id))).toEqual([...pools].sort((a, b) => a.subscription_id.localeCompare(b.subscription_id)));

    await page.getByRole("table", { name: "Usage of Team Beta this period" }).waitFor();
    for (const [product, sub] of [["Team Alpha", alpha], ["Team Beta", beta]] as const) {
      const pool = poolOf(sub.subscriptionId);
      if (!pool) throw new Error(`no pool for ${product}`);
      const figures = await shown(page, product, meter.name);
      expect({ product, ...figures }).toEqual({
        product,
        consumed: String(pool.consumed_units),
        credited: String(pool.credited_units),
        billed: String(Math.max(0, -pool.balance)),
        limits: expect.stringContaining(`${Math.min(pool.consumed_units, pool.credited_units)} of ${pool.credited_units} credited units used`) as unknown as string,
      });
    }
    // what Alpha used past its credits is not taken from Beta's: Alpha's limit is reached, Beta's is not
    expect((await shown(page, "Team Alpha", meter.name)).limits).toContain("(reached)");
    expect((await shown(page, "Team Beta", meter.name)).limits).not.toContain("(reached)");

    await page.screenshot({ path: path.join(SHOTS, "pools-en.png"), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  });
});
