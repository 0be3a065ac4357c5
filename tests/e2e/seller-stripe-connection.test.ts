// The Stripe connection in the settings, in Chromium, on a sandbox connected to the Stripe stand-in: the account
// it is connected to (its id, test mode, the secret key's last four), disconnected after asking once more (Keep
// it connected changes nothing), then connected again from the form with the account's keys, which the API then
// reports; the secret never stays in the page. Desktop and phone, axe-clean.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { startStripeSandbox, STRIPE_KEYS, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let sandbox: StripeSandbox;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startStripeSandbox(), launchForPages()]);
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await sandbox?.close();
});

async function connection(): Promise<Record<string, unknown>> {
  const res = await fetch(`${sandbox.server.url}/v1/stripe/connection`, { headers: { authorization: `Bearer ${sandbox.key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("the Stripe connection in the settings", () => {
  it("desktop: shows the account, disconnects after asking, connects again from the form", async () => {
    const { page, context } = await signedInPage(browser, sandbox.server.url, sandbox.seller.user.email, problems, { viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    await page.goto("/settings/payments?mode=sandbox");
    const facts = page.getByRole("region", { name: "Payment processor" });
    await facts.getByText("acct_1TillPay").waitFor();
    await facts.getByText(/1234/).waitFor();
    await checkPage(page, "desktop-stripe-connected");

    await page.getByRole("button", { name: "Disconnect Stripe" }).click();
    const dialog = page.getByRole("dialog", { name: "Disconnect Stripe?" });
    await dialog.getByText(/built-in test processor/).waitFor();
    await checkPage(page, "desktop-stripe-disconnect-dialog");
    await dialog.getByRole("button", { name: "Keep it connected" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await connection()).toMatchObject({ connected: true });
    await page.getByRole("button", { name: "Disconnect Stripe" }).click();
    await page.getByRole("button", { name: "Yes, disconnect" }).click();
    await page.getByText("Stripe is disconnected.").waitFor();
    await page.getByText(/checkouts use till's built-in test processor/).waitFor();
    expect(await connection()).toMatchObject({ connected: false });

    await page.getByLabel("Publishable key").fill(STRIPE_KEYS.publishable);
    await page.getByLabel("Secret key").fill(STRIPE_KEYS.secret);
    await page.getByRole("button", { name: "Connect Stripe" }).click();
    await page.getByText("Stripe is connected.").waitFor();
    await facts.getByText("acct_1TillPay").waitFor();
    expect(await page.getByLabel("Secret key").count()).toBe(0);
    expect(await page.content()).not.toContain(STRIPE_KEYS.secret);
    expect(await connection()).toMatchObject({ connected: true, account_id: "acct_1TillPay", livemode: false });
    expect(problems).toEqual([]);
  }, 120_000);

  it("phone: the connected account and its dialog fit", async () => {
    const { page, context } = await signedInPage(browser, sandbox.server.url, sandbox.seller.user.email, problems, { viewport: { width: 390, height: 844 } });
    contexts.push(context);
    await page.goto("/settings/payments?mode=sandbox");
    await page.getByRole("region", { name: "Payment processor" }).getByText("acct_1TillPay").waitFor();
    await checkPage(page, "phone-stripe-connected");
    await page.getByRole("button", { name: "Disconnect Stripe" }).click();
    await page.getByRole("dialog", { name: "Disconnect Stripe?" }).waitFor();
    await checkPage(page, "phone-stripe-disconnect-dialog");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("button", { name: "Disconnect Stripe" }).evaluate((b) => b === document.activeElement)).toBe(true);
    expect(await connection()).toMatchObject({ connected: true });
    expect(problems).toEqual([]);
  }, 90_000);
});
