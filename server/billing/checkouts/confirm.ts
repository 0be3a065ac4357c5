// Confirming a checkout: one transaction that locks the checkout, applies the customer's last changes,
// checks what a purchase needs, counts the discount redemption (exactly, under concurrency), takes the
// payment, and fulfils (fulfil.ts: the customer created or matched, the subscription, the paid order with its
// invoice number, the benefit grants, the charge's payment row), writing every webhook event of the flow to the outbox.
// A declined payment throws before anything is kept, so the checkout stays open for another try; only the
// declined attempt is recorded (a payment row of the checkout, after the rollback).
//
// The payment runs inside the transaction that holds the checkout's lock. When the processor has not finished
// (Stripe's 3-D Secure, a bank debit's `processing`), nothing of the purchase is kept: the checkout is left
// `confirmed` with the intent in its payment_processor_metadata (the page runs handleNextAction with its client
// secret), and the purchase is made when the processor says it succeeded (completeCheckoutPayment, from
// processor-events/payments.ts) — once, whichever comes first.
import { noteProcessorError } from "../processor-connections/processor-errors.js";
import type { Queryable } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { pipelinedTransaction } from "../../db/prepared.js";
import { createHash } from "node:crypto";
import { type NextAction, type PaymentProcessor, type PaymentResult, type ProcessorError } from "../../payments/processor.js";
import { processorCustomerOf, rememberProcessorCustomer } from "../../payments/customers.js";
import { insertPayment, type NewPayment } from "../payments/service.js";
import { redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import type { OrganizationWire } from "../organizations/wire.js";
import { confirmationRecord, retriedAnswer } from "./confirm-retry.js";
import { lockForConfirm } from "./confirm-sql.js";
import { publishCheckoutEvents, type CheckoutEvent } from "./events.js";
import type { CheckoutConfirmInput } from "./input.js";
import { applyPatch } from "./patch.js";
import { minimumChargeIssue } from "./minimum.js";
import * as repo from "./repository.js";
import { orgNow } from "../clock.js";
import { failCheckoutPayment } from "./payment-failed.js";
import { settle, type Settlement } from "../balance/service.js";
import {
  assertNotExpired,
  assertOpenForCustomer,
  assertSubscriptionAllowed,
  changedValues,
  clientCheckoutBySecret,
  type CheckoutDeps,
} from "./service.js";
import { notOpenCheckout, totalChanged } from "./errors.js";
import { paymentError } from "../payments/errors.js";
import { DISCOUNT_OVER } from "../discounts/refusal.js";
import { loadView } from "./state.js";
import { chargeRow, fulfil, matchCustomer, plannedCustomer } from "./fulfil.js";
import { derive, toCheckoutConfirmedWire, type CheckoutDerived, type CheckoutRow, type CheckoutView } from "./wire.js";

// ---- a confirm retried after its answer was lost (confirm-retry.ts) ----------------------------------------

/** Thrown inside the confirm's transaction when the checkout it waited for was completed by this very confirm. */
class ConfirmedMeanwhile extends Error {
  constructor(
    readonly row: CheckoutRow,
    readonly sessionToken: string | null,
  ) {
    super("checkout confirmed meanwhile by the same confirm");
  }
}

/** The first confirm's answer again, with its portal session token (never a new one). */
async function confirmedAgain(deps: CheckoutDeps, row: CheckoutRow, now: Date, sessionToken: string | null) {
  const view = await loadView(deps.db, row, deps.baseURL, true);
  return toCheckoutConfirmedWire(view, now, sessionToken);
}

const missing = (loc: Array<string | number>, msg = "Field is required."): ValidationIssue => ({
  loc: ["body", ...loc],
  msg,
  type: "missing",
  input: null,
  code: "required",
});

/** What a purchase needs before any money moves (Polar's required confirm fields and a few more). */
function confirmIssues(view: CheckoutView, d: CheckoutDerived, input: CheckoutConfirmInput): ValidationIssue[] {
  const { row, product, price } = view;
  const issues: ValidationIssue[] = [];
  if (product?.is_archived) issues.push({ loc: ["body", "product_id"], msg: "Product is archived.", type: "value_error", input: product.id });
  if (price?.is_archived) issues.push({ loc: ["body", "product_price_id"], msg: "Price is archived.", type: "value_error", input: price.id });
  if (!row.customerEmail) issues.push(missing(["customer_email"]));
  const address = row.customerBillingAddress;
  const needsAddress = d.isPaymentFormRequired || row.isBusinessCustomer || row.requireBillingAddress;
  if (d.isPaymentFormRequired && !row.customerName) issues.push(missing(["customer_name"]));
  if (row.isBusinessCustomer && !row.customerBillingName) issues.push(missing(["customer_billing_name"]));
  if (needsAddress && !address) issues.push(missing(["customer_billing_address"]));
  if (needsAddress && address) {
    for (const [field, mode] of Object.entries(d.billingAddressFields)) {
      if (mode === "required" && !address[field]) issues.push(missing(["customer_billing_address", field]));
    }
  }
  if (d.isPaymentFormRequired && !input.confirmation_token_id) issues.push(missing(["confirmation_token_id"], "Confirmation token is required."));
  return issues;
}

interface Checked {
  view: CheckoutView;
  d: CheckoutDerived;
}

/** The customer's last changes applied to the checkout, and everything a purchase needs checked (throws 422). */
async function checkConfirm(db: Queryable, current: CheckoutView, input: CheckoutConfirmInput, at: { now: Date; minimum: (currency: string) => number }, ipAddress?: string): Promise<Checked> {
  const { now } = at;
  const view = await applyPatch(db, current, input, "confirm", now);
  if (ipAddress && !view.row.customerIpAddress) view.row.customerIpAddress = ipAddress;
  const d = derive(view, now);
  const issues = confirmIssues(view, d, input);
  // before any payment: the processor would refuse it (Stripe's amount_too_small), and nothing may be charged
  const small = minimumChargeIssue(view, input, at.minimum, now);
  if (small) issues.push(small);
  if (issues.length > 0) throw validationError(issues);
  const shown = input.expected_total_amount;
  if (shown != null && shown !== d.totalAmount) throw totalChanged(shown, d.totalAmount, view.row.currency);
  return { view, d };
}

/** The processor has not finished: the purchase's transaction rolls back and the checkout waits, confirmed. */
class PaymentPending extends Error {
  constructor(
    readonly next: NextAction,
    /** The checkout with the customer's changes applied, as it will wait. */
    readonly row: CheckoutRow,
    /** What the processor was asked to take (minor units). */
    readonly amount: number,
  ) {
    super("payment pending");
  }
}

/** How a purchase is paid: by the processor now, or by a payment it finished meanwhile (completeCheckoutPayment). */
export type Paying = { processor: PaymentProcessor; paid?: PaymentResult };

/** The confirm's idempotency key at the processor: one per checkout and token, so a retried confirm is charged once. */
const payKey = (checkoutId: string, token: string) => `till-checkout-${checkoutId}-${createHash("sha256").update(token).digest("hex").slice(0, 32)}`;

/** A confirmed checkout may be completed by its processor's outcome; any other only while open. */
function assertPayable(row: CheckoutRow, now: Date, completing: boolean): void {
  if (!completing) return assertOpenForCustomer(row, now);
  if (row.status !== "confirmed" && row.status !== "open") throw notOpenCheckout(row, row.status);
}

export async function clientConfirmCheckout(deps: CheckoutDeps, clientSecret: string, input: CheckoutConfirmInput, ipAddress?: string) {
  // the retry window is wall time (modified_at); the purchase's dates and the expiry follow the organization's
  // clock (a sandbox's test clock: a subscription bought after an advance starts at the clock's now)
  const wall = new Date();
  const { row: found, organization, now, processor: processorOf } = await clientCheckoutBySecret(deps, clientSecret, wall);
  assertNotExpired(found, now);
  // the client saw a reset socket after the server committed, and sends the same confirm (its token) again
  const retried = retriedAnswer(found, input, wall);
  if (retried) return confirmedAgain(deps, found, now, retried.sessionToken);
  assertOpenForCustomer(found, now);
  return purchase(deps, found, input, { now, wall, ipAddress, organization }, { processor: processorOf() });
}

/**
 * The purchase of a checkout whose payment the processor finished after the confirm answered (3-D Secure done,
 * a debit cleared): made now, once — a checkout no longer confirmed (completed by the confirm itself, or by an
 * earlier delivery of the event) is left as it is. Answers whether this call made it.
 */
export async function completeCheckoutPayment(deps: CheckoutDeps, organizationId: string, checkoutId: string, processor: PaymentProcessor, paid: PaymentResult): Promise<boolean> {
  let found = await repo.findCheckout(deps.db, organizationId, checkoutId);
  // still open: the confirm that made this payment may be in flight, holding the checkout's lock while the
  // processor answers (its event came first); wait for it and read the checkout again
  if (found?.status === "open") found = await deps.db.transaction((tx) => repo.lockCheckout(tx, checkoutId));
  if (!found || found.organizationId !== organizationId || (found.status !== "confirmed" && found.status !== "open")) return false;
  const wall = new Date();
  const now = await orgNow(deps.db, organizationId, wall);
  const token = paid.ok ? (paid.paymentId ?? paid.paymentMethodId) : "";
  try {
    await purchase(deps, found, { confirmation_token_id: found.paymentProcessorMetadata.intent_id ?? token }, { now, wall }, { processor, paid });
    return true;
  } catch (err) {
    // completed meanwhile by the confirm (or another delivery): nothing more to do
    if (err instanceof ApiError && err.status === 403) return false;
    throw err;
  }
}

/**
 * When a purchase happens (the organization's now, the wall clock's), from where, and the organization when read
 * already.
 */
interface PurchaseAt {
  now: Date;
  wall: Date;
  ipAddress?: string | undefined;
  organization?: OrganizationWire;
}

async function purchase(deps: CheckoutDeps, found: CheckoutRow, input: CheckoutConfirmInput, at: PurchaseAt, paying: Paying) {
  const { now, wall, ipAddress } = at;
  const completing = paying.paid !== undefined;
  // what the checkout refers to is read before taking the lock, in parallel on the pool, and the customer's
  // changes are checked against it; under the lock they are checked again only if the checkout changed meanwhile
  const preloaded = await loadView(deps.db, found, deps.baseURL, at.organization ?? true);
  const minimum = (currency: string) => paying.processor.minimumCharge(currency);
  const checked = await checkConfirm(deps.db, preloaded, input, { now, minimum }, ipAddress);
  let declined: NewPayment | null = null;
  // a payment the processor could not process (not a decline): the seller is told once the purchase rolled back
  let unprocessedBy: ProcessorError | null = null;
  // a charge at a processor across the network is made in one of the pool's turns (db/call-turns.ts)
  const callsOut = !completing && Boolean(input.confirmation_token_id) && paying.processor.id !== "test";
  const inTurn = <T>(fn: () => Promise<T>): Promise<T> => (callsOut ? withCallTurn(deps.db, fn) : fn());
  const result = await inTurn(() => pipelinedTransaction(deps.db, async (ptx) => {
    // concurrent confirms of one checkout queue on this lock; the second finds it no longer open. A first
    // purchase's customer is inserted in the same round trip when the checkout is unchanged.
    const newCustomer = plannedCustomer(checked.view.row, now);
    const version = await lockForConfirm(ptx, found, newCustomer);
    if (!version) throw notFound("Checkout not found");
    let before = found;
    let current = checked;
    const unchanged =
      version.status === found.status &&
      version.modifiedAt?.getTime() === found.modifiedAt?.getTime() &&
      version.productId === found.productId &&
      version.discountId === found.discountId;
    if (unchanged) {
      assertPayable(found, now, completing);
    } else {
      // changed meanwhile (rare): read it again, under the lock now held, and check the changes against it
      const locked = await repo.lockCheckout(ptx.db, found.id);
      if (!locked) throw notFound("Checkout not found");
      // a retry that queued behind its own first attempt
      const again = completing ? undefined : retriedAnswer(locked, input, wall);
      if (again) throw new ConfirmedMeanwhile(locked, again.sessionToken);
      assertPayable(locked, now, completing);
      before = locked;
      current = await checkConfirm(ptx.db, await loadView(ptx.db, locked, deps.baseURL, true), input, { now, minimum }, ipAddress);
    }
    const { view, d } = current;
    // (ptx.db, the transaction's query-builder handle, is made only when a statement needs it)
    if (view.product?.is_recurring && !view.organization?.subscription_settings.allow_multiple_subscriptions) {
      await assertSubscriptionAllowed(ptx.db, view);
    }

    if (view.row.discountId && !(await redeemDiscount(ptx.db, view.row.organizationId, view.row.discountId, now))) {
      throw invalid(["body", "discount_id"], DISCOUNT_OVER.msg, "value_error", DISCOUNT_OVER.code);
    }

    // a returning customer (or one the checkout was opened for) is matched and updated here instead
    const customer =
      version.customerInserted && newCustomer && current === checked
        ? { row: newCustomer, created: true }
        : await matchCustomer(ptx.db, view.row);
    // a returning customer's balance (a downgrade's credit, a wallet) pays first; the card is charged the rest —
    // except for credits bought (a product with till_credits: wallets/credits.ts), never paid with credits
    const settlement: Settlement =
      d.isPaymentRequired && !customer.created && view.product?.metadata?.till_credits === undefined
        ? await settle(ptx.db, view.row.organizationId, customer.row.id, view.row.currency, d.totalAmount, minimum(view.row.currency))
        : { applied: 0, due: d.isPaymentRequired ? d.totalAmount : 0 };
    const { processor } = paying;
    let payment: PaymentResult | null = paying.paid ?? null;
    if (!payment && d.isPaymentFormRequired && input.confirmation_token_id && view.product) {
      // a processor that keeps customers (Stripe) charges the one it made for this customer before
      const keeps = processor.id !== "test";
      const processorCustomerId = keeps && !customer.created ? await processorCustomerOf(ptx.db, view.row.organizationId, customer.row.id, processor.id) : null;
      payment = await processor.pay({
        confirmationTokenId: input.confirmation_token_id,
        amount: settlement.due,
        currency: view.row.currency,
        description: `${view.organization?.name ?? ""} — ${view.product.name}`,
        setupFutureUsage: view.product.is_recurring,
        metadata: { checkout_id: view.row.id },
        ...(keeps ? { customer: { id: customer.row.id, email: customer.row.email, name: customer.row.name, processorCustomerId } } : {}),
        idempotencyKey: payKey(view.row.id, input.confirmation_token_id),
      });
      if (!payment.ok && payment.next) throw new PaymentPending(payment.next, view.row, settlement.due);
      if (!payment.ok) {
        // a customer created by this confirm is rolled back with it: the attempt names none
        const at = { organizationId: view.row.organizationId, customerId: customer.created ? null : customer.row.id, orderId: null, checkoutId: view.row.id };
        if (settlement.due > 0) declined = chargeRow({ ...at, amount: settlement.due, currency: view.row.currency, processor: processor.id }, payment, now);
        unprocessedBy = payment.processorError ?? null;
        throw paymentError(payment.message, payment.code);
      }
    }
    if (payment?.ok && payment.processorCustomerId) await rememberProcessorCustomer(ptx.db, view.row.organizationId, customer.row.id, processor.id, payment.processorCustomerId);
    return fulfil(ptx, before, view, d, payment, customer, now, completing ? null : input, settlement, processor.id);
  })).catch(async (err: unknown) => {
    if (err instanceof ConfirmedMeanwhile || err instanceof PaymentPending) return err;
    // the declined attempt is kept (Polar records failed payments) once the purchase's transaction rolled back
    if (declined) await insertPayment(deps.db, declined);
    if (unprocessedBy) await noteProcessorError(deps.db, found.organizationId, unprocessedBy, { what: "checkout", id: found.id }, wall, deps.log);
    throw err;
  });
  if (result instanceof ConfirmedMeanwhile) return confirmedAgain(deps, result.row, new Date(), result.sessionToken);
  if (result instanceof PaymentPending) return waitForProcessor(deps, found, result, input, now, paying.processor);

  const stream: CheckoutEvent[] = completing ? [] : [{ key: "checkout.updated", payload: { status: "confirmed" } }];
  stream.push({ key: "checkout.order_created", payload: { order_id: result.orderId } });
  if (result.subscriptionId) stream.push({ key: "checkout.subscription_created", payload: { subscription_id: result.subscriptionId } });
  // no webhook delivery yet: the page need not wait for one
  stream.push({ key: "checkout.updated", payload: { status: "succeeded" } }, { key: "checkout.webhook_event_delivered", payload: { status: "succeeded" } });
  publishCheckoutEvents(result.view.row.id, stream);
  return toCheckoutConfirmedWire(result.view, now, result.customerSessionToken);
}

/**
 * The processor wants the customer (3-D Secure) or is still collecting: the checkout, with the customer's
 * changes, waits `confirmed` with the intent's id, status and client secret in its metadata (what the page
 * needs for handleNextAction). Nothing else of the purchase was kept.
 *
 * Stripe's outcome may have come first: its event, handled between this purchase's rollback and the wait below,
 * found the checkout still open (a failure then changed nothing; a success purchased it). So the checkout is
 * answered as it is when it succeeded meanwhile, and a payment still `processing` is read again once the
 * checkout waits: an outcome that came before is applied here, one that comes after finds the checkout waiting.
 */
async function waitForProcessor(deps: CheckoutDeps, found: CheckoutRow, pending: PaymentPending, input: CheckoutConfirmInput, now: Date, processor: PaymentProcessor) {
  const { next } = pending;
  const row = await deps.db.transaction(async (tx) => {
    const locked = await repo.lockCheckout(tx, found.id);
    if (!locked) throw notFound("Checkout not found");
    if (locked.status === "succeeded") return null;
    assertOpenForCustomer(locked, now);
    const metadata: Record<string, string> = {
      ...locked.paymentProcessorMetadata,
      intent_id: next.intentId,
      intent_client_secret: next.clientSecret,
      intent_status: next.status,
      intent_kind: next.kind,
      ...(next.processorCustomerId ? { processor_customer_id: next.processorCustomerId } : {}),
    };
    const waiting: CheckoutRow = { ...pending.row, status: "confirmed", paymentProcessorMetadata: metadata, confirmationHash: confirmationRecord(found.id, input, null) };
    return repo.updateCheckout(tx, found.id, { ...changedValues(locked, waiting), modifiedAt: new Date() });
  });
  if (row) publishCheckoutEvents(row.id, [{ key: "checkout.updated", payload: { status: "confirmed" } }]);
  const reread = row !== null && next.status === "processing" && next.kind === "payment";
  if (reread) {
    const outcome = await processor.paymentOutcome(next.intentId);
    if (outcome.ok) await completeCheckoutPayment(deps, found.organizationId, found.id, processor, outcome);
    else if (!outcome.next) {
      const intent = { id: next.intentId, kind: next.kind, amount: pending.amount, currency: pending.row.currency, method: next.method ?? "card" };
      await failCheckoutPayment(deps, found.organizationId, found.id, intent, outcome, processor.id);
    }
  }
  const current = row && !reread ? row : await repo.findCheckout(deps.db, found.organizationId, found.id);
  if (!current) throw notFound("Checkout not found");
  const view = await loadView(deps.db, current, deps.baseURL, true);
  return toCheckoutConfirmedWire(view, now, null);
}
