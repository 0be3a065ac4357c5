// A confirmed checkout's fulfilment (checkouts/confirm.ts confirms): the customer created or matched, the
// subscription, the paid order, the benefit grants and the charge's payment row, written by one statement with
// every webhook event of the flow.
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import type { PipelinedTx } from "../../db/prepared.js";
import { customerStateChanged } from "../../db/outbox.js";
import type { PaymentResult } from "../../payments/processor.js";
import { fulfilGrant, type GrantContext } from "../benefits/fulfil.js";
import { toBenefitGrantWire, type BenefitGrantRow } from "../benefits/wire.js";
import { upsertCheckoutCustomer } from "../customers/service.js";
import { matchLocale } from "../../../shared/i18n/locales.js";
import type { NewPayment } from "../payments/service.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { newCustomerSession } from "../customer-sessions/service.js";
import type { LicenseKeyRow } from "../license-keys/issue.js";
import { orderWire, planOrderFromCheckout } from "../orders/service.js";
import { invoicePrefix } from "../invoice-numbers/service.js";
import type { PriceWire } from "../products/wire.js";
import { newSubscriptionFromCheckout, subscriptionWire } from "../subscriptions/service.js";
import type { AddOnEmbeds, SubscriptionRow } from "../subscriptions/wire.js";
import { confirmationRecord } from "./confirm-retry.js";
import type { CheckoutConfirmInput } from "./input.js";
import { fulfilStatement, type FulfilEvent } from "./confirm-sql.js";
import { addInterval } from "../subscriptions/period.js";
import { isMetered, isStatic } from "../products/pricing.js";
import { settlementEntry, type Settlement } from "../balance/service.js";
import { checkoutTax } from "./tax.js";
import { changedValues } from "./service.js";
import { discountBase, productSummary } from "./state.js";
import { toCheckoutWire, type CheckoutDerived, type CheckoutRow, type CheckoutView } from "./wire.js";

export interface Fulfilled {
  view: CheckoutView;
  orderId: string;
  subscriptionId: string | null;
  customerSessionToken: string;
}

/** The checkout's `locale` as given when till speaks it (`de-AT` kept, `zh` not): what the customer is stored with. */
export const spokenLocale = (row: Pick<CheckoutRow, "locale">) => (matchLocale(row.locale) ? row.locale!.trim() : null);

