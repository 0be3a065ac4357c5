// The Stripe stand-in refuses what the pinned API version refuses, as derived from the installed `stripe` package
// (tests/helpers/stripe-contract.ts): an unknown parameter at any depth, a value a closed enum lacks, another
// Stripe-Version, a route Stripe's library does not call. What till's adapter sends for a payment, a setup, a saved
// method's charge (on- and off-session) and a refund is accepted; the same literal with one more property is not.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStripeProcessor } from "../../server/payments/stripe/adapter.js";
import { stripeClient } from "../../server/payments/stripe/client.js";
import { Receiver } from "../helpers/receiver.js";
import { checkParams, routeKey, stripeContract } from "../helpers/stripe-contract.js";
import { StripePeer, type Params } from "../helpers/stripe-peer.js";
import { PeerCharges } from "../helpers/stripe-peer-charges.js";
import { confirmationToken, STRIPE_CARDS, STRIPE_KEYS } from "../helpers/stripe-sandbox.js";

const account = () => ({ id: "acct_1TillContract", keys: [{ secret: STRIPE_KEYS.secret }, { secret: STRIPE_KEYS.publishable }] });

/** Stripe's error as the client raised it (its type, code, param and message). */
async function refusalOf(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Stripe.errors.StripeError)) throw new Error(`expected Stripe's error, got ${String(err)}`);
  return { status: err.statusCode, type: err.type, code: err.code, param: err.param, message: err.message };
}

/**
 * A request's form body as the client sent it (values as sent: strings), with `extra` more, as the params the client
 * takes.
 */
const sentWith = <T>(body: Params, extra: Params) => ({ ...structuredClone(body), ...extra }) as unknown as T;

