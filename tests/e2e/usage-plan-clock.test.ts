// A usage-based seller's plan end to end, on the test clock of a sandbox organization: a $0 base price
// (a `fixed` price of 0, 0.49's free price) plus four metered prices (compute, memory, storage, egress) per month,
// made through SDK 0.49, with a meter credit of 40 storage units a month; customers mapped by external_id buy
// through a checkout; usage is pushed daily at the clock's now over three billing periods. One customer's card is
// Stripe's 4000 0000 0000 0341 (attaches, every charge fails): their first renewal goes past_due, they open the portal
// page in Chromium, add a 4242 card and pay the past-due order there, and the subscription is active again. Another
// downgrades: it cancels at period end, and ends there on the clock. Each renewal's order has the base line and one
// line per dimension; the invoices are read back through both SDKs and the portal's download link; the endpoint
// subscribes to every type till emits, and every webhook delivered (benefit grants cycled, checkouts, customers
// included) is validated by `validateEvent` of SDK 0.47.1 and 0.49.0. Then the customer state and the portal page show
// the new period's consumed, credited and billed units.
import type { Polar } from "@polar-sh/sdk";
import type { Meter } from "@polar-sh/sdk/models/components/meter.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import type { Polar as Polar049 } from "polar-sdk-049";
import type { Product as Product049 } from "polar-sdk-049/models/components/product.js";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, seriousViolations } from "../helpers/browser.js";
import { pay } from "../helpers/checkout.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { type Hit, Receiver } from "../helpers/receiver.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { OUTBOX_EVENT_TYPES } from "../../server/db/outbox.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let browser: Browser;
let key: string;
let sdk: Polar;
let sdk049: Polar049;
const problems: string[] = [];

const DAY = 86_400_000;
const formatUsd = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100);

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  browser = await launchForPages();
  seller = await createSeller(server, "usage-plan");
  key = await seller.createSandboxKey();
  sdk = sdkFor(server, key);
  sdk049 = sdk049For(server, key);
}, 120_000);
afterAll(async () => {
  await closePages(browser);
  await server?.close();
  await receiver?.stop();
});

async function until<T>(what: string, probe: () => Promise<T | null | false | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
}
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, key, method, path, body);

async function advanceOneDay(): Promise<number> {
  const res = await raw("POST", "/v1/test-clock/advance", { by: "1d" });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return Date.parse(res.body.now as string);
}

const DIMENSIONS = ["compute", "memory", "storage", "egress"] as const;
type Dimension = (typeof DIMENSIONS)[number];
/** Unit prices in cents (decimal strings, as Polar's metered_unit takes them). */
const UNIT: Record<Dimension, string> = { compute: "1.5", memory: "0.25", storage: "3", egress: "0.9" };
/** The storage units the plan's meter_credit benefit credits each month (no rollover). */
const STORAGE_CREDIT = 40;
/** What a period's usage of a dimension bills: storage beyond its credit, the rest in full. */
const billedUnits = (dim: Dimension, consumed: number) => (dim === "storage" ? Math.max(0, consumed - STORAGE_CREDIT) : consumed);
const lineOf = (dim: Dimension, consumed: number) => Math.round(billedUnits(dim, consumed) * Number(UNIT[dim]));
const labelOf = (dim: Dimension, consumed: number) =>
  dim === "storage" ? `Cloud — storage (${consumed} consumed, ${Math.min(consumed, STORAGE_CREDIT)} credited, ${billedUnits(dim, consumed)} billed)` : `Cloud — ${dim}`;
/** Day `d`'s usage of customer `k`. */
const usageOf = (dim: Dimension, d: number, k: number) => ({ compute: 10 + (d % 5) + k, memory: 33 + (d % 3), storage: 2 + k, egress: 7 + (d % 4) * (k + 1) })[dim];
const CUSTOMERS = [
  // the card that attaches but never pays: the first renewal fails, fixed in the portal
  { externalId: "acme-1", card: "4000 0000 0000 0341" },
  // downgrades in its second period: cancels at its end
  { externalId: "acme-2", card: "4242 4242 4242 4242" },
] as const;

