// Payments: the wire of saved payment methods (kept in methods.ts) and every charge attempt of a
// saved method, recorded as Polar's Payment with its status and decline reason. Renewals and dunning retries
// charge through chargeSaved/recordCharge.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import type { UnansweredCharge } from "../../db/schema/payments.js";
import { processorFor, type PaymentProcessor, type PaymentResult } from "../../payments/processor.js";
import { processorCustomerOf } from "../../payments/customers.js";
import { notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import * as repo from "./repository.js";

export type PaymentMethodRow = repo.PaymentMethodRow;
export type PaymentRow = repo.PaymentRow;

export const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Polar's PaymentMethodCard (plus till's `is_default`, which the SDKs ignore). */
export function toPaymentMethodWire(row: repo.PaymentMethodRow) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    processor: "stripe" as const,
    customer_id: row.customerId,
    type: "card" as const,
    method_metadata: { brand: row.brand, last4: row.last4, exp_month: row.expMonth, exp_year: row.expYear, wallet: null },
    is_default: row.isDefault,
  };
}

/**
 * What made a charge attempt (`payment.attempt`): a checkout, a renewal, a plan change billed now (`update`), the
 * dunning schedule's retry, the customer's retry from the portal, a wallet's top-up or auto-recharge.
 */
export type PaymentAttempt = "checkout" | "renewal" | "update" | "retry" | "manual" | "top_up";

/** SDK 0.49.0's PaymentTrigger of each; a plan change has none of Polar's (null). */
const TRIGGERS: Record<string, string> = { renewal: "subscription_cycle", retry: "retry_dunning", manual: "retry_customer", checkout: "purchase", top_up: "purchase" };

/**
 * Polar's Payment: CardPayment when a card was charged, GenericPayment (method "none") when there was none to charge.
 */
export function toPaymentWire(row: repo.PaymentRow) {
  const base = {
    created_at: row.createdAt.toISOString(),
    modified_at: iso(row.modifiedAt),
    id: row.id,
    processor: "stripe" as const,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    method: row.method,
    // SDK 0.49.0's PaymentTrigger (0.47.1 has no such field and ignores it)
    trigger: TRIGGERS[row.attempt] ?? null,
    decline_reason: row.declineReason,
    decline_message: row.declineMessage,
    organization_id: row.organizationId,
    checkout_id: row.checkoutId,
    order_id: row.orderId,
    processor_metadata: {},
  };
  return row.method === "card" ? { ...base, method_metadata: { brand: row.brand ?? "unknown", last4: row.last4 ?? "" } } : base;
}

// ---- charges ------------------------------------------------------------------------------------

export interface ChargeOutcome {
  method: repo.PaymentMethodRow | null;
  result: PaymentResult;
  /** The processor that charged (the organization's: its Stripe account when connected). */
  processorId?: string;
  /** How an order's charge was sent (kept when its answer was lost: the order's next charge sends it again). */
  sent?: UnansweredCharge;
}

/** What chargeSaved charges. */
export interface ChargeRequest {
  amount: number;
  currency: string;
  description: string;
  metadata: Record<string, string>;
  /** The customer at the portal (who may authenticate); else off-session. */
  onSession?: boolean;
  idempotencyKey?: string;
}

/**
 * Charges the customer's method (`method`, else their default) through the organization's processor,
 * off-session unless `onSession` (the customer retrying from the portal, who may be asked to authenticate).
 * Nothing is recorded yet.
 */
export async function chargeSaved(
  tx: Queryable,
  router: PaymentProcessor,
  organizationId: string,
  customerId: string,
  request: ChargeRequest,
  method?: repo.PaymentMethodRow,
): Promise<ChargeOutcome> {
  const processor = await processorFor(router, tx, organizationId);
  let chosen = method;
  if (!chosen) {
    await repo.adoptCheckoutMethods(tx, organizationId, customerId, processor.id);
    chosen = await repo.chargeableMethod(tx, organizationId, customerId);
  }
  if (!chosen) return { method: null, result: { ok: false, code: "no_payment_method", message: "There is no payment method on file." }, processorId: processor.id };
  const processorCustomerId = processor.id === "test" ? null : await processorCustomerOf(tx, organizationId, customerId, processor.id);
  const sent = request.idempotencyKey ? request : await orderCharge(tx, organizationId, request, chosen);
  const result = await processor.charge({ paymentMethodId: chosen.processorMethodId, processorCustomerId, methodType: chosen.type, ...sent });
  return {
    method: chosen, result, processorId: processor.id,
    ...(sent.idempotencyKey ? { sent: { idempotencyKey: sent.idempotencyKey, description: sent.description, metadata: sent.metadata } } : {}),
  };
}

/**
 * An order's charge (a renewal, a retry, a plan change billed now) under an idempotency key of its own: a new one
 * per attempt, except after an attempt whose answer was lost (the processor may have charged): the same charge —
 * same method and amount, off-session — is then sent again exactly as it was, under that attempt's key, and the
 * processor answers what it did instead of charging twice. (A charge made differently, on-session from the portal
 * or with another card, is a new request: the customer chose it.) Without an order the processor client keys its
 * own retries.
 */
