// A stand-in for Stripe's API on loopback (never shipped), written from Stripe's API reference for the endpoints
// till calls so far: GET /v1/balance, GET /v1/account, webhook endpoints (create, retrieve, list, delete;
// stripe-peer-endpoints.ts), and signed event delivery (the Stripe-Signature scheme: t=<unix>,v1=<hex
// HMAC-SHA256 of "t.payload">). Like Stripe it takes form-encoded bodies (bracket notation), answers an unknown
// key with a 401, a restricted key without the permission with a 403, a Stripe-Version other than the pinned one
// with a 400, a parameter (or an enum value) the installed `stripe` package's types lack with Stripe's 400
// (stripe-contract.ts derives them), a route Stripe's library does not call with Stripe's 404; replays an
// Idempotency-Key's first answer, and refuses endpoint URLs it could not reach (loopback and private hosts).
// The payment objects are stripe-peer-payments.ts's, Stripe Billing's stripe-peer-billing.ts's; a limit of
// requests a second per account, Stripe's 429 over it, is opt-in (stripe-peer-limits.ts).
import { createHmac, randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { checkParams, routeKey, stripeContract } from "./stripe-contract.js";
import { registerWebhookEndpoints } from "./stripe-peer-endpoints.js";
import { registerPaymentObjects, type PaymentObjects } from "./stripe-peer-payments.js";
import { registerBillingObjects, type BillingObjects } from "./stripe-peer-billing.js";
import { PeerLimits } from "./stripe-peer-limits.js";

export interface PeerKey {
  /** sk_test_…, sk_live_…, rk_test_…, rk_live_… */
  secret: string;
  /**
   * For a restricted key: the permissions it has (`balance_read`, `account_read`, `webhook_write`); a secret key
   * has all. A publishable key (pk_…) may call only what Stripe.js calls (routes marked `publishable`).
   */
  permissions?: string[];
}

export interface PeerAccount {
  id: string;
  keys: PeerKey[];
}

export interface PeerEndpoint {
  id: string;
  object: "webhook_endpoint";
  url: string;
  enabled_events: string[];
  /**
   * The version its events are rendered in: the one asked for when it was made, else (null) the account's, the pinned
   * one.
   */
  api_version: string | null;
  description: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  status: "enabled";
  created: number;
  secret: string;
  account: string;
}

export type Params = Record<string, unknown>;

export interface Authed {
  account: PeerAccount;
  key: PeerKey;
  livemode: boolean;
}

export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; param?: string; code?: string; [field: string]: unknown },
    /** Headers the answer carries (a 429's Stripe-Rate-Limited-Reason). */
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }
}

const masked = (key: string) => `${key.slice(0, key.indexOf("_", 3) + 1)}${"*".repeat(12)}${key.slice(-4)}`;

/** `a[b][0]=x&c=y` → { a: { b: ["x"] }, c: "y" } (Stripe's form encoding; numeric indexes make arrays). */
export function parseForm(text: string): Params {
  const out: Params = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.replace(/\]/g, "").split("[");
    let node: Params | unknown[] = out;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1] ?? "");
      const container = node as Record<string, unknown>;
      if (last) container[part] = value;
      else {
        container[part] ??= nextIsIndex ? [] : {};
        node = container[part] as Params | unknown[];
      }
    });
  }
  return out;
}

/**
 * Routes the stand-in serves that Stripe's server library never calls, so the package's types say nothing of
 * them; each checks its own parameters (`peer.allow`). Everything else is checked against stripe-contract.ts.
 */
const OUTSIDE_LIBRARY: Record<string, string> = {
  // Stripe.js's createConfirmationToken, with the publishable key; the library only retrieves them (and makes
  // them in test helpers, from a payment method rather than typed card details)
  "POST /v1/confirmation_tokens": "Stripe.js",
  // what Stripe.js's 3-D Secure frame does with the customer, as one call with the publishable key
  "POST /v1/3ds2/authenticate": "Stripe.js",
};
/** The stand-in's own controls for tests (what Stripe does on its own, a dashboard action), not Stripe's API. */
const isTestControl = (path: string) => path.startsWith("/test-control/");

