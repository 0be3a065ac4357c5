// An organization member with the non-admin role ("member") on the seller pages: the server refuses
// what the role may not do (API keys, checkout links, discounts and webhook endpoints changed or deleted, meters
// made, tax registrations, dunning, the Stripe connection, products made or archived, an order refunded, a
// subscription cancelled) and the pages offer none of it, only the words saying so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { bearer, joinAs, type Person } from "../auth/org-fixtures.js";
import { createProduct, subscribeThroughCheckout } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
let member: Person;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "roles");
  member = await joinAs(server, seller.client, seller.organizationId, "member", "roles-member");
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

describe("a member (not an admin) on the seller pages", () => {
  it("is refused by the server, and offered nothing, for keys, links, discounts, endpoints, meters, settings, products, refunds and subscriptions", async () => {
    const live = sdkFor(server, await seller.createKey());
    const product = await live.products.create({ name: "Role kit", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    const link = await live.checkoutLinks.create({ paymentProcessor: "stripe", products: [product.id], label: "Member link" });
    const discount = await live.discounts.create({ name: "Members", code: "MEMBERS", type: "percentage", basisPoints: 1000, duration: "once" });
    const hook = await live.webhooks.createWebhookEndpoint({ url: "https://example.com/member", format: "raw", events: ["order.created"] });
    const monthly = await createProduct(seller, "monthly");
    const sub = await subscribeThroughCheckout(server, live, monthly.id);
    const [order] = (await live.orders.list({ customerId: sub.customerId })).result.items;

    // the server: every change refused (403), nothing changed
    const auth = bearer(member);
    const v1 = (method: string, path: string, json?: unknown) => member.client.request(method, `/v1${path}`, { headers: auth, json });
    const refused: Array<[string, string, unknown?]> = [
      ["PATCH", `/checkout-links/${link.id}`, { label: "Hijacked" }],
      ["DELETE", `/checkout-links/${link.id}`],
      ["PATCH", `/discounts/${discount.id}`, { name: "Hijacked" }],
      ["DELETE", `/discounts/${discount.id}`],
      ["PATCH", `/webhooks/endpoints/${hook.id}`, { url: "https://example.com/hijacked" }],
      ["DELETE", `/webhooks/endpoints/${hook.id}`],
      ["POST", "/meters/", { name: "Hijacked", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } }],
      ["PATCH", `/organizations/${seller.organizationId}`, { details: { tax_registrations: [{ country: "DE" }] } }],
      ["PUT", "/stripe/connection", { secret_key: "sk_test_member" }],
      ["DELETE", "/stripe/connection"],
      ["POST", "/products/", { name: "Hijacked", prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "usd" }] }],
      ["PATCH", `/products/${product.id}`, { is_archived: true }],
      ["POST", "/refunds/", { order_id: order?.id, reason: "customer_request", amount: 100 }],
      ["PATCH", `/subscriptions/${sub.id}`, { cancel_at_period_end: true }],
      ["PATCH", `/organizations/${seller.organizationId}`, { dunning_settings: { retry_intervals_days: [1], final_action: "cancel" } }],
    ];
    for (const [method, path, body] of refused) {
      const res = await v1(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
    }
    expect((await live.checkoutLinks.get({ id: link.id })).label).toBe("Member link");
    expect((await live.discounts.get({ id: discount.id })).name).toBe("Members");
    expect((await live.webhooks.getWebhookEndpoint({ id: hook.id })).url).toBe("https://example.com/member");
    expect((await live.meters.list({})).result.items).toEqual([]);
    expect((await live.products.get({ id: product.id })).isArchived).toBe(false);
    expect((await live.subscriptions.get({ id: sub.id })).cancelAtPeriodEnd).toBe(false);
    expect((await live.orders.get({ id: order!.id })).refundedAmount).toBe(0);
    const orgId = seller.organizationId;
    const keyCreate = await member.client.request("POST", "/api/auth/api-key/create", { json: { name: "member-key", organizationId: orgId } });
    expect(keyCreate.status, keyCreate.text).toBeGreaterThanOrEqual(400);
    const keyPage = await member.client.request("GET", `/api/auth/api-key/page?organizationId=${orgId}&side=live`);
    expect(keyPage.status).toBe(403);
    // but reading is allowed: the catalog is a member's to see
    expect((await v1("GET", `/checkout-links/${link.id}`)).status).toBe(200);

    // the pages: nothing the server would refuse is offered
    const { page, context } = await signedInPage(browser, server.url, member.email, problems);
    contexts.push(context);
    await page.goto(`/checkout-links/${link.id}?mode=live`);
    await page.getByText("Your role in this organization may not change checkout links.").waitFor();
    expect(await page.getByRole("button", { name: /Delete the link/ }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Edit link" }).count()).toBe(0);
    await checkPage(page, "member-checkout-link");
    await page.goto(`/discounts/${discount.id}`);
    await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    await page.getByText(/Your role in this organization may not/).waitFor();
    expect(await page.getByRole("button", { name: /Delete the discount/ }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Edit discount" }).count()).toBe(0);
    await page.goto(`/webhooks/${hook.id}`);
    await page.getByText("https://example.com/member").first().waitFor();
    expect(await page.getByRole("button", { name: /Save the endpoint|Delete the endpoint/ }).count()).toBe(0);
    await page.goto("/meters");
    await page.getByRole("heading", { level: 1, name: "Meters" }).waitFor();
    expect(await page.getByRole("link", { name: /New meter|Create your first meter/ }).count()).toBe(0);
    await page.goto("/api-keys");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.getByText(/Your role/).first().waitFor();
    expect(await page.getByRole("button", { name: /Create|Revoke/ }).count()).toBe(0);
    await page.goto(`/subscriptions/${sub.id}`);
    await page.getByText("Your role in this organization may not change subscriptions.").waitFor();
    expect(await page.getByRole("button", { name: /Cancel|End it now|Change product/ }).count()).toBe(0);
    await checkPage(page, "member-subscription");
    await page.goto("/settings/payments");
    await page.getByText("Your role in this organization may not change the payment processor.").waitFor();
    expect(await page.getByRole("button", { name: /Connect|Disconnect/ }).count()).toBe(0);
    await page.goto("/settings/tax");
    await page.getByRole("heading", { name: "Tax registrations" }).waitFor();
    expect(await page.getByRole("button", { name: /Add the registration/ }).count()).toBe(0);
    for (const [section, name] of [["legal", "Save legal details"], ["dunning", "Save dunning"], ["emails", "Save customer emails"], ["emails", "Save language"]]) {
      await page.goto(`/settings/${section}`);
      expect(await page.getByRole("button", { name }).isDisabled(), name).toBe(true);
    }
    await page.goto("/settings/team");
    await page.getByRole("region", { name: "The organization's members" }).waitFor();
    expect(await page.getByRole("button", { name: /Send the invitation|Actions for/ }).count()).toBe(0);
    await checkPage(page, "member-settings");
    expect(problems).toEqual([]);
  }, 180_000);
});
