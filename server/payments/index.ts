// Which payment processor the server uses. Only the built-in test processor exists so far; it serves sandbox
// organizations, and live ones only when the server runs with TILL_TEST_PAYMENTS=live (development, tests).
// The Stripe adapter will be chosen here from the organization's connection.
import type { Config } from "../config.js";
import type { PaymentProcessor } from "./processor.js";
import { createTestProcessor } from "./test-processor.js";

export type { ChargeRequest, PaymentProcessor, PaymentRequest, PaymentResult, RefundRequest, RefundResult } from "./processor.js";

export function createPaymentProcessor(payments: Pick<Config["payments"], "testInLive"> = { testInLive: false }): PaymentProcessor {
  return { ...createTestProcessor(), servesLive: payments.testInLive };
}
