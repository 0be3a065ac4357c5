// Which payment processor takes an organization's payments: its Stripe account when one is connected
// (server/payments/stripe/), else the built-in test processor — which serves sandbox organizations, and live
// ones only when the server runs with TILL_TEST_PAYMENTS=live (development, tests). The processor handed to
// the billing domains is a router: `processorFor(processor, db, organizationId)` gives the organization's own.
import type { Config } from "../config.js";
import type { ProcessorAccounts } from "./accounts.js";
import type { PaymentProcessor } from "./processor.js";
import { createStripeAccounts } from "./stripe/accounts.js";
import { stripeOf, stripeOfConnection, type StripeContext } from "./stripe/connection.js";
import { createTestProcessor } from "./test-processor.js";
import { countedProcessor } from "./counted.js";

export type { ChargeRequest, NextAction, PaymentCustomer, PaymentProcessor, PaymentRequest, PaymentResult, RefundRequest, RefundResult } from "./processor.js";
export { processorFor } from "./processor.js";
// Where an organization's connection is kept is the router's to know (billing reads it through these names): the
// connection as a column of a statement reading one of the organization's rows (`processorOfConnection` makes it
// its processor), and whether it has one (a processor that takes live payments: real money).
export { connectionSql, hasStripeConnection as hasProcessorConnection } from "./stripe/connection.js";
// …and the last error a payment met on it (`noteProcessorError`, billing/processor-connections).
export { noteLastError as noteConnectionError } from "./stripe/repository.js";

/**
 * The test processor, routing organizations with a Stripe connection to their account when `stripe` (the
 * server secret and Stripe's API URL) is given.
 */
export function createPaymentProcessor(payments: Pick<Config["payments"], "testInLive"> = { testInLive: false }, stripe?: StripeContext): PaymentProcessor {
  const test = createTestProcessor(payments.testInLive);
  if (!stripe) return countedProcessor(test);
  return countedProcessor({
    ...test,
    async forOrganization(db, organizationId) {
      return (await stripeOf(db, stripe, organizationId))?.processor ?? test;
    },
    forConnection(connection) {
      return (connection && stripeOfConnection(stripe, connection)?.processor) ?? test;
    },
  });
}

/** The server's processor: the test processor as configured, each organization's Stripe account when connected. */
export const serverPaymentProcessor = (config: Pick<Config, "payments">, secret: string): PaymentProcessor =>
  createPaymentProcessor(config.payments, { secret, stripeApiUrl: config.payments.stripeApiUrl });

/**
 * The sellers' processor accounts (their connections, events, disputes): Stripe's, the one processor sellers connect.
 */
export function processorAccounts(ctx: { secret: string; stripeApiUrl: string; baseURL: string }): ProcessorAccounts {
  return createStripeAccounts(ctx);
}

/** The server's processor accounts. */
export const serverProcessorAccounts = (config: Pick<Config, "payments" | "baseURL">, secret: string): ProcessorAccounts =>
  processorAccounts({ secret, stripeApiUrl: config.payments.stripeApiUrl, baseURL: config.baseURL });
