// The /v1 API: Polar's wire format over till's billing domains. Each domain registers its routes here;
// this plugin owns authentication (org scope + permissions) and the Polar-shaped error bodies.
import type { FastifyError, FastifyInstance } from "fastify";
import { ApiError, rejectedInputIssue } from "./errors.js";
import { authenticate } from "./route-auth.js";
import { isMalformedJson, RejectedInput, SMALL_BODY_LIMIT, V1_BODY_LIMIT } from "../http/input-guard.js";
import { methodsOf } from "../http/route-hooks.js";
import { markInputRefusal } from "../http/idempotency.js";
import { isAbortedBody, sendAbortedBody } from "../http/aborted-body.js";
import { benefitRoutes } from "./benefits/routes.js";
import { organizationRoutes } from "./organizations/routes.js";
import { adminRoutes } from "./organizations/admin-routes.js";
import { customFieldRoutes } from "./custom-fields/routes.js";
import { discountRoutes } from "./discounts/routes.js";
import { customerRoutes } from "./customers/routes.js";
import { eventRoutes } from "./events/routes.js";
import { meterRoutes } from "./meters/routes.js";
import { fileRoutes } from "./files/routes.js";
import { productRoutes } from "./products/routes.js";
import { checkoutRoutes } from "./checkouts/routes.js";
import { checkoutLinkRoutes } from "./checkout-links/routes.js";
import { orderRoutes } from "./orders/routes.js";
import { refundRoutes } from "./refunds/routes.js";
import { subscriptionRoutes } from "./subscriptions/routes.js";
import { renewalRoutes } from "./renewal/routes.js";
import { webhookRoutes } from "./webhooks/routes.js";
import { listenRoutes } from "./webhooks/listen.js";
import { licenseKeyRoutes } from "./license-keys/routes.js";
import { customerPortalRoutes } from "./customer-portal/routes.js";
import { customerEmailRoutes } from "./customer-emails/routes.js";
import { customerSeatRoutes } from "./customer-seats/routes.js";
import { invoiceRoutes } from "./invoices/routes.js";
import { testClockRoutes } from "./test-clock/routes.js";
import { benefitDeliveryRoutes } from "./benefit-delivery/routes.js";
import { paymentRoutes } from "./payments/routes.js";
import { dunningRoutes } from "./dunning/routes.js";
import { payLinkRoutes } from "./dunning/pay-link-routes.js";
import { processorConnectionRoutes } from "./processor-connections/routes.js";
import { disputeRoutes } from "./disputes/routes.js";
import { timelineRoutes } from "./timeline/routes.js";
import { processorEventRoutes } from "./processor-events/routes.js";
import { importRoutes } from "./imports/routes.js";
import { CALL_TURN_RETRY_AFTER_SECONDS, CallTurnsBusy } from "../db/call-turns.js";
import { isDatabaseUnavailable, sendDatabaseUnavailable } from "../db/unavailable.js";
import { metricRoutes } from "./metrics/routes.js";
import { usageAlertRoutes } from "./usage-alerts/routes.js";
import { entitlementRoutes } from "./entitlements/routes.js";
import { walletRoutes } from "./wallets/routes.js";
import { installReadRouting } from "./read-routing.js";
import { memberRoutes } from "./members/routes.js";
import { snapshotRoutes } from "./entitlements/snapshot-routes.js";

import type { BillingDeps, DomainRoutes } from "./deps.js";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callerOf, declareContract, installContractCompilers } from "./contract.js";

/** Register a domain's routes here; order does not matter. */
const DOMAINS: DomainRoutes[] = [
  organizationRoutes,
  adminRoutes,
  customFieldRoutes,
  benefitRoutes,
  meterRoutes,
  eventRoutes,
  customerRoutes,
  fileRoutes,
  discountRoutes,
  productRoutes,
  checkoutRoutes,
  checkoutLinkRoutes,
  orderRoutes,
  refundRoutes,
  disputeRoutes,
  timelineRoutes,
  processorEventRoutes,
  importRoutes,
  subscriptionRoutes,
  renewalRoutes,
  webhookRoutes,
  listenRoutes,
  licenseKeyRoutes,
  customerPortalRoutes,
  customerEmailRoutes,
  customerSeatRoutes,
  invoiceRoutes,
  testClockRoutes,
  benefitDeliveryRoutes,
  paymentRoutes,
  dunningRoutes,
  payLinkRoutes,
  processorConnectionRoutes,
  metricRoutes,
  usageAlertRoutes,
  entitlementRoutes,
  walletRoutes,
  memberRoutes,
  snapshotRoutes,
];

const PG_UNIQUE_VIOLATION = "23505";

function isPgError(err: unknown): err is { code: string; detail?: string } {
  return typeof err === "object" && err !== null && typeof (err as { code?: unknown }).code === "string";
}

export function billingPlugin(deps: BillingDeps) {
  return async function billing(app: FastifyInstance): Promise<void> {
    app.setErrorHandler((err: FastifyError, req, reply) => {
      // input refused before the request changed anything: its Idempotency-Key stays unused
      markInputRefusal(req, err);
      if (err instanceof ApiError) return reply.status(err.status).send(err.body);
      if (err instanceof CallTurnsBusy) {
        req.log.warn("payment processor slow: no turn for a charging transaction, answered 503");
        return reply.status(503).header("retry-after", String(CALL_TURN_RETRY_AFTER_SECONDS)).send({ error: "ServiceUnavailable", detail: err.message });
      }
      if (err instanceof RejectedInput) return reply.status(422).send({ detail: [rejectedInputIssue(err)] });
      const cause: unknown = (err as { cause?: unknown }).cause ?? err;
      if (isPgError(cause) && cause.code === PG_UNIQUE_VIOLATION) {
        // services check uniqueness first; this is the race between two writers
        return reply.status(409).send({ error: "Conflict", detail: "A resource with these values already exists." });
      }
      if (isMalformedJson(err)) {
        return reply.status(422).send({ detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] });
      }
      if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
        const limit = req.routeOptions.bodyLimit ?? SMALL_BODY_LIMIT;
        return reply.status(413).send({ error: err.code, detail: `Request body is larger than ${limit / 1024} KiB, this route's limit.` });
      }
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        return reply.status(err.statusCode).send({ error: err.code ?? "BadRequest", detail: err.message });
      }
      if (isDatabaseUnavailable(err)) return sendDatabaseUnavailable(req, reply, err);
      if (isAbortedBody(req, err)) return sendAbortedBody(req, reply);
      req.log.error(err);
      return reply.status(500).send({ error: "InternalServerError", detail: "An unexpected error occurred." });
    });
    app.addHook("onRoute", (route) => {
      // what each route may legitimately receive (README, docs/decisions.md): 128 KiB on routes anyone or a
      // customer may call, 512 KiB on the seller's writes, 1 MiB where a route says so (events/ingest, files)
      route.bodyLimit ??= callerOf(route.config) === "organization" ? V1_BODY_LIMIT : SMALL_BODY_LIMIT;
      declareContract(route);
      const methods = methodsOf(route);
      for (const method of methods) {
        if (method !== "HEAD") deps.routes?.push({ method, url: route.url, caller: callerOf(route.config) });
      }
    });
    if (deps.reads) installReadRouting(app, deps.reads);
    app.addHook("preHandler", authenticate(deps.callers));
    installContractCompilers(app);
    const v1 = app.withTypeProvider<ZodTypeProvider>();
    for (const register of DOMAINS) await register(v1, deps);
  };
}