/** What the plan emits, each type delivered to its endpoint at least once (so each is validated by both SDKs). */
const PLAN_EVENT_TYPES = [
  "product.created", "product.updated", "benefit.created",
  "customer.created", "customer.updated", "customer.state_changed",
  "checkout.created", "checkout.updated",
  "order.created", "order.updated", "order.paid",
  "subscription.created", "subscription.active", "subscription.updated", "subscription.past_due",
  "subscription.canceled", "subscription.revoked",
  "benefit_grant.created", "benefit_grant.cycled", "benefit_grant.revoked",
];

async function subscribe(product: Product049, c: (typeof CUSTOMERS)[number]): Promise<Subscription> {
  const email = `${c.externalId}@example.com`;
  const address = { country: "US" as const, state: "US-TX", line1: "1 Main St", city: "Austin", postalCode: "73301" };
  await sdk.customers.create({ email, externalId: c.externalId, name: c.externalId, billingAddress: address });
  const checkout = await sdk.checkouts.create({ products: [product.id], externalCustomerId: c.externalId });
  // the $0 base: nothing to pay now, the card is saved for the renewals
  expect(checkout).toMatchObject({ totalAmount: 0, isPaymentRequired: false, isPaymentSetupRequired: true });
  await pay(server, checkout, { customerEmail: email, customerName: c.externalId, customerBillingName: c.externalId, customerBillingAddress: address }, c.card);
  const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId) throw new Error("no subscription");
  return sdk.subscriptions.get({ id: order.subscriptionId });
}

async function openPortal(customerId: string): Promise<Page> {
  const { customerPortalUrl } = await sdk.customerSessions.create({ customerId });
  const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  await page.goto(customerPortalUrl);
  await page
    .getByRole("heading", { level: 2, name: "Orders" })
    .waitFor()
    .catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
    });
  return page;
}

/** The customer pays the past-due renewal order in the portal with a new 4242 card. */
async function fixInPortal(customerId: string, due: number): Promise<void> {
  const page = await openPortal(customerId);
  const orders = page.getByRole("region", { name: "Orders", exact: true });
  const form = orders.getByRole("form");
  await form.waitFor();
  await page.getByRole("region", { name: "Payment methods", exact: true }).getByText("Visa ending in 0341").waitFor();
  await form.getByLabel("Card number").fill("4242 4242 4242 4242");
  await form.getByLabel("Expiry (MM/YY)").fill(`12/${(new Date().getUTCFullYear() + 3) % 100}`);
  await form.getByLabel("CVC").fill("123");
  await form.getByRole("button", { name: `Pay ${formatUsd(due)}` }).click();
  await form.waitFor({ state: "detached" }).catch(async (err: unknown) => {
    throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
  });
  await page.getByRole("region", { name: "Payment methods", exact: true }).getByText(/Visa ending in 4242.*\(default\)/).waitFor();
  await page.context().close();
}

