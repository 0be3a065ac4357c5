// Payments (issue 14 §3): a customer's saved payment methods — listed, added with a processor token (the
// card itself never reaches till: only brand, last four digits and expiry are stored), made the default,
// removed — and every charge attempt of a saved method, recorded as Polar's Payment with its status and
// decline reason. Renewals and dunning retries charge through chargeSaved/recordCharge.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { processorFor, type NextAction, type PaymentProcessor, type PaymentResult } from "../../payments/processor.js";
import { processorCustomerOf, rememberProcessorCustomer } from "../../payments/stripe/connection.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import { ApiError, invalid, notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import * as repo from "./repository.js";

export type PaymentMethodRow = repo.PaymentMethodRow;
export type PaymentRow = repo.PaymentRow;

const iso = (d: Date | null) => d?.toISOString() ?? null;

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

/** Polar's Payment: CardPayment when a card was charged, GenericPayment (method "none") when there was none to charge. */
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

/**
 * A refused setup, answered in the shape each method's SDK models: `addPaymentMethod` declares 400
 * PaymentMethodSetupFailed; `confirmPaymentMethod` declares only 400 CustomerNotReady and 422, so a refused
 * confirm is a 422 on the `setup_intent_id` it was given (both SDK versions parse it as HTTPValidationError).
 */
export type SetupRefusal = "add" | "confirm";
const setupFailed = (detail: string, how: SetupRefusal) =>
  how === "add" ? new ApiError(400, { error: "PaymentMethodSetupFailed", detail }) : invalid(["body", "setup_intent_id"], detail);

/**
 * What a setup waiting for the customer's bank needs from the page (till's addition to Polar's requires_action
 * answer): the microdeposits to verify (when they arrive, Stripe's page for it, amounts or a code), or nothing to do
 * but wait (`processing`). Absent: the customer authenticates (3-D Secure, handleNextAction).
 */
export type SetupWait =
  | { type: "verify_with_microdeposits"; verify_with_microdeposits: { arrival_date: string | null; hosted_verification_url: string | null; microdeposit_type: "amounts" | "descriptor_code" } }
  | { type: "processing" };

function setupWaitOf(next: NextAction): SetupWait | undefined {
  const m = next.microdeposits;
  if (m) return { type: "verify_with_microdeposits", verify_with_microdeposits: { arrival_date: iso(m.arrivalDate), hosted_verification_url: m.hostedVerificationUrl, microdeposit_type: m.type } };
  return next.status === "processing" ? { type: "processing" } : undefined;
}

export const PaymentMethodCreateInput = z.object({
  confirmation_token_id: z.string().min(1).max(1024),
  set_default: z.boolean().default(true),
  return_url: z.string().max(2048).optional(),
});
export const PaymentMethodConfirmInput = z.object({
  setup_intent_id: z.string().min(1).max(1024),
  set_default: z.boolean().default(true),
});

export interface PaymentsDeps {
  db: Db;
  processor: PaymentProcessor;
}

/** The customer's methods, the ones their checkouts saved included. */
export async function listCustomerMethods(deps: PaymentsDeps, organizationId: string, customerId: string, pageNo: number, limit: number) {
  // kept as the organization's processor's (a Stripe account's methods are detached there when removed)
  await repo.adoptCheckoutMethods(deps.db, organizationId, customerId, (await processorFor(deps.processor, deps.db, organizationId)).id);
  const { rows, total } = await repo.listMethods(deps.db, organizationId, customerId, limit, (pageNo - 1) * limit);
  return { items: rows.map(toPaymentMethodWire), total };
}

/** The seller's view: the customer by id or external id (another organization's: 404). */
export async function listMethodsOf(deps: PaymentsDeps, organizationId: string, ref: CustomerRef, pageNo: number, limit: number) {
  const found = await findCustomerRow(deps.db, organizationId, ref);
  return listCustomerMethods(deps, organizationId, found.id, pageNo, limit);
}

/**
 * Saves the card behind a processor token for the customer (a setup: nothing is charged), through the
 * organization's processor: with Stripe, a SetupIntent on the customer's Stripe customer. A setup that needs the
 * customer (3-D Secure) answers `requires_action` with the intent's client secret; the page runs Stripe.js's
 * handleNextAction and confirms with the SetupIntent's id (`how` = "confirm": its outcome is read from Stripe).
 * A setup that waits for the customer's bank — a US account entered by hand, verified by microdeposits days later,
 * or one still processing — answers `requires_action` too, with what the page tells the customer (`next_action`,
 * till's addition the SDKs ignore); Stripe's setup_intent.succeeded keeps the method once it ends (keepFinishedSetup).
 */
