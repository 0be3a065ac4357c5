// A US bank account entered by hand in the portal (routing and account numbers, not linked through
// the bank login). Stripe verifies it with microdeposits: its SetupIntent `requires_action` with next_action
// `verify_with_microdeposits`, and the portal answers what the page tells the customer (when the deposits arrive,
// Stripe's verification page, amounts or a code) — through both SDKs — instead of a refusal. The stand-in is driven
// through the official `stripe` library (and Stripe.js's publishable-key call): wrong amounts are Stripe's 400 with
// the attempts left, the tenth wrong attempt fails the setup (nothing kept); the right amounts (32, 45) or code
// (SM11AA) succeed it and setup_intent.succeeded keeps the account for the customer, as the page's confirm does.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stripe, stripeClient } from "../../server/payments/stripe/client.js";
import type { Seller } from "../helpers/seller.js";
import { PAYMENT_METHODS, portalMethods } from "../helpers/stripe-portal-methods.js";
import { bankDebitToken, startStripeSandbox, STRIPE_BANK_ACCOUNTS, STRIPE_KEYS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
let stripe: Stripe;

beforeAll(async () => {
  s = await startStripeSandbox();
  seller = { ...s.seller, sdk: s.sdk, token: s.key };
  stripe = stripeClient(STRIPE_KEYS.secret, s.peer.url);
  await s.server.worker.start();
}, 120_000);
afterAll(async () => {
  await s?.server.worker.stop();
  await s?.close();
});

const { sessionOf, portal, methodsOf, processed, customer } = portalMethods(() => s, () => seller);
const base = PAYMENT_METHODS;

/** The account entered by hand in the portal: the answer waits for its microdeposits. */
async function addByHand(customerId: string) {
  const res = await portal(customerId, "POST", base, { confirmation_token_id: await bankDebitToken(s.peer, STRIPE_BANK_ACCOUNTS.usManual), set_default: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const body = res.body as {
    status: string;
    client_secret: string;
    next_action?: { type: string; verify_with_microdeposits: { arrival_date: string; hosted_verification_url: string; microdeposit_type: string } };
  };
  return { body, secret: body.client_secret, intentId: body.client_secret.split("_secret_")[0] ?? "" };
}

const stripeError = async (call: Promise<unknown>) => {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Stripe.errors.StripeError)) throw new Error(`expected Stripe's error, got ${String(err)}`);
  return { status: err.statusCode, code: err.code, message: err.message };
};

describe("a US bank account verified by microdeposits in the portal", () => {
  it("answers requires_action with the microdeposits (both SDKs); wrong amounts are refused with the attempts left; the right ones keep the account", async () => {
    const customerId = await customer("microdeposits");
    const { body, intentId } = await addByHand(customerId);
    expect(body).toMatchObject({ status: "requires_action", next_action: { type: "verify_with_microdeposits", verify_with_microdeposits: { microdeposit_type: "amounts" } } });
    const verify = body.next_action?.verify_with_microdeposits;
    expect(verify?.hosted_verification_url).toMatch(/^https:\/\/payments\.stripe\.com\/microdeposit\//);
    expect(new Date(verify?.arrival_date ?? "").getTime()).toBeGreaterThan(Date.now());
    expect(await stripe.setupIntents.retrieve(intentId)).toMatchObject({ status: "requires_action", next_action: { type: "verify_with_microdeposits" } });
    // both SDKs parse the answer as Polar's requires_action (till's next_action is an addition they ignore)
    const token = await sessionOf(customerId);
    for (const sdk of [new Polar({ serverURL: s.server.url }), new Polar049({ serverURL: s.server.url })]) {
      const answer = await sdk.customerPortal.customers.addPaymentMethod({ customerSession: token }, {
        confirmationTokenId: await bankDebitToken(s.peer, STRIPE_BANK_ACCOUNTS.usManual), setDefault: false,
        returnUrl: "https://shop.example.com/back",
      });
      expect(answer).toMatchObject({ status: "requires_action", clientSecret: expect.stringMatching(/^seti_/) });
    }
    // nothing is kept while the deposits are on their way
    expect((await methodsOf(customerId)).map((m) => m.method_metadata.last4)).toEqual(["4242"]);

    const wrong = await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [10, 11] }));
    expect(wrong).toEqual({ status: 400, code: "payment_method_microdeposit_verification_amounts_mismatch", message: expect.stringContaining("You have 9 verification attempts remaining.") });
    // Stripe refuses a malformed request without counting it
    expect((await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [32] }))).code).toBe("payment_method_microdeposit_verification_amounts_invalid");
    expect((await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [32, 45], descriptor_code: "SM11AA" }))).status).toBe(400);

    const verified = await stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [32, 45] });
    expect([verified.status, verified.next_action]).toEqual(["succeeded", null]);
    await processed(intentId, "setup_intent.succeeded");
    const kept = await until(async () => {
      const items = await methodsOf(customerId);
      return items.length === 2 ? items : undefined;
    }, "the account kept");
    expect(kept.find((m) => m.method_metadata.last4 === "6789")).toMatchObject({ method_metadata: { brand: "us_bank_account" } });
    // verified already: Stripe refuses another verification
    expect((await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [32, 45] }))).code).toBe("setup_intent_unexpected_state");
  }, 60_000);

  it("the descriptor code through Stripe.js's publishable key, then the page's confirm, saves the account as the default", async () => {
    const customerId = await customer("microdeposits-code");
    const { secret, intentId } = await addByHand(customerId);
    // still waiting: the page's confirm answers what it needs again, not a refusal
    const early = await portal(customerId, "POST", `${base}/confirm`, { setup_intent_id: intentId, set_default: true });
    expect([early.status, (early.body as { status: string; next_action?: { type: string } }).next_action?.type]).toEqual([201, "verify_with_microdeposits"]);
    const res = await fetch(`${s.peer.url}/v1/setup_intents/${intentId}/verify_microdeposits`, {
      method: "POST",
      headers: { authorization: `Bearer ${STRIPE_KEYS.publishable}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_secret: secret, descriptor_code: "SM11AA" }),
    });
    expect([res.status, ((await res.json()) as { status: string }).status]).toEqual([200, "succeeded"]);
    const confirmed = await portal(customerId, "POST", `${base}/confirm`, { setup_intent_id: intentId, set_default: true });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(201);
    expect(confirmed.body).toMatchObject({ status: "succeeded", payment_method: { method_metadata: { last4: "6789" }, is_default: true } });
    await processed(intentId, "setup_intent.succeeded");
    expect((await methodsOf(customerId)).map((m) => [m.method_metadata.last4, m.is_default])).toEqual(expect.arrayContaining([["6789", true], ["4242", false]]));
  }, 60_000);

  it("ten wrong attempts fail the setup (setup_intent.setup_failed): nothing is kept and Stripe takes no more", async () => {
    const customerId = await customer("microdeposits-limit");
    const { intentId } = await addByHand(customerId);
    for (let i = 1; i < 10; i++) expect((await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [1, 2] }))).message).toContain(`You have ${10 - i} verification attempt`);
    const last = await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [1, 2] }));
    expect(last).toMatchObject({ status: 400, code: "payment_method_microdeposit_verification_attempts_exceeded" });
    expect(await stripe.setupIntents.retrieve(intentId)).toMatchObject({ status: "requires_payment_method", last_setup_error: { code: "payment_method_microdeposit_verification_attempts_exceeded" } });
    expect((await stripeError(stripe.setupIntents.verifyMicrodeposits(intentId, { amounts: [32, 45] }))).code).toBe("setup_intent_unexpected_state");
    await processed(intentId, "setup_intent.setup_failed");
    expect((await methodsOf(customerId)).map((m) => m.method_metadata.last4)).toEqual(["4242"]);
    // the page's confirm of the failed setup: Stripe's reason, as the 422 both SDKs model there
    const confirmed = await portal(customerId, "POST", `${base}/confirm`, { setup_intent_id: intentId, set_default: true });
    expect(confirmed.status).toBe(422);
    expect(JSON.stringify(confirmed.body)).toContain("exceeded the number of allowed verification attempts");
  }, 60_000);
});
