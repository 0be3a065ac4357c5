// Confirming a checkout: one transaction that locks the checkout, applies the customer's last changes,
// checks what a purchase needs, counts the discount redemption (exactly, under concurrency), takes the
// payment, and fulfils — the customer created or matched, the subscription, the paid order with its invoice
// number, the benefit grants — writing every webhook event of the flow to the outbox. A declined payment
// throws before anything is kept, so the checkout stays open for another try.
//
// The test processor answers at once, so the payment runs inside the transaction that holds the checkout's
// lock. A processor that answers asynchronously (Stripe) will confirm here and fulfil from its webhook.
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../jobs/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { grantBenefits } from "../benefits/service.js";
import { upsertCheckoutCustomer } from "../customers/service.js";
import { toCustomerWire } from "../customers/wire.js";
import { redeemDiscount } from "../discounts/service.js";
import { ApiError, invalid, validationError, type ValidationIssue } from "../http.js";
import { insertPlannedOrder, invoiceNumberSql, orderWire, planOrderFromCheckout } from "../orders/service.js";
import type { PriceWire } from "../products/service.js";
import { createSubscriptionFromCheckout, subscriptionWire } from "../subscriptions/service.js";
import { publishCheckoutEvents, type CheckoutEvent } from "./events.js";
import type { CheckoutConfirmInput } from "./input.js";
import { applyPatch } from "./patch.js";
import { addInterval, isMetered, isStatic } from "./pricing.js";
import * as repo from "./repository.js";
import { assertOpenForCustomer, assertSubscriptionAllowed, changedValues, clientCheckoutRow, type CheckoutDeps } from "./service.js";
import { discountBase, loadView, lockedView, productSummary } from "./state.js";
import { derive, toCheckoutConfirmedWire, toCheckoutWire, type CheckoutDerived, type CheckoutRow, type CheckoutView } from "./wire.js";

const paymentError = (message: string) => new ApiError(400, { error: "PaymentError", detail: message });

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
}