/** How a route's parameters are checked: against the derived tree (its root), or by the route itself ("own"). */
type ParamCheck = number | null | "own";

/** Registers a route of the stand-in: authenticated with the key's permission, answered like Stripe. */
export type PeerRoute = (
  method: "GET" | "POST" | "DELETE",
  path: string,
  permission: string,
  handler: (auth: Authed, req: FastifyRequest) => unknown,
  opts?: { publishable?: boolean; status?: (answer: unknown) => number },
) => void;

export class StripePeer {
  readonly endpoints = new Map<string, PeerEndpoint>();
  /** Customers, payment methods, confirmation tokens, intents and refunds (stripe-peer-payments.ts). */
  payments!: PaymentObjects;
  /**
   * Products, prices, meters, coupons, promotion codes, customers' tax ids, subscriptions and the billing clock
   * (stripe-peer-billing.ts).
   */
  billing!: BillingObjects;
  /** The opt-in rate limiter (`peer.limits.rateLimit = STRIPE_RATE_LIMITS`) and the requests served per account. */
  readonly limits = new PeerLimits();
  /** Every event sent to an endpoint or listener, in order. */
  readonly events: Array<{ id: string; type: string; object: Record<string, unknown> }> = [];
  /** Benchmarks only: a confirmation token may confirm many intents (Stripe's are single-use). */
  reusableTokens = false;
  /** What each delivery of an event was answered. */
  readonly deliveries: Array<{ id: string; type: string; status: number; body: Record<string, unknown> }> = [];
  /** Where an endpoint's public URL is reached in tests (till's base URL → the test server). */
  rewriteUrl: (url: string) => string = (url) => url;
  /** `stripe listen --forward-to`: events of an account forwarded to a URL, signed with the listener's secret. */
  readonly listeners: Array<{ account: string; livemode: boolean; url: string; secret: string }> = [];
  /**
   * More of Stripe's API, added before start() (tests/helpers/stripe-peer-charges.ts: charges, refunds, disputes,
   * events).
   */
  readonly extensions: Array<(route: PeerRoute, app: FastifyInstance) => void> = [];
  /** Every request as received: method, path, the key used, the parsed body. */
  readonly requests: Array<{ method: string; path: string; key: string; body: Params; idempotencyKey: string | undefined }> = [];
  /**
   * A test's hold on an answer: awaited before each answer is sent (its events already on their way), so a test
   * can make Stripe's event reach till before the answer of the request that caused it.
   */
  holdAnswer: ((req: { method: string; path: string }, answer: unknown) => Promise<void>) | undefined;
  private readonly idempotent = new Map<string, { params: string; status: number; body: unknown }>();
  private app: FastifyInstance | undefined;
  url = "";

  constructor(private readonly accounts: PeerAccount[]) {}

  async start(): Promise<string> {
    // query strings in Stripe's bracket notation too (expand[0]=payment_method)
    const app = Fastify({ routerOptions: { querystringParser: (text: string) => parseForm(text) } });
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => done(null, parseForm(String(body))));
    const contract = stripeContract();
    const route: PeerRoute = (method, path, permission, handler, opts = {}) => {
      const key = routeKey(method, path);
      const check: ParamCheck | undefined = isTestControl(path) || OUTSIDE_LIBRARY[key] ? "own" : contract.routes[key];
      // a route Stripe does not have would let till depend on it: the stand-in refuses to serve one
      if (check === undefined) throw new Error(`Stripe stand-in: ${key} is not a route of stripe ${contract.stripeVersion} (API ${contract.apiVersion})`);
      app.route({ method, url: path, handler: async (req, reply) => this.handle(req, reply, permission, handler, check, opts, isTestControl(path)) });
    };