describe("the usage-based seller's plan over three periods on the test clock, through the SDKs and the portal page", () => {
  it("bills each period per dimension, recovers a failed charge in the portal, ends the downgrade at period end; every webhook valid for both SDKs", async () => {
    const path = "/usage-plan";
    const endpoint = await sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}`,
      format: "raw",
      // every type till emits (shared/webhook-events.ts' lists), so every event of the plan is validated below
      events: [...OUTBOX_EVENT_TYPES],
    });

    const meters = {} as Record<Dimension, Meter>;
    for (const dim of DIMENSIONS) {
      meters[dim] = await sdk.meters.create({
        name: dim,
        filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: dim }] },
        aggregation: { func: "sum", property: "units" },
      });
    }
    // the $0 base is 0.49's free price: a fixed price of 0
    const product = await sdk049.products.create({
      name: "Cloud",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 0, priceCurrency: "usd" },
        ...DIMENSIONS.map((dim) => ({ amountType: "metered_unit" as const, meterId: meters[dim].id, unitAmount: UNIT[dim], priceCurrency: "usd" as const })),
      ],
    });
    expect(product.prices.map((p) => p.amountType)).toEqual(["fixed", "metered_unit", "metered_unit", "metered_unit", "metered_unit"]);
    const credit = await sdk049.benefits.create({ type: "meter_credit", description: "Storage included", properties: { meterId: meters.storage.id, units: STORAGE_CREDIT, rollover: false } });
    await sdk049.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [credit.id] } });

    const subs: Subscription[] = [];
    for (const c of CUSTOMERS) subs.push(await subscribe(product, c));
    for (const s of subs) expect(s).toMatchObject({ status: "active", amount: 0 });

    // usage per customer and period, as pushed; each subscription's period ends as the clock passed them
    const expected = subs.map(() => [0, 1, 2, 3].map(() => ({ compute: 0, memory: 0, storage: 0, egress: 0 }) as Record<Dimension, number>));
    const ends = subs.map((s) => [s.currentPeriodEnd.getTime()]);
    const periodEnds = ends[0]!;
    let now = Date.parse(((await raw("GET", "/v1/test-clock")).body as { now: string }).now);
    let day = 0;
    let downgraded = false;
    let fixed = false;
    while (periodEnds.length < 4) {
      const events = subs.flatMap((s, k) => {
        const period = ends[k]!.filter((end) => end <= now).length;
        if (k === 1 && period >= 2) return []; // the downgraded subscription ended with its second period
        return DIMENSIONS.map((dim) => {
          const units = usageOf(dim, day, k);
          expected[k]![period]![dim] += units;
          return { name: dim, external_customer_id: CUSTOMERS[k]!.externalId, timestamp: new Date(now).toISOString(), metadata: { units } };
        });
      });
      if (events.length > 0) {
        const res = await raw("POST", "/v1/events/ingest", { events });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // the downgrade, in the middle of the second period: the second customer cancels at its end
      if (!downgraded && now > periodEnds[0]! + 10 * DAY) {
        const canceled = await sdk.subscriptions.update({ id: subs[1]!.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
        expect(canceled).toMatchObject({ status: "active", cancelAtPeriodEnd: true });
        expect(canceled.endsAt?.getTime()).toBe(canceled.currentPeriodEnd.getTime());
        downgraded = true;
      }
      now = await advanceOneDay();
      day += 1;
      for (const [k, s] of subs.entries()) {
        const current = await sdk.subscriptions.get({ id: s.id });
        const mine = ends[k]!;
        if (current.status !== "canceled" && current.currentPeriodEnd.getTime() > mine.at(-1)!) mine.push(current.currentPeriodEnd.getTime());
        // the first renewal of the 0341 card fails: past_due until the customer pays in the portal
        if (k === 0 && mine.length === 2 && !fixed) {
          expect(current.status).toBe("past_due");
          const [pending] = (await sdk.orders.list({ subscriptionId: s.id, sorting: ["-created_at"], limit: 1 })).result.items;
          expect(pending).toMatchObject({ billingReason: "subscription_cycle", status: "pending" });
          expect(pending!.dueAmount).toBe(pending!.totalAmount);
          await fixInPortal(current.customerId, pending!.totalAmount);
          expect((await sdk.subscriptions.get({ id: s.id })).status).toBe("active");
          expect((await sdk.orders.get({ id: pending!.id })).status).toBe("paid");
          fixed = true;
        }
        if (k === 0 && fixed) expect(current.status === "active" || mine.length === 2).toBe(true);
      }
      expect(day).toBeLessThan(100);
    }
    expect(fixed).toBe(true);
    expect(periodEnds).toHaveLength(4);
    // three monthly periods passed on the clock: 89 to 92 days by the calendar from the day the test runs, less the
    // real time the test took, so the clock's time is compared with the third period's end (the fourth's is the
    // last of periodEnds), not its offset with 90 days
    const clock = (await raw("GET", "/v1/test-clock")).body as { now: string; offset_ms: number };
    expect(Date.parse(clock.now)).toBeGreaterThanOrEqual(periodEnds[2]!);
    expect(clock.offset_ms).toBeGreaterThan(85 * DAY);

    // the first customer: three renewal orders at their periods' ends, the base line then one per dimension
    const orders = (await sdk.orders.list({ subscriptionId: subs[0]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(orders.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle", "subscription_cycle", "subscription_cycle"]);
    expect(orders[0]).toMatchObject({ totalAmount: 0, status: "paid" });
    const renewals = orders.slice(1);
    renewals.forEach((order, i) => {
      expect(order.createdAt.getTime()).toBeGreaterThanOrEqual(periodEnds[i]!);
      expect(order.createdAt.getTime() - periodEnds[i]!).toBeLessThan(60_000);
      const lines = DIMENSIONS.map((dim) => lineOf(dim, expected[0]![i]![dim]));
      expect(order.items.map((item) => item.label)).toEqual(["Cloud", ...DIMENSIONS.map((dim) => labelOf(dim, expected[0]![i]![dim]))]);
      expect(order.items.map((item) => item.amount)).toEqual([0, ...lines]);
      const total = lines.reduce((a, b) => a + b, 0);
      expect(order).toMatchObject({ status: "paid", subtotalAmount: total, totalAmount: total, appliedBalanceAmount: 0 });
      expect(lines.every((l) => l > 0)).toBe(true);
    });

    // the downgrade: the second customer's subscription ended at the end of its second period, on the clock
    const ended = await sdk.subscriptions.get({ id: subs[1]!.id });
    expect(ended).toMatchObject({ status: "canceled", cancelAtPeriodEnd: true });
    expect(ended.endedAt!.getTime()).toBeGreaterThanOrEqual(ends[1]![1]!);
    expect(ended.endedAt!.getTime() - ends[1]![1]!).toBeLessThan(60_000);
    const second = (await sdk.orders.list({ subscriptionId: subs[1]!.id, sorting: ["created_at"], limit: 10 })).result.items;
    expect(second.map((o) => o.billingReason)).toEqual(["subscription_create", "subscription_cycle"]);
    expect(second[1]!.items.map((item) => item.amount)).toEqual([0, ...DIMENSIONS.map((dim) => lineOf(dim, expected[1]![0]![dim]))]);

    // every webhook, validated by both SDKs
    const paidOrders = [...orders, ...second];
    const validated = (all: Hit[]) =>
      all
        .filter((h) => h.path === path)
        .map((hit) => {
          const event = validateEvent(hit.body, hit.headers, endpoint.secret);
          validateEvent049(hit.body, hit.headers, endpoint.secret);
          return event;
        });
    type Delivered = ReturnType<typeof validated>;
    const expectAll = (events: Delivered) => {
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(PLAN_EVENT_TYPES));
      // the meter credit is credited again at each renewal of both subscriptions
      const cycled = events.flatMap((e) => (e.type === "benefit_grant.cycled" ? [e.data] : []));
      expect(new Set(cycled.map((g) => g.subscriptionId))).toEqual(new Set(subs.map((sub) => sub.id)));
      for (const g of cycled) expect(g.benefit.type).toBe("meter_credit");
      expect(events.filter((e) => e.type === "customer.created").map((e) => e.data.externalId).sort()).toEqual(CUSTOMERS.map((c) => c.externalId));
      expect(events.filter((e) => e.type === "checkout.created")).toHaveLength(CUSTOMERS.length);
      const paidIds = events.flatMap((e) => (e.type === "order.paid" ? [e.data.id] : []));
      expect(new Set(paidIds)).toEqual(new Set(paidOrders.map((o) => o.id)));
      const cycles = events.flatMap((e) => (e.type === "order.created" && e.data.billingReason === "subscription_cycle" ? [e.data] : []));
      expect(cycles).toHaveLength(4);
      for (const c of cycles) expect(c.items).toHaveLength(5);
      expect(events.filter((e) => e.type === "subscription.past_due").map((e) => e.data.id)).toEqual([subs[0]!.id]);
      // active on creation, and the first again when its past-due order was paid
      const actives = events.filter((e) => e.type === "subscription.active").map((e) => e.data.id);
      expect(actives.filter((id) => id === subs[0]!.id)).toHaveLength(2);
      expect(actives.filter((id) => id === subs[1]!.id)).toHaveLength(1);
      expect(events.filter((e) => e.type === "subscription.revoked").map((e) => e.data.id)).toEqual([subs[1]!.id]);
      expect(events.some((e) => e.type === "customer.state_changed")).toBe(true);
    };
    // deliveries arrive in their own time (a loaded machine delays them): wait until everything expected has
    // arrived, then check it once more for the message if it never did
    const holds = (events: Delivered) => {
      try {
        expectAll(events);
        return true;
      } catch {
        return false;
      }
    };
    await receiver.until((all) => holds(validated(all)), 120_000).catch(() => undefined);
    expectAll(validated(receiver.hits));

    // each renewal's invoice, read back through both SDKs
    for (const order of renewals) {
      await until(`the invoice of ${order.id}`, async () => (await sdk.orders.get({ id: order.id })).isInvoiceGenerated);
      const { url } = await sdk.orders.invoice({ id: order.id });
      expect((await sdk049.orders.invoice({ id: order.id })).url).toMatch(/\/pdf\?expires=/);
      const res = await fetch(url);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      const text = await pdfTextOf(new Uint8Array(await res.arrayBuffer()));
      expect(text).toContain(`Invoice number: ${order.invoiceNumber}`);
      expect(text).toContain("Bill to acme-1 1 Main St 73301 Austin");
      for (const dim of DIMENSIONS) expect(text).toContain(labelOf(dim, expected[0]![renewals.indexOf(order)]![dim]));
      expect(text).toContain(`Total ${formatUsd(order.totalAmount)}`);
    }
    // a day of the new period: the customer state and the portal page show its consumed, credited and billed units
    const today = Object.fromEntries(DIMENSIONS.map((dim) => [dim, dim === "storage" ? 45 : usageOf(dim, day, 0)])) as Record<Dimension, number>;
    const ingested = await raw("POST", "/v1/events/ingest", {
      events: DIMENSIONS.map((dim) => ({ name: dim, external_customer_id: "acme-1", timestamp: new Date(now).toISOString(), metadata: { units: today[dim] } })),
    });
    expect(ingested.status).toBe(200);
    const state = await sdk049.customers.getStateExternal({ externalId: "acme-1" });
    for (const dim of DIMENSIONS) {
      const credited = dim === "storage" ? STORAGE_CREDIT : 0;
      expect(state.activeMeters.find((m) => m.meterId === meters[dim].id)).toMatchObject({ consumedUnits: today[dim], creditedUnits: credited, balance: credited - today[dim] });
    }
    // and through the portal page: the usage so far, every order with its invoice link, paid
    const page = await openPortal(subs[0]!.customerId);
    const usage = page.getByRole("table", { name: "Usage of Cloud this period" });
    for (const dim of DIMENSIONS) {
      const credited = dim === "storage" ? STORAGE_CREDIT : 0;
      const row = [dim, today[dim], credited, billedUnits(dim, today[dim]), formatUsd(lineOf(dim, today[dim]))].join("\t");
      expect(await usage.getByRole("row", { name: new RegExp(`^${dim} `) }).innerText()).toBe(row);
    }
    const portalOrders = page.getByRole("region", { name: "Orders", exact: true });
    await expect.poll(() => portalOrders.getByText("Paid", { exact: true }).count()).toBe(4);
    const last = renewals[2]!;
    const link = page.getByRole("link", { name: `Download invoice ${last.invoiceNumber} (PDF)` });
    // the page with its usage table passes the accessibility rules
    expect(await seriousViolations(page)).toEqual([]);
    const pdf = await page.request.get((await link.getAttribute("href")) ?? "");
    expect(pdf.status()).toBe(200);
    expect(await pdfTextOf(new Uint8Array(await pdf.body()))).toContain(`Total ${formatUsd(last.totalAmount)}`);
    await page.context().close();
    expect(problems).toEqual([]);
  }, 300_000);
});
