// /v1/test-clock — a till extension (Polar has none; Stripe has test clocks): the sandbox organization's clock.
// GET tells its now; POST /v1/test-clock/advance `{"by": "31d"}` or `{"to": "<date-time>"}` moves it forward and
// answers once the renewals due on the way are done. A live organization is refused (403).
import { serverPaymentProcessor } from "../../payments/index.js";
import type { BillingDeps } from "../deps.js";
import { scopeOf } from "../route-auth.js";
import { AdvanceInput, advanceTestClock, getTestClock } from "./service.js";
import { route, type V1App } from "../contract.js";
import { z } from "zod";
import { notPermitted, validationError } from "../errors.js";

/** The sandbox organization's clock (TestClockWire). */
const TestClock = z.object({
  object: z.literal("test_clock"),
  organization_id: z.uuid(),
  now: z.iso.datetime(),
  offset_ms: z.int(),
  advanced_at: z.iso.datetime().nullable(),
  max_periods_per_advance: z.int(),
});

export function testClockRoutes(app: V1App, { db, config, secret }: BillingDeps): void {
  const deps = { processor: serverPaymentProcessor(config, secret), baseURL: config.baseURL };
  app.get("/test-clock", route({
    scope: "subscriptions:read", operationId: "till:test_clock:get", responses: { 200: TestClock, 403: notPermitted },
  }), async (req) => getTestClock(db, scopeOf(req).organizationId));
  app.post("/test-clock/advance", route({
    scope: "subscriptions:write", operationId: "till:test_clock:advance", body: AdvanceInput,
    responses: { 200: TestClock.extend({ from: z.iso.datetime() }), 403: notPermitted, 422: validationError },
  }), async (req) => {
    const input = req.body;
    return advanceTestClock(db, { ...deps, log: req.log }, scopeOf(req).organizationId, input);
  });
}
