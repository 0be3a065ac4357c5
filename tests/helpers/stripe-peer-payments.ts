// The stand-in's payment objects, written from Stripe's API reference: customers (the map; their routes are
// stripe-peer-customers.ts's, with the billing objects), payment methods (retrieve, attach, detach, list),
// confirmation tokens (Stripe.js's, with the publishable key, and the test helper's), PaymentIntents (create,
// confirm, retrieve, cancel; off-session) and SetupIntents, refunds. It
// follows Stripe's documented test payment methods; a card number typed into the Stripe.js stand-in maps to the
// same ones. What Stripe.js does in its 3-D Secure frame is one stand-in call (POST /v1/3ds2/authenticate, with
// the publishable key and the intent's client secret). Each state change sends Stripe's event (peer.emit).
// Bank debits (SEPA Direct Debit, US bank accounts) follow Stripe's test accounts: a PaymentIntent confirmed with
// one goes `processing` (payment_intent.processing) and stays so until the bank answers — in Stripe's test mode a
// few seconds later, here when the test calls `settleDebit` — then `succeeded`, or `requires_payment_method` with
// `last_payment_error` (payment_intent.payment_failed). A SetupIntent with one succeeds at once (the mandate) —
// except a US account entered by hand: its intent (setup or payment) `requires_action` until its microdeposits are
// verified (stripe-peer-microdeposits.ts). How an intent moves: stripe-peer-intents.ts.
import { newId, noSuch, now } from "./stripe-peer-util.js";
import { intentRoutes, threeDSecureRoute } from "./stripe-peer-intent-routes.js";
import { refundRoutes } from "./stripe-peer-refunds.js";
import { deletedCustomer, removalRoutes } from "./stripe-peer-removals.js";
import type { FastifyRequest } from "fastify";
import { registerMicrodeposits } from "./stripe-peer-microdeposits.js";
import { intentMachine } from "./stripe-peer-intents.js";
import { StripeFailure, type Authed, type Params, type PeerRoute, type StripePeer } from "./stripe-peer.js";
import { bankAccountOf, behaviourOf, type Behaviour, CARD_NUMBERS, instrumentOf, missing, str, TEST_PAYMENT_METHODS } from "./stripe-peer-instruments.js";

export type Obj = Record<string, unknown> & { id: string; account: string; livemode: boolean };
export interface PaymentMethod extends Obj {
  customer: string | null;
  type: string;
  card?: { brand: string; last4: string; exp_month: number; exp_year: number };
  behaviour: Behaviour;
  /** Set up for off-session use (a succeeded SetupIntent or setup_future_usage payment). */
  setUp: boolean;
  /** A US account entered by hand whose microdeposits are not verified yet. */
  unverified: boolean;
}
export interface Intent extends Obj {
  object: "payment_intent" | "setup_intent";
  status: string;
  client_secret: string;
  customer: string | null;
  payment_method: string | null;
  metadata: Record<string, string>;
  setupFutureUsage: boolean;
}

export interface PaymentObjects {
  customers: Map<string, Obj>;
  paymentMethods: Map<string, PaymentMethod>;
  tokens: Map<string, Obj & { template: string; used: boolean; manual: boolean }>;
  intents: Map<string, Intent>;
  refunds: Map<string, Obj>;
  /** The bank's answer to a `processing` debit (a test's control): succeeded or failed as its test account says. */
  settleDebit(intentId: string): void;
  /**
   * The customer's bank transfer arriving at their cash balance (a test's control; Stripe's test helper
   * POST /v1/test_helpers/customers/:id/fund_cash_balance does the same): applied to their waiting transfers.
   */
  fundCashBalance(customerId: string, amount: number, currency: string, reference?: string): Record<string, unknown>;
  /** The customer deleted in Stripe's dashboard (a test's control; DELETE /v1/customers/:id does the same). */
  deleteCustomer(customerId: string): void;
  /**
   * The confirmation token's `expires_at` passed (a test's control: Stripe's tokens expire 12 hours after creation).
   */
  expireToken(tokenId: string): void;
  /**
   * The later answer to a refund not final at once (a test's control): the status given, else what its card's
   * test number does (pending → succeeded; the refund-failure card's succeeded → failed). Sends Stripe's events.
   */
  settleRefund(refundId: string, status?: "succeeded" | "failed" | "canceled"): Obj;
  /** A customer deleted (its retrieve's answer: `deleted: true`), else undefined. */
  deletedCustomer(auth: Authed, id: string): { id: string; object: string; deleted: boolean } | undefined;
  /** Called when a PaymentIntent succeeds (its charge made) and when a refund is made through the API
   *  (stripe-peer-charges.ts keeps its charges and refunds from them). */
  readonly hooks: {
    charged: Array<(auth: Authed, intent: Intent) => void>;
    refunded: Array<(auth: Authed, refund: Obj) => void>;
    /** A refund's status moved on (settleRefund): failed or canceled gives the charge its amount back. */
    refundUpdated: Array<(auth: Authed, refund: Obj) => void>;
  };
}

