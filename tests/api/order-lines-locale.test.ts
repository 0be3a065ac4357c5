// The order lines till writes itself, in the customer's language beyond the invoice. A German customer's
// renewal with a capped metered price: its receipt email says the metered line as the invoice PDF does ("gedeckelt
// bei …"), from `order_item.usage`. A German customer's wallet top-up: its order's one line says "Aufladung des
// Guthabenkontos" on the invoice PDF and in the order confirmation email, from `order_item.wallet_credit`. The
// API's labels stay the English ones (Polar's wire); the top-up's kind is till's own `wallet_credit` on the item.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { orderItem, subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { invoiceTextOf } from "../helpers/pdf.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let plan: Product;

const DAY = 86_400_000;
const flat = (s: string) => s.replace(/\s+/g, " ").trim();
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);
const de = (minor: number) => flat(formatMoney(minor, "usd", "de"));

/** The order's invoice PDF as text once the worker made it. */
const invoiceText = (orderId: string) => invoiceTextOf(server, seller.token, orderId);

/** The plan bought in German (the checkout's `locale`, kept on the customer), its confirmation email out of the way. */
async function subscribeInGerman(): Promise<{ subscriptionId: string; customerId: string; email: string }> {
  const email = uniqueBuyer("lines-de");
  const checkout = await seller.sdk.checkouts.create({ products: [plan.id], locale: "de" });
  const { customerId } = await pay(server, checkout, { customerEmail: email });
  const [sub] = (await seller.sdk.subscriptions.list({ productId: plan.id, limit: 100 })).result.items.filter((x) => x.checkoutId === checkout.id);
  if (!sub || !customerId) throw new Error("no subscription");
  await server.mailbox.waitFor(email, /./, 20_000);
  return { subscriptionId: sub.id, customerId, email };
}

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  seller = await createSeller(server, "lines-de");
  const meter = await seller.sdk.meters.create({
    name: "Tokens",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens-lines" }] },
    aggregation: { func: "sum", property: "units" },
  });
  // $10.00 a month, and 10¢ a token capped at $5.00
  const created = await raw("POST", "/v1/products/", {
    name: "API Plan",
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: 1000, price_currency: "usd" },
      { amount_type: "metered_unit", meter_id: meter.id, price_currency: "usd", unit_amount: "10", cap_amount: 500 },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  plan = await seller.sdk.products.get({ id: String(created.body.id) });
}, 60_000);
afterAll(async () => server?.close());

describe("the lines till writes, in the customer's language", () => {
  it("a renewal's capped metered line: the receipt email says it in German, as the invoice does; the API keeps the English label", async () => {
    const { subscriptionId, customerId, email } = await subscribeInGerman();
    // 10 days into a 30-day period, then 80 tokens ($8.00 before the cap)
    const start = new Date(Date.now() - 10 * DAY);
    await server.database.db
      .update(subscription)
      .set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start })
      .where(eq(subscription.id, subscriptionId));
    const ingested = await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens-lines", customer_id: customerId, metadata: { units: 80 } }] });
    expect(ingested.status, JSON.stringify(ingested.body)).toBe(200);
    const renewed = await raw("POST", `/v1/subscriptions/${subscriptionId}/renew`, { current_period_start: start.toISOString() });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);

    const orders = (await seller.sdk.orders.list({ subscriptionId, sorting: ["created_at"], limit: 10 })).result.items;
    const cycle = orders.find((o) => o.billingReason === "subscription_cycle");
    if (!cycle) throw new Error("no renewal order");
    const metered = cycle.items.find((i) => i.label.startsWith("API Plan — Tokens"));
    // the wire is Polar's: the English label
    expect(metered?.label).toBe("API Plan — Tokens: capped at $5.00; $3.00 of usage not billed");
    expect(metered?.amount).toBe(500);
    const german = `API Plan — Tokens: gedeckelt bei ${de(500)}; ${de(300)} der Nutzung nicht berechnet`;

    const mail = await server.mailbox.waitFor(email, /Verlängerungsbeleg/, 20_000);
    const body = flat(mail.text);
    expect(body).toContain(`${german} ${de(500)}`);
    expect(body).not.toContain("capped at");
    expect(body).not.toContain("not billed");
    // the same words as the invoice's
    const pdf = await invoiceText(cycle.id);
    expect(pdf).toContain(german);
  }, 60_000);

  it("a wallet top-up: its line is said in German on the invoice and in the confirmation email; the API keeps the English label and adds its kind", async () => {
    const { customerId, email } = await subscribeInGerman();
    const wallet = await raw("POST", "/v1/wallets/", { customer_id: customerId, currency: "usd" });
    expect(wallet.status, JSON.stringify(wallet.body)).toBeLessThan(300);
    const topUp = await raw("POST", `/v1/wallets/${String(wallet.body.id)}/top-up`, { amount: 3000 });
    expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);

    const order = (await seller.sdk.orders.list({ customerId, limit: 10 })).result.items.find((o) => o.productId === null);
    if (!order) throw new Error("no top-up order");
    expect(order.items.map((i) => i.label)).toEqual(["Wallet top-up"]);
    const wire = await raw("GET", `/v1/orders/${order.id}`);
    expect((wire.body.items as Array<Record<string, unknown>>).map((i) => [i.label, i.wallet_credit])).toEqual([["Wallet top-up", "top_up"]]);
    const [item] = await server.database.db.select().from(orderItem).where(eq(orderItem.orderId, order.id));
    expect(item?.walletCredit).toBe("top_up");

    const pdf = await invoiceText(order.id);
    expect(pdf).toContain("Aufladung des Guthabenkontos");
    expect(pdf).toContain(de(3000));
    expect(pdf).not.toContain("Wallet top-up");

    const mail = await server.mailbox.waitFor(email, new RegExp(order.invoiceNumber ?? "-"), 20_000);
    const body = flat(mail.text);
    expect(mail.subject).toContain("Ihr Beleg");
    expect(body).toContain(`Aufladung des Guthabenkontos ${de(3000)}`);
    // the body names what was added (a purchase's body would name a product: a top-up has none)
    expect(body).toContain(`Wir haben Ihr Guthabenkonto mit ${de(3000)} von Ihrer Karte aufgeladen. Hier ist Ihr Beleg.`);
    expect(body).not.toContain("Ihr Kauf von");
    expect(body).not.toContain("Wallet top-up");
  }, 60_000);
});