async function orderCharge<R extends ChargeRequest>(tx: Queryable, organizationId: string, request: R, method: repo.PaymentMethodRow): Promise<R> {
  const orderId = request.metadata.order_id;
  if (!orderId) return request;
  const last = await repo.lastPaymentOfOrder(tx, organizationId, orderId);
  const lost = last?.unansweredCharge;
  if (lost && last.paymentMethodId === method.id && last.amount === request.amount && !request.onSession) return { ...request, ...lost };
  return { ...request, idempotencyKey: `till-order-${orderId}-${randomUUID()}` };
}

/** A charge the processor took but has not finished: a bank debit `processing` until the bank answers (its event). */
export const isProcessing = (outcome: ChargeOutcome | null | undefined): boolean => outcome?.result.ok === false && outcome.result.next?.status === "processing";

/** A recorded charge still on its way (a processing bank debit): no other charge of its order is made meanwhile. */
export const isProcessingPayment = (row: repo.PaymentRow | undefined): boolean => row?.status === "pending" && row.declineReason === "processing";

/** Whether chargeSaved would find a method to charge for the customer (the checkout's saved one adopted first). */
export async function hasChargeableMethod(tx: Queryable, router: PaymentProcessor, organizationId: string, customerId: string): Promise<boolean> {
  const processor = await processorFor(router, tx, organizationId);
  await repo.adoptCheckoutMethods(tx, organizationId, customerId, processor.id);
  return (await repo.chargeableMethod(tx, organizationId, customerId)) !== undefined;
}

/**
 * The method chargeSaved would charge for each of many customers (the renewal schedule's batch), their
 * checkout-saved methods adopted first; a customer without one is absent. Pass a customer's to chargeSaved.
 */
export async function chargeableMethods(tx: Queryable, processor: PaymentProcessor, organizationId: string, customerIds: string[]): Promise<Map<string, repo.PaymentMethodRow>> {
  await repo.adoptCheckoutMethodsOf(tx, organizationId, customerIds, (await processorFor(processor, tx, organizationId)).id);
  return repo.chargeableMethodsOf(tx, organizationId, customerIds);
}

/** One of the customer's saved methods by id (another customer's or organization's: undefined). */
export const findPaymentMethod = (db: Queryable, organizationId: string, customerId: string, id: string) => repo.findMethod(db, organizationId, customerId, id);

/** What a charge attempt was for. */
export interface ChargeRef {
  organizationId: string;
  customerId: string;
  orderId: string;
  checkoutId: string | null;
  amount: number;
  currency: string;
  attempt: PaymentAttempt;
}

/** The payment row (Polar's Payment) of a charge attempt. */
export function paymentOf(processor: PaymentProcessor, outcome: ChargeOutcome, at: ChargeRef, now: Date): repo.NewPayment {
  const { method, result } = outcome;
  return {
    organizationId: at.organizationId,
    customerId: at.customerId,
    orderId: at.orderId,
    checkoutId: at.checkoutId,
    paymentMethodId: method?.id ?? null,
    processor: outcome.processorId ?? processor.id,
    processorPaymentId: result.ok ? result.paymentId : (result.next?.intentId ?? null),
    // a payment waiting for the customer (3-D Secure from the portal) is pending until the processor says
    status: result.ok ? "succeeded" : result.next ? "pending" : "failed",
    amount: at.amount,
    currency: at.currency,
    // Polar's payment method: the processor's word for it (a bank debit's sepa_debit), else the saved one's type
    method: (result.ok ? result.paymentMethod.method : result.next?.method) ?? method?.type ?? "none",
    brand: method?.brand ?? null,
    last4: method?.last4 ?? null,
    declineReason: result.ok ? null : result.code,
    declineMessage: result.ok ? null : result.message,
    attempt: at.attempt,
    unansweredCharge: !result.ok && result.processorError?.answerLost ? (outcome.sent ?? null) : null,
    createdAt: now,
  };
}

/** Records a charge attempt (Polar's Payment) for an order. */
export async function recordCharge(tx: Queryable, processor: PaymentProcessor, outcome: ChargeOutcome, at: ChargeRef, now: Date): Promise<repo.PaymentRow> {
  return repo.insertPayment(tx, paymentOf(processor, outcome, at, now));
}

/**
 * What a charge's late answer did: its pending payment succeeded or failed now, or nothing (`unchanged`: answered
 * before, or still unfinished); `not_recorded`: no payment of the order under that id (its charge's transaction has not
 * committed).
 */
export type LateCharge = "succeeded" | "failed" | "unchanged" | "not_recorded";

/**
 * The processor finished a charge after till's request answered (Stripe's payment_intent.succeeded /
 * payment_failed: a bank debit that was processing, a payment the customer authenticated): the payment recorded
 * pending for `orderId` under the processor's id becomes succeeded or failed — once: a replayed or late answer
 * finds it done. The caller holds the lock of what the payment pays (the order, its subscription or wallet) and
 * does the rest: the order paid and the subscription active (dunning), the wallet credited (wallets).
 */
