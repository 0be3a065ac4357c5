// A stand-in for Stripe.js in Chromium, installed on a Playwright page: requests for
// https://js.stripe.com/** are answered with a small script implementing what till's pages use, and its calls to
// https://api.stripe.com/** are forwarded to the loopback Stripe stand-in (tests/helpers/stripe-peer.ts) — with the
// publishable key, as Stripe.js sends them. Every other request that would leave the machine is aborted and
// recorded in `escaped` (a test expects it empty). Never shipped; never a mock of till's own code. The script
// itself: stripe-js-script.ts.
//
// What the script implements (Stripe.js's names and shapes):
// - `Stripe(pk)` → `elements(options)` (deferred-intent options: mode, amount, currency, setupFutureUsage,
//   allowedPaymentMethodTypes; `update(options)`, `submit()`, `create('payment')` → mount / on / off / update /
//   destroy),
//   `createConfirmationToken({elements, params})`,
//   `handleNextAction({clientSecret})`, `confirmSetup({elements?, clientSecret, confirmParams?, redirect?})`,
//   `confirmPayment(…)` (the same for a PaymentIntent), `retrievePaymentIntent`, `retrieveSetupIntent`,
//   `verifyMicrodepositsForSetup(clientSecret, {amounts} | {descriptor_code})`.
// - The Payment Element is a plain form mounted in the page (no iframe): "Card number", "Expiration date", "Security
//   code" inputs; the test types one of Stripe's test card numbers (STRIPE_CARDS in stripe-sandbox.ts) into it —
//   or, for SEPA Direct Debit, one of Stripe's test IBANs into its "IBAN" input (a sepa_debit confirmation token), or
//   a US bank account entered by hand: "Full name", "Routing number", "Account number" (a us_bank_account token,
//   which Stripe verifies with microdeposits).
// - Like Stripe.js of the endive release (the one @stripe/stripe-js loads), `paymentMethodTypes` in the options of
//   `elements()` or `update()` is an integration error (Stripe's changelog 2026-09-30.endive, "Removes support for the
//   payment method types option in Elements": use `allowedPaymentMethodTypes`). The element offers the types of
//   `allowedPaymentMethodTypes` (all three when it is not given, as a dashboard that turned them on would), those the
//   currency takes (sepa_debit in eur, us_bank_account in usd): only their inputs are shown, and a confirmation token
//   of another type is refused. Every options object the page gave `elements()`/`update()` is recorded (`elements`).
// - 3-D Secure: a dialog ("3D Secure authentication") with the buttons "Complete" and "Fail", as Stripe's test
//   challenge page has; the choice is sent to the stand-in's POST /v1/3ds2/authenticate.
import type { Page, Route } from "playwright-core";
import { STRIPE_JS } from "./stripe-js-script.js";
import type { StripePeer } from "./stripe-peer.js";

export interface StripeJsStandIn {
  /** Requests that would have left the machine (not loopback, not Stripe.js or Stripe's API): aborted. */
  escaped: string[];
  /** Stripe API calls made by the page's Stripe.js, as "POST /v1/confirmation_tokens 200". */
  calls: string[];
  /** How many times the page loaded the Stripe.js script. */
  scriptLoads: number;
  /** The options of each `stripe.elements(options)` and `elements.update(options)` the page made, in order. */
  elements: ElementsCall[];
}

export interface ElementsCall {
  call: "elements" | "update";
  options: { mode?: string; amount?: number; currency?: string; setupFutureUsage?: string; allowedPaymentMethodTypes?: string[]; [option: string]: unknown };
}

const LOOPBACK = /^(127\.|localhost$|\[::1\]$)/;

/** Installs the stand-in on `page` (before it navigates). Calls to Stripe's API go to `peer`. */
export async function installStripeJs(page: Page, peer: StripePeer): Promise<StripeJsStandIn> {
  const seen: StripeJsStandIn = { escaped: [], calls: [], scriptLoads: 0, elements: [] };
  // the script reports the options it was given (it runs in the page; this runs in the test)
  await page.exposeFunction("__stripeStandInElements", (json: string) => {
    seen.elements.push(JSON.parse(json) as ElementsCall);
  });
  // registered first, so the two routes below (registered later) take precedence over it
  await page.route(
    (url) => !LOOPBACK.test(url.hostname) && url.protocol !== "data:" && url.protocol !== "blob:",
    async (route) => {
      seen.escaped.push(route.request().url());
      await route.abort("blockedbyclient");
    },
  );
  await page.route("https://js.stripe.com/**", async (route) => {
    seen.scriptLoads++;
    await route.fulfill({ status: 200, contentType: "application/javascript; charset=utf-8", headers: { "access-control-allow-origin": "*" }, body: STRIPE_JS });
  });
  await page.route("https://api.stripe.com/**", (route) => forward(route, peer, seen));
  return seen;
}

/** Stripe.js sends the publishable key as `key` (query or form body); Stripe's API reads it as the bearer key. */
async function forward(route: Route, peer: StripePeer, seen: StripeJsStandIn): Promise<void> {
  const request = route.request();
  const url = new URL(request.url());
  const query = new URLSearchParams(url.search);
  const body = new URLSearchParams(request.postData() ?? "");
  const key = body.get("key") ?? query.get("key") ?? "";
  body.delete("key");
  query.delete("key");
  const qs = query.toString();
  const res = await fetch(`${peer.url}${url.pathname}${qs ? `?${qs}` : ""}`, {
    method: request.method(),
    headers: { authorization: `Bearer ${key}`, ...(request.method() === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(request.method() === "POST" ? { body: body.toString() } : {}),
  });
  seen.calls.push(`${request.method()} ${url.pathname} ${res.status}`);
  await route.fulfill({ status: res.status, contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: await res.text() });
}
