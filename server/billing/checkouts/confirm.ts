// Confirming a checkout: one transaction that locks the checkout, applies the customer's last changes,
// checks what a purchase needs, counts the discount redemption (exactly, under concurrency), takes the
// payment, and fulfils (fulfil.ts: the customer created or matched, the subscription, the paid order with its
// invoice number, the benefit grants, the charge's payment row), writing every webhook event of the flow to the outbox.
// A declined payment throws before anything is kept, so the checkout stays open for another try; only the
// declined attempt is recorded (a payment row of the checkout, after the rollback).
//
// The test processor answers at once, so the payment runs inside the transaction that holds the checkout's
// lock. A processor that answers asynchronously (Stripe) will confirm here and fulfil from its webhook.
import type { Queryable } from "../../db/client.js";
import { formatMoney } from "../../../shared/money.js";
import { pipelinedTransaction } from "../../db/prepared.js";
import type { PaymentResult } from "../../payments/processor.js";
import { insertPayment, type NewPayment } from "../payments/repository.js";
import { redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid, notFound, validationError, type ValidationIssue } from "../errors.js";
import { retriedAnswer } from "./confirm-retry.js";
import { lockForConfirm } from "./confirm-sql.js";
import { publishCheckoutEvents, type CheckoutEvent } from "./events.js";
import type { CheckoutConfirmInput } from "./input.js";
import { applyPatch } from "./patch.js";
import * as repo from "./repository.js";
import { orgNow } from "../test-clock/clock.js";
import { settle, type Settlement } from "../balance/service.js";
import { assertOpenForCustomer, assertSubscriptionAllowed, clientCheckoutRow, type CheckoutDeps } from "./service.js";
import { paymentError } from "../payments/errors.js";
import { loadView } from "./state.js";
import { chargeRow, fulfil, matchCustomer, plannedCustomer } from "./fulfil.js";
import { derive, toCheckoutConfirmedWire, type CheckoutDerived, type CheckoutRow, type CheckoutView } from "./wire.js";

/** The confirm computed another total than the one the buyer was shown (`expected_total_amount`): nothing is charged. */
export const CHECKOUT_TOTAL_CHANGED = "CheckoutTotalChanged";
const totalChanged = (shown: number, total: number, currency: string) =>
  new ApiError(409, {
    error: CHECKOUT_TOTAL_CHANGED,
    detail: `The total changed: it is now ${formatMoney(total, currency)}, not ${formatMoney(shown, currency)}. Nothing was charged; check the total and pay again.`,
  });

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
async function checkConfirm(db: Queryable, current: CheckoutView, input: CheckoutConfirmInput, now: Date, ipAddress?: string): Promise<Checked> {
  const view = await applyPatch(db, current, input, "confirm", now);
  if (ipAddress && !view.row.customerIpAddress) view.row.customerIpAddress = ipAddress;
  const d = derive(view, now);
  const issues = confirmIssues(view, d, input);
  if (issues.length > 0) throw validationError(issues);
  const shown = input.expected_total_amount;
  if (shown != null && shown !== d.totalAmount) throw totalChanged(shown, d.totalAmount, view.row.currency);
  return { view, d };
}