/** The customer a first purchase creates (the lock statement inserts it), as its row. */
export function plannedCustomer(row: CheckoutRow, now: Date): CustomerRow | null {
  if (row.customerId || !row.customerEmail) return null;
  return {
    id: randomUUID(),
    organizationId: row.organizationId,
    externalId: row.externalCustomerId,
    type: "individual",
    email: row.customerEmail.trim().toLowerCase(),
    emailVerified: false,
    name: row.customerName,
    billingName: row.customerBillingName?.trim() || null,
    billingAddress: row.customerBillingAddress,
    taxId: row.customerTaxId,
    locale: spokenLocale(row),
    collectionMethod: null,
    daysUntilDue: null,
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
export async function fulfil(
  tx: PipelinedTx,
  before: CheckoutRow,
  view: CheckoutView,
  d: CheckoutDerived,
  payment: PaymentResult | null,
  customer: { row: CustomerRow; created: boolean },
  now: Date,
  /**
   * The confirm request: a retry that sends it again (its unguessable token included) gets this confirm's answer
   * (confirm-retry.ts). Null when the processor's outcome completes a waiting checkout (3-D Secure passed): the
   * record the waiting confirm left is kept, so its retry still gets its answer (with no portal session token: that
   * one is sealed with the confirmation token, which the event does not carry).
   */
  confirmation: CheckoutConfirmInput | null,
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
  const sale: Sale = { view, row, product, price, organization };
  const subscription = recurring ? checkoutSubscription(sale, recurring, customerId, trialing, now) : null;
  const order = checkoutOrder(sale, d.discountAmount, subscription, trialing, customerId, now);
  order.row.appliedBalanceAmount = settlement.applied;
  const balanceEntry = settlementEntry(organizationId, settlement, { customerId, currency: row.currency, orderId: order.row.id, subscriptionId: subscription?.id ?? null });
  // credits in proportion to the amount paid count what the order paid before tax (a trial's: its price's amount)
  const credit = { amountPaid: trialing && subscription ? subscription.amount : order.row.netAmount, periodEnd: subscription?.currentPeriodEnd ?? null };
  // a subscription's benefits: its product's and each add-on's, once each
  const benefitList = [...new Map([...product.benefits, ...row.addOns.flatMap((a) => view.addOnProducts?.get(a.productId)?.benefits ?? [])].map((b) => [b.id, b])).values()];
  const { grants, licenseKeys } = checkoutGrants(benefitList, { organizationId, customerId, subscriptionId: subscription?.id ?? null, orderId: order.row.id, credit }, now);
  const processorMetadata = processorMetadataOf(row, payment);
  // the customer goes on to the portal from the success page with this session
  const session = newCustomerSession(organizationId, customerId, null, now);
  // the row as it will be written, so its event can be shaped before the write
  const confirmationHash = confirmation ? confirmationRecord(row.id, confirmation, session.token) : row.confirmationHash;
  const finalRow: CheckoutRow = { ...row, status: "succeeded", customerId, paymentProcessorMetadata: processorMetadata, confirmationHash, modifiedAt: new Date() };

  if (subscription && recurring) {
    const addOns = addOnEmbeds(view);
    const wire = subscriptionWire(subscription, { customer: customerWire, product, discount: discountWire, prices: recurring.prices, ...(addOns ? { addOns } : {}) });
    event("subscription.created", wire);
    if (subscription.status === "active") event("subscription.active", wire);
  }
  // the invoice number is taken by the statement that inserts the order, which fills it into these events
  const orderData = orderWire(order.row, order.items, { customer: customerWire, product: productSummary(product), discount: discountWire, subscription });
  events.push({ type: "order.created", data: orderData, withInvoiceNumber: true }, { type: "order.paid", data: orderData, withInvoiceNumber: true });
  const benefits = new Map(benefitList.map((b) => [b.id, b]));
  for (const g of grants) {
    const b = benefits.get(g.benefitId);
    if (b) event("benefit_grant.created", toBenefitGrantWire(g, b, customer.row));
  }
  const succeeded: CheckoutView = { ...view, row: finalRow };
  event("checkout.updated", toCheckoutWire(succeeded, now));
  const stateChanged = customerStateChanged(organizationId, customerId);
  event(stateChanged.type, stateChanged.data);

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

/** The chosen add-ons' products and prices, for the subscription's `items` (undefined without add-ons). */
function addOnEmbeds(view: CheckoutView): AddOnEmbeds | undefined {
  if (view.row.addOns.length === 0 || !view.addOnProducts) return undefined;
  const prices = new Map([...view.addOnProducts.values()].flatMap((p) => p.prices.map((x) => [x.id, x] as const)));
  return { products: view.addOnProducts, prices };
}

/** "Storage × 3", "Support (2 seats)": an add-on's line, named as the renewals name it. */
function addOnLabel(view: CheckoutView, a: CheckoutRow["addOns"][number]): string {
  const product = view.addOnProducts?.get(a.productId);
  const name = product?.name ?? "Add-on";
  const seatBased = product?.prices.find((p) => p.id === a.priceId)?.amount_type === "seat_based";
  return seatBased ? `${name} (${a.quantity} seats)` : a.quantity > 1 ? `${name} × ${a.quantity}` : name;
}

/** A checkout complete enough to fulfil: its product, price and organization known. */
interface Sale {
  view: CheckoutView;
  row: CheckoutRow;
  product: NonNullable<CheckoutView["product"]>;
  price: NonNullable<CheckoutView["price"]>;
  organization: NonNullable<CheckoutView["organization"]>;
}

/** The subscription a recurring product's checkout starts: its first period from now, or its trial. */
function checkoutSubscription(
  { row, product }: Sale,
  recurring: NonNullable<ReturnType<typeof subscriptionTerms>>,
  customerId: string,
  trialing: boolean,
  now: Date,
): SubscriptionRow {
  return newSubscriptionFromCheckout({
    id: randomUUID(),
    organizationId: row.organizationId,
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
    addOns: row.addOns.map((a) => ({ id: randomUUID(), ...a, createdAt: now.toISOString() })),
    metadata: row.metadata,
    customFieldData: row.customFieldData,
    purchaseOrder: row.purchaseOrder,
    now,
  });
}

/** The order a checkout pays, with the tax the checkout showed; a trial's order is the subscription's start at 0. */
function checkoutOrder(
  { view, row, product, price, organization }: Sale,
  discountAmount: number,
  subscription: SubscriptionRow | null,
  trialing: boolean,
  customerId: string,
  now: Date,
): ReturnType<typeof planOrderFromCheckout> {
  const discountValue = trialing ? 0 : discountAmount;
  // the product's line, then one per add-on (a trial's are at 0: nothing is charged before it ends)
  const lines = [
    ...(isStatic(price) ? [{ label: product.name, amount: row.amount, productPriceId: price.id, quantity: undefined }] : []),
    ...row.addOns.map((a) => ({ label: addOnLabel(view, a), amount: a.amount, productPriceId: a.priceId, quantity: a.quantity })),
  ].map((l) => (trialing ? { ...l, amount: 0 } : l));
  const itemAmounts = lines.map((l) => l.amount);
  const subtotal = itemAmounts.reduce((a, b) => a + b, 0);
  // the same tax as the checkout showed (and the payment took), kept per order line
  const tax = checkoutTax(organization, row, price, itemAmounts, discountValue, now);
  return planOrderFromCheckout(
    {
      organizationId: row.organizationId,
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
      purchaseOrder: row.purchaseOrder,
      // a subscription's first line covers its first period (a trial's: the trial)
      items: lines.map(({ quantity, ...line }) => ({
        ...line,
        ...(quantity !== undefined ? { quantity } : {}),
        ...(subscription ? { period: { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd } } : {}),
      })),
    },
    now,
  );
}

/**
 * The grants of a checkout's benefits: a subscription's benefits last as long as it does; a purchase's belong to
 * its order. A license_keys benefit issues its key with the grant, which names it; a meter_credit one records its
 * credit.
 */
function checkoutGrants(
  benefits: NonNullable<CheckoutView["product"]>["benefits"],
  at: { organizationId: string; customerId: string; subscriptionId: string | null; orderId: string; credit: GrantContext },
  now: Date,
): { grants: BenefitGrantRow[]; licenseKeys: LicenseKeyRow[] } {
  const licenseKeys: LicenseKeyRow[] = [];
  const grants = benefits.map((b): BenefitGrantRow => {
    const id = randomUUID();
    const given = fulfilGrant(b, { id, organizationId: at.organizationId, customerId: at.customerId }, now, at.credit);
    if (given.licenseKey) licenseKeys.push(given.licenseKey);
    return {
      id,
      organizationId: at.organizationId,
      benefitId: b.id,
      customerId: at.customerId,
      subscriptionId: at.subscriptionId,
      orderId: at.subscriptionId ? null : at.orderId,
      customerSeatId: null,
      memberId: null,
      grantedAt: given.granted ? now : null,
      revokedAt: null,
      properties: given.properties,
      previousProperties: null,
      error: null,
      createdAt: now,
      modifiedAt: null,
    };
  });
  return { grants, licenseKeys };
}

/**
 * The checkout's processor metadata once paid: what the customer's payment methods show of the card (never its number).
 */
function processorMetadataOf(row: CheckoutRow, payment: PaymentResult | null): Record<string, string> {
  const processorMetadata: Record<string, string> = { ...row.paymentProcessorMetadata, intent_status: "succeeded" };
  if (payment?.ok) {
    processorMetadata.payment_method_id = payment.paymentMethodId;
    const pm = payment.paymentMethod;
    Object.assign(processorMetadata, { payment_method_brand: pm.brand, payment_method_last4: pm.last4, payment_method_exp: `${pm.expMonth}/${pm.expYear}` });
    // a bank account (sepa_debit, us_bank_account): renewals charge it as one
    if (pm.method) processorMetadata.payment_method_type = pm.method;
    if (payment.paymentId) processorMetadata.payment_id = payment.paymentId;
  }
  return processorMetadata;
}

/** The `payment` row of a checkout's charge attempt (Polar's Payment, trigger `purchase`). */
export function chargeRow(
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
    method: (result.ok && result.paymentMethod.method) || "card",
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
export function subscriptionTerms(view: CheckoutView): { interval: string; count: number; prices: PriceWire[] } | null {
  const { product, price } = view;
  if (!product || !price) return null;
  const interval = product.recurring_interval ?? (typeof price.recurring_interval === "string" ? price.recurring_interval : "month");
  return {
    interval,
    count: product.recurring_interval_count ?? 1,
    prices: [price, ...product.prices.filter((p) => isMetered(p) && p.id !== price.id)],
  };
}

/** The customer of a checkout that did not create one: matched by id, external id or email, and updated. */
export async function matchCustomer(tx: Queryable, row: CheckoutRow): Promise<{ row: CustomerRow; created: boolean }> {
  if (!row.customerEmail) throw new Error("confirm: checkout has no customer email");
  const { customer, created } = await upsertCheckoutCustomer(tx, row.organizationId, {
    customerId: row.customerId,
    externalId: row.externalCustomerId,
    email: row.customerEmail,
    name: row.customerName,
    billingName: row.customerBillingName?.trim() || null,
    billingAddress: row.customerBillingAddress,
    taxId: row.customerTaxId,
    metadata: row.customerMetadata,
    locale: spokenLocale(row),
  });
  return { row: customer, created };
}
