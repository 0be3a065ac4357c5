// An invoice with terms paid by bank transfer on its hosted pay page, in a real Chromium against the real server
// and the Stripe stand-in (the seller's connected account): beside the card form the page offers "Pay by bank
// transfer"; it shows the account and the reference Stripe gives; opened again it shows them again; part of the
// money arriving leaves the order unpaid and the page shows what is left; the rest arriving shows the order paid.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { installStripeJs } from "../helpers/stripe-js-standin.js";
import { invoiceWithTerms } from "../helpers/stripe-invoices.js";
import { startStripeSandbox, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

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
    const { order, token } = await invoiceWithTerms(s, { ...s.seller, sdk: s.sdk, token: s.key }, "transfer-page");
    const path = `/pay/${token}`;

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