export function registerPaymentObjects(peer: StripePeer, route: PeerRoute): PaymentObjects {
  const o: PaymentObjects = {
    customers: new Map(),
    paymentMethods: new Map(),
    tokens: new Map(),
    intents: new Map(),
    refunds: new Map(),
    settleDebit: () => undefined,
    fundCashBalance: () => ({}),
    deleteCustomer: () => undefined,
    expireToken: () => undefined,
    settleRefund: () => {
      throw new Error("stand-in: refunds not registered");
    },
    hooks: { charged: [], refunded: [], refundUpdated: [] },
    deletedCustomer: () => undefined,
  };
  const ctx = contextOf(peer, o);
  // customers' own routes are the billing objects' (stripe-peer-customers.ts); a deleted one answers from here
  o.deletedCustomer = (auth, id) => deletedCustomer(ctx, auth, id);
  paymentMethodRoutes(ctx, route);
  confirmationTokenRoutes(ctx, route);
  const machine = intentMachine(ctx, route);
  intentRoutes(ctx, machine, route);
  o.settleDebit = machine.settleDebit;
  o.fundCashBalance = (customerId, amount, currency, reference) => {
    const customer = o.customers.get(customerId);
    if (!customer) throw new Error(`no customer ${customerId}`);
    return machine.transfers.fund(peer.authOf(customer.account, customer.livemode), customerId, amount, currency, reference);
  };
  threeDSecureRoute(ctx, machine, route);
  registerMicrodeposits(ctx, machine, route);
  o.settleRefund = refundRoutes(ctx, route);
  Object.assign(o, removalRoutes(ctx, route));
  return o;
}

