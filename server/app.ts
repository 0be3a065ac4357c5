// buildApp(deps): the whole server as one Fastify instance. main.ts listens with it; tests build it in-process.
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fromNodeHeaders } from "better-auth/node";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { loggerOptions, RequestLog } from "./http/request-log.js";
import { rememberAddress } from "./http/log-redaction.js";
import type { Config } from "./config.js";
import type { Database } from "./db/client.js";
import { sealLeftoverSecrets } from "./db/sealed-secrets.js";
import { useServerSecret } from "./seal.js";
import { isDatabaseUnavailable, sendDatabaseUnavailable } from "./db/unavailable.js";
import { isAbortedBody, sendAbortedBody } from "./http/aborted-body.js";
import type { Mailer } from "./mail/mailer.js";
import { devMailPlugin } from "./mail/dev-mailbox.js";
import { createAuth, type Auth, type PasswordHashing } from "./auth/index.js";
import { authPlugin } from "./auth/plugin.js";
import { createCallerResolver, type CallerResolver } from "./auth/caller.js";
import { referencePlugin } from "./openapi/reference.js";
import { installOpenApi } from "./openapi/openapi.js";
import { whoamiPlugin } from "./http/whoami.js";
import { webApiPlugin } from "./http/web-api.js";
import { billingPlugin } from "./billing/index.js";
import type { V1Route } from "./billing/deps.js";
import { webPlugin } from "./http/web.js";
import { installInputGuard, LARGE_BODY_LIMIT, SMALL_BODY_LIMIT } from "./http/input-guard.js";
import { inboundWebhooksPlugin } from "./billing/webhooks/inbound.js";
import { jwksPlugin } from "./billing/entitlements/jwks-routes.js";
import { stripeWebhookPlugin } from "./payments/stripe/webhook.js";
import { createWorker, type Worker } from "./jobs/worker.js";
import { installIdempotency, requestScope } from "./http/idempotency.js";
import { methodsOf } from "./http/route-hooks.js";
import { installMetrics, type Metrics } from "./metrics/endpoint.js";
import { installReadiness, type Readiness } from "./metrics/readiness.js";

export interface AppDeps {
  config: Config;
  database: Database;
  mailer: Mailer;
  secret: string;
  logger?: boolean;
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: NodeJS.WritableStream;
  /** A cheaper password hash for the tests' in-process servers; main.ts passes none (better-auth's scrypt). */
  passwordHashing?: PasswordHashing;
}

export interface App {
  app: FastifyInstance;
  auth: Auth;
  callers: CallerResolver;
  /** Every /v1 route (method, url), for tests and the API reference. */
  v1Routes: V1Route[];
  /** Every route the app serves (method, url: `/v1/files/:id`, `/api/auth/*`), for tests that try each one. */
  routes: Array<{ method: string; url: string }>;
  /**
   * The jobs worker (webhook delivery): main.ts starts it after listen, tests when they need it; closing the app stops
   * it.
   */
  worker: Worker;
  /** /readyz's state: main.ts drains it on SIGTERM before closing. */
  readiness: Readiness;
  /** The metrics port's address, when TILL_METRICS_PORT opens one. */
  metrics: Metrics;
}

const ROUTER_ERRORS: Record<string, string> = {
  FST_ERR_MAX_PARAM_LENGTH: "A path parameter is too long.",
  FST_ERR_BAD_URL: "The URL is malformed.",
};

/** The router's own refusals in the {"error","detail"} shape, without echoing the path back. */
function sendRouterError(err: FastifyError, reply: FastifyReply): FastifyReply {
  return reply.status(err.statusCode ?? 400).send({ error: err.code, detail: ROUTER_ERRORS[err.code] ?? err.message });
}

/**
 * Request bodies above this are refused (413) before they are read whole, whatever the parser; JSON bodies
 * have smaller limits per route (SMALL_BODY_LIMIT unless the route says otherwise; /v1 sets its own).
 */
