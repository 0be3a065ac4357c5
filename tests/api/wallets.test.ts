// Wallets over three periods on the test clock, against amounts computed by hand. A customer
// subscribes to a $15.00 monthly plan, buys $7.00 of credits with a pay-what-you-want price (till_credits
// "paid": 700 credited), so the first renewal is paid 700 from the wallet and 800 by card; buys a $20.00 pack
// that credits 2,500 (till_credits "2500"), so the second renewal is paid in full by the wallet (1,500; no
// charge) and leaves 1,000 — below the auto-recharge threshold of 1,500, and the default card (a card whose
// charges fail) declines the 2,000 recharge: an email, recharging stops. A new card is saved; the third renewal
// takes the last 1,000 and charges 500, and the wallet recharges 2,000 on the new card. The wallets read the same
// through both SDKs' portal calls; every Polar webhook is valid for both SDKs; the invoice says what the wallet paid.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMovement } from "../../server/billing/wallets/repository.js";
import { customerEmail } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay } from "../helpers/checkout.js";
import { pdfTextOf } from "../helpers/pdf.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { uniqueEmail } from "../helpers/client.js";
import { usingPostgres } from "../helpers/db.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let key: string;
let sdk: Polar;

const raw = (method: string, path: string, body?: unknown, token = key) => rawRequest(server.url, token, method, path, body);

async function eventually<T>(what: string, fn: () => Promise<T | null | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not ready in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "wallets");
  key = await seller.createSandboxKey();
  sdk = sdkFor(server, key);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