/** What every group of routes shares: the objects, Stripe's parameter check, ownership, payment methods. */
function contextOf(peer: StripePeer, o: PaymentObjects) {
  // checked against Stripe's definition before the handler runs (stripe-contract.ts)
  const params = (req: FastifyRequest) => peer.params(req);
  const own = <T extends Obj>(map: Map<string, T>, auth: Authed, id: string, what: string): T => {
    const found = map.get(id);
    if (!found || found.account !== auth.account.id || found.livemode !== auth.livemode) throw noSuch(what, id);
    return found;
  };
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id;
  // ---- payment methods -------------------------------------------------------------------------------
  /** A payment method made from a test one (pm_card_visa) or a token's, as Stripe makes a new pm_ each time. */
  const makeMethod = (auth: Authed, name: string, billing: Params = {}, manual = false): PaymentMethod => {
    const behaviour = behaviourOf(name);
    if (!behaviour) throw noSuch("PaymentMethod", name, "payment_method");
    const pm: PaymentMethod = {
      id: newId("pm"),
      object: "payment_method",
      ...instrumentOf(behaviour),
      billing_details: { name: str(billing.name) ?? null, email: str(billing.email) ?? null, phone: null, address: null },
      customer: null,
      behaviour,
      setUp: false,
      unverified: manual && behaviour.debit?.type === "us_bank_account",
      created: now(),
      account: auth.account.id,
      livemode: auth.livemode,
    };
    o.paymentMethods.set(pm.id, pm);
    return pm;
  };
  const methodOf = (auth: Authed, id: string) => (TEST_PAYMENT_METHODS[id] ? makeMethod(auth, id) : own(o.paymentMethods, auth, id, "PaymentMethod"));
  const publicMethod = ({ behaviour: _b, setUp: _s, unverified: _u, account: _a, ...pm }: PaymentMethod) => pm;
  const methodOfToken = (auth: Authed, id: string, intent?: Intent) => {
    const token = own(o.tokens, auth, id, "ConfirmationToken");
    if (token.used && !peer.reusableTokens) throw new StripeFailure(400, {
      type: "invalid_request_error", code: "confirmation_token_already_used",
      message: "This ConfirmationToken has already been used.",
    });
    tokenFits(token, intent);
    token.used = true;
    return makeMethod(auth, token.template, (token.payment_method_preview as { billing_details?: Params }).billing_details ?? {}, token.manual);
  };

  // ---- what was removed: customers deleted in the dashboard, payment methods detached -----------------
  const removed = { customers: new Map<string, Obj>(), methods: new Set<string>() };
  /** A customer named by a request's `customer`: one deleted (or never made) is missing, as Stripe says it. */
  const customerParam = (auth: Authed, id: string) => {
    if (removed.customers.has(id)) throw noSuch("customer", id, "customer");
    const found = o.customers.get(id);
    if (!found || found.account !== auth.account.id || found.livemode !== auth.livemode) throw noSuch("customer", id, "customer");
    return found;
  };
  /**
   * A payment method named by an intent's `payment_method`: missing (404), or detached and so never usable again (400).
   */
  const paymentMethodParam = (auth: Authed, id: string) => {
    if (TEST_PAYMENT_METHODS[id]) return makeMethod(auth, id);
    const found = o.paymentMethods.get(id);
    if (!found || found.account !== auth.account.id || found.livemode !== auth.livemode) throw noSuch("PaymentMethod", id, "payment_method");
    if (removed.methods.has(id)) {
      throw new StripeFailure(400, {
        type: "invalid_request_error",
        param: "payment_method",
        message: "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.",
      });
    }
    return found;
  };

  return { peer, o, params, own, idOf, makeMethod, methodOf, publicMethod, methodOfToken, removed, customerParam, paymentMethodParam };
}

/**
 * A confirmation token may confirm only what it was made for (https://docs.stripe.com/api/confirmation_tokens/object):
 * before its `expires_at`, and a PaymentIntent whose `setup_future_usage` is the token's (the Payment Element made
 * with `setupFutureUsage` shows the customer the terms of saving the method; an intent that does not save it, or
 * saves one the customer was not told about, is refused).
 */
function tokenFits(token: Obj & { expires_at?: unknown; setup_future_usage?: unknown }, intent: Intent | undefined): void {
  if (Number(token.expires_at) <= now()) {
    throw new StripeFailure(400, {
      type: "invalid_request_error",
      code: "confirmation_token_expired",
      param: "confirmation_token",
      message: `This ConfirmationToken (${token.id}) has expired and can no longer be used to confirm a PaymentIntent or SetupIntent. Create a new ConfirmationToken.`,
    });
  }
  if (intent?.object !== "payment_intent") return;
  const tokenUsage = str(token.setup_future_usage) ?? null;
  const intentUsage = str(intent.setup_future_usage) ?? null;
  if (tokenUsage !== intentUsage) {
    throw new StripeFailure(400, {
      type: "invalid_request_error",
      param: "setup_future_usage",
      message: `The ConfirmationToken's setup_future_usage (${tokenUsage ?? "null"}) does not match the PaymentIntent's setup_future_usage (${intentUsage ?? "null"}). ` +
        `Create the ConfirmationToken with the same setup_future_usage as the PaymentIntent.`,
    });
  }
}
export type Ctx = ReturnType<typeof contextOf>;

