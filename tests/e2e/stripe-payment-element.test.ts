// The hosted checkout's Payment Element on Stripe, in Chromium: it offers only what the confirm completes (created
// with the checkout currency's methods, no redirect method, and the confirm's intent allows the same list), and
// the Stripe.js stand-in behaves as Stripe.js of the endive release. Paying on the page: stripe-checkout-page.test.ts.
import { describe, expect, it } from "vitest";
import { seriousViolations } from "../helpers/browser.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { confirmWithBankAccount, STRIPE_BANK_ACCOUNTS, STRIPE_CARDS, STRIPE_KEYS } from "../helpers/stripe-sandbox.js";
import { installStripeJs } from "../helpers/stripe-js-standin.js";
import { stripeCheckoutFixture } from "./stripe-checkout-fixtures.js";

const fx = stripeCheckoutFixture();

/** The confirm's intent creates at the Stripe stand-in for a checkout: what till sent (secret key). */
const createsOf = (checkoutId: string, path: "/v1/payment_intents" | "/v1/setup_intents") =>
  fx.s.peer.requests.filter((r) => r.method === "POST" && r.path === path && (r.body.metadata as Record<string, string> | undefined)?.checkout_id === checkoutId).map((r) => r.body);

describe("the Payment Element offers only what the confirm completes", () => {
  it("a dollar checkout: the element is created with card and us_bank_account (no IBAN), the intent allows the same, and a card pays", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed");
    const expected = ["card", "us_bank_account"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "payment", currency: "usd", amount: 2500, allowedPaymentMethodTypes: expected } });
    // every options object the page gave Stripe.js keeps the list (an update never widens it)
    for (const made of stripeJs.elements) if (made.options.allowedPaymentMethodTypes !== undefined) expect(made.options.allowedPaymentMethodTypes).toEqual(expected);
    expect(await page.locator("[data-stripe-standin=payment]").getAttribute("data-types")).toBe("card us_bank_account");
    expect(await page.getByLabel("IBAN", { exact: true }).count()).toBe(0);
    await page.getByLabel("Routing number", { exact: true }).waitFor();
    await fx.fill(page, STRIPE_CARDS.visa);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    await page.screenshot({ path: "/tmp/element-usd.png", fullPage: true });
    await button.click();
    await fx.thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/payment_intents");
    expect(more).toEqual([]);
    expect(create?.allowed_payment_method_types).toEqual(expected);
    // exclusive of allowed_payment_method_types in the pinned API version
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(fx.intentsOf(checkout.id).map((i) => [i.status, i.amount])).toEqual([["succeeded", total]]);
    fx.nothingLeft(stripeJs);
  });

  it("a euro checkout: the element is created with card and sepa_debit (no US bank account), the intent allows the same, and a card pays", async () => {
    const { page, stripeJs, checkout } = await fx.open("fixed", "eur");
    const expected = ["card", "sepa_debit"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "payment", currency: "eur", amount: 2500, allowedPaymentMethodTypes: expected } });
    expect(await page.locator("[data-stripe-standin=payment]").getAttribute("data-types")).toBe("card sepa_debit");
    expect(await page.getByLabel("Routing number", { exact: true }).count()).toBe(0);
    await page.getByLabel("IBAN", { exact: true }).waitFor();
    await fx.fill(page, STRIPE_CARDS.visa);
    const { button, total } = await fx.payButtonMatchesApi(page, checkout.id);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: "/tmp/element-eur.png", fullPage: true });
    await button.click();
    await fx.thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/payment_intents");
    expect(more).toEqual([]);
    expect(create).toMatchObject({ currency: "eur", allowed_payment_method_types: expected });
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(fx.intentsOf(checkout.id).map((i) => [i.status, i.amount, i.currency])).toEqual([["succeeded", total, "eur"]]);
    fx.nothingLeft(stripeJs);
  });

  it("a trial (setup mode): the element saves with the subscription currency's methods, and the SetupIntent allows the same", async () => {
    const { page, stripeJs, checkout } = await fx.open("trial");
    const expected = ["card", "us_bank_account"];
    expect(stripeJs.elements[0]).toMatchObject({ call: "elements", options: { mode: "setup", currency: "usd", setupFutureUsage: "off_session", allowedPaymentMethodTypes: expected } });
    expect(stripeJs.elements[0]?.options.amount).toBeUndefined();
    await fx.fill(page, STRIPE_CARDS.visa);
    const { button } = await fx.payButtonMatchesApi(page, checkout.id);
    await button.click();
    await fx.thanks(page);
    const [create, ...more] = createsOf(checkout.id, "/v1/setup_intents");
    expect(more).toEqual([]);
    expect(create?.allowed_payment_method_types).toEqual(expected);
    expect(create?.automatic_payment_methods).toBeUndefined();
    expect(fx.intentsOf(checkout.id).map((i) => [i.object, i.status])).toEqual([["setup_intent", "succeeded"]]);
    fx.nothingLeft(stripeJs);
  });

  it("a method outside the checkout's list (a SEPA debit for dollars) is refused by the confirm's intent: nothing charged, no order", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const checkout = await fx.s.sdk.checkouts.create({ products: [product.id] });
    await expect(confirmWithBankAccount(fx.s, checkout.clientSecret, STRIPE_BANK_ACCOUNTS.sepaSucceeds, uniqueBuyer("element-outside"))).rejects.toThrow(/confirm answered 4\d\d/);
    expect(createsOf(checkout.id, "/v1/payment_intents").map((b) => b.allowed_payment_method_types)).toEqual([["card", "us_bank_account"]]);
    expect(fx.intentsOf(checkout.id).filter((i) => i.status === "succeeded" || i.status === "processing")).toEqual([]);
    expect(await fx.ordersOf(checkout.id)).toEqual([]);
  });
});

describe("the Stripe.js stand-in, as Stripe.js of the endive release", () => {
  it("refuses paymentMethodTypes, shows only the offered types, and refuses a token of a type the element no longer offers", async () => {
    const page = await fx.pages.open();
    const stripeJs = await installStripeJs(page, fx.s.peer);
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
