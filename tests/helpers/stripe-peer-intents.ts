// How the stand-in's intents move (PaymentIntents and SetupIntents, stripe-peer-payments.ts holds them): created
// from a request's parameters, confirmed with their payment method as Stripe decides for its test cards and
// accounts (a decline, 3-D Secure, a debit processing, microdeposits), succeeded, and settled by the bank.
import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { DEBIT_FAILURE, missing, str } from "./stripe-peer-instruments.js";
import { chargeableAmount } from "./stripe-peer-intent-routes.js";
import { microdepositAction } from "./stripe-peer-microdeposits.js";
import type { Ctx, Intent, PaymentMethod } from "./stripe-peer-payments.js";
import { StripeFailure, type Authed, type Params, type PeerRoute } from "./stripe-peer.js";
import { isCustomerBalance, registerBankTransfers, type BankTransfers } from "./stripe-peer-bank-transfers.js";
import { expands, newId, now } from "./stripe-peer-util.js";

/**
 * How an intent moves: confirmed with its payment method as Stripe decides for the test cards, succeeded, created; a
 * customer-balance one waits for the customer's bank transfer (stripe-peer-bank-transfers.ts, whose route it adds).
 */
export function intentMachine(ctx: Ctx, route: PeerRoute) {
  const late: { transfers?: BankTransfers } = {};
  const moves = intentMoves(ctx, late);
  const transfers = registerBankTransfers(ctx, moves.emitIntent, moves.succeed, route);
  late.transfers = transfers;
  return { ...moves, transfers, createIntent: intentCreator(ctx, moves, transfers) };
}
export type Machine = ReturnType<typeof intentMachine>;
type Moves = ReturnType<typeof intentMoves>;

/**
 * An intent confirmed with its payment method as Stripe decides for the test cards, succeeded, or settled by the bank.
 */
function intentMoves({ peer, o, publicMethod }: Ctx, late: { transfers?: BankTransfers }) {
  const visible = (intent: Intent, p: Params) => {
    const { account: _a, setupFutureUsage: _s, ...rest } = intent;
    const pm = intent.payment_method ? o.paymentMethods.get(intent.payment_method) : undefined;
    return { ...rest, payment_method: expands(p, "payment_method") && pm ? publicMethod(pm) : intent.payment_method };
  };
  const emitIntent = (auth: Authed, intent: Intent, what: string) => peer.emit(auth, `${intent.object}.${what}`, visible(intent, {}));
  /**
   * A card error other than card_declined: the intent fails with the error's code and, as at Stripe, no decline_code.
   */
  const refuse = (auth: Authed, intent: Intent, pm: PaymentMethod, error: { code: string; message: string; param?: string }): never => {
    const charging = intent.object === "payment_intent";
    intent.status = "requires_payment_method";
    intent.last_payment_error = { type: "card_error", ...error, payment_method: publicMethod(pm) };
    emitIntent(auth, intent, charging ? "payment_failed" : "setup_failed");
    throw new StripeFailure(402, { type: "card_error", ...error, [charging ? "payment_intent" : "setup_intent"]: visible(intent, {}) });
  };
  /**
   * Confirms an intent with its payment method, as Stripe decides for the test cards. Throws Stripe's 402 on a decline.
   */
  const confirm = (auth: Authed, intent: Intent, offSession: boolean) => {
    const pm = intent.payment_method ? o.paymentMethods.get(intent.payment_method) : undefined;
    if (!pm) throw new StripeFailure(400, {
      type: "invalid_request_error", code: "payment_intent_unexpected_state",
      message: "You cannot confirm this PaymentIntent because it's missing a payment method.",
    });
    const b = pm.behaviour;
    const charging = intent.object === "payment_intent";
    const allowed = intent.allowed_payment_method_types as string[] | undefined;
    if (allowed && !allowed.includes(pm.type as string)) {
      throw new StripeFailure(400, {
        type: "invalid_request_error",
        code: "payment_intent_invalid_parameter",
        message: `The PaymentMethod provided (${String(pm.type)}) is not allowed for this ${charging ? "PaymentIntent" : "SetupIntent"}. ` +
          `Please attach a PaymentMethod of one of the following types: ${allowed.join(", ")}.`,
      });
    }
    if (pm.type === "customer_balance" && charging && late.transfers) {
      // nothing to charge: the customer sends the money (its instructions), and Stripe reconciles it
      late.transfers.await(intent);
      return;
    }
    if (pm.unverified) {
      // entered by hand: Stripe sends microdeposits, and the customer verifies them before anything more
      intent.status = "requires_action";
      intent.next_action = microdepositAction();
      emitIntent(auth, intent, "requires_action");
      return;
    }
    if (b.debit && charging) {
      // the debit is sent to the bank: its answer comes later (settleDebit)
      intent.status = "processing";
      intent.next_action = null;
      intent.processing = null;
      emitIntent(auth, intent, "processing");
      return;
    }
    const fail = (code: string, decline_code: string, message: string) => {
      intent.status = "requires_payment_method";
      intent.last_payment_error = { type: "card_error", code, decline_code, message, payment_method: publicMethod(pm) };
      emitIntent(auth, intent, charging ? "payment_failed" : "setup_failed");
      const key = charging ? "payment_intent" : "setup_intent";
      throw new StripeFailure(402, { type: "card_error", code, decline_code, message, [key]: visible(intent, {}) });
    };
    if (b.cardError) refuse(auth, intent, pm, b.cardError);
    if (b.decline) fail("card_declined", b.decline.decline_code, b.decline.message);
    if (charging && b.chargesFail) fail("card_declined", "generic_decline", "Your card was declined.");
    if (charging && b.noFunds) fail("card_declined", "insufficient_funds", "Your card has insufficient funds.");
    const needsAuth = b.auth === "always" || (b.auth === "setup" && !pm.setUp);
    if (needsAuth && offSession) fail("authentication_required", "authentication_required", "Your card was declined. This transaction requires authentication.");
    if (needsAuth) {
      intent.status = "requires_action";
      intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect" } };
      emitIntent(auth, intent, "requires_action");
      return;
    }
    succeed(auth, intent, pm);
  };
  const succeed = (auth: Authed, intent: Intent, pm: PaymentMethod) => {
    intent.status = "succeeded";
    intent.next_action = null;
    intent.last_payment_error = null;
    if (intent.object === "payment_intent") intent.latest_charge = newId("ch");
    if (intent.customer && (intent.setupFutureUsage || intent.object === "setup_intent")) {
      pm.customer = intent.customer;
      pm.setUp = true;
    }
    if (intent.object === "payment_intent") for (const charged of o.hooks.charged) charged(auth, intent);
    emitIntent(auth, intent, "succeeded");
  };
  /**
   * The bank answers a processing debit, as the test account says: the payment succeeds, or fails with the bank's
   * reason.
   */
  const settleDebit = (intentId: string) => {
    const intent = o.intents.get(intentId);
    const pm = intent?.payment_method ? o.paymentMethods.get(intent.payment_method) : undefined;
    if (!intent || !pm || intent.status !== "processing" || !pm.behaviour.debit) throw new Error(`no processing debit ${intentId}`);
    const auth = peer.authOf(intent.account, intent.livemode);
    if (pm.behaviour.debit.outcome === "succeeds") return succeed(auth, intent, pm);
    intent.status = "requires_payment_method";
    intent.last_payment_error = { type: "card_error", ...DEBIT_FAILURE, decline_code: DEBIT_FAILURE.code, payment_method: publicMethod(pm) };
    emitIntent(auth, intent, "payment_failed");
  };
  return { visible, emitIntent, confirm, succeed, settleDebit };
}

