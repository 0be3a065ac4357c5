// An unpaid order's hosted pay page in a real Chromium against the real server: a subscription whose renewal was
// declined (4000 0000 0000 0341) is paid through its order's pay link with the test processor's card form, without
// signing in — the order paid, the subscription active again, one charge; the link opened again shows the order
// paid and no form, and nothing more is charged. The portal's order list links to it. A link that is not ours says
// so. An order whose bank debit is on its way says so in the buyer's words, with nothing to pay meanwhile.
import { eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { order as orderTable, payment } from "../../server/db/schema/index.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;

beforeAll(async () => {
  browser = await launchForPages();
  server = await startServer();
  seller = await createSeller(server, "pay-link-page");
}, 120_000);
afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

const succeededPayments = async (orderId: string) =>
  ((await rawRequest(server.url, seller.token, "GET", `/v1/payments/?order_id=${orderId}&limit=100`)).body.items as Array<{ status: string }>).filter(
    (p) => p.status === "succeeded",
  ).length;

/** A subscription whose renewal was declined: its unpaid order and the order's pay link. */
async function declinedRenewal(tag: string) {
  const product = await createProduct(seller, "trial");
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, { customerEmail: uniqueBuyer(tag) }, "4000 0000 0000 0341");
  const [sub] = (await seller.sdk.subscriptions.list({ productId: product.id })).result.items;
  if (!sub) throw new Error("no subscription");
  const renewed = await rawRequest(server.url, seller.token, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
  expect(renewed.body.status).toBe("past_due");
  const order = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items[0];
  if (!order) throw new Error("no order");
  const payUrl = (await rawRequest(server.url, seller.token, "GET", `/v1/orders/${order.id}`)).body.pay_url as string;
  expect(payUrl).toMatch(/\/pay\//);
  return { sub, order, payUrl };
}

describe("the pay link's page", () => {
  it("pays a failed renewal's order by card without signing in; opened again it shows the order paid", async () => {
    const { sub, order, payUrl } = await declinedRenewal("pay-link-page");

    const problems: string[] = [];
    const context = await browser.newContext({ locale: "en-US", timezoneId: "UTC" });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    // the portal lists the unpaid order with its pay link, which opens the hosted page
    const session = await seller.sdk.customerSessions.create({ customerId: order.customerId });
    await page.goto(session.customerPortalUrl);
    const link = page.getByRole("region", { name: "Orders", exact: true }).getByTestId("pay-link");
    await link.waitFor();
    expect(await link.getAttribute("href")).toMatch(/\/pay\/[A-Za-z0-9_-]{48}\./);
    await link.click();
    const form = page.getByRole("form", { name: `Pay ${order.invoiceNumber}` });
    await form.waitFor().catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
    });
    expect(await page.locator("body").innerText()).toContain("pay-link-page org");
    const fill = async (card: string) => {
      await form.getByLabel("Card number").fill(card);
      await form.getByLabel("Expiry (MM/YY)").fill(`12/${(new Date().getUTCFullYear() + 3) % 100}`);
      await form.getByLabel("CVC").fill("123");
      await form.getByRole("button", { name: "Pay $12" }).click();
    };
    // a refused card: the page says why and keeps the form
    await fill("4000 0000 0000 9995");
    await page.getByText("Your card has insufficient funds.").waitFor();
    await fill("4242 4242 4242 4242");
    await page.getByText("This order is paid. Nothing more is owed.").waitFor();
    expect(await form.count()).toBe(0);
    expect((await seller.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect((await seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const charged = await succeededPayments(order.id);
    expect(charged).toBe(1);

    // the link again: paid, no form, nothing charged
    await page.goto(payUrl);
    await page.getByText("This order is paid. Nothing more is owed.").waitFor();
    expect(await page.getByRole("form").count()).toBe(0);
    expect(await succeededPayments(order.id)).toBe(charged);

    // a link that is not ours
    await page.goto(`${server.url}/pay/not-a-link`);
    await page.getByText("This pay link is not valid or has expired.", { exact: false }).waitFor();
    expect(problems).toEqual([]);
    await context.close();

    // a buyer whose browser speaks German reads the page in German, as the portal
    const german = await browser.newContext({ locale: "de-DE", timezoneId: "UTC" });
    const inGerman = await german.newPage();
    await inGerman.goto(payUrl);
    await inGerman.getByRole("heading", { level: 1, name: "Bezahlt" }).waitFor();
    await inGerman.getByText("Diese Bestellung ist bezahlt. Es ist nichts mehr offen.").waitFor();
    await inGerman.getByText("Rechnung", { exact: true }).waitFor();
    await german.close();
  }, 90_000);

  it("says a bank debit of the order is on its way, in the buyer's words, and offers no card meanwhile", async () => {
    const { order, payUrl } = await declinedRenewal("pay-link-debit");
    // the test processor makes no bank debits: the order's debit on its way, as a SEPA retry records it
    const [row] = await server.database.db.select({ organizationId: orderTable.organizationId }).from(orderTable).where(eq(orderTable.id, order.id));
    await server.database.db.insert(payment).values({
      organizationId: row?.organizationId ?? "", customerId: order.customerId, orderId: order.id, processor: "stripe", processorPaymentId: "pi_page_debit",
      status: "pending", amount: order.totalAmount, currency: order.currency, method: "sepa_debit", declineReason: "processing",
      declineMessage: "The payment is processing.", attempt: "retry",
    });
    const context = await browser.newContext({ locale: "en-US", timezoneId: "UTC" });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(payUrl);
    await page.getByText("Your bank debit for this order is already on its way. There is nothing to pay now", { exact: false }).waitFor().catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
    });
    expect(await page.getByRole("form").count()).toBe(0);
    expect(await page.getByRole("button").count()).toBe(0);
    await context.close();
    expect((await seller.sdk.orders.get({ id: order.id })).status).toBe("pending");
  }, 90_000);
});