export async function settlePendingCharge(tx: Queryable, organizationId: string, orderId: string, processorPaymentId: string, result: PaymentResult, now: Date): Promise<LateCharge> {
  const row = await repo.findByProcessorIds(tx, organizationId, [processorPaymentId]);
  if (!row || row.orderId !== orderId) return "not_recorded";
  if (row.status !== "pending" || (!result.ok && result.next)) return "unchanged";
  if (result.ok) return (await repo.succeedPendingPayment(tx, organizationId, processorPaymentId, now)) ? "succeeded" : "unchanged";
  const failed = await repo.failPendingPayment(tx, organizationId, processorPaymentId, { code: result.code, message: result.message }, now);
  return failed ? "failed" : "unchanged";
}

/** The customer's charge of `attempt` in the currency still on its way (a bank debit processing), if any. */
export const processingChargeOf = (db: Queryable, organizationId: string, customerId: string, currency: string, attempt: PaymentAttempt) =>
  repo.processingChargeOf(db, organizationId, customerId, currency, attempt);

// ---- the seller's payments ----------------------------------------------------------------------

export async function listPayments(db: Db, organizationId: string, filter: repo.PaymentFilter, sorting: Array<SortKey<repo.PaymentSortKey>>, pageNo: number, limit: number) {
  const { rows, total } = await repo.listPayments(db, organizationId, filter, sorting, limit, (pageNo - 1) * limit);
  return { items: rows.map(toPaymentWire), total };
}

export async function getPayment(db: Db, organizationId: string, id: string) {
  const row = await repo.findPayment(db, organizationId, id);
  if (!row) throw notFound("Payment not found");
  return toPaymentWire(row);
}

/**
 * The payment a processor's id (PaymentIntent pi_…, charge ch_…) names, for its events (refunds and disputes made
 * there).
 */
export const findPaymentByProcessorIds = (db: Queryable, organizationId: string, processorIds: string[]) => repo.findByProcessorIds(db, organizationId, processorIds);

/** The payments through `processor` since `since` (reconciliation with the processor's records). */
export const paymentsOfProcessorSince = (db: Queryable, organizationId: string, processor: string, since: Date, limit: number) =>
  repo.paymentsOfProcessorSince(db, organizationId, processor, since, limit);

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

export type NewPayment = repo.NewPayment;
/** Records a payment row (checkout confirm, Stripe's payment-intent events). */
export const insertPayment: typeof repo.insertPayment = (...args) => repo.insertPayment(...args);
/** Records a batch of payment rows (the renewal's writes). */
export const insertPayments: typeof repo.insertPayments = (...args) => repo.insertPayments(...args);
/** The order's last payment (dunning). */
export const lastPaymentOfOrder: typeof repo.lastPaymentOfOrder = (...args) => repo.lastPaymentOfOrder(...args);
/** The order's bank transfer awaiting the customer's money (Stripe's customer_balance method), if any. */
export const pendingTransferOfOrder = (db: Queryable, organizationId: string, orderId: string) => repo.pendingPaymentOfOrder(db, organizationId, orderId, { method: "customer_balance" });
/**
 * The order's bank debit still on its way (`processing` until the bank answers), if any: it cannot be canceled at the
 * processor, so the order is paid no other way meanwhile.
 */
export const processingDebitOfOrder = (db: Queryable, organizationId: string, orderId: string) => repo.pendingPaymentOfOrder(db, organizationId, orderId, { declineReason: "processing" });
/** A pending payment of the order by the processor's id (a late success of an order already paid: given back). */
export async function pendingPaymentOf(db: Queryable, organizationId: string, orderId: string, processorPaymentId: string): Promise<repo.PaymentRow | undefined> {
  const row = await repo.findByProcessorIds(db, organizationId, [processorPaymentId]);
  return row?.orderId === orderId && row.status === "pending" ? row : undefined;
}
export const CANCEL_REFUSED_CODE = repo.CANCEL_REFUSED_CODE;
/** A transfer whose cancel the processor refused for good: still pending (money that arrives is given back), noted. */
export const noteCancelRefused = (db: Queryable, organizationId: string, processorPaymentId: string, message: string, now: Date) =>
  repo.failPendingPayment(db, organizationId, processorPaymentId, { code: repo.CANCEL_REFUSED_CODE, message }, now, "pending");
/** Which of one organization's orders have a bank transfer awaiting the money. */
export const ordersAwaitingTransfer = (db: Queryable, organizationId: string, orderIds: string[]) => repo.ordersAwaitingTransfer(db, organizationId, orderIds);
/** Orders no longer owed whose bank transfer still awaits the money (their intents to cancel), up to `limit`. */
export const settledOrdersAwaitingTransfer = (db: Queryable, organizationId: string | undefined, limit: number) => repo.settledOrdersAwaitingTransfer(db, organizationId, limit);
