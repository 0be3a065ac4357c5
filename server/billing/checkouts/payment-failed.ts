// A checkout's payment that the processor failed after the confirm answered: nothing of the
// purchase was kept while it waited `confirmed`, so only the checkout changes, and the failed attempt is recorded.
//   - A payment that was `processing` (a bank debit the bank refused): the checkout ends `failed` (Polar's status
//     for it), with a `checkout.updated` webhook. The buyer may pay it again with another method: a failed
//     checkout takes a confirm as an open one does, until it expires (service.ts: assertOpenForCustomer).
//   - One that waited for the customer (a failed 3-D Secure challenge, the customer still on the page): the
//     checkout is open again for another card, the page showing Stripe's message.
// Run under the checkout's lock; only the checkout still waiting for that very intent changes, so a late,
// repeated or out-of-order outcome changes nothing.
import { randomUUID } from "node:crypto";
import type { Db } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { insertPayment } from "../payments/service.js";
import { publishCheckoutEvents } from "./events.js";
import * as repo from "./repository.js";
import { loadView } from "./state.js";
import { toCheckoutWire } from "./wire.js";

export interface FailedIntent {
  /** The processor's intent (pi_… or seti_…) the checkout waited for. */
  id: string;
  kind: "payment" | "setup";
  /** Minor units (a payment's). */
  amount: number;
  currency: string;
  /** Polar's payment method (`card`, `sepa_debit`, `us_bank_account`). */
  method: string;
}

/** Answers the checkout's new status, or null when it was not waiting for this intent (nothing changed). */
export async function failCheckoutPayment(
  deps: { db: Db; baseURL: string },
  organizationId: string,
  checkoutId: string,
  intent: FailedIntent,
  failure: Extract<PaymentResult, { ok: false }>,
  processorId: string,
): Promise<"failed" | "open" | null> {
  const now = new Date();
  const status = await deps.db.transaction(async (tx) => {
    const locked = await repo.lockCheckout(tx, checkoutId);
    if (!locked || locked.organizationId !== organizationId || locked.status !== "confirmed") return null;
    if (locked.paymentProcessorMetadata.intent_id !== intent.id) return null;
    const { intent_id: _i, intent_client_secret: _s, intent_status: waited, intent_kind: _k, ...metadata } = locked.paymentProcessorMetadata;
    const next = waited === "processing" ? "failed" : "open";
    const row = await repo.updateCheckout(tx, checkoutId, { status: next, paymentProcessorMetadata: metadata, confirmationHash: null, modifiedAt: now });
    if (intent.kind === "payment") {
      await insertPayment(tx, {
        id: randomUUID(),
        organizationId,
        customerId: locked.customerId,
        orderId: null,
        checkoutId,
        amount: intent.amount,
        currency: intent.currency,
        processor: processorId,
        paymentMethodId: null,
        processorPaymentId: intent.id,
        status: "failed",
        method: intent.method,
        brand: null,
        last4: null,
        declineReason: failure.code,
        declineMessage: failure.message,
        attempt: "checkout",
        createdAt: now,
        modifiedAt: null,
      });
    }
    if (next === "failed") await enqueue(tx, { type: "checkout.updated", organizationId, data: toCheckoutWire(await loadView(tx, row, deps.baseURL, true), now) });
    return next;
  });
  if (status) publishCheckoutEvents(checkoutId, [{ key: "checkout.updated", payload: { status } }]);
  return status;
}