describe("the Stripe stand-in checks requests against the pinned stripe package", () => {
  const peer = new StripePeer([account()]);
  new PeerCharges(peer, { followPayments: true });
  let stripe: Stripe;

  beforeAll(async () => {
    stripe = stripeClient(STRIPE_KEYS.secret, await peer.start());
  });
  afterAll(async () => {
    await peer.stop();
  });

  it("derives every v1 route of the package with its parameters, and the pinned version", () => {
    const contract = stripeContract();
    expect(contract.apiVersion).toBe(Stripe.API_VERSION);
    // every v1 request of every resource class, not the few till calls
    expect(Object.keys(contract.routes).length).toBeGreaterThan(500);
    const confirm = contract.routes[routeKey("POST", "/v1/payment_intents/:id/confirm")];
    expect(typeof confirm).toBe("number");
    const create = contract.routes[routeKey("POST", "/v1/payment_intents")] ?? null;
    expect(checkParams(contract, create, { amount: "100", currency: "usd", allowed_payment_method_types: ["card"], metadata: { any_key: "x" }, expand: ["payment_method"] })).toBeUndefined();
    expect(checkParams(contract, create, { amount: "a lot" })).toMatchObject({ code: "parameter_invalid_integer", param: "amount" });
    expect(checkParams(contract, create, { confirm: "yes" })).toMatchObject({ param: "confirm", message: "Invalid boolean: yes" });
  });

  it("refuses a parameter the pinned version removed (payment_method_types on a PaymentIntent) with Stripe's parameter_unknown", async () => {
    const params = { amount: 2000, currency: "usd", payment_method_types: ["card"] } as unknown as Stripe.PaymentIntentCreateParams;
    expect(await refusalOf(stripe.paymentIntents.create(params))).toEqual({
      status: 400,
      type: "StripeInvalidRequestError",
      code: "parameter_unknown",
      param: "payment_method_types",
      message: "Received unknown parameter: payment_method_types",
    });
  });

  it("names a nested unknown parameter by its full path", async () => {
    const params = { amount: 2000, currency: "usd", payment_method_options: { card: { request_three_d_secure: "any", foo: "bar" } } } as unknown as Stripe.PaymentIntentCreateParams;
    expect(await refusalOf(stripe.paymentIntents.create(params))).toMatchObject({
      status: 400,
      code: "parameter_unknown",
      param: "payment_method_options[card][foo]",
      message: "Received unknown parameter: payment_method_options[card][foo]",
    });
    // in a query too (a GET's parameters)
    const list = { limit: 3, created: { gte: 1, after: 2 } } as unknown as Stripe.ChargeListParams;
    expect(await refusalOf(stripe.charges.list(list))).toMatchObject({ status: 400, code: "parameter_unknown", param: "created[after]" });
  });

  it("refuses a value a closed enum lacks, as Stripe words it", async () => {
    const params = { amount: 2000, currency: "usd", payment_method_options: { card: { capture_method: "later" } } } as unknown as Stripe.PaymentIntentCreateParams;
    expect(await refusalOf(stripe.paymentIntents.create(params))).toMatchObject({
      status: 400,
      type: "StripeInvalidRequestError",
      param: "payment_method_options[card][capture_method]",
      message: "Invalid payment_method_options[card][capture_method]: must be one of manual",
    });
    const endpoint = { url: "https://till.example.com/hook", enabled_events: ["charge.refunded"], api_version: "2099-01-01" } as unknown as Stripe.WebhookEndpointCreateParams;
    const refused = await refusalOf(stripe.webhookEndpoints.create(endpoint));
    expect(refused).toMatchObject({ status: 400, param: "api_version" });
    expect(refused.message).toMatch(/^Invalid api_version: must be one of 2011-01-01, .*, or 2026-10-28\.endive$/);
  });

  it("refuses any Stripe-Version but the pinned one, and takes a request without one (the account's default)", async () => {
    const other = new Stripe(STRIPE_KEYS.secret, {
      host: "127.0.0.1", port: Number(new URL(peer.url).port), protocol: "http",
      apiVersion: "2025-09-30.clover" as Stripe.LatestApiVersion, telemetry: false, maxNetworkRetries: 0,
    });
    expect(await refusalOf(other.balance.retrieve())).toMatchObject({ status: 400, type: "StripeInvalidRequestError", message: "Invalid Stripe API version: 2025-09-30.clover" });
    expect((await stripe.balance.retrieve()).object).toBe("balance");
    const bare = await fetch(`${peer.url}/v1/balance`, { headers: { authorization: `Bearer ${STRIPE_KEYS.secret}` } });
    expect(bare.status).toBe(200);
  });

  it("answers a route Stripe does not have with Stripe's 404, and will not serve one of its own under Stripe's name", async () => {
    const res = await fetch(`${peer.url}/v1/payment_intents/pi_1/explode`, { method: "POST", headers: { authorization: `Bearer ${STRIPE_KEYS.secret}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^Unrecognized request URL \(POST: \/v1\/payment_intents\/pi_1\/explode\)\./);
    const invented = new StripePeer([account()]);
    invented.extensions.push((route) => route("POST", "/v1/payment_intents/:id/explode", "payment_intent_write", () => ({})));
    await expect(invented.start()).rejects.toThrow("POST /v1/payment_intents/{}/explode is not a route of stripe");
    await invented.stop();
  });

  it("sends events in the endpoint's api_version, else the pinned one", async () => {
    const receiver = new Receiver();
    await receiver.start();
    receiver.answer("/pinned", { status: 200, body: "{}" });
    receiver.answer("/older", { status: 200, body: "{}" });
    peer.rewriteUrl = (url) => `${receiver.url}${new URL(url).pathname}`;
    await stripe.webhookEndpoints.create({ url: "https://till.example.com/pinned", enabled_events: ["refund.created"] });
    await stripe.webhookEndpoints.create({ url: "https://till.example.com/older", enabled_events: ["refund.created"], api_version: "2025-09-30.clover" });
    peer.emit(peer.authOf("acct_1TillContract", false), "refund.created", { id: "re_1", object: "refund" });
    const versionAt = async (path: string) => {
      const [hit] = await receiver.until((hits) => (hits.some((h) => h.path === path) ? hits.filter((h) => h.path === path) : undefined));
      return (JSON.parse(hit?.body ?? "{}") as { api_version?: string }).api_version;
    };
    expect(await versionAt("/pinned")).toBe(Stripe.API_VERSION);
    expect(await versionAt("/older")).toBe("2025-09-30.clover");
  });
});

describe("what till's Stripe adapter sends is what the pinned version takes", () => {
  const peer = new StripePeer([account()]);
  new PeerCharges(peer, { followPayments: true });
  let stripe: Stripe;

  beforeAll(async () => {
    stripe = stripeClient(STRIPE_KEYS.secret, await peer.start());
  });
  afterAll(async () => {
    await peer.stop();
  });

  const lastBody = (method: string, path: string) => {
    const found = peer.requests.filter((r) => r.method === method && r.path === path).at(-1);
    if (!found) throw new Error(`no ${method} ${path} was made`);
    return found.body;
  };

  it("pays, sets up, charges a saved method on- and off-session, and refunds; the same literal with one more property is refused", async () => {
    const processor = createStripeProcessor(stripe, STRIPE_KEYS.publishable);
    const customer = { id: "cus_till_1", email: "ada@example.com", name: "Ada", processorCustomerId: null };
    const paid = await processor.pay({
      // a token made for a payment kept for later, as the page makes it for a subscription
      confirmationTokenId: await confirmationToken(peer, STRIPE_CARDS.visa, "off_session"),
      amount: 2000,
      currency: "usd",
      description: "Pro",
      setupFutureUsage: true,
      metadata: { checkout_id: "co_1" },
      customer,
    });
    if (!paid.ok) throw new Error(`pay: ${paid.code} ${paid.message}`);
    const payBody = lastBody("POST", "/v1/payment_intents");

    const offSession = await processor.charge({
      paymentMethodId: paid.paymentMethodId, amount: 2000, currency: "usd", description: "Renewal",
      metadata: { subscription_id: "sub_1" }, processorCustomerId: paid.processorCustomerId ?? null,
    });
    expect(offSession).toMatchObject({ ok: true });
    const offSessionBody = lastBody("POST", "/v1/payment_intents");
    expect(offSessionBody).toMatchObject({ off_session: "true", allowed_payment_method_types: ["card"] });

    const onSession = await processor.charge({
      paymentMethodId: paid.paymentMethodId, amount: 500, currency: "usd", description: "Retry", metadata: {},
      processorCustomerId: paid.processorCustomerId ?? null, onSession: true,
    });
    expect(onSession).toMatchObject({ ok: true });

    // nothing due now (a trial): the card is only set up, through a SetupIntent
    const setUp = await processor.pay({
      confirmationTokenId: await confirmationToken(peer, STRIPE_CARDS.visa),
      amount: 0,
      currency: "usd",
      description: "Pro (trial)",
      setupFutureUsage: true,
      metadata: { checkout_id: "co_2" },
      customer: { ...customer, processorCustomerId: paid.processorCustomerId ?? null },
    });
    expect(setUp).toMatchObject({ ok: true });
    const setupBody = lastBody("POST", "/v1/setup_intents");

    const refunded = await processor.refund({ refundId: "rf_1", paymentId: paid.paymentId, amount: 700, currency: "usd", reason: "customer_request", metadata: { refund_id: "rf_1" } });
    expect(refunded).toMatchObject({ ok: true });
    const refundBody = lastBody("POST", "/v1/refunds");

    // the adapter's own literals, each with one property more: refused where Stripe would refuse them
    const extraTop = sentWith<Stripe.PaymentIntentCreateParams>(offSessionBody, { payment_method_types: ["card"] });
    expect(await refusalOf(stripe.paymentIntents.create(extraTop))).toMatchObject({ code: "parameter_unknown", param: "payment_method_types" });
    const extraNested = sentWith<Stripe.PaymentIntentCreateParams>(payBody, { automatic_payment_methods: { enabled: "true", allow_redirects: "never", foo: "bar" } });
    expect(await refusalOf(stripe.paymentIntents.create(extraNested))).toMatchObject({ code: "parameter_unknown", param: "automatic_payment_methods[foo]" });
    const extraSetup = sentWith<Stripe.SetupIntentCreateParams>(setupBody, { setup_future_usage: "off_session" });
    expect(await refusalOf(stripe.setupIntents.create(extraSetup))).toMatchObject({ code: "parameter_unknown", param: "setup_future_usage" });
    const extraRefund = sentWith<Stripe.RefundCreateParams>(refundBody, { note: "x" });
    expect(await refusalOf(stripe.refunds.create(extraRefund))).toMatchObject({ code: "parameter_unknown", param: "note" });
  });
});
