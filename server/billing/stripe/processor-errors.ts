// A payment Stripe could not process for a reason that is not the customer's (PaymentResult.processorError: a
// request Stripe refused as the seller's or till's, a revoked key, a customer deleted in Stripe's dashboard, an
// outage that outlasted the client's retries) is the seller's to know about, never the buyer's: the connection
// keeps the last one (`till stripe status`, GET /v1/stripe/connection's `last_error`), the server log names it, and
// the organization's owners are emailed — at most once a day, so that a night of failing renewals is one email.
import { randomUUID } from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { stripeConnection } from "../../db/schema/index.js";
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

/** The logger the caller has (Fastify's or the worker's); the error's detail is Stripe's message, never a secret. */
export interface ProcessorErrorLog {
  error(obj: unknown, msg: string): void;
}

/**
 * Records `error` on the organization's Stripe connection (none: the test processor, nothing to record) and emails
 * the owners when they were not emailed in the last day. Run in a transaction that commits whatever the payment's
 * own outcome (the checkout's purchase is rolled back: the caller runs this after it).
 */
export async function noteProcessorError(db: Queryable, organizationId: string, error: ProcessorError, context: ProcessorErrorContext, now: Date, log?: ProcessorErrorLog): Promise<void> {
  log?.error({ organizationId, code: error.code, transient: error.transient, [context.what]: context.id }, `stripe: a payment could not be processed (${error.code}): ${error.detail}`);
  const recorded = await db
    .update(stripeConnection)
    .set({ lastErrorCode: error.code, lastErrorDetail: error.detail.slice(0, 2000), lastErrorAt: now })
    .where(eq(stripeConnection.organizationId, organizationId))
    .returning({ mailedAt: stripeConnection.lastErrorMailedAt });
  if (recorded.length === 0) return;
  // one email a day: the row's mailed-at moves only when it was old enough, so two notes at once mail once
  const due = new Date(now.getTime() - PROCESSOR_ERROR_MAIL_INTERVAL_MS);
  const claimed = await db
    .update(stripeConnection)
    .set({ lastErrorMailedAt: now })
    .where(and(eq(stripeConnection.organizationId, organizationId), or(isNull(stripeConnection.lastErrorMailedAt), lt(stripeConnection.lastErrorMailedAt, due))))
    .returning({ organizationId: stripeConnection.organizationId });
  if (claimed.length === 0) return;
  const data = { audience: "seller", code: error.code, detail: error.detail.slice(0, 2000), transient: error.transient, what: context.what, id: context.id, at: now.toISOString() };
  const causeId = randomUUID();
  for (const recipient of await ownerEmails(db, organizationId)) {
    await requestEmail(db, { organizationId, causeId, type: "processor_error", recipient, data });
  }
}