const BODY_LIMIT = LARGE_BODY_LIMIT;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database, mailer, secret } = deps;
  // the billing tables' secrets are sealed with it; rows still in clear are sealed before any request is served
  useServerSecret(secret);
  await sealLeftoverSecrets(database.db, secret);
  const auth = createAuth({ config, db: database.db, mailer, secret, passwordHashing: deps.passwordHashing });
  const callers = createCallerResolver(database.db);
  const app = Fastify({
    // request URLs can carry credentials (portal links, signed downloads, reset tokens): logged redacted
    logger: deps.logger ? loggerOptions(config, deps.logStream) : false,
    // one line per request (request-log.ts) instead of Fastify's "incoming request" + "request completed"
    logController: new RequestLog(),
    // unique across restarts and replicas (Fastify's default counts from req-1 in each process)
    genReqId: () => randomUUID(),
    // X-Forwarded-For is honoured only from loopback proxies; set TILL_TRUST_PROXY for others (see README)
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT,
    // Polar's collection paths end in "/" (`/v1/products/`); serve both spellings
    routerOptions: { ignoreTrailingSlash: true },
    // an over-long path parameter (414) or a malformed percent-encoding (400) answers like every other error
    frameworkErrors: (err, _req, reply) => sendRouterError(err, reply as FastifyReply),
  });

  const routes: App["routes"] = [];
  app.addHook("onRoute", (route) => {
    for (const method of methodsOf(route)) routes.push({ method, url: route.url });
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    // PostgreSQL restarting, failing over or dropping connections: the client may retry shortly (db/unavailable.ts)
    if (status === 500 && isDatabaseUnavailable(err)) return sendDatabaseUnavailable(req, reply, err);
    if (status === 500 && isAbortedBody(req, err)) return sendAbortedBody(req, reply);
    if (status === 500) req.log.error(err);
    return reply.status(status).send({
      error: status === 500 ? "InternalServerError" : (err.code ?? "BadRequest"),
      detail: status === 500 ? "An unexpected error occurred." : err.message,
    });
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send({ error: "ResourceNotFound", detail: `No route for ${req.method} ${req.url.split("?")[0]}` }),
  );

  // before any route: @fastify/swagger collects the /v1 routes' contracts as they register (server/openapi/openapi.ts)
  const v1Document = await installOpenApi(app, config.baseURL);
  // JSON depth and unstorable characters, for every route registered below (server/http/input-guard.ts)
  installInputGuard(app, SMALL_BODY_LIMIT);
  // the id of the request's log lines, so a client (`till --verbose`) can quote it
  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });
  // the client's address for the request's log line, read while its connection is open (log-redaction.ts)
  if (deps.logger) {
    app.addHook("onRequest", (req, _reply, done) => {
      rememberAddress(req);
      done();
    });
  }
  app.get("/healthz", async () => ({ status: "ok" }));
  const worker = createWorker({ database, mailer, config, secret, log: app.log });
  app.addHook("preClose", async () => worker.stop());
  // /readyz and /metrics (server/metrics/): the metrics' request counting sees every route registered below
  const readiness = installReadiness(app, { database, worker });
  const metrics = installMetrics(app, config.metrics, { database, heartbeats: () => worker.heartbeats() });
  // before any route is registered: it adds itself to every write route under /v1 and to /api/auth/checkout
  installIdempotency(app, {
    db: database.db,
    secret,
    scopeOf: requestScope(async (req) => {
      const session = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
      return session?.user.id ?? null;
    }),
  });
  if (config.webhooks.inboundSecret) {
    // a route of its own beside the /api/auth wildcard, with the raw body its signature covers
    await app.register(inboundWebhooksPlugin({ db: database.db, secret: config.webhooks.inboundSecret }));
  }
  // Stripe's events for each connected account, with the raw body their signature covers
  await app.register(
    stripeWebhookPlugin({ db: database.db, secret }),
  );
  await app.register(authPlugin(auth, () => callers.clear()));
  const v1Routes: V1Route[] = [];
  await app.register(referencePlugin(auth, v1Document));
  await app.register(whoamiPlugin(callers));
  // the organizations' public keys of entitlement snapshots, for anyone (billing/entitlements/jwks-routes.ts)
  await app.register(jwksPlugin({ db: database.db }));
  await app.register(webApiPlugin(auth));
  await app.register(billingPlugin({ db: database.db, config, secret, mailer, callers, routes: v1Routes, listen: database.listen, driver: database.driver, reads: database.reads }), { prefix: "/v1" });
  // the dev mailbox in the browser: development with the dev mailbox only (its .eml/.json under <data dir>/mail)
  if (config.development && mailer.transport === "dev-mailbox") await app.register(devMailPlugin({ mailDir: path.join(config.dataDir, "mail") }));
  await app.register(webPlugin(config));
  return { app, auth, callers, v1Routes, routes, worker, readiness, metrics };
}
