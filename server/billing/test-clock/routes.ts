// /v1/test-clock — a till extension (Polar has none; Stripe has test clocks): the sandbox organization's clock.
// GET tells its now; POST /v1/test-clock/advance `{"by": "31d"}` or `{"to": "<date-time>"}` moves it forward and
// answers once the renewals due on the way are done. A live organization is refused (403).
import type { FastifyInstance } from "fastify";
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { parseBody } from "../http.js";
import { scopeOf } from "../route-auth.js";
import { AdvanceInput, advanceTestClock, getTestClock } from "./service.js";

export function testClockRoutes(app: FastifyInstance, { db, config, secret }: BillingDeps): void {
  const deps = { processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  app.get("/test-clock", { config: { scope: "subscriptions:read" } }, async (req) => getTestClock(db, scopeOf(req).organizationId));
  app.post("/test-clock/advance", { config: { scope: "subscriptions:write" } }, async (req) => {
    const input = parseBody(AdvanceInput, req);
    return advanceTestClock(db, { ...deps, log: req.log }, scopeOf(req).organizationId, input);
  });
}
