// The hosted checkout paying through Stripe, in Chromium, on a sandbox organization connected to the
// Stripe stand-in: the page loads Stripe.js (the stand-in served through page.route,
// tests/helpers/stripe-js-standin.ts) with the checkout's publishable key, mounts the Payment Element, makes a
// ConfirmationToken and confirms with it. A one-time purchase; a subscription with a trial (a SetupIntent, nothing
// charged); a 3-D Secure purchase (handleNextAction, the challenge completed, and failed; a page reloaded while the
// challenge is pending resumes it, never showing the success view before the payment succeeded); a declined card
// showing Stripe's message, then another card paying; a SEPA debit (a euro checkout) processing, then refused by the
// bank (the form again, a card pays). What the Payment Element offers, and the Stripe.js stand-in itself:
// stripe-payment-element.test.ts. Each order is paid once, for the amount the page and the API show; nothing leaves the
// machine.
import { Polar as Polar049 } from "polar-sdk-049";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "../helpers/browser.js";
import { uniqueBuyer } from "../helpers/checkout.js";
import { STRIPE_BANK_ACCOUNTS, STRIPE_CARDS, STRIPE_KEYS, until } from "../helpers/stripe-sandbox.js";
import { stripeCheckoutFixture } from "./stripe-checkout-fixtures.js";

const fx = stripeCheckoutFixture();

