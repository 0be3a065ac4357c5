// The hosted checkout paying through Stripe, in Chromium, on a sandbox organization connected to the
// Stripe stand-in: the page loads Stripe.js (the stand-in served through page.route, tests/helpers/stripe-js-standin.ts)
// with the checkout's publishable key, mounts the Payment Element, makes a ConfirmationToken and confirms with it.
// A one-time purchase; a subscription with a trial (a SetupIntent, nothing charged); a 3-D Secure purchase
// (handleNextAction, the challenge completed, and failed; a page reloaded while the challenge is pending resumes it,
// never showing the success view before the payment succeeded); a declined card showing Stripe's message, then
// another card paying; a SEPA debit (a euro checkout) processing, then refused by the bank (the form again, a card
// pays). The Payment Element offers only what the confirm completes: it is created with the checkout currency's
// methods (no redirect method) and the confirm's intent allows the same list.
// Each order is paid once, for the amount the page and the API show; nothing leaves the machine.
import { Polar as Polar049 } from "polar-sdk-049";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formatMoney } from "../../shared/money.js";
import { closePages, launchForPages, PageWatch, seriousViolations } from "../helpers/browser.js";
import { createProduct, uniqueBuyer, type ProductKind } from "../helpers/checkout.js";
import type { Seller } from "../helpers/seller.js";
import { installStripeJs, type StripeJsStandIn } from "../helpers/stripe-js-standin.js";
import { confirmWithBankAccount, startStripeSandbox, STRIPE_BANK_ACCOUNTS, STRIPE_CARDS, STRIPE_KEYS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
let browser: Browser;
const pages = new PageWatch(() => ({ browser, options: { baseURL: s.server.url }, timeout: 20_000 }));

beforeAll(async () => {
  s = await startStripeSandbox();
  seller = { ...s.seller, sdk: s.sdk, token: s.key };
  // Stripe's events (a 3-D Secure payment that succeeded) are processed by the worker
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

interface Opened {
  page: Page;
  stripeJs: StripeJsStandIn;
  checkout: { id: string; clientSecret: string };
}

/** A euro price for `kind` (SEPA Direct Debit is charged in euros only). */
const EUR = { fixed: { prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "eur" }] } } as const;

async function open(kind: ProductKind, currency: "usd" | "eur" = "usd"): Promise<Opened> {
  if (currency === "eur" && kind !== "fixed") throw new Error(`no euro price for ${kind}`);
  const product = await createProduct(seller, kind, currency === "eur" ? EUR.fixed : {});
  // the success view stays on the page (till's base URL is Stripe's public one, not this server)
  const checkout = await s.sdk.checkouts.create({ products: [product.id], successUrl: `${s.server.url}/checkout/thanks?checkout_id={CHECKOUT_ID}` });
  const page = await pages.open({ viewport: { width: 1280, height: 900 } });
  const stripeJs = await installStripeJs(page, s.peer);
  await page.goto(`/checkout/${checkout.clientSecret}`);
  await page.getByLabel("Email", { exact: true }).waitFor();
  await page.getByLabel("Card number", { exact: true }).waitFor();
  return { page, stripeJs, checkout };
}

async function fill(page: Page, card: string) {
  await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page"));
  await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
  await page.getByLabel("Country", { exact: true }).selectOption("FR");
  await typeCard(page, card);
}

async function typeCard(page: Page, card: string) {
  await page.getByLabel("Card number", { exact: true }).fill(card);
  await page.getByLabel("Expiration date", { exact: true }).fill("12 / 34");
  await page.getByLabel("Security code", { exact: true }).fill("123");
}

/** The Pay button once the total is current, and the API's total it must show. */
async function payButtonMatchesApi(page: Page, checkoutId: string) {
  const button = page.locator("button.pay");
  await expect.poll(() => button.isEnabled()).toBe(true);
  const api = await s.sdk.checkouts.get({ id: checkoutId });
  if (!api.activeTrialInterval) await expect.poll(() => button.textContent()).toBe(`Pay ${formatMoney(api.totalAmount, api.currency)}`);
  return { button, total: api.totalAmount };
}

const thanks = (page: Page) => page.getByRole("heading", { level: 1, name: "Thank you for your purchase", exact: true }).waitFor();
const intentsOf = (checkoutId: string) => [...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkoutId);
const ordersOf = async (checkoutId: string) => (await s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId === checkoutId);

function nothingLeft(stripeJs: StripeJsStandIn) {
  expect(stripeJs.escaped).toEqual([]);
  expect(stripeJs.scriptLoads).toBe(1);
}

describe("the checkout page on Stripe", () => {
  it("a one-time purchase: the Payment Element's confirmation token pays a PaymentIntent of the amount shown, once", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.visa);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-checkout.png", fullPage: true });
    await button.click();
    await thanks(page);
    const [intent, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ object: "payment_intent", status: "succeeded", amount: total, currency: "usd" });
    const orders = await ordersOf(checkout.id);
    expect(orders.map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    // the token was made by Stripe.js with the publishable key, never the secret one
    const tokenCalls = s.peer.requests.filter((r) => r.path === "/v1/confirmation_tokens");
    expect(tokenCalls.length).toBeGreaterThan(0);
    expect(tokenCalls.every((r) => r.key === STRIPE_KEYS.publishable)).toBe(true);
    expect(stripeJs.calls).toContain("POST /v1/confirmation_tokens 200");
    nothingLeft(stripeJs);
  });

  it("a SEPA Direct Debit: the page says the payment is processing, no order until the bank answers, then the success view", async () => {
    const { page, stripeJs, checkout } = await open("fixed", "eur");
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page-sepa"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("IBAN", { exact: true }).fill(STRIPE_BANK_ACCOUNTS.sepaSucceeds.iban);
    const { button } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).waitFor();
    await page.getByText("Your bank is processing the payment", { exact: false }).waitFor();
    const [intent, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent?.status).toBe("processing");
    expect(await ordersOf(checkout.id)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-processing.png", fullPage: true });
    // the bank accepts the debit: Stripe's payment_intent.succeeded makes the order, the page shows the success view
    s.peer.payments.settleDebit(intent?.id ?? "");
    await thanks(page);
    expect((await ordersOf(checkout.id)).map((o) => o.status)).toEqual(["paid"]);
    nothingLeft(stripeJs);
  });

  it("a SEPA Direct Debit the bank refuses: 'Payment processing', then the form again with the page's message, and a card pays; one order", async () => {
    const { page, stripeJs, checkout } = await open("fixed", "eur");
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page-sepa-refused"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("IBAN", { exact: true }).fill(STRIPE_BANK_ACCOUNTS.sepaFails.iban);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).waitFor();
    const [debit, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(debit?.status).toBe("processing");
    // the bank refuses: Stripe's payment_intent.payment_failed ends the checkout failed, the page shows the form again
    s.peer.payments.settleDebit(debit?.id ?? "");
    await page.getByText("Your bank did not accept the payment. Please try again or choose another payment method.", { exact: true }).waitFor();
    await page.getByLabel("Card number", { exact: true }).waitFor();
    expect(await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).count()).toBe(0);
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("failed");
    expect(await ordersOf(checkout.id)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-debit-refused.png", fullPage: true });
    // another method: a card pays the failed checkout
    await page.getByLabel("IBAN", { exact: true }).fill("");
    await typeCard(page, STRIPE_CARDS.visa);
    const again = await payButtonMatchesApi(page, checkout.id);
    expect(again.total).toBe(total);
    await again.button.click();
    await thanks(page);
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    const payments = (await s.sdk.payments.list({ checkoutId: checkout.id, sorting: ["created_at"] })).result.items;
    expect(payments.map((p) => [p.status, p.method])).toEqual([
      ["failed", "sepa_debit"],
      ["succeeded", "card"],
    ]);
    nothingLeft(stripeJs);
  });

  it("a subscription with a trial: the Payment Element in setup mode saves the card off-session, nothing is charged", async () => {
    const { page, stripeJs, checkout } = await open("trial");
    await fill(page, STRIPE_CARDS.visa);
    const { button } = await payButtonMatchesApi(page, checkout.id);
    expect(await button.textContent()).toBe("Start trial");
    await button.click();
    await thanks(page);
    const [setup, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(setup).toMatchObject({ object: "setup_intent", status: "succeeded", usage: "off_session" });
    const token = [...s.peer.payments.tokens.values()].find((t) => s.peer.payments.paymentMethods.get(setup?.payment_method ?? "") && t.used && t.setup_future_usage === "off_session");
    expect(token).toBeDefined();
    const subs = (await s.sdk.subscriptions.list({})).result.items.filter((x) => x.checkoutId === checkout.id);
    expect(subs.map((x) => x.status)).toEqual(["trialing"]);
    nothingLeft(stripeJs);
  });

  it("3-D Secure: the confirm answers requires_action, Stripe.js runs the challenge, the checkout completes and the order is paid once", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.threeDS);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    // meanwhile the checkout waits, confirmed, with the intent: both SDKs read its metadata
    const waiting = await s.sdk.checkouts.get({ id: checkout.id });
    expect(waiting.status).toBe("confirmed");
    expect(waiting.paymentProcessorMetadata).toMatchObject({ processor: "stripe", publishable_key: STRIPE_KEYS.publishable, intent_status: "requires_action" });
    const sdk049 = new Polar049({ accessToken: s.key, serverURL: s.server.url });
    expect((await sdk049.checkouts.get({ id: checkout.id })).paymentProcessorMetadata).toMatchObject({ intent_status: "requires_action" });
    expect(await ordersOf(checkout.id)).toEqual([]);
    await challenge.getByRole("button", { name: "Complete" }).click();
    await thanks(page);
    const [intent, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ status: "succeeded", amount: total });
    await until(async () => ((await ordersOf(checkout.id)).length > 0 ? true : undefined), "the order");
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    nothingLeft(stripeJs);
  });

  it("3-D Secure pending and the page reloaded: the reloaded page resumes the challenge (no success view before it), then the order is paid once", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.threeDS);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("confirmed");
    await page.reload();
    // the reloaded page sees the payment still requires action and runs Stripe.js's handleNextAction again
    await challenge.waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Complete your payment");
    expect(await page.getByText("Thank you for your purchase").count()).toBe(0);
    expect(await ordersOf(checkout.id)).toEqual([]);
    await challenge.getByRole("button", { name: "Complete" }).click();
    await thanks(page);
    const [intent, ...more] = intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ status: "succeeded", amount: total });
    await until(async () => ((await ordersOf(checkout.id)).length > 0 ? true : undefined), "the order");
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    expect(stripeJs.escaped).toEqual([]);
    expect(stripeJs.scriptLoads).toBe(2);
  });

  it("3-D Secure pending, the page reloaded and the challenge failed: the form again with Stripe's message, then another card pays", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.authAlways);
    const { button } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    await page.reload();
    await challenge.getByRole("button", { name: "Fail" }).click();
    await expect.poll(() => page.locator("#checkout-payment-error").textContent()).toContain("We are unable to authenticate your payment method.");
    expect(await page.getByText("Thank you for your purchase").count()).toBe(0);
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
    // the form was filled again from the checkout: only the card is typed
    const again = await payButtonMatchesApi(page, checkout.id);
    await typeCard(page, STRIPE_CARDS.visa);
    await again.button.click();
    await thanks(page);
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", again.total]]);
    expect(stripeJs.escaped).toEqual([]);
  });

  it("3-D Secure failed: Stripe's message beside the form once the checkout is open again, then another card pays", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.authAlways);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.getByRole("button", { name: "Fail" }).click();
    await expect.poll(() => page.locator("#checkout-payment-error").textContent()).toContain("We are unable to authenticate your payment method.");
    expect((await s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
    await typeCard(page, STRIPE_CARDS.visa);
    await button.click();
    await thanks(page);
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    nothingLeft(stripeJs);
  });

  it("a declined card: Stripe's message beside the form, then another card pays; one order, paid once", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    await fill(page, STRIPE_CARDS.declined);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    const problem = page.locator("#checkout-payment-error");
    await expect.poll(() => problem.textContent()).toBe("Your card was declined.");
    expect(await page.getByTestId("error-summary").textContent()).toContain("Payment details: Your card was declined.");
    expect(await ordersOf(checkout.id)).toEqual([]);
    await typeCard(page, STRIPE_CARDS.visa);
    await button.click();
    await thanks(page);
    const intents = intentsOf(checkout.id);
    expect(intents.map((i) => i.status).sort()).toEqual(["requires_payment_method", "succeeded"]);
    expect((await ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    const payments = (await s.sdk.payments.list({ checkoutId: checkout.id })).result.items;
    expect(payments.filter((p) => p.status === "succeeded").map((p) => p.amount)).toEqual([total]);
    nothingLeft(stripeJs);
  });
});

