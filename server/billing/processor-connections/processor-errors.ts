// A payment the processor could not process for a reason that is not the customer's (PaymentResult.processorError:
// a request it refused as the seller's or till's, a revoked key, a customer deleted in its dashboard, an outage
// that outlasted the client's retries) is the seller's to know about, never the buyer's: the connection keeps the
// last one (`till stripe status`, GET /v1/stripe/connection's `last_error`), the server log names it, and
// the organization's owners are emailed — at most once a day, so that a night of failing renewals is one email.
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import { noteConnectionError } from "../../payments/index.js";
import type { ProcessorError } from "../../payments/processor.js";
import { requestEmail } from "../customer-emails/service.js";
import { ownerEmails } from "../organizations/service.js";

/** How often the owners are emailed about such errors at most. */
export const PROCESSOR_ERROR_MAIL_INTERVAL_MS = 24 * 3600_000;

/** What was being paid when the processor failed: a checkout, a renewal, a plan change, a wallet's top-up, a retry. */
export interface ProcessorErrorContext {
  what: string;
  /** The checkout's or the order's id. */
  id: string;
}

/**
 * The logger the caller has (Fastify's or the worker's); the error's detail is the processor's message, never a secret.
 */
export interface ProcessorErrorLog {
  error(obj: unknown, msg: string): void;
}

/**
 * Records `error` on the organization's processor connection (none: the test processor, nothing to record) and emails
 * the owners when they were not emailed in the last day. Run in a transaction that commits whatever the payment's
 * own outcome (the checkout's purchase is rolled back: the caller runs this after it).
 */
export async function noteProcessorError(db: Queryable, organizationId: string, error: ProcessorError, context: ProcessorErrorContext, now: Date, log?: ProcessorErrorLog): Promise<void> {
  log?.error({ organizationId, code: error.code, transient: error.transient, [context.what]: context.id }, `stripe: a payment could not be processed (${error.code}): ${error.detail}`);
  // one email a day
  const noted = await noteConnectionError(db, organizationId, error, now, new Date(now.getTime() - PROCESSOR_ERROR_MAIL_INTERVAL_MS));
  if (!noted.mail) return;
  const data = { audience: "seller", code: error.code, detail: error.detail.slice(0, 2000), transient: error.transient, what: context.what, id: context.id, at: now.toISOString() };
  const causeId = randomUUID();
  for (const recipient of await ownerEmails(db, organizationId)) {
    await requestEmail(db, { organizationId, causeId, type: "processor_error", recipient, data });
  }
}