    route("GET", "/v1/balance", "balance_read", (auth) => {
      return { object: "balance", available: [{ amount: 0, currency: "usd" }], pending: [{ amount: 0, currency: "usd" }], livemode: auth.livemode };
    });
    route("GET", "/v1/account", "account_read", (auth) => {
      return { id: auth.account.id, object: "account", country: "US", default_currency: "usd", charges_enabled: true };
    });
    registerWebhookEndpoints(this, route);
    app.addHook("onSend", async (req, _reply, payload) => {
      if (this.holdAnswer && typeof payload === "string") await this.holdAnswer({ method: req.method, path: req.url.split("?")[0] ?? "" }, JSON.parse(payload) as unknown);
      return payload;
    });
    this.payments = registerPaymentObjects(this, route);
    this.billing = registerBillingObjects(this, route);
    for (const extend of this.extensions) extend(route, app);
    app.setNotFoundHandler((req, reply) =>
      reply.status(404).send({
        error: {
          type: "invalid_request_error",
          message: `Unrecognized request URL (${req.method}: ${req.url.split("?")[0]}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        },
      }),
    );
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no address");
    this.app = app;
    this.url = `http://127.0.0.1:${address.port}`;
    return this.url;
  }

  /** The account's own side (its first key), for what Stripe does on its own: a bank answering a debit. */
  authOf(accountId: string, livemode: boolean): Authed {
    const account = this.accounts.find((a) => a.id === accountId);
    const key = account?.keys[0];
    if (!account || !key) throw new Error(`no account ${accountId}`);
    return { account, key, livemode };
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  /** Sends a signed event of the endpoint's account to its URL (or `url`), as Stripe delivers it. */
  async deliver(
    endpointOrSecret: PeerEndpoint | { secret: string; url: string; livemode: boolean; api_version?: string | null },
    event: { id?: string; type: string; created?: number; data?: unknown },
    opts: { secret?: string; timestamp?: number } = {},
  ) {
    const body = JSON.stringify({
      id: event.id ?? `evt_${randomBytes(12).toString("hex")}`,
      object: "event",
      // rendered in the endpoint's version, else the account's default: here the version the package pins
      api_version: ("api_version" in endpointOrSecret ? endpointOrSecret.api_version : null) ?? stripeContract().apiVersion,
      created: event.created ?? Math.floor(Date.now() / 1000),
      livemode: endpointOrSecret.livemode,
      type: event.type,
      data: event.data ?? { object: {} },
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    });
    const t = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", opts.secret ?? endpointOrSecret.secret).update(`${t}.${body}`).digest("hex");
    const res = await fetch(endpointOrSecret.url, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": `t=${t},v1=${signature}` },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, payload: JSON.parse(body) as { id: string } };
  }

  /**
   * Sends an event of `auth`'s account to every endpoint enabled for its type and every listener, after the answer (as
   * Stripe does).
   */
  emit(auth: Pick<Authed, "account" | "livemode">, type: string, object: Record<string, unknown>): void {
    const id = `evt_${randomBytes(12).toString("hex")}`;
    this.events.push({ id, type, object });
    const targets = [
      ...[...this.endpoints.values()]
        .filter((e) => e.account === auth.account.id && e.livemode === auth.livemode && (e.enabled_events.includes(type) || e.enabled_events.includes("*")))
        .map((e) => ({ secret: e.secret, url: this.rewriteUrl(e.url), livemode: e.livemode, api_version: e.api_version })),
      ...this.listeners.filter((l) => l.account === auth.account.id && l.livemode === auth.livemode),
    ];
    setTimeout(() => {
      for (const target of targets) {
        void this.deliver(target, { id, type, data: { object: structuredClone(object) } }).then(
          (res) => this.deliveries.push({ id, type, status: res.status, body: res.body }),
          (err: unknown) => this.deliveries.push({ id, type, status: 0, body: { error: String(err) } }),
        );
      }
    }, 0);
  }

  /** Like `stripe listen --forward-to url`: the account's events go to `url` signed with the returned secret. */
  listen(account: string, url: string, livemode = false): string {
    const secret = `whsec_${randomBytes(24).toString("base64url")}`;
    this.listeners.push({ account, livemode, url, secret });
    return secret;
  }

  private async handle(
    req: FastifyRequest, reply: FastifyReply, permission: string, handler: (auth: Authed, req: FastifyRequest) => unknown, check: ParamCheck,
    opts: { publishable?: boolean; status?: (answer: unknown) => number } = {}, control = false,
  ) {
    try {
      const auth = this.authenticate(req, permission, opts.publishable === true);
      if (!control) this.limits.take(auth);
      this.checkVersion(req);
      if (check !== "own") this.checkParams(req, auth, check);
      const body = (req.body ?? {}) as Params;
      const idempotencyKey = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined;
      this.requests.push({ method: req.method, path: req.url.split("?")[0] ?? "", key: auth.key.secret, body, idempotencyKey });
      if (idempotencyKey && req.method === "POST") {
        const slot = `${auth.key.secret}\0${idempotencyKey}`;
        const seen = this.idempotent.get(slot);
        // Stripe compares the parameters, not their order in the body (a form's fields, a metadata hash)
        const params = JSON.stringify(canonical(body));
        if (seen) {
          if (seen.params !== params) {
            throw new StripeFailure(400, {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
                `Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
          }
          return reply.status(seen.status).header("idempotent-replayed", "true").send(seen.body);
        }
        let status = 200;
        let answer: unknown;
        try {
          answer = handler(auth, req);
        } catch (err) {
          // Stripe keeps an error answer for the key too (a declined confirm retried stays declined)
          if (!(err instanceof StripeFailure) || err.status >= 500) throw err;
          [status, answer] = [err.status, { error: err.body }];
        }
        this.idempotent.set(slot, { params, status, body: answer });
        return reply.status(status).send(answer);
      }
      return reply.send(handler(auth, req));
    } catch (err) {
      if (err instanceof StripeFailure) return reply.status(err.status).headers(err.headers).send({ error: err.body });
      throw err;
    }
  }

  private authenticate(req: FastifyRequest, permission: string, publishable: boolean): Authed {
    const header = req.headers.authorization ?? "";
    const key = header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!key) {
      throw new StripeFailure(401, {
        type: "invalid_request_error",
        message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      });
    }
    for (const account of this.accounts) {
      const found = account.keys.find((k) => k.secret === key);
      if (!found) continue;
      if (key.startsWith("pk_") && !publishable) {
        throw new StripeFailure(401, {
          type: "invalid_request_error",
          message: "This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.",
        });
      }
      if (found.permissions && !found.permissions.includes(permission)) {
        throw new StripeFailure(403, {
          type: "invalid_request_error",
          message: `The provided key '${masked(key)}' does not have the required permissions for this endpoint on account '${account.id}'. ` +
            `Having the 'rak_${permission}' permission would allow this request to continue.`,
        });
      }
      return { account, key: found, livemode: /_live_/.test(key) };
    }
    throw new StripeFailure(401, { type: "invalid_request_error", message: `Invalid API Key provided: ${masked(key)}` });
  }

  /** A version other than the one the package pins is refused (absent, the account's default: the pinned one). */
  private checkVersion(req: FastifyRequest): void {
    const version = req.headers["stripe-version"];
    if (version === undefined || version === stripeContract().apiVersion) return;
    throw new StripeFailure(400, { type: "invalid_request_error", message: `Invalid Stripe API version: ${String(version)}` });
  }

  /** Stripe answers a parameter its API does not take, or a value its enum lacks, with a 400 naming it. */
  private checkParams(req: FastifyRequest, auth: Authed, root: number | null): void {
    const params = this.params(req);
    // Stripe.js authenticates a publishable-key request on an intent with the intent's client secret, a parameter
    // the server library (secret keys only) never sends
    if (auth.key.secret.startsWith("pk_")) delete params.client_secret;
    const refusal = checkParams(stripeContract(), root, params);
    if (refusal) throw new StripeFailure(400, { ...refusal });
  }

  /** The request's parameters (the query, and the form body of a POST); handle() has checked them against Stripe's. */
  params(req: FastifyRequest): Params {
    return { ...((req.query ?? {}) as Params), ...((req.body ?? {}) as Params) };
  }

  /**
   * For a route outside Stripe's library (OUTSIDE_LIBRARY, the test controls): a name not in `known` is Stripe's 400.
   */
  allow(req: FastifyRequest, known: string[]): Params {
    const params = this.params(req);
    for (const name of Object.keys(params)) {
      if (!known.includes(name)) throw new StripeFailure(400, { type: "invalid_request_error", code: "parameter_unknown", param: name, message: `Received unknown parameter: ${name}` });
    }
    return params;
  }
}

/** A value with every object's keys sorted: two requests' parameters compare equal whatever their order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]));
  return value;
}