describe("the checkout page on Stripe", () => {
  it("a one-time purchase: the Payment Element's confirmation token pays a PaymentIntent of the amount shown, once", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.visa);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-checkout.png", fullPage: true });
    await button.click();
    await fx.thanks(page);
    const [intent, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ object: "payment_intent", status: "succeeded", amount: total, currency: "usd" });
    const orders = await fx.ordersOf(checkout.id);
    expect(orders.map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    // the token was made by Stripe.js with the publishable key, never the secret one
    const tokenCalls = fx.s.peer.requests.filter((r) => r.path === "/v1/confirmation_tokens");
    expect(tokenCalls.length).toBeGreaterThan(0);
    expect(tokenCalls.every((r) => r.key === STRIPE_KEYS.publishable)).toBe(true);
    expect(stripeJs.calls).toContain("POST /v1/confirmation_tokens 200");
    fx.nothingLeft(stripeJs);
  });

  it("a SEPA Direct Debit: the page says the payment is processing, no order until the bank answers, then the success view", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed", "eur");
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page-sepa"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("IBAN", { exact: true }).fill(STRIPE_BANK_ACCOUNTS.sepaSucceeds.iban);
    const { button } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).waitFor();
    await page.getByText("Your bank is processing the payment", { exact: false }).waitFor();
    const [intent, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent?.status).toBe("processing");
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-processing.png", fullPage: true });
    // the bank accepts the debit: Stripe's payment_intent.succeeded makes the order, the page shows the success view
    fx.s.peer.payments.settleDebit(intent?.id ?? "");
    await fx.thanks(page);
    expect((await fx.ordersOf(checkout.id)).map((o) => o.status)).toEqual(["paid"]);
    fx.nothingLeft(stripeJs);
  });

  it("a SEPA Direct Debit the bank refuses: 'Payment processing', then the form again with the page's message, and a card pays; one order", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed", "eur");
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("stripe-page-sepa-refused"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("IBAN", { exact: true }).fill(STRIPE_BANK_ACCOUNTS.sepaFails.iban);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).waitFor();
    const [debit, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(debit?.status).toBe("processing");
    // the bank refuses: Stripe's payment_intent.payment_failed ends the checkout failed, the page shows the form again
    fx.s.peer.payments.settleDebit(debit?.id ?? "");
    await page.getByText("Your bank did not accept the payment. Please try again or choose another payment method.", { exact: true }).waitFor();
    await page.getByLabel("Card number", { exact: true }).waitFor();
    expect(await page.getByRole("heading", { level: 1, name: "Payment processing", exact: true }).count()).toBe(0);
    expect((await fx.s.sdk.checkouts.get({ id: checkout.id })).status).toBe("failed");
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/i27-page-stripe-debit-refused.png", fullPage: true });
    // another method: a card pays the failed checkout
    await page.getByLabel("IBAN", { exact: true }).fill("");
    await fx.typeCard(page, STRIPE_CARDS.visa);
    const again = await fx.payButtonMatchesApi(page, checkout.id);
    expect(again.total).toBe(total);
    await again.button.click();
    await fx.thanks(page);
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    const payments = (await fx.s.sdk.payments.list({ checkoutId: checkout.id, sorting: ["created_at"] })).result.items;
    expect(payments.map((p) => [p.status, p.method])).toEqual([
      ["failed", "sepa_debit"],
      ["succeeded", "card"],
    ]);
    fx.nothingLeft(stripeJs);
  });

  it("a subscription with a trial: the Payment Element in setup mode saves the card off-session, nothing is charged", async () => {
    const { page, stripeJs, checkout } = await fx.open("trial");
    await fx.fill(page, STRIPE_CARDS.visa);
    const { button } = await fx.payButtonMatchesApi(page, checkout.id);
    expect(await button.textContent()).toBe("Start trial");
    await button.click();
    await fx.thanks(page);
    const [setup, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(setup).toMatchObject({ object: "setup_intent", status: "succeeded", usage: "off_session" });
    const token = [...fx.s.peer.payments.tokens.values()].find((t) => fx.s.peer.payments.paymentMethods.get(setup?.payment_method ?? "") && t.used && t.setup_future_usage === "off_session");
    expect(token).toBeDefined();
    const subs = (await fx.s.sdk.subscriptions.list({})).result.items.filter((x) => x.checkoutId === checkout.id);
    expect(subs.map((x) => x.status)).toEqual(["trialing"]);
    fx.nothingLeft(stripeJs);
  });

  it("3-D Secure: the confirm answers requires_action, Stripe.js runs the challenge, the checkout completes and the order is paid once", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.threeDS);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    // meanwhile the checkout waits, confirmed, with the intent: both SDKs read its metadata
    const waiting = await fx.s.sdk.checkouts.get({ id: checkout.id });
    expect(waiting.status).toBe("confirmed");
    expect(waiting.paymentProcessorMetadata).toMatchObject({ processor: "stripe", publishable_key: STRIPE_KEYS.publishable, intent_status: "requires_action" });
    const sdk049 = new Polar049({ accessToken: fx.s.key, serverURL: fx.s.server.url });
    expect((await sdk049.checkouts.get({ id: checkout.id })).paymentProcessorMetadata).toMatchObject({ intent_status: "requires_action" });
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
    await challenge.getByRole("button", { name: "Complete" }).click();
    await fx.thanks(page);
    const [intent, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ status: "succeeded", amount: total });
    await until(async () => ((await fx.ordersOf(checkout.id)).length > 0 ? true : undefined), "the order");
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    fx.nothingLeft(stripeJs);
  });

  it("3-D Secure pending and the page reloaded: the reloaded page resumes the challenge (no success view before it), then the order is paid once", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.threeDS);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    expect((await fx.s.sdk.checkouts.get({ id: checkout.id })).status).toBe("confirmed");
    await page.reload();
    // the reloaded page sees the payment still requires action and runs Stripe.js's handleNextAction again
    await challenge.waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Complete your payment");
    expect(await page.getByText("Thank you for your purchase").count()).toBe(0);
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
    await challenge.getByRole("button", { name: "Complete" }).click();
    await fx.thanks(page);
    const [intent, ...more] = fx.intentsOf(checkout.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ status: "succeeded", amount: total });
    await until(async () => ((await fx.ordersOf(checkout.id)).length > 0 ? true : undefined), "the order");
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    expect(stripeJs.escaped).toEqual([]);
    expect(stripeJs.scriptLoads).toBe(2);
  });

  it("3-D Secure pending, the page reloaded and the challenge failed: the form again with Stripe's message, then another card pays", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.authAlways);
    const { button } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.waitFor();
    await page.reload();
    await challenge.getByRole("button", { name: "Fail" }).click();
    await expect.poll(() => page.locator("#checkout-payment-error").textContent()).toContain("We are unable to authenticate your payment method.");
    expect(await page.getByText("Thank you for your purchase").count()).toBe(0);
    expect((await fx.s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
    // the form was filled again from the checkout: only the card is typed
    const again = await fx.payButtonMatchesApi(page, checkout.id);
    await fx.typeCard(page, STRIPE_CARDS.visa);
    await again.button.click();
    await fx.thanks(page);
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", again.total]]);
    expect(stripeJs.escaped).toEqual([]);
  });

  it("3-D Secure failed: Stripe's message beside the form once the checkout is open again, then another card pays", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.authAlways);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.getByRole("button", { name: "Fail" }).click();
    await expect.poll(() => page.locator("#checkout-payment-error").textContent()).toContain("We are unable to authenticate your payment method.");
    expect((await fx.s.sdk.checkouts.get({ id: checkout.id })).status).toBe("open");
    await fx.typeCard(page, STRIPE_CARDS.visa);
    await button.click();
    await fx.thanks(page);
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    fx.nothingLeft(stripeJs);
  });

  it("a declined card: Stripe's message beside the form, then another card pays; one order, paid once", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    await fx.fill(page, STRIPE_CARDS.declined);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    const problem = page.locator("#checkout-payment-error");
    await expect.poll(() => problem.textContent()).toBe("Your card was declined.");
    expect(await page.getByTestId("error-summary").textContent()).toContain("Payment details: Your card was declined.");
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
    await fx.typeCard(page, STRIPE_CARDS.visa);
    await button.click();
    await fx.thanks(page);
    const intents = fx.intentsOf(checkout.id);
    expect(intents.map((i) => i.status).sort()).toEqual(["requires_payment_method", "succeeded"]);
    expect((await fx.ordersOf(checkout.id)).map((o) => [o.status, o.totalAmount])).toEqual([["paid", total]]);
    const payments = (await fx.s.sdk.payments.list({ checkoutId: checkout.id })).result.items;
    expect(payments.filter((p) => p.status === "succeeded").map((p) => p.amount)).toEqual([total]);
    fx.nothingLeft(stripeJs);
  });
});