/** The confirm's intent creates at the Stripe stand-in for a checkout: what till sent (secret key). */
const createsOf = (checkoutId: string, path: "/v1/payment_intents" | "/v1/setup_intents") =>
  s.peer.requests.filter((r) => r.method === "POST" && r.path === path && (r.body.metadata as Record<string, string> | undefined)?.checkout_id === checkoutId).map((r) => r.body);

describe("the Payment Element offers only what the confirm completes", () => {
  it("a dollar checkout: the element is created with card and us_bank_account (no IBAN), the intent allows the same, and a card pays", async () => {
    const { page, stripeJs, checkout } = await open("fixed");
    const expected = ["card", "us_bank_account"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "payment", currency: "usd", amount: 2500, allowedPaymentMethodTypes: expected } });
    // every options object the page gave Stripe.js keeps the list (an update never widens it)
    for (const made of stripeJs.elements) if (made.options.allowedPaymentMethodTypes !== undefined) expect(made.options.allowedPaymentMethodTypes).toEqual(expected);
    expect(await page.locator("[data-stripe-standin=payment]").getAttribute("data-types")).toBe("card us_bank_account");
    expect(await page.getByLabel("IBAN", { exact: true }).count()).toBe(0);
    await page.getByLabel("Routing number", { exact: true }).waitFor();
    await fill(page, STRIPE_CARDS.visa);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    await page.screenshot({ path: "/tmp/element-usd.png", fullPage: true });
    await button.click();
    await thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/payment_intents");
    expect(more).toEqual([]);
    expect(create?.allowed_payment_method_types).toEqual(expected);
    // exclusive of allowed_payment_method_types in the pinned API version
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(intentsOf(checkout.id).map((i) => [i.status, i.amount])).toEqual([["succeeded", total]]);
    nothingLeft(stripeJs);
  });

  it("a euro checkout: the element is created with card and sepa_debit (no US bank account), the intent allows the same, and a card pays", async () => {
    const { page, stripeJs, checkout } = await open("fixed", "eur");
    const expected = ["card", "sepa_debit"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "payment", currency: "eur", amount: 2500, allowedPaymentMethodTypes: expected } });
    expect(await page.locator("[data-stripe-standin=payment]").getAttribute("data-types")).toBe("card sepa_debit");
    expect(await page.getByLabel("Routing number", { exact: true }).count()).toBe(0);
    await page.getByLabel("IBAN", { exact: true }).waitFor();
    await fill(page, STRIPE_CARDS.visa);
    const { button, total } = await payButtonMatchesApi(page, checkout.id);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/element-eur.png", fullPage: true });
    await button.click();
    await thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/payment_intents");
    expect(more).toEqual([]);
    expect(create).toMatchObject({ currency: "eur", allowed_payment_method_types: expected });
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(intentsOf(checkout.id).map((i) => [i.status, i.amount, i.currency])).toEqual([["succeeded", total, "eur"]]);
    nothingLeft(stripeJs);
  });

  it("a trial (setup mode): the element saves with the subscription currency's methods, and the SetupIntent allows the same", async () => {
    const { page, stripeJs, checkout } = await open("trial");
    const expected = ["card", "us_bank_account"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "setup", currency: "usd", setupFutureUsage: "off_session", allowedPaymentMethodTypes: expected } });
    expect(stripeJs.elements[0]?.options.amount).toBeUndefined();
    await fill(page, STRIPE_CARDS.visa);
    const { button } = await payButtonMatchesApi(page, checkout.id);
    await button.click();
    await thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/setup_intents");
    expect(more).toEqual([]);
    expect(create?.allowed_payment_method_types).toEqual(expected);
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(intentsOf(checkout.id).map((i) => [i.object, i.status])).toEqual([["setup_intent", "succeeded"]]);
    nothingLeft(stripeJs);
  });

  it("a method outside the checkout's list (a SEPA debit for dollars) is refused by the confirm's intent: nothing charged, no order", async () => {
    const product = await createProduct(seller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    await expect(confirmWithBankAccount(s, checkout.clientSecret, STRIPE_BANK_ACCOUNTS.sepaSucceeds, uniqueBuyer("element-outside"))).rejects.toThrow(/confirm answered 4\d\d/);
    expect(createsOf(checkout.id, "/v1/payment_intents").map((b) => b.allowed_payment_method_types)).toEqual([["card", "us_bank_account"]]);
    expect(intentsOf(checkout.id).filter((i) => i.status === "succeeded" || i.status === "processing")).toEqual([]);
    expect(await ordersOf(checkout.id)).toEqual([]);
  });
});