export async function addMethod(
  deps: PaymentsDeps,
  organizationId: string,
  customerId: string,
  token: string,
  makeDefault: boolean,
  how: SetupRefusal = "add",
): Promise<{ status: "succeeded"; payment_method: ReturnType<typeof toPaymentMethodWire> } | { status: "requires_action"; client_secret: string; next_action?: SetupWait }> {
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  const keeps = processor.id !== "test";
  const processorCustomerId = keeps ? await processorCustomerOf(deps.db, organizationId, customerId, processor.id) : null;
  const found = keeps ? await findCustomerRow(deps.db, organizationId, { id: customerId }) : null;
  const saved =
    how === "confirm" && processor.setupOutcome && token.startsWith("seti_")
      ? await processor.setupOutcome(token)
      : await processor.pay({
          confirmationTokenId: token,
          amount: 0,
          currency: "usd",
          description: "Payment method",
          setupFutureUsage: true,
          metadata: { customer_id: customerId },
          ...(found ? { customer: { id: customerId, email: found.email, name: found.name, processorCustomerId } } : {}),
          idempotencyKey: `till-portal-${customerId}-${createHash("sha256").update(token).digest("hex").slice(0, 32)}`,
        });
  if (!saved.ok && saved.next) {
    // the Stripe customer made for it is kept now: the confirm after the action (and the setup's event) check the setup is this customer's
    if (saved.next.processorCustomerId && !processorCustomerId) await rememberProcessorCustomer(deps.db, organizationId, customerId, processor.id, saved.next.processorCustomerId);
    const wait = setupWaitOf(saved.next);
    return { status: "requires_action", client_secret: saved.next.clientSecret, ...(wait ? { next_action: wait } : {}) };
  }
  if (!saved.ok) throw setupFailed(saved.message, how);
  if (how === "confirm" && keeps && saved.processorCustomerId !== (processorCustomerId ?? (await processorCustomerOf(deps.db, organizationId, customerId, processor.id)))) {
    throw setupFailed("This setup is not one of yours.", how);
  }
  const row = await saveMethod(deps.db, organizationId, customerId, processor.id, saved, makeDefault, "upsert");
  if (!row) throw new Error("addMethod: the method is missing after its upsert");
  if (row.isDefault) await mirrorDefault(processor, deps.db, organizationId, customerId, row.processorMethodId);
  return { status: "succeeded" as const, payment_method: toPaymentMethodWire(row) };
}

/**
 * Keeps a finished setup's method for the customer (once per processor method), the default when asked or when none
 * is. `upsert`: the customer adds it (again: a removed one comes back); `if_absent`: an event's, which neither brings
 * back a removed method nor touches a kept one (undefined then).
 */
async function saveMethod(
  db: Db,
  organizationId: string,
  customerId: string,
  processorId: string,
  saved: Extract<PaymentResult, { ok: true }>,
  makeDefault: boolean,
  how: "upsert" | "if_absent",
): Promise<PaymentMethodRow | undefined> {
  const now = new Date();
  return db.transaction(async (tx) => {
    await repo.adoptCheckoutMethods(tx, organizationId, customerId, processorId);
    if (saved.processorCustomerId) await rememberProcessorCustomer(tx, organizationId, customerId, processorId, saved.processorCustomerId);
    const values = {
      organizationId,
      customerId,
      processor: processorId,
      processorMethodId: saved.paymentMethodId,
      type: saved.paymentMethod.method ?? "card",
      brand: saved.paymentMethod.brand,
      last4: saved.paymentMethod.last4,
      expMonth: saved.paymentMethod.expMonth,
      expYear: saved.paymentMethod.expYear,
      createdAt: now,
    };
    const method = how === "upsert" ? await repo.upsertMethod(tx, values, now) : await repo.insertMethodIfAbsent(tx, values);
    if (!method) return undefined;
    const current = await repo.chargeableMethod(tx, organizationId, customerId);
    if (makeDefault || !current?.isDefault) await repo.setDefault(tx, organizationId, customerId, method.id, now);
    return (await repo.findMethod(tx, organizationId, customerId, method.id)) ?? method;
  });
}