/** Creates an intent from a request's parameters, and confirms it at once when they say confirm=true. */
function intentCreator({ o, params, methodOfToken, customerParam, paymentMethodParam }: Ctx, { visible, confirm }: Moves, transfers: BankTransfers) {
  return (auth: Authed, req: FastifyRequest, object: Intent["object"]) => {
    const p = params(req);
    if (object === "payment_intent" && p.amount === undefined) throw missing("amount");
    if (object === "payment_intent" && !str(p.currency)) throw missing("currency");
    if (object === "payment_intent") chargeableAmount(Number(p.amount), String(p.currency));
    if (p.off_session !== undefined && p.confirm !== "true") throw new StripeFailure(400, {
      type: "invalid_request_error", param: "off_session",
      message: "You may only specify `off_session` when `confirm=true`.",
    });
    // Stripe's changelog of the version that added allowed_payment_method_types: it excludes automatic_payment_methods
    if (p.allowed_payment_method_types !== undefined && p.automatic_payment_methods !== undefined) {
      throw new StripeFailure(400, {
        type: "invalid_request_error", code: "parameters_exclusive", param: "allowed_payment_method_types",
        message: "You cannot specify both `allowed_payment_method_types` and `automatic_payment_methods`.",
      });
    }
    const customer = str(p.customer) ?? null;
    if (customer) customerParam(auth, customer);
    const id = newId(object === "payment_intent" ? "pi" : "seti");
    const intent: Intent = {
      id,
      object,
      status: "requires_payment_method",
      client_secret: `${id}_secret_${randomBytes(12).toString("hex")}`,
      customer,
      payment_method: null,
      metadata: (p.metadata ?? {}) as Record<string, string>,
      description: str(p.description) ?? null,
      setupFutureUsage: p.setup_future_usage === "off_session" || p.setup_future_usage === "on_session",
      created: now(),
      account: auth.account.id,
      livemode: auth.livemode,
      ...(object === "payment_intent" ? {
        amount: Number(p.amount), currency: str(p.currency), latest_charge: null,
        setup_future_usage: str(p.setup_future_usage) ?? null,
      } : { usage: str(p.usage) ?? "off_session" }),
      // the request's allowed types; the answer's payment_method_types are those of them the intent can take
      ...(Array.isArray(p.allowed_payment_method_types) ? {
        allowed_payment_method_types: p.allowed_payment_method_types.map(String),
        payment_method_types: p.allowed_payment_method_types.map(String),
      } : {}),
    };
    const pmId = str(p.payment_method);
    const tokenId = str(p.confirmation_token);
    if (object === "payment_intent" && isCustomerBalance(p)) intent.payment_method = transfers.prepare(auth, intent, p).id;
    else if (tokenId) intent.payment_method = methodOfToken(auth, tokenId, intent).id;
    else if (pmId) intent.payment_method = paymentMethodParam(auth, pmId).id;
    if (intent.payment_method && intent.status === "requires_payment_method") intent.status = "requires_confirmation";
    o.intents.set(id, intent);
    if (p.confirm === "true") confirm(auth, intent, p.off_session === "true");
    return visible(intent, p);
  };
}