async function portalCard(session: string, number: string): Promise<string> {
  const res = await raw("POST", "/v1/customer-portal/customers/me/payment-methods/test-card", { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123" }, session);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.confirmation_token_id as string;
}

describe("a wallet over three periods", () => {
  it("pays renewals before the card, credits packs once, and auto-recharges after a decline is fixed", async () => {
    const endpoint = await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/polar`, format: "raw", events: ["order.created", "order.paid", "customer.state_changed"] });
    const plan = await sdk.products.create({ name: "Plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }] });
    const credits = await sdk.products.create({
      name: "Credits",
      metadata: { till_credits: "paid" },
      prices: [{ amountType: "custom", minimumAmount: 500, maximumAmount: 100_000, presetAmount: 1000, priceCurrency: "usd" }],
    });
    const pack = await sdk.products.create({ name: "Pack", metadata: { till_credits: "2500" }, prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }] });

    const email = "wallet-ada@example.com";
    const customer = await sdk.customers.create({ email, externalId: "wallet-ada", name: "Ada" });
    const buy = async (productId: string, amount?: number) => {
      const checkout = await sdk.checkouts.create({ products: [productId], customerId: customer.id, ...(amount ? { amount } : {}) });
      await pay(server, checkout, { customerEmail: email });
      const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
      if (!order) throw new Error("no order");
      return order;
    };
    const first = await buy(plan.id);
    expect(first).toMatchObject({ totalAmount: 1500, appliedBalanceAmount: 0 });
    const subId = first.subscriptionId ?? "";

    const session = (await sdk.customerSessions.create({ customerId: customer.id })).token;
    const portal = new Polar({ serverURL: server.url });
    const portal049 = new Polar049({ serverURL: server.url });
    const walletNow = async (min?: number) =>
      eventually("the wallet", async () => {
        const [w] = (await portal.customerPortal.wallets.list({ customerSession: session }, {})).result.items;
        return w && (min === undefined || w.balance === min) ? w : null;
      });

    // pay what you want: $7.00 paid, 700 credited once the order is paid (the worker)
    const bought = await buy(credits.id, 700);
    expect(bought).toMatchObject({ netAmount: 700, totalAmount: 700 });
    const wallet = await walletNow(700);
    expect(wallet).toMatchObject({ customerId: customer.id, currency: "usd", balance: 700 });
    const via049 = await portal049.customerPortal.wallets.get({ customerSession: session }, { id: wallet.id });
    expect(via049).toMatchObject({ id: wallet.id, balance: 700, currency: "usd" });
    const seller1 = await raw("GET", `/v1/wallets/${wallet.id}`);
    expect(seller1.body).toMatchObject({ id: wallet.id, balance: 700, customer_id: customer.id });

    const renew = async () => {
      const end = (await sdk.subscriptions.get({ id: subId })).currentPeriodEnd;
      const res = await raw("POST", "/v1/test-clock/advance", { to: new Date(end.getTime() + 60_000).toISOString() });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const orders = (await sdk.orders.list({ subscriptionId: subId, sorting: ["-created_at"] })).result.items;
      return orders[0]!;
    };
    const paymentsOf = async (orderId: string) => (await sdk.payments.list({ orderId })).result.items.map((p) => ({ amount: p.amount, status: p.status }));

    // period 1: the wallet pays 700 of 1,500, the card 800
    const r1 = await renew();
    expect(r1).toMatchObject({ billingReason: "subscription_cycle", totalAmount: 1500, appliedBalanceAmount: -700, status: "paid" });
    expect(await paymentsOf(r1.id)).toEqual([{ amount: 800, status: "succeeded" }]);
    await walletNow(0);

    // a pack: $20.00 paid, 2,500 credited (not paid with the wallet's credits)
    const packOrder = await buy(pack.id);
    expect(packOrder).toMatchObject({ totalAmount: 2000, appliedBalanceAmount: 0 });
    await walletNow(2500);
    // auto-recharge: below 1,500, charge 2,000; the default card is now one whose charges fail
    const set = await raw("PUT", `/v1/customer-portal/wallets/${wallet.id}/auto-recharge`, { enabled: true, threshold_amount: 1500, amount: 2000 }, session);
    expect(set.body).toEqual({ wallet_id: wallet.id, enabled: true, threshold_amount: 1500, amount: 2000, blocked_at: null });
    await portal.customerPortal.customers.addPaymentMethod({ customerSession: session }, {
      confirmationTokenId: await portalCard(session, "4000 0000 0000 0341"), setDefault: true,
      returnUrl: "https://x.test",
    });

    // period 2: the wallet pays all 1,500 (no charge), leaves 1,000; the recharge is declined and mailed
    const r2 = await renew();
    expect(r2).toMatchObject({ totalAmount: 1500, appliedBalanceAmount: -1500, status: "paid" });
    expect(await paymentsOf(r2.id)).toEqual([]);
    const blocked = await eventually("the block", async () => {
      const r = await raw("GET", `/v1/customer-portal/wallets/${wallet.id}/auto-recharge`, undefined, session);
      return r.body.blocked_at ? r.body : null;
    });
    expect(blocked).toMatchObject({ enabled: true });
    const mails = await server.database.db.select().from(customerEmail).where(and(eq(customerEmail.type, "wallet_recharge_failed"), eq(customerEmail.recipient, email)));
    expect(mails).toHaveLength(1);
    expect((await walletNow(1000)).balance).toBe(1000);

    // a new card: period 3 takes the last 1,000 and charges 500; then the wallet recharges 2,000 on the new card
    await portal.customerPortal.customers.addPaymentMethod({ customerSession: session }, {
      confirmationTokenId: await portalCard(session, "4242 4242 4242 4242"), setDefault: true,
      returnUrl: "https://x.test",
    });
    const r3 = await renew();
    expect(r3).toMatchObject({ totalAmount: 1500, appliedBalanceAmount: -1000, status: "paid" });
    expect(await paymentsOf(r3.id)).toEqual([{ amount: 500, status: "succeeded" }]);
    await walletNow(2000);
    const history = await raw("GET", `/v1/wallets/${wallet.id}/transactions?limit=20`);
    expect((history.body.items as Array<{ type: string; amount: number }>).map((t) => [t.type, t.amount])).toEqual([
      ["auto_recharge", 2000],
      ["order_payment", -1000],
      ["order_payment", -1500],
      ["credit_purchase", 2500],
      ["order_payment", -700],
      ["credit_purchase", 700],
    ]);
    expect((await raw("GET", `/v1/customer-portal/wallets/${wallet.id}/auto-recharge`, undefined, session)).body).toMatchObject({ blocked_at: null });
    const recharge = (await sdk.orders.list({ customerId: customer.id, sorting: ["-created_at"] })).result.items[0]!;
    expect(recharge).toMatchObject({ billingReason: "purchase", productId: null, totalAmount: 2000, status: "paid" });

    // the invoice of period 1 says what the wallet paid and what the card was charged
    const invoiceText = await eventually("the invoice", async () => {
      const res = await raw("GET", `/v1/orders/${r1.id}/invoice`);
      if (res.status !== 200) return null;
      return pdfTextOf(new Uint8Array(await (await fetch(res.body.url as string)).arrayBuffer()));
    });
    expect(invoiceText.replace(/\s+/g, " ")).toMatch(/Paid from wallet -?−?\$7\.00.*Amount charged \$8\.00/);

    // every Polar webhook is valid for both SDKs
    await new Promise((r) => setTimeout(r, 500));
    const hits = receiver.at("/polar");
    expect(hits.length).toBeGreaterThan(10);
    for (const hit of hits) {
      expect(() => validateEvent(hit.body, hit.headers, endpoint.secret)).not.toThrow();
      expect(() => validateEvent049(hit.body, hit.headers, endpoint.secret)).not.toThrow();
    }
  });
});

describe("the seller's wallet routes", () => {
  it("opens a wallet, tops it up from the saved card once per Idempotency-Key, and keeps other customers' wallets apart", async () => {
    const product = await sdk.products.create({ name: "One", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const checkout = await sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerEmail: "wallet-bob@example.com" });
    const [order] = (await sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const opened = await raw("POST", "/v1/wallets/", { customer_id: order!.customerId, currency: "EUR" });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    expect(opened.body).toMatchObject({ balance: 0, currency: "eur" });
    expect((await raw("POST", "/v1/wallets/", { customer_id: order!.customerId, currency: "eur" })).body.id).toBe(opened.body.id);
    const topUp = (k: string) =>
      fetch(`${server.url}/v1/wallets/${opened.body.id as string}/top-up`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": k },
        body: JSON.stringify({ amount: 1234 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    expect(await topUp("t-1")).toMatchObject({ status: 200, body: { balance: 1234 } });
    expect(await topUp("t-1")).toMatchObject({ status: 200, body: { balance: 1234 } });
    expect((await topUp("t-2")).body).toMatchObject({ balance: 2468 });
    expect((await raw("POST", `/v1/wallets/${opened.body.id as string}/top-up`, { amount: 0 })).status).toBe(422);
    const list = await raw("GET", `/v1/wallets/?customer_id=${order!.customerId}`);
    expect(list.body).toMatchObject({ items: [{ id: opened.body.id, balance: 2468 }], pagination: { total_count: 1 } });
    // another customer's session never sees it
    const other = (await sdk.customerSessions.create({ customerId: (await sdk.customers.create({ email: uniqueEmail("wallet-eve") })).id })).token;
    expect((await raw("GET", `/v1/customer-portal/wallets/${opened.body.id as string}`, undefined, other)).status).toBe(404);
    expect((await new Polar({ serverURL: server.url }).customerPortal.wallets.list({ customerSession: other }, {})).result.items).toEqual([]);
  });

  // PostgreSQL only: PGlite has one connection, so no transaction is open while another writes
  it.runIf(usingPostgres)("dates a movement when it is written: one written after another, in a transaction begun before it, lists newer", async () => {
    const customer = await sdk.customers.create({ email: uniqueEmail("wallet-order") });
    const opened = await raw("POST", "/v1/wallets/", { customer_id: customer.id, currency: "usd" });
    const movement = (amount: number) => ({ organizationId: customer.organizationId, customerId: customer.id, currency: "usd", amount, reason: "adjustment" });
    // the worker's transaction begins (its BEGIN and a first statement), then waits while a debit is written and
    // committed, then writes what the debit caused (a recharge, say)
    let begun = () => {};
    const isBegun = new Promise<void>((r) => (begun = r));
    let go = () => {};
    const mayWrite = new Promise<void>((r) => (go = r));
    const worker = server.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      begun();
      await mayWrite;
      await insertMovement(tx, movement(2));
    });
    await isBegun;
    await new Promise((r) => setTimeout(r, 20));
    await insertMovement(server.database.db, movement(-1));
    go();
    await worker;
    const history = await raw("GET", `/v1/wallets/${opened.body.id as string}/transactions`);
    expect((history.body.items as Array<{ amount: number }>).map((t) => t.amount)).toEqual([2, -1]);
  });
});
