// An invoice with terms paid by bank transfer on its hosted pay page, in a real Chromium against the real server
// and the Stripe stand-in (the seller's connected account): beside the card form the page offers "Pay by bank
// transfer"; it shows the account and the reference Stripe gives; opened again it shows them again; part of the
// money arriving leaves the order unpaid and the page shows what is left; the rest arriving shows the order paid.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { installStripeJs } from "../helpers/stripe-js-standin.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let browser: Browser;

beforeAll(async () => {
  s = await startStripeSandbox();
  await s.server.worker.start();
  browser = await launchForPages();
}, 120_000);
afterAll(async () => {
  await closePages(browser);
  await s?.server.worker.stop();
  await s?.close();
});

describe("the pay link's page", () => {
  it("shows Stripe's bank transfer instructions and the order paid once the whole amount arrived", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "monthly");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("transfer-page"),
      customer_name: "Ada Buyer",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa, "off_session"),
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const sub = await until(async () => (await s.sdk.subscriptions.list({ productId: product.id })).result.items[0], "the subscription");
    await rawRequest(s.server.url, s.key, "PATCH", `/v1/subscriptions/${sub.id}/terms`, { collection_method: "send_invoice", days_until_due: 30 });
    await rawRequest(s.server.url, s.key, "POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: sub.currentPeriodStart.toISOString() });
    const order = (await s.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"] })).result.items[0];
    if (!order) throw new Error("no order");
    const payUrl = String((await rawRequest(s.server.url, s.key, "GET", `/v1/orders/${order.id}`)).body.pay_url);
    const path = new URL(payUrl).pathname;

    const problems: string[] = [];
    const context = await browser.newContext({ baseURL: s.server.url, locale: "en-US", timezoneId: "UTC" });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    await installStripeJs(page, s.peer);
    await page.goto(path);
    const section = page.getByRole("region", { name: "Or pay by bank transfer" });
    await section.getByRole("button", { name: "Pay by bank transfer" }).click();
    const reference = section.getByTestId("transfer-reference");
    await reference.waitFor();
    const ref = (await reference.innerText()).trim();
    expect(ref).toMatch(/^TILL\d+$/);
    const text = await section.innerText();
    expect(text).toContain("Routing number");
    expect(text).toContain("101019644");
    expect(text).toContain("Account number");
    expect(text).toContain(formatMoney(order.totalAmount, "usd", "en"));
    await page.screenshot({ path: ".tmp/pay-link-transfer.png", fullPage: true });

    // opened again: the same instructions, no second transfer
    await page.goto(path);
    await section.getByTestId("transfer-reference").waitFor();
    expect((await section.getByTestId("transfer-reference").innerText()).trim()).toBe(ref);

    // part of the money: still owed, less to send; the rest: paid
    const intent = [...s.peer.payments.intents.values()].find((i) => i.metadata.order_id === order.id && i.object === "payment_intent");
    if (!intent?.customer) throw new Error("no intent");
    const remaining = section.getByTestId("transfer-remaining");
    const whole = (await remaining.innerText()).trim();
    s.peer.payments.fundCashBalance(intent.customer, order.totalAmount - 200, "usd", ref);
    await until(async () => ((await remaining.innerText()).trim() !== whole ? true : undefined), "what is left to send", 20_000);
    expect((await remaining.innerText()).trim()).toBe(formatMoney(200, "usd", "en"));
    await page.screenshot({ path: ".tmp/pay-link-transfer-partial.png", fullPage: true });
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("pending");
    s.peer.payments.fundCashBalance(intent.customer, 200, "usd");
    await page.getByText("This order is paid. Nothing more is owed.").waitFor();
    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
