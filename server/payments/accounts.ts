// The seller's own account at a payment processor, as billing sees it, in no processor's terms: connecting one and
// reading its state, the events the account sends (each read again from the processor and handed over as facts: a
// payment that finished, refunds, a dispute), closing a dispute, and comparing the account's payments with till's.
// Stripe's is server/payments/stripe/accounts.ts; the router (payments/index.ts) hands it to billing, which imports
// nothing of a processor's own.
import type { ZodType } from "zod";
import type { Db, Queryable } from "../db/client.js";
import type { Reconciliation, StripeConnectionWire } from "../../shared/stripe.js";
import type { BillingSource } from "./billing-import.js";
import type { PaymentProcessor, PaymentResult } from "./processor.js";

/** Polar's DisputeStatus: a processor's own dispute statuses are said in these words. */
export const DISPUTE_STATUSES = ["prevented", "early_warning", "needs_response", "under_review", "lost", "won"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** A processor's dispute (a chargeback) as till needs it. */
export interface ProcessorDispute {
  /** The processor that holds it (`PaymentProcessor.id`). */
  processor: string;
  processorDisputeId: string;
  /** The disputed payment, as the processor names it (the charge, and its intent when it has one). */
  chargeId: string;
  paymentIntentId: string | null;
  status: DisputeStatus;
  /** Disputed, tax included (minor units). */
  grossAmount: number;
  currency: string;
  reason: string | null;
  evidenceDueBy: Date | null;
  /** The processor's record of the money withdrawn, and its fee (Stripe's dispute fee). */
  balanceTransactionId: string | null;
  fee: number;
}

/** A refund as the processor holds it now: made by till, or in the processor's dashboard. */
export interface ProcessorRefund {
  id: string;
  /** The processor's ids of the refunded payment (its charge and its intent). */
  paymentIds: string[];
  /** Minor units, tax included. */
  amount: number;
  reason: string | null;
  /** `pending`: not ended yet (it may still succeed, fail or be canceled). */
  status: "succeeded" | "failed" | "canceled" | "pending";
  failureReason: string | null;
  /** till's id of the refund when till made it (its metadata). */
  tillRefundId: string | null;
}

/** A payment or setup the processor finished after till's request answered (3-D Secure, a bank debit, a failure). */
export interface PaymentEvent {
  /** The organization's processor that took it. */
  processor: PaymentProcessor;
  intent: { id: string; kind: "payment" | "setup"; amount: number; currency: string; method: string };
  /** What till put on the request: what it pays (checkout_id; order_id and subscription_id; customer_id; wallet_id). */
  metadata: Record<string, string>;
  result: PaymentResult;
}

/** An event of the account: its kind, and reading what it says now (the event itself may be late or stale). */
export type ProcessorEvent =
  | { kind: "payment"; read(): Promise<PaymentEvent> }
  | { kind: "refunds"; read(): Promise<ProcessorRefund[]> }
  | { kind: "dispute"; read(): Promise<ProcessorDispute> };

/** A stored event: its processor's type and the id of its object. */
export interface ProcessorEventRef {
  type: string;
  objectId: string | null;
}

/**
 * The outbox row's type that asks for a recorded event to be processed. The name is the one rows already stored
 * carry (Stripe was the first processor).
 */
export const PROCESSOR_EVENT_OUTBOX_TYPE = "stripe.event";

/**
 * A dispute closed (conceded), as the processor answers; `refused`: it would not (409), else it was not reached (502).
 */
export type DisputeClose = { ok: true; dispute: ProcessorDispute } | { ok: false; refused: boolean; detail: string };

/** till's record of a payment made through the processor, to compare with the processor's. */
export interface TillPayment {
  id: string;
  orderId: string | null;
  amount: number;
  currency: string;
  status: string;
  processorPaymentId: string | null;
}

export type ReconcileResult = { ok: true; reconciliation: Reconciliation } | { ok: false; status: 404 | 502; detail: string };

/** A field of the connect body the processor refused, with what may be echoed of its value. */
export interface AccountIssue {
  field: string;
  message: string;
  input: unknown;
}

export type ConnectResult = { ok: true } | { ok: false; issues: AccountIssue[] } | { ok: false; badGateway: string };

export interface ProcessorAccounts {
  /** The processor (`PaymentProcessor.id`) whose accounts these are. */
  readonly processor: string;
  /** The answer when the organization has no account connected. */
  readonly notConnected: string;
  /** What a connect takes (zod; the route documents it and parses the body with it). */
  readonly connectInput: ZodType;
  /** Fields of the connect body whose value an error never echoes. */
  readonly secretFields: ReadonlySet<string>;
  /**
   * Checks the keys with the processor (a sandbox takes test-mode keys only, a live organization live ones), keeps
   * them and runs `stored` in the same transaction; the endpoint of keys replaced goes.
   */
  connect(db: Db, organizationId: string, input: unknown, sandbox: boolean, stored: (tx: Queryable) => Promise<unknown>): Promise<ConnectResult>;
  /** The connection as the seller sees it; null when there is none. */
  status(db: Queryable, organizationId: string): Promise<StripeConnectionWire | null>;
  /** Forgets the keys (running `removed` in the same transaction); null when there was no connection. */
  disconnect(db: Db, organizationId: string, removed: (tx: Queryable) => Promise<unknown>): Promise<{ endpoint_removed: boolean } | null>;
  /**
   * A recorded event of the organization's account, to be read; else it is left alone, with the reason kept on it
   * (null: of a type till does not follow, or about nothing; else the account is no longer connected).
   */
  openEvent(db: Queryable, organizationId: string, event: ProcessorEventRef): Promise<ProcessorEvent | { ignored: string | null }>;
  /** Concedes a dispute at the processor (it is lost). */
  closeDispute(db: Queryable, organizationId: string, processorDisputeId: string): Promise<DisputeClose>;
  /**
   * Every difference between till's payments (`tillPayments`, read with the processor's id) and the account's over a
   * window.
   */
  reconcile(
    db: Queryable,
    organizationId: string,
    window: { since: Date; until: Date },
    tillPayments: (processor: string, max: number) => Promise<TillPayment[]>,
    /** The processor's customers imported into till (their payments before the import are the processor's own). */
    importedCustomers?: (processor: string) => Promise<ReadonlySet<string>>,
  ): Promise<ReconcileResult>;
  /**
   * The organization's billing business at the processor (catalog, customers, subscriptions), for the importer to
   * read and take subscriptions over from; null when no account is connected. `limit`: the requests per second it
   * holds itself to (the processor's published rate limit by default).
   */
  billingSource(db: Queryable, organizationId: string, opts?: { limit?: number }): Promise<BillingSource | null>;
}