function paymentMethodRoutes({ o, params, own, idOf, methodOf, publicMethod, removed, customerParam }: Ctx, route: PeerRoute): void {
  route("GET", "/v1/payment_methods/:id", "payment_method_read", (auth, req) => publicMethod(methodOf(auth, idOf(req))));
  route("POST", "/v1/payment_methods/:id/attach", "payment_method_write", (auth, req) => {
    const p = params(req);
    const customer = str(p.customer);
    if (!customer) throw missing("customer");
    customerParam(auth, customer);
    const pm = methodOf(auth, idOf(req));
    if (pm.customer && pm.customer !== customer) throw new StripeFailure(400, { type: "invalid_request_error", message: "The payment method you provided has already been attached to a customer." });
    if (pm.behaviour.decline) throw new StripeFailure(402, { type: "card_error", code: "card_declined", decline_code: pm.behaviour.decline.decline_code, message: pm.behaviour.decline.message });
    if (pm.behaviour.cardError) throw new StripeFailure(402, { type: "card_error", ...pm.behaviour.cardError });
    pm.customer = customer;
    return publicMethod(pm);
  });
  route("POST", "/v1/payment_methods/:id/detach", "payment_method_write", (auth, req) => {
    const pm = own(o.paymentMethods, auth, idOf(req), "PaymentMethod");
    if (!pm.customer) throw new StripeFailure(400, { type: "invalid_request_error", message: "The payment method you provided is not attached to a customer so detachment is impossible." });
    pm.customer = null;
    removed.methods.add(pm.id);
    return publicMethod(pm);
  });
  const listMethods = (auth: Authed, customer: string) => ({
    object: "list",
    url: "/v1/payment_methods",
    has_more: false,
    data: [...o.paymentMethods.values()].filter((pm) => pm.customer === customer && pm.account === auth.account.id).map(publicMethod),
  });
  route("GET", "/v1/payment_methods", "payment_method_read", (auth, req) => {
    const p = params(req);
    if (!str(p.customer)) throw missing("customer");
    return listMethods(auth, String(p.customer));
  });
  route("GET", "/v1/customers/:id/payment_methods", "payment_method_read", (auth, req) => {
    return listMethods(auth, own(o.customers, auth, idOf(req), "customer").id);
  });

}

function confirmationTokenRoutes({ peer, o, params }: Ctx, route: PeerRoute): void {
  // ---- confirmation tokens ----------------------------------------------------------------------------
  const makeToken = (auth: Authed, template: string, p: Params, manual = false) => {
    const b = behaviourOf(template);
    if (!b) throw new StripeFailure(402, { type: "card_error", code: "incorrect_number", param: "number", message: "Your card number is incorrect." });
    const billing = (((p.payment_method_data ?? {}) as Params).billing_details ?? {}) as Params;
    const token = {
      id: newId("ctoken"),
      object: "confirmation_token",
      created: now(),
      expires_at: now() + 12 * 3600,
      payment_method_preview: { ...instrumentOf(b), billing_details: { name: str(billing.name) ?? null, email: str(billing.email) ?? null } },
      setup_future_usage: str(p.setup_future_usage) ?? null,
      return_url: str(p.return_url) ?? null,
      template,
      used: false,
      manual,
      account: auth.account.id,
      livemode: auth.livemode,
    };
    o.tokens.set(token.id, token);
    const { template: _t, used: _u, manual: _m, account: _a, ...visible } = token;
    return visible;
  };
  // what Stripe.js sends from the Payment Element (publishable key)
  route(
    "POST",
    "/v1/confirmation_tokens",
    "confirmation_token_write",
    (auth, req) => {
      const p = peer.allow(req, ["payment_method_data", "setup_future_usage", "return_url", "shipping", "expand"]);
      const data = (p.payment_method_data ?? {}) as Params;
      const bank = bankAccountOf(data);
      if (bank) return makeToken(auth, bank.account, p, bank.manual);
      const number = String((data.card as Params | undefined)?.number ?? "").replace(/\D/g, "");
      return makeToken(auth, CARD_NUMBERS[number] ?? "", p);
    },
    { publishable: true },
  );
  route("POST", "/v1/test_helpers/confirmation_tokens", "confirmation_token_write", (auth, req) => {
    const p = params(req);
    return makeToken(auth, str(p.payment_method) ?? "", p);
  });
}