export async function clientConfirmCheckout(deps: CheckoutDeps, clientSecret: string, input: CheckoutConfirmInput, ipAddress?: string) {
  const found = await clientCheckoutRow(deps, clientSecret);
  // the retry window is wall time (modified_at); the purchase's dates and the expiry follow the organization's
  // clock (a sandbox's test clock: a subscription bought after an advance starts at the clock's now)
  const wall = new Date();
  const now = await orgNow(deps.db, found.organizationId, wall);
  // the client saw a reset socket after the server committed, and sends the same confirm (its token) again
  const retried = retriedAnswer(found, input, wall);
  if (retried) return confirmedAgain(deps, found, now, retried.sessionToken);
  assertOpenForCustomer(found, now);
  // what the checkout refers to is read before taking the lock, in parallel on the pool, and the customer's
  // changes are checked against it; under the lock they are checked again only if the checkout changed meanwhile
  const preloaded = await loadView(deps.db, found, deps.baseURL, true);
  const checked = await checkConfirm(deps.db, preloaded, input, now, ipAddress);
  let declined: NewPayment | null = null;
  const result = await pipelinedTransaction(deps.db, async (ptx) => {
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
      assertOpenForCustomer(found, now);
    } else {
      // changed meanwhile (rare): read it again, under the lock now held, and check the changes against it
      const locked = await repo.lockCheckout(ptx.db, found.id);
      if (!locked) throw notFound("Checkout not found");
      // a retry that queued behind its own first attempt
      const again = retriedAnswer(locked, input, wall);
      if (again) throw new ConfirmedMeanwhile(locked, again.sessionToken);
      assertOpenForCustomer(locked, now);
      before = locked;
      current = await checkConfirm(ptx.db, await loadView(ptx.db, locked, deps.baseURL, true), input, now, ipAddress);
    }
    const { view, d } = current;
    // (ptx.db, the transaction's query-builder handle, is made only when a statement needs it)
    if (view.product?.is_recurring && !view.organization?.subscription_settings.allow_multiple_subscriptions) {
      await assertSubscriptionAllowed(ptx.db, view);
    }

    if (view.row.discountId && !(await redeemDiscount(ptx.db, view.row.organizationId, view.row.discountId, now))) {
      throw invalid(["body", "discount_id"], "Discount is no longer redeemable.");
    }

    // a returning customer (or one the checkout was opened for) is matched and updated here instead
    const customer =
      version.customerInserted && newCustomer && current === checked
        ? { row: newCustomer, created: true }
        : await matchCustomer(ptx.db, view.row);
    // a returning customer's balance (a downgrade's credit) pays first; the card is charged the rest
    const settlement: Settlement =
      d.isPaymentRequired && !customer.created
        ? await settle(ptx.db, view.row.organizationId, customer.row.id, view.row.currency, d.totalAmount)
        : { applied: 0, due: d.isPaymentRequired ? d.totalAmount : 0 };
    let payment: PaymentResult | null = null;
    if (d.isPaymentFormRequired && input.confirmation_token_id && view.product) {
      payment = await deps.processor.pay({
        confirmationTokenId: input.confirmation_token_id,
        amount: settlement.due,
        currency: view.row.currency,
        description: `${view.organization?.name ?? ""} — ${view.product.name}`,
        setupFutureUsage: view.product.is_recurring,
        metadata: { checkout_id: view.row.id },
      });
      if (!payment.ok) {
        // a customer created by this confirm is rolled back with it: the attempt names none
        const at = { organizationId: view.row.organizationId, customerId: customer.created ? null : customer.row.id, orderId: null, checkoutId: view.row.id };
        if (settlement.due > 0) declined = chargeRow({ ...at, amount: settlement.due, currency: view.row.currency, processor: deps.processor.id }, payment, now);
        throw paymentError(payment.message);
      }
    }
    return fulfil(ptx, before, view, d, payment, customer, now, input, settlement, deps.processor.id);
  }).catch(async (err: unknown) => {
    if (err instanceof ConfirmedMeanwhile) return err;
    // the declined attempt is kept (Polar records failed payments) once the purchase's transaction rolled back
    if (declined) await insertPayment(deps.db, declined);
    throw err;
  });
  if (result instanceof ConfirmedMeanwhile) return confirmedAgain(deps, result.row, new Date(), result.sessionToken);

  const stream: CheckoutEvent[] = [
    { key: "checkout.updated", payload: { status: "confirmed" } },
    { key: "checkout.order_created", payload: { order_id: result.orderId } },
  ];
  if (result.subscriptionId) stream.push({ key: "checkout.subscription_created", payload: { subscription_id: result.subscriptionId } });
  // no webhook delivery yet: the page need not wait for one
  stream.push({ key: "checkout.updated", payload: { status: "succeeded" } }, { key: "checkout.webhook_event_delivered", payload: { status: "succeeded" } });
  publishCheckoutEvents(result.view.row.id, stream);
  return toCheckoutConfirmedWire(result.view, now, result.customerSessionToken);
}