/**
 * A portal setup the processor finished after the portal's request answered (Stripe's setup_intent.succeeded: the
 * customer authenticated, a bank account verified): its method is kept for the customer even when the page never
 * confirms it — once (a replay, or the page's confirm after it, finds it kept). Only a setup on the processor
 * customer till keeps for this customer counts. Answers whether it was kept.
 */
export async function keepFinishedSetup(deps: PaymentsDeps, organizationId: string, customerId: string, result: PaymentResult): Promise<boolean> {
  if (!result.ok) return false;
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  const known = await processorCustomerOf(deps.db, organizationId, customerId, processor.id);
  if (!known || result.processorCustomerId !== known) return false;
  const row = await saveMethod(deps.db, organizationId, customerId, processor.id, result, false, "if_absent");
  if (!row) return false;
  if (row.isDefault) await mirrorDefault(processor, deps.db, organizationId, customerId, row.processorMethodId);
  return true;
}

/** The processor's customer gets the same default (best effort: till's own default is what renewals charge). */
async function mirrorDefault(processor: PaymentProcessor, db: Queryable, organizationId: string, customerId: string, processorMethodId: string) {
  if (!processor.setDefault) return;
  const processorCustomerId = await processorCustomerOf(db, organizationId, customerId, processor.id);
  if (processorCustomerId) await processor.setDefault(processorCustomerId, processorMethodId).catch(() => undefined);
}

/** Makes a saved method the one renewals charge (and the Stripe customer's default). */
export async function makeDefault(db: Db, organizationId: string, customerId: string, id: string, router?: PaymentProcessor) {
  const wire = await db.transaction(async (tx) => {
    if (!(await repo.findMethod(tx, organizationId, customerId, id))) throw notFound("Payment method not found");
    await repo.setDefault(tx, organizationId, customerId, id, new Date());
    const row = await repo.findMethod(tx, organizationId, customerId, id);
    if (!row) throw notFound("Payment method not found");
    return row;
  });
  if (router) await mirrorDefault(await processorFor(router, db, organizationId), db, organizationId, customerId, wire.processorMethodId);
  return toPaymentMethodWire(wire);
}

/** Removes a method; the last one of a customer whose subscription will be charged again stays (400). */
export async function deleteMethod(deps: PaymentsDeps, organizationId: string, customerId: string, id: string): Promise<void> {
  const processor = await processorFor(deps.processor, deps.db, organizationId);
  await repo.adoptCheckoutMethods(deps.db, organizationId, customerId, processor.id);
  const removed = await deps.db.transaction(async (tx) => {
    const row = await repo.findMethod(tx, organizationId, customerId, id);
    if (!row) throw notFound("Payment method not found");
    if ((await repo.otherMethodCount(tx, organizationId, customerId, id)) === 0 && (await repo.hasBillableSubscription(tx, organizationId, customerId))) {
      throw new ApiError(400, {
        error: "PaymentMethodInUseByActiveSubscription",
        detail: "This payment method pays for an active subscription: add another one before removing it.",
        code: "payment_method_in_use",
      });
    }
    await repo.removeMethod(tx, organizationId, customerId, id, new Date());
    return row;
  });
  // detached in Stripe too: it can be charged no more
  if (processor.detach && removed.processor === processor.id) await processor.detach(removed.processorMethodId);
}

// ---- charges ------------------------------------------------------------------------------------

export interface ChargeOutcome {
  method: repo.PaymentMethodRow | null;
  result: PaymentResult;
  /** The processor that charged (the organization's: its Stripe account when connected). */
  processorId?: string;
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
  request: { amount: number; currency: string; description: string; metadata: Record<string, string>; onSession?: boolean; idempotencyKey?: string },
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
  const result = await processor.charge({ paymentMethodId: chosen.processorMethodId, processorCustomerId, methodType: chosen.type, ...request });
  return { method: chosen, result, processorId: processor.id };
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
    createdAt: now,
  };
}

/** Records a charge attempt (Polar's Payment) for an order. */
export async function recordCharge(tx: Queryable, processor: PaymentProcessor, outcome: ChargeOutcome, at: ChargeRef, now: Date): Promise<repo.PaymentRow> {
  return repo.insertPayment(tx, paymentOf(processor, outcome, at, now));
}

/** What a charge's late answer did: its pending payment succeeded or failed now, or nothing (`unchanged`: answered before, or still unfinished); `not_recorded`: no payment of the order under that id (its charge's transaction has not committed). */
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

/** The payment a processor's id (PaymentIntent pi_…, charge ch_…) names, for its events (refunds and disputes made there). */
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