/** Everything a paid (or free) checkout creates, in the caller's transaction, with its outbox events. */
/** `before` is the row as read under the lock: only what changed since is written. */
async function fulfil(
  tx: Queryable,
  before: CheckoutRow,
  view: CheckoutView,
  d: CheckoutDerived,
  payment: PaymentResult | null,
  now: Date,
): Promise<Fulfilled> {
  const { row, product, price, organization, discount } = view;
  if (!product || !price || !organization || !row.customerEmail) throw new Error("fulfil: checkout is not complete");
  const organizationId = row.organizationId;
  const events: OutboxEvent[] = [];
  const event = (type: OutboxEvent["type"], data: Record<string, unknown>) => events.push({ type, organizationId, data });

  event("checkout.updated", toCheckoutWire({ ...view, row: { ...row, status: "confirmed", modifiedAt: now } }, now));

  const { customer, created } = await upsertCheckoutCustomer(tx, organizationId, {
    customerId: row.customerId,
    externalId: row.externalCustomerId,
    email: row.customerEmail,
    name: row.customerName,
    billingAddress: row.customerBillingAddress,
    taxId: row.customerTaxId,
    metadata: row.customerMetadata,
  });
  const customerWire = toCustomerWire(customer);
  event(created ? "customer.created" : "customer.updated", customerWire);

  const discountWire = discount ? discountBase(discount) : null;
  // ids are chosen here so statements that refer to each other go out together (pipelined). The order goes
  // last: its invoice number locks the organization's counter until the commit.
  const recurring = product.is_recurring ? subscriptionTerms(view) : null;
  const subscriptionId = recurring ? randomUUID() : null;
  // a trial charges nothing now: its order is the subscription's start at 0
  const trialing = recurring !== null && row.trialEnd !== null;
  const subtotal = trialing ? 0 : row.amount;
  const order = planOrderFromCheckout(
    {
      organizationId,
      checkoutId: row.id,
      customerId: customer.id,
      productId: product.id,
      subscriptionId,
      billingReason: subscriptionId ? "subscription_create" : "purchase",
      currency: row.currency,
      discountId: row.discountId,
      subtotalAmount: subtotal,
      discountAmount: trialing ? 0 : d.discountAmount,
      taxAmount: 0,
      seats: row.seats,
      billingName: row.customerBillingName ?? row.customerName,
      billingAddress: row.customerBillingAddress,
      metadata: row.metadata,
      customFieldData: row.customFieldData,
      items: isStatic(price) ? [{ label: product.name, amount: subtotal, productPriceId: price.id }] : [],
    },
    now,
  );

  const processorMetadata: Record<string, string> = { ...row.paymentProcessorMetadata, intent_status: "succeeded" };
  if (payment?.ok) {
    processorMetadata.payment_method_id = payment.paymentMethodId;
    if (payment.paymentId) processorMetadata.payment_id = payment.paymentId;
  }
  // the row as it will be written, so its event can be shaped before the write
  const finalRow: CheckoutRow = { ...row, status: "succeeded", customerId: customer.id, paymentProcessorMetadata: processorMetadata, modifiedAt: new Date() };
  const [subscription, grants] = await Promise.all([
    recurring && subscriptionId
      ? createSubscriptionFromCheckout(tx, {
          id: subscriptionId,
          organizationId,
          checkoutId: row.id,
          customerId: customer.id,
          productId: product.id,
          priceIds: recurring.prices.map((p) => p.id),
          amount: row.amount,
          currency: row.currency,
          recurringInterval: recurring.interval,
          recurringIntervalCount: recurring.count,
          trialEnd: row.trialEnd,
          periodEnd: addInterval(now, recurring.interval, recurring.count),
          discountId: row.discountId,
          seats: row.seats,
          metadata: row.metadata,
          customFieldData: row.customFieldData,
          now,
        })
      : Promise.resolve(null),
    // a subscription's benefits last as long as it does; a purchase's belong to its order
    grantBenefits(tx, organizationId, { benefits: product.benefits, customer, orderId: subscriptionId ? null : order.row.id, subscriptionId }, now),
    repo.updateCheckout(tx, row.id, { ...changedValues(before, finalRow), modifiedAt: finalRow.modifiedAt ?? now }),
  ]);

  if (subscription && recurring) {
    const wire = subscriptionWire(subscription, { customer: customerWire, product, discount: discountWire, prices: recurring.prices });
    event("subscription.created", wire);
    if (subscription.status === "active") event("subscription.active", wire);
  }
  const orderData = orderWire(order.row, order.items, { customer: customerWire, product: productSummary(product), discount: discountWire, subscription });
  // the invoice number is taken by the order's INSERT, sent just before the events
  const fill = { invoice_number: invoiceNumberSql(order.row.id) };
  events.push({ type: "order.created", organizationId, data: orderData, fill }, { type: "order.paid", organizationId, data: orderData, fill });
  for (const g of grants) event("benefit_grant.created", g);
  const succeeded: CheckoutView = { ...view, row: finalRow };
  event("checkout.updated", toCheckoutWire(succeeded, now));
  events.push(customerStateChanged(organizationId, customer.id));
  await Promise.all([insertPlannedOrder(tx, order, organization.slug), process.env.X_NO_OUTBOX ? Promise.resolve() : enqueue(tx, events)]);
  return { view: succeeded, orderId: order.row.id, subscriptionId };
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

export async function clientConfirmCheckout(deps: CheckoutDeps, clientSecret: string, input: CheckoutConfirmInput, ipAddress?: string) {
  const found = await clientCheckoutRow(deps, clientSecret);
  assertOpenForCustomer(found);
  const now = new Date();
  // read what the checkout refers to before taking the lock, in parallel on the pool
  const preloaded = await loadView(deps.db, found, deps.baseURL, true);
  const result = await deps.db.transaction(async (tx) => {
    // concurrent confirms of one checkout queue on this lock; the second finds it no longer open
    const current = await lockedView(tx, preloaded, deps.baseURL);
    assertOpenForCustomer(current.row, now);
    const view = await applyPatch(tx, current, input, "confirm", now);
    if (ipAddress && !view.row.customerIpAddress) view.row.customerIpAddress = ipAddress;
    const d = derive(view, now);
    const issues = confirmIssues(view, d, input);
    if (issues.length > 0) throw validationError(issues);
    await assertSubscriptionAllowed(tx, view);

    if (view.row.discountId && !(await redeemDiscount(tx, view.row.organizationId, view.row.discountId, now))) {
      throw invalid(["body", "discount_id"], "Discount is no longer redeemable.");
    }

    let payment: PaymentResult | null = null;
    if (d.isPaymentFormRequired && input.confirmation_token_id && view.product) {
      payment = await deps.processor.pay({
        confirmationTokenId: input.confirmation_token_id,
        amount: d.isPaymentRequired ? d.totalAmount : 0,
        currency: view.row.currency,
        description: `${view.organization?.name ?? ""} — ${view.product.name}`,
        setupFutureUsage: view.product.is_recurring,
        metadata: { checkout_id: view.row.id },
      });
      if (!payment.ok) throw paymentError(payment.message);
    }
    return fulfil(tx, current.row, view, d, payment, now);
  });

  const stream: CheckoutEvent[] = [
    { key: "checkout.updated", payload: { status: "confirmed" } },
    { key: "checkout.order_created", payload: { order_id: result.orderId } },
  ];
  if (result.subscriptionId) stream.push({ key: "checkout.subscription_created", payload: { subscription_id: result.subscriptionId } });
  // no webhook delivery yet: the page need not wait for one
  stream.push({ key: "checkout.updated", payload: { status: "succeeded" } }, { key: "checkout.webhook_event_delivered", payload: { status: "succeeded" } });
  publishCheckoutEvents(result.view.row.id, stream);
  return toCheckoutConfirmedWire(result.view, now);
}
