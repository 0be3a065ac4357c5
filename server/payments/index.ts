// Which payment processor the server uses. Only the built-in test processor exists so far; the Stripe
// adapter will be chosen here from the configuration.
import type { PaymentProcessor } from "./processor.js";
import { createTestProcessor } from "./test-processor.js";

export type { ChargeRequest, PaymentProcessor, PaymentRequest, PaymentResult, RefundRequest, RefundResult } from "./processor.js";

export function createPaymentProcessor(): PaymentProcessor {
  return createTestProcessor();
}
