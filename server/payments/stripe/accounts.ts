// The seller's Stripe account as billing sees every processor's (ProcessorAccounts, payments/accounts.ts): the
// connection (connect.ts), the events read as facts (events.ts), disputes (disputes.ts), reconciling (reconcile.ts).
import type { ProcessorAccounts } from "../accounts.js";
import { connectStripe, disconnectStripe, NOT_CONNECTED, SECRET_FIELDS, StripeConnectInput, stripeStatus, type StripeAccountContext } from "./connect.js";
import { stripeOf } from "./connection.js";
import { closeDispute } from "./disputes.js";
import { openEvent } from "./events.js";
import { reconcile } from "./reconcile.js";

export function createStripeAccounts(ctx: StripeAccountContext): ProcessorAccounts {
  return {
    processor: "stripe",
    notConnected: NOT_CONNECTED,
    connectInput: StripeConnectInput,
    secretFields: SECRET_FIELDS,
    connect: (db, organizationId, input, sandbox, stored) => connectStripe(ctx, db, organizationId, input, sandbox, stored),
    status: (db, organizationId) => stripeStatus(ctx, db, organizationId),
    disconnect: (db, organizationId, removed) => disconnectStripe(ctx, db, organizationId, removed),
    openEvent: (db, organizationId, event) => openEvent(ctx, db, organizationId, event),
    async closeDispute(db, organizationId, processorDisputeId) {
      const connected = await stripeOf(db, ctx, organizationId);
      if (!connected) return { ok: false, refused: true, detail: NOT_CONNECTED };
      return closeDispute(connected.stripe, processorDisputeId);
    },
    reconcile: (db, organizationId, window, tillPayments) => reconcile(ctx, db, organizationId, window, tillPayments),
  };
}
