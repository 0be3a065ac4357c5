// The seller's Stripe account as billing sees every processor's (ProcessorAccounts, payments/accounts.ts): the
// connection (connect.ts), the events read as facts (events.ts), disputes (disputes.ts), reconciling (reconcile.ts),
// the account's Billing business for the importer (billing-import/).
import type { ProcessorAccounts } from "../accounts.js";
import { createStripeBillingSource } from "./billing-import/index.js";
import { connectStripe, disconnectStripe, NOT_CONNECTED, SECRET_FIELDS, StripeConnectInput, stripeStatus, type StripeAccountContext } from "./connect.js";
import { stripeOf } from "./connection.js";
import { closeDispute } from "./disputes.js";
import { openEvent } from "./events.js";
import { reconcile } from "./reconcile.js";
import { getConnection } from "./repository.js";

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
    reconcile: (db, organizationId, window, tillPayments, imported) => reconcile(ctx, db, organizationId, window, tillPayments, imported),
    async billingSource(db, organizationId, opts) {
      const connected = await stripeOf(db, ctx, organizationId);
      if (!connected) return null;
      // the account's id as the connection learned it (a restricted key may not read the account)
      const row = await getConnection(db, organizationId);
      return createStripeBillingSource(connected.stripe, connected.livemode, { limit: opts?.limit, accountId: row?.accountId });
    },
  };
}
