// In Chromium: a US bank account entered by hand in the portal's Payment Element (Stripe.js served
// through page.route: tests/helpers/stripe-js-standin.ts) on a sandbox connected to the Stripe stand-in. Stripe
// verifies it with microdeposits: the page says what happens next (when the deposits arrive, Stripe's page for it)
// and asks their amounts; a wrong pair shows Stripe's message with the attempts left; the right one (32, 45) is
// verified through Stripe.js's verifyMicrodepositsForSetup and the account is listed as the default. A German buyer
// reads it all in German.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages, PageWatch, seriousViolations } from "../helpers/browser.js";
import { installStripeJs } from "../helpers/stripe-js-standin.js";
import { portalMethods } from "../helpers/stripe-portal-methods.js";
import { startStripeSandbox, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let browser: Browser;
const pages = new PageWatch(() => ({ browser, options: { baseURL: s.server.url, locale: "en-US", timezoneId: "UTC" }, timeout: 20_000 }));
/** Where the test leaves its screenshot (looked at by hand; not compared). */
const SHOT = process.env.TILL_SHOT_DIR;

beforeAll(async () => {
  s = await startStripeSandbox();
  await s.server.worker.start();
  browser = await launchForPages();
}, 120_000);
afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});
afterAll(async () => {
  await closePages(browser);
  await s?.server.worker.stop();
  await s?.close();
});

/** A customer whose card a trial's checkout saved (their Stripe customer made there). */
const customer = () => portalMethods(() => s, () => ({ ...s.seller, sdk: s.sdk, token: s.key })).customer("portal-bank");

async function bodyOnFailure<T>(page: Page, wait: Promise<T>): Promise<T> {
  return wait.catch(async (err: unknown) => {
    throw new Error(`${String(err)}\n${await page.locator("body").innerText()}`);
  });
}

/**
 * The portal of a new customer, in `locale`, with the Stripe.js stand-in; the account typed into its Payment Element by
 * hand.
 */
async function addByHand(locale: string, names: { region: string; form: string; add: string }) {
  const customerId = await customer();
  const page = await pages.open({ viewport: { width: 1280, height: 1000 }, locale });
  const stripeJs = await installStripeJs(page, s.peer);
  const session = await s.sdk.customerSessions.create({ customerId });
  await page.goto(`/portal?customer_session_token=${encodeURIComponent(session.token)}`);
  const methods = page.getByRole("region", { name: names.region, exact: true });
  const add = methods.getByRole("form", { name: names.form });
  await bodyOnFailure(page, add.getByLabel("Routing number").waitFor());
  await add.getByLabel("Full name").fill("Ada Buyer");
  await add.getByLabel("Routing number").fill("110000000");
  await add.getByLabel("Account number").fill("000123456789");
  await add.getByRole("button", { name: names.add }).click();
  return { page, stripeJs, methods };
}

describe("a US bank account verified by microdeposits in the portal", () => {
  it("says what happens next, refuses wrong amounts with Stripe's message, and lists the account once verified", async () => {
    const { page, stripeJs, methods } = await addByHand("en-US", { region: "Payment methods", form: "Add a card", add: "Add card" });
    // the portal's element offers what its setup allows (a method saved there is a dollar one): never a redirect method
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "setup", allowedPaymentMethodTypes: ["card", "us_bank_account"] } });

    const verify = methods.getByRole("form", { name: "Verify your bank account" });
    await bodyOnFailure(page, verify.waitFor());
    // the setup the account was entered for (the last one made): the same list, no automatic_payment_methods
    const setup = s.peer.requests.filter((r) => r.method === "POST" && r.path === "/v1/setup_intents").at(-1);
    expect([setup?.body.allowed_payment_method_types, setup?.body.automatic_payment_methods]).toEqual([["card", "us_bank_account"], undefined]);
    await methods.getByText("Two small deposits are on their way to your bank account to verify it.").waitFor();
    const arrival = new Date(Date.now() + 2 * 86_400_000).toLocaleDateString("en-US", { dateStyle: "long", timeZone: "UTC" });
    await methods.getByText(`Two small deposits will reach your bank account by ${arrival}.`, { exact: false }).waitFor();
    expect(await methods.getByRole("link", { name: "verify the account on Stripe’s page" }).getAttribute("href")).toMatch(/^https:\/\/payments\.stripe\.com\/microdeposit\//);
    // not listed while it waits
    await expect.poll(() => methods.getByText("bank account ending in 6789").count()).toBe(0);
    if (SHOT) await page.screenshot({ path: `${SHOT}/portal-bank-verify.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    await verify.getByLabel("First deposit (cents)").fill("10");
    await verify.getByLabel("Second deposit (cents)").fill("11");
    await verify.getByRole("button", { name: "Verify" }).click();
    await bodyOnFailure(page, verify.getByText(/do not match .* You have 9 verification attempts remaining\./).waitFor());

    await verify.getByLabel("First deposit (cents)").fill("0.32");
    await verify.getByLabel("Second deposit (cents)").fill("45");
    await verify.getByRole("button", { name: "Verify" }).click();
    await bodyOnFailure(page, verify.waitFor({ state: "detached" }));
    await methods.getByText("bank account ending in 6789 (default)").waitFor();
    await methods.getByText("Your bank account ending in 6789 is saved: it pays your next renewals.").waitFor();

    const intent = [...s.peer.payments.intents.values()].find(
      (i) =>
        i.object === "setup_intent" && i.status === "succeeded" && (i.next_action ?? null) === null && i.customer &&
        String(i.payment_method).startsWith("pm_") && s.peer.payments.paymentMethods.get(String(i.payment_method))?.type === "us_bank_account",
    );
    expect(intent).toBeDefined();
    expect(stripeJs.calls).toContain(`POST /v1/setup_intents/${intent?.id}/verify_microdeposits 400`);
    expect(stripeJs.calls).toContain(`POST /v1/setup_intents/${intent?.id}/verify_microdeposits 200`);
    expect(stripeJs.escaped).toEqual([]);
  }, 120_000);

  it("speaks the buyer's language (German)", async () => {
    const { page, methods } = await addByHand("de-DE", { region: "Zahlungsmethoden", form: "Karte hinzufügen", add: "Karte hinzufügen" });
    const verify = methods.getByRole("form", { name: "Bankkonto bestätigen" });
    await bodyOnFailure(page, verify.waitFor());
    await methods.getByText("Zur Bestätigung Ihres Bankkontos sind zwei kleine Gutschriften unterwegs.").waitFor();
    await verify.getByLabel("Erste Gutschrift (Cent)").fill("32");
    await verify.getByLabel("Zweite Gutschrift (Cent)").fill("45");
    await verify.getByRole("button", { name: "Bestätigen" }).click();
    await bodyOnFailure(page, methods.getByText(/^Bankkonto mit Endziffern 6789/).waitFor());
  }, 120_000);
});
