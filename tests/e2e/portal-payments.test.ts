// The portal page's payments in a real Chromium against the real server: a customer whose renewal charge
// failed (Stripe's 4000 0000 0000 0341) sees the past-due order with a payment form, pays it at once with a new
// card — saved as the default and listed under Payment methods — and the subscription is active again; an attempt
// at the order held longer than till waits for (the schedule's retry) is waited for by the page, then it pays; a
// new card refused when charged is listed at once as the saved default.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockDunning } from "../../server/billing/dunning/repository.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { rawRequest } from "../helpers/api.js";
import { usingPostgres } from "../helpers/db.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
  seller = await createSeller(server, "portal-pay");
}, 120_000);
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

/**
 * A subscription whose renewal was declined (4000 0000 0000 0341), its customer's portal open on the past-due order's
 * form.
 */
async function pastDueInPortal(tag: string) {
  const product = await createProduct(seller, "trial");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer(tag) }, "4000 0000 0000 0341");
  const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
  if (!sub) throw new Error("no subscription");
  const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
  expect(renewed.body.status).toBe("past_due");

  const session = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId ?? "" });
  const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
  const page: Page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  await page.goto(session.customerPortalUrl);
  page.setDefaultTimeout(15_000);
  const orders = page.getByRole("region", { name: "Orders", exact: true });
  const form = orders.getByRole("form");
  const withBody = async (err: unknown) => {
    throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
  };
  await form.waitFor().catch(withBody);
  const methods = page.getByRole("region", { name: "Payment methods", exact: true });
  await methods.getByText("Visa ending in 0341").waitFor();
  // the expiry's placeholder is its format, not a date that reads as filled in
  expect(await form.getByLabel("Expiry (MM/YY)").getAttribute("placeholder")).toBe("MM/YY");
  const payWithNewCard = async (card = "4242 4242 4242 4242") => {
    await form.getByLabel("Card number").fill(card);
    await form.getByLabel("Expiry (MM/YY)").fill(`12/${(new Date().getUTCFullYear() + 3) % 100}`);
    await form.getByLabel("CVC").fill("123");
    await form.getByRole("button", { name: "Pay $12" }).click();
  };
  /** Paid: the order shows Paid (the trial's order and this one), its form went, the new card is the default. */
  const paid = async () => {
    await form.waitFor({ state: "detached", timeout: 30_000 }).catch(withBody);
    await expect.poll(() => orders.getByText("Paid", { exact: true }).count()).toBe(2);
    await methods.getByText(/Visa ending in 4242.*\(default\)/).waitFor();
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const order = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items[0];
    expect(order?.status).toBe("paid");
    expect(problems).toEqual([]);
    await context.close();
  };
  return { sub, page, form, methods, context, payWithNewCard, paid };
}

describe("a past-due order in the portal", () => {
  it("is paid at once with a new card, which becomes the saved default; the subscription is active again", async () => {
    const portal = await pastDueInPortal("portal-pay");
    await portal.payWithNewCard();
    await portal.paid();
  }, 60_000);

  it("a new card refused when charged stays saved as the default: the card list shows it at once", async () => {
    const portal = await pastDueInPortal("portal-pay-refused");
    // 4000 0000 0000 9995 attaches, its charges fail
    await portal.payWithNewCard("4000 0000 0000 9995");
    await portal.page.getByText("Your card has insufficient funds.").waitFor();
    await portal.methods.getByText(/Visa ending in 9995.*\(default\)/).waitFor();
    expect(problems).toEqual([]);
    await portal.context.close();
  }, 60_000);

  // PostgreSQL only: PGlite has one connection, which the held transaction would keep from every request
  it.runIf(usingPostgres)("waits for another attempt at the order (the schedule's retry) longer than till's own wait, then pays it", async () => {
    const portal = await pastDueInPortal("portal-pay-busy");
    const [order] = (await seller.sdk.orders.list({ subscriptionId: portal.sub.id, sorting: ["-created_at"] })).result.items;
    if (!order) throw new Error("no order");
    // another attempt holds the order for 7 s: till answers the page's first confirm 409 after its own 5 s
    let locked = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = server.database.db.transaction(async (tx) => {
      await lockDunning(tx, seller.organizationId, order.id);
      locked();
      await new Promise((r) => setTimeout(r, 7_000));
    });
    await isLocked;
    await portal.payWithNewCard();
    await portal.page.getByText("Another payment of this order is under way; waiting for it to finish…").waitFor();
    await holder;
    await portal.paid();
  }, 60_000);
});
