// The set-up the customer email tests share (customer-emails*.test.ts): a server of the file's own with its jobs
// worker started, a seller with a logo, and the steps that cause an email: a purchase, a subscription, a renewal.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, expect } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import type { ReceivedMail } from "../helpers/mailbox.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const LOGO = "https://cdn.example.com/acme-logo.png";
export const usd = (minor: number) => formatMoney(minor, "usd", "en-US");

/** Starts the file's server in beforeAll (closed in afterAll); the fields are there once it has run. */
export function customerEmailsFixture() {
  const fx = {} as { server: TestServer; seller: Seller };
  const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(fx.server.url, token, method, path, body);
  const db = () => fx.server.database.db;

  async function buy(s: Seller, product: Product, email = uniqueBuyer("mail"), card?: string) {
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await pay(fx.server, checkout, { customerEmail: email }, card);
    const order = (await s.sdk.orders.list({ productId: product.id, limit: 100 })).result.items.find((o) => o.checkoutId === checkout.id);
    if (!order) throw new Error("no order");
    return { email, order };
  }

  async function subscribe(s: Seller, product: Product, card?: string): Promise<{ email: string; sub: Subscription }> {
    const { email, order } = await buy(s, product, uniqueBuyer("mail"), card);
    const sub = await s.sdk.subscriptions.get({ id: order.subscriptionId ?? "" });
    return { email, sub };
  }

  /** Renews the current period now (named: a bare renew renews only a period that has ended). */
  async function renew(s: Seller, id: string) {
    const { currentPeriodStart } = await s.sdk.subscriptions.get({ id });
    const res = await raw(s.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: currentPeriodStart.toISOString() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  /** The parts every customer email has: from the seller, both parts, the logo, the portal link. */
  function expectBranded(mail: ReceivedMail, s: Seller) {
    expect(mail.html).toBeTruthy();
    expect(mail.html).toContain(`src="${LOGO}"`);
    expect(mail.text.length).toBeGreaterThan(40);
    expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@127\.0\.0\.1>$/);
    expect(mail.links).toContain(`${fx.server.url}/portal?organization=${s.slug}`);
    expect(mail.html).toContain(`${fx.server.url}/portal?organization=${s.slug}`);
  }

  beforeAll(async () => {
    fx.server = await startServer();
    fx.seller = await createSeller(fx.server, "mailer");
    const res = await raw(fx.seller.token, "PATCH", `/v1/organizations/${fx.seller.organizationId}`, { avatar_url: LOGO });
    expect(res.status).toBe(200);
    await fx.server.worker.start();
  }, 120_000);
  afterAll(async () => fx.server?.close());

  return Object.assign(fx, { raw, db, buy, subscribe, renew, expectBranded });
}
