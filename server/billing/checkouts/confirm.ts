// Confirming a checkout: one transaction that locks the checkout, applies the customer's last changes,
// checks what a purchase needs, counts the discount redemption (exactly, under concurrency), takes the
// payment, and fulfils — the customer created or matched, the subscription, the paid order with its invoice
// number, the benefit grants, the charge's payment row — writing every webhook event of the flow to the outbox.
// A declined payment throws before anything is kept, so the checkout stays open for another try; only the
// declined attempt is recorded (a payment row of the checkout, after the rollback).
//
// The test processor answers at once, so the payment runs inside the transaction that holds the checkout's
// lock. A processor that answers asynchronously (Stripe) will confirm here and fulfil from its webhook.
import { createHash, randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import { formatMoney } from "../../../shared/money.js";
import { pipelinedTransaction, type PipelinedTx } from "../../db/prepared.js";
import { customerStateChanged } from "../../jobs/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { fulfilGrant } from "../benefits/fulfil.js";
import { toBenefitGrantWire, type BenefitGrantRow } from "../benefits/wire.js";
import { upsertCheckoutCustomer } from "../customers/service.js";
import { insertPayment, type NewPayment } from "../payments/repository.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid, notFound, validationError, type ValidationIssue } from "../http.js";
import { CUSTOMER_SESSION_TTL_MS, newCustomerSession, startCustomerSession } from "../customer-portal/sessions.js";
import type { LicenseKeyRow } from "../license-keys/issue.js";
import { invoicePrefix, orderWire, planOrderFromCheckout } from "../orders/service.js";
import type { PriceWire } from "../products/service.js";
import { newSubscriptionFromCheckout, subscriptionWire } from "../subscriptions/service.js";
import type { SubscriptionRow } from "../subscriptions/wire.js";
import { fulfilStatement, lockForConfirm, type FulfilEvent } from "./confirm-sql.js";
import { publishCheckoutEvents, type CheckoutEvent } from "./events.js";
import type { CheckoutConfirmInput } from "./input.js";
import { applyPatch } from "./patch.js";
import { addInterval, isMetered, isStatic } from "./pricing.js";
import * as repo from "./repository.js";
import { orgNow } from "../test-clock/clock.js";
import { settle, settlementEntry, type Settlement } from "../balance/service.js";
import { checkoutTax } from "./tax.js";
import { assertOpenForCustomer, assertSubscriptionAllowed, changedValues, clientCheckoutRow, type CheckoutDeps } from "./service.js";
import { discountBase, loadView, productSummary } from "./state.js";
import { derive, toCheckoutConfirmedWire, toCheckoutWire, type CheckoutDerived, type CheckoutRow, type CheckoutView } from "./wire.js";

const paymentError = (message: string) => new ApiError(400, { error: "PaymentError", detail: message });
/** The confirm computed another total than the one the buyer was shown (`expected_total_amount`): nothing is charged. */
export const CHECKOUT_TOTAL_CHANGED = "CheckoutTotalChanged";
const totalChanged = (shown: number, total: number, currency: string) =>
  new ApiError(409, {
    error: CHECKOUT_TOTAL_CHANGED,
    detail: `The total changed: it is now ${formatMoney(total, currency)}, not ${formatMoney(shown, currency)}. Nothing was charged; check the total and pay again.`,
  });

// ---- a confirm retried after its answer was lost ----------------------------------------------------------

/** How long a repeat of the confirm that completed a checkout is answered with it: the life of the session it hands out. */
const RETRY_WINDOW_MS = CUSTOMER_SESSION_TTL_MS;

/** The confirm request as parsed (token and fields, in the schema's key order): what a retry repeats. */
export const confirmationHashOf = (input: CheckoutConfirmInput) => createHash("sha256").update(JSON.stringify(input)).digest("hex");

/** Whether `hash` is the confirm that completed this checkout, recently enough to be its retry. */
function isRetryOf(row: CheckoutRow, hash: string, now: Date): boolean {
  if (row.status !== "succeeded" && row.status !== "confirmed") return false;
  return row.confirmationHash === hash && row.modifiedAt !== null && now.getTime() - row.modifiedAt.getTime() < RETRY_WINDOW_MS;
}

/** Thrown inside the confirm's transaction when the checkout it waited for was completed by this very confirm. */
class ConfirmedMeanwhile extends Error {
  constructor(readonly row: CheckoutRow) {
    super("checkout confirmed meanwhile by the same confirm");
  }
}

/** The confirm's answer again, with a new portal session for the customer (the first answer's token was lost with it). */
async function confirmedAgain(deps: CheckoutDeps, row: CheckoutRow, now: Date) {
  const view = await loadView(deps.db, row, deps.baseURL, true);
  const token = row.customerId ? await startCustomerSession(deps.db, row.organizationId, row.customerId, now) : null;
  return toCheckoutConfirmedWire(view, now, token);
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

interface Fulfilled {
  view: CheckoutView;
  orderId: string;
  subscriptionId: string | null;
  customerSessionToken: string;
}

/** The customer a first purchase creates (the lock statement inserts it), as its row. */
function plannedCustomer(row: CheckoutRow, now: Date): CustomerRow | null {
  if (row.customerId || !row.customerEmail) return null;
  return {
    id: randomUUID(),
    organizationId: row.organizationId,
    externalId: row.externalCustomerId,
    type: "individual",
    email: row.customerEmail.trim().toLowerCase(),
    emailVerified: false,
    name: row.customerName,
    billingAddress: row.customerBillingAddress,
    taxId: row.customerTaxId,
    locale: null,
    metadata: row.customerMetadata,
    createdAt: now,
    modifiedAt: null,
    deletedAt: null,
  };
}

/**
 * Everything a paid (or free) checkout creates, in the caller's transaction, with its outbox events: one
 * statement (see confirm-sql.ts). `before` is the row as read under the lock: only what changed since is
 * written. `customer` was created or matched earlier in the transaction.
 */
async function fulfil(
  tx: PipelinedTx,
  before: CheckoutRow,
  view: CheckoutView,
  d: CheckoutDerived,
  payment: PaymentResult | null,
  customer: { row: CustomerRow; created: boolean },
  now: Date,
  confirmationHash: string,
  /** What the customer's balance paid of the order (its applied_balance_amount and ledger row). */
  settlement: Settlement,
  /** The processor that took the payment (the payment row's `processor`). */
  processorId: string,
): Promise<Fulfilled> {
  const { row, product, price, organization, discount } = view;
  if (!product || !price || !organization || !row.customerEmail) throw new Error("fulfil: checkout is not complete");
  const organizationId = row.organizationId;
  const customerId = customer.row.id;
  const events: FulfilEvent[] = [];
  const event = (type: FulfilEvent["type"], data: Record<string, unknown>) => events.push({ type, data });

  event("checkout.updated", toCheckoutWire({ ...view, row: { ...row, status: "confirmed", modifiedAt: now } }, now));
  const customerWire = toCustomerWire(customer.row);
  event(customer.created ? "customer.created" : "customer.updated", customerWire);

  const discountWire = discount ? discountBase(discount) : null;
  const recurring = product.is_recurring ? subscriptionTerms(view) : null;
  // a trial charges nothing now: its order is the subscription's start at 0
  const trialing = recurring !== null && row.trialEnd !== null;
  const subscription: SubscriptionRow | null = recurring
    ? newSubscriptionFromCheckout({
        id: randomUUID(),
        organizationId,
        checkoutId: row.id,
        customerId,
        productId: product.id,
        priceIds: recurring.prices.map((p) => p.id),
        amount: row.amount,
        currency: row.currency,
        recurringInterval: recurring.interval,
        recurringIntervalCount: recurring.count,
        trialEnd: trialing ? row.trialEnd : null,
        periodEnd: addInterval(now, recurring.interval, recurring.count),
        discountId: row.discountId,
        seats: row.seats,
        metadata: row.metadata,
        customFieldData: row.customFieldData,
        now,
      })
    : null;
  const subtotal = trialing ? 0 : row.amount;
  const discountValue = trialing ? 0 : d.discountAmount;
  const itemAmounts = isStatic(price) ? [subtotal] : [];
  // the same tax as the checkout showed (and the payment took), kept per order line
  const tax = checkoutTax(organization, row, price, itemAmounts, discountValue, now);
  const order = planOrderFromCheckout(
    {
      organizationId,
      checkoutId: row.id,
      customerId,
      productId: product.id,
      subscriptionId: subscription?.id ?? null,
      billingReason: subscription ? "subscription_create" : "purchase",
      currency: row.currency,
      discountId: row.discountId,
      subtotalAmount: subtotal,
      discountAmount: discountValue,
      tax,
      seats: row.seats,
      billingName: row.customerBillingName ?? row.customerName,
      billingAddress: row.customerBillingAddress,
      billingTaxId: row.customerTaxId ?? null,
      metadata: row.metadata,
      customFieldData: row.customFieldData,
      items: itemAmounts.map((amount) => ({ label: product.name, amount, productPriceId: price.id })),
    },
    now,
  );
  order.row.appliedBalanceAmount = settlement.applied;
  const balanceEntry = settlementEntry(organizationId, settlement, { customerId, currency: row.currency, orderId: order.row.id, subscriptionId: subscription?.id ?? null });
  // a subscription's benefits last as long as it does; a purchase's belong to its order
  // a license_keys benefit issues its key with the grant, which names it; a meter_credit one records its credit
  const licenseKeys: LicenseKeyRow[] = [];
  const grants = product.benefits.map((b): BenefitGrantRow => {
    const id = randomUUID();
    const given = fulfilGrant(b, { id, organizationId, customerId }, now);
    if (given.licenseKey) licenseKeys.push(given.licenseKey);
    return {
      id,
      organizationId,
      benefitId: b.id,
      customerId,
      subscriptionId: subscription?.id ?? null,
      orderId: subscription ? null : order.row.id,
      customerSeatId: null,
      grantedAt: now,
      revokedAt: null,
      properties: given.properties,
      previousProperties: null,
      error: null,
      createdAt: now,
      modifiedAt: null,
    };
  });

  const processorMetadata: Record<string, string> = { ...row.paymentProcessorMetadata, intent_status: "succeeded" };
  if (payment?.ok) {
    processorMetadata.payment_method_id = payment.paymentMethodId;
    // what the customer's payment methods show of it (billing/payments adopts it): never the number
    const pm = payment.paymentMethod;
    Object.assign(processorMetadata, { payment_method_brand: pm.brand, payment_method_last4: pm.last4, payment_method_exp: `${pm.expMonth}/${pm.expYear}` });
    if (payment.paymentId) processorMetadata.payment_id = payment.paymentId;
  }
  // the row as it will be written, so its event can be shaped before the write
  const finalRow: CheckoutRow = { ...row, status: "succeeded", customerId, paymentProcessorMetadata: processorMetadata, confirmationHash, modifiedAt: new Date() };

  if (subscription && recurring) {
    const wire = subscriptionWire(subscription, { customer: customerWire, product, discount: discountWire, prices: recurring.prices });
    event("subscription.created", wire);
    if (subscription.status === "active") event("subscription.active", wire);
  }
  // the invoice number is taken by the statement that inserts the order, which fills it into these events
  const orderData = orderWire(order.row, order.items, { customer: customerWire, product: productSummary(product), discount: discountWire, subscription });
  events.push({ type: "order.created", data: orderData, withInvoiceNumber: true }, { type: "order.paid", data: orderData, withInvoiceNumber: true });
  const benefits = new Map(product.benefits.map((b) => [b.id, b]));
  for (const g of grants) {
    const b = benefits.get(g.benefitId);
    if (b) event("benefit_grant.created", toBenefitGrantWire(g, b, customer.row));
  }
  const succeeded: CheckoutView = { ...view, row: finalRow };
  event("checkout.updated", toCheckoutWire(succeeded, now));
  const stateChanged = customerStateChanged(organizationId, customerId);
  event(stateChanged.type, stateChanged.data);

  // the customer goes on to the portal from the success page with this session
  const session = newCustomerSession(organizationId, customerId, null, now);
  await fulfilStatement(tx, {
    organizationId,
    checkoutId: row.id,
    checkoutChanges: { ...changedValues(before, finalRow), modifiedAt: finalRow.modifiedAt },
    subscription,
    grants,
    licenseKeys,
    customerSession: session.row,
    order: order.row,
    items: order.items,
    invoicePrefix: invoicePrefix(organization.slug),
    events,
    balance: balanceEntry ? [{ id: randomUUID(), createdAt: new Date(), ...balanceEntry }] : [],
    // the charge (money moved: a card only saved for later, at 0, is no payment)
    payments:
      payment?.ok && settlement.due > 0
        ? [chargeRow({ organizationId, customerId, orderId: order.row.id, checkoutId: row.id, amount: settlement.due, currency: row.currency, processor: processorId }, payment, now)]
        : [],
    now: new Date(),
  });
  return { view: succeeded, orderId: order.row.id, subscriptionId: subscription?.id ?? null, customerSessionToken: session.token };
}

/** The `payment` row of a checkout's charge attempt (Polar's Payment, trigger `purchase`). */
function chargeRow(
  at: { organizationId: string; customerId: string | null; orderId: string | null; checkoutId: string; amount: number; currency: string; processor: string },
  result: PaymentResult,
  now: Date,
): NewPayment {
  return {
    id: randomUUID(),
    ...at,
    paymentMethodId: null,
    processorPaymentId: result.ok ? result.paymentId : null,
    status: result.ok ? "succeeded" : "failed",
    method: "card",
    brand: result.ok ? result.paymentMethod.brand : null,
    last4: result.ok ? result.paymentMethod.last4 : null,
    declineReason: result.ok ? null : result.code,
    declineMessage: result.ok ? null : result.message,
    attempt: "checkout",
    createdAt: now,
    modifiedAt: null,
  };
}

/** The interval a subscription bills at and the prices it bills: the chosen one and the product's metered ones. */
function subscriptionTerms(view: CheckoutView): { interval: string; count: number; prices: PriceWire[] } | null {
  const { product, price } = view;
  if (!product || !price) return null;
  const interval = product.recurring_interval ?? (typeof price.recurring_interval === "string" ? price.recurring_interval : "month");
  return {
    interval,
    count: product.recurring_interval_count ?? 1,
    prices: [price, ...product.prices.filter((p) => isMetered(p) && p.id !== price.id)],
  };
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
  // the client saw a reset socket after the server committed, and sends the same confirm again
  const hash = confirmationHashOf(input);
  if (isRetryOf(found, hash, wall)) return confirmedAgain(deps, found, now);
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
      if (isRetryOf(locked, hash, wall)) throw new ConfirmedMeanwhile(locked);
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
    return fulfil(ptx, before, view, d, payment, customer, now, hash, settlement, deps.processor.id);
  }).catch(async (err: unknown) => {
    if (err instanceof ConfirmedMeanwhile) return err;
    // the declined attempt is kept (Polar records failed payments) once the purchase's transaction rolled back
    if (declined) await insertPayment(deps.db, declined);
    throw err;
  });
  if (result instanceof ConfirmedMeanwhile) return confirmedAgain(deps, result.row, new Date());

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

/** The customer of a checkout that did not create one: matched by id, external id or email, and updated. */
async function matchCustomer(tx: Queryable, row: CheckoutRow): Promise<{ row: CustomerRow; created: boolean }> {
  if (!row.customerEmail) throw new Error("confirm: checkout has no customer email");
  const { customer, created } = await upsertCheckoutCustomer(tx, row.organizationId, {
    customerId: row.customerId,
    externalId: row.externalCustomerId,
    email: row.customerEmail,
    name: row.customerName,
    billingAddress: row.customerBillingAddress,
    taxId: row.customerTaxId,
    metadata: row.customerMetadata,
  });
  return { row: customer, created };
}