describe("the Stripe.js stand-in, as Stripe.js of the endive release", () => {
  it("refuses paymentMethodTypes, shows only the offered types, and refuses a token of a type the element no longer offers", async () => {
    const page = await pages.open();
    const stripeJs = await installStripeJs(page, s.peer);
    await page.goto("/checkout/thanks");
    await page.addScriptTag({ url: "https://js.stripe.com/endive/stripe.js" });
    const seen = await page.evaluate(async (pk) => {
      type Group = { create(type: string): { mount(node: Element): void }; update(options: object): void };
      type StripeJs = { elements(options: object): Group; createConfirmationToken(o: { elements: Group }): Promise<{ error?: { code?: string } }> };
      const stripe = (window as unknown as { Stripe: (key: string) => StripeJs }).Stripe(pk);
      let refused = "";
      try {
        stripe.elements({ mode: "payment", amount: 2500, currency: "eur", paymentMethodTypes: ["card", "ideal"] });
      } catch (err) {
        refused = String(err);
      }
      const elements = stripe.elements({ mode: "payment", amount: 2500, currency: "eur", allowedPaymentMethodTypes: ["card", "sepa_debit", "us_bank_account"] });
      const node = document.createElement("div");
      document.body.append(node);
      elements.create("payment").mount(node);
      const types = node.querySelector<HTMLElement>("[data-stripe-standin=payment]")?.dataset.types ?? "";
      const iban = node.querySelector<HTMLInputElement>("#stripe-standin-iban");
      if (iban) iban.value = "DE89370400440532013000";
      elements.update({ allowedPaymentMethodTypes: ["card"] });
      const token = await stripe.createConfirmationToken({ elements });
      return { refused, types, code: token.error?.code ?? null };
    }, STRIPE_KEYS.publishable);
    expect(seen).toEqual({ refused: expect.stringContaining("IntegrationError: paymentMethodTypes") as unknown as string, types: "card sepa_debit", code: "payment_method_type_not_allowed" });
    // the refused call made no Elements group; the two calls after it are recorded
    expect(stripeJs.elements.map((e) => [e.call, e.options.allowedPaymentMethodTypes])).toEqual([
      ["elements", ["card", "sepa_debit", "us_bank_account"]],
      ["update", ["card"]],
    ]);
    expect(stripeJs.calls).toEqual([]);
    expect(stripeJs.escaped).toEqual([]);
  });
});
