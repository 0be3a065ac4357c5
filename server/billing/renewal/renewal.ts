// Renewal at period end, one subscription per transaction under its row lock. A subscription set to cancel at
// period end ends (canceled, its grants revoked). Any other starts its next period: a trial becomes active, and
// the period is billed — its static price as sold (fixed, custom, seats), the discount while its duration
// lasts, the metered prices' usage over the period ended — by a new order paid with the payment method the
// checkout saved; its grants are cycled. A declined charge leaves the order pending and the subscription
// past_due (no longer renewed) and starts its dunning (billing/dunning: retries on a schedule). A bank debit that
// is `processing` leaves the order pending and the subscription active until the bank answers (dunning's
// settleLatePayment: paid, or past due as a decline). Every webhook event of the change goes to the outbox in the same
// transaction.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { withCallTurn } from "../../db/call-turns.js";
import { customerStateChanged, enqueue, type OutboxEvent } from "../../db/outbox.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { cycleGrants, revokeGrantsOfSubscription, seatHoldersChanged } from "../benefits/service.js";
import { addInterval } from "../subscriptions/period.js";
import { isMetered } from "../products/pricing.js";
import { loadCustomers } from "../customers/service.js";
import { loadDiscountBases } from "../discounts/service.js";
import { invalid, notFound, notPermitted } from "../errors.js";
import { insertPlannedOrder, insertUnnumberedOrder, orderWire } from "../orders/service.js";
import { getOrganization } from "../organizations/service.js";
import { loadPrices, loadProducts, loadProductSummaries } from "../products/service.js";
import type { PriceWire, ProductSummaryWire } from "../products/wire.js";
import { afterDiscount, sellerTaxOf, taxOf } from "../tax/service.js";
import { dunningStart, heldStart, insertDunning, organizationDunningSettings, startDunning } from "../dunning/service.js";
import { type ChargeOutcome, chargeSaved, hasChargeableMethod, isProcessing, type PaymentMethodRow, paymentOf, recordCharge } from "../payments/service.js";
import { processorErrorOf } from "../../payments/processor.js";
import { noteProcessorError, type ProcessorErrorLog } from "../processor-connections/processor-errors.js";
import { billPeriod } from "./bill.js";
import { lockSubscription, patchSubscriptionTerms, subscriptionWire, type TermsPatch } from "../subscriptions/service.js";
import type { SubscriptionMeterWire, SubscriptionRow, SubscriptionWire } from "../subscriptions/wire.js";
import { subscriptionMeters } from "../subscriptions/usage.js";
import { loadAddOnEmbeds } from "../subscriptions/add-ons.js";
import { alreadyCanceled } from "../subscriptions/errors.js";
import { markUsageBilled, prepaidUsage, recordSettlement, settleAfterPrepaid, settleCarrying, usageFromWallet, type BalancePreview, type Settlement } from "../balance/service.js";
import { carriedProrations, type CarriedLine } from "./proration.js";
import { invoiceDueAt, renewalOrder, taxIdOf } from "./order.js";
import { applyPendingUpdate, pendingAt } from "./pending.js";
import { cycleMeterCredits } from "../subscriptions/meter-credits.js";
import { orgNow } from "../clock.js";
import { cycledEvents, NeedsSavepoint, type Batched } from "./writes.js";
import type { RenewalBatch } from "./batch.js";

export interface RenewalDeps {
  processor: PaymentProcessor;
  baseURL: string;
  /** Where a charge the processor could not process is logged for the operator. */
  log?: ProcessorErrorLog;
}

export async function embeds(tx: Queryable, sub: SubscriptionRow, baseURL: string) {
  const [customers, products, discounts, prices] = await Promise.all([
    loadCustomers(tx, sub.organizationId, { ids: [sub.customerId], externalIds: [] }),
    loadProducts(tx, sub.organizationId, [sub.productId], baseURL),
    loadDiscountBases(tx, sub.organizationId, sub.discountId ? [sub.discountId] : []),
    loadPrices(tx, sub.organizationId, sub.priceIds),
  ]);
  const customer = customers.byId.get(sub.customerId);
  const product = products.get(sub.productId);
  if (!customer || !product) throw new Error(`subscription ${sub.id}: its customer or product is missing`);
  return {
    customer,
    product,
    discount: sub.discountId ? (discounts.get(sub.discountId) ?? null) : null,
    prices: sub.priceIds.flatMap((id) => prices.get(id) ?? []),
  };
}

/** `endedMetered`: the metered prices the period ended ran under, when a pending change replaced them (pending.ts). */
export type Embeds = Awaited<ReturnType<typeof embeds>> & { endedMetered?: PriceWire[] };

/** The `Subscription` shape of the row as written, with its meters' usage over its (new) current period. */
export async function wireOf(tx: Queryable, row: SubscriptionRow, e: Embeds, preloaded?: SubscriptionMeterWire[]): Promise<SubscriptionWire> {
  const meters = preloaded ?? (await subscriptionMeters(tx, row.organizationId, [{ row, customer: e.customer, prices: e.prices }]))[0];
  return subscriptionWire(row, { ...e, meters, addOns: await loadAddOnEmbeds(tx, row.organizationId, [row], "") });
}

/** The subscription ends now: canceled, its grants revoked. */
async function endSubscription(tx: Queryable, sub: SubscriptionRow, e: Embeds, now: Date, endsNow: boolean): Promise<SubscriptionRow> {
  const ended = await patchSubscriptionTerms(
    tx,
    sub.organizationId,
    sub.id,
    {
      status: "canceled",
      endedAt: now,
      endsAt: endsNow ? now : sub.currentPeriodEnd,
      canceledAt: sub.canceledAt ?? now,
      ...(endsNow ? { currentPeriodEnd: now } : {}),
    },
    now,
  );
  const wire = await wireOf(tx, ended, e);
  const org = sub.organizationId;
  await enqueue(tx, [
    { type: "subscription.updated", organizationId: org, data: wire },
    { type: "subscription.revoked", organizationId: org, data: wire },
  ]);
  // records benefit_grant.revoked for each
  await revokeGrantsOfSubscription(tx, org, sub.id, now, sub.customerId);
  await enqueue(tx, customerStateChanged(org, sub.customerId));
  return ended;
}

/**
 * The renewal's settlement: the customer's balance pays first; without a balance (read by the batch), nothing to
 * lock. A product that takes usage from the wallet (`till_usage_from_wallet`) had part of the usage paid as it
 * happened (`prepaid`): only the rest is settled, and the order's applied amount (`order`) counts both, while the
 * ledger gets only the new movement (`ledger`).
 */
export async function settleRenewal(
  tx: Queryable,
  sub: SubscriptionRow,
  e: Embeds,
  total: number,
  batch: RenewalBatch | undefined,
  minimum: number,
  /** A preview's (upcoming.ts): the balance read without a lock, as the change previewed would leave it. */
  preview?: BalancePreview,
) {
  const prepaid = usageFromWallet(e.product.metadata) ? await prepaidUsage(tx, sub.organizationId, sub.id) : 0;
  if (prepaid > 0) return { prepaid, ...(await settleAfterPrepaid(tx, sub.organizationId, sub.customerId, sub.currency, total, prepaid, minimum, preview)) };
  let s: Settlement;
  // nothing on the balance (neither credit nor a carried debt) and enough to charge: nothing to read or lock
  if (batch && total >= minimum && !batch.moved.has(sub.customerId) && (batch.balances.get(`${sub.customerId}:${sub.currency.toLowerCase()}`) ?? 0) === 0) {
    s = { applied: 0, due: total };
  } else s = await settleCarrying(tx, sub.organizationId, sub.customerId, sub.currency, total, minimum, preview);
  return { prepaid, ledger: s, order: s };
}

/**
 * The bill of the period ended: its lines (the plan changes it carried last), their discount, and the tax for the
 * customer's billing address and tax id as they are now; `total` is what the renewal settles.
 */
export async function billRenewal(
  tx: Queryable,
  sub: SubscriptionRow,
  e: Embeds,
  { newStart, endsTrial, now, prorations }: { newStart: Date; endsTrial: boolean; now: Date; prorations?: CarriedLine[] },
  b: RenewalBatch | undefined,
) {
  const org = sub.organizationId;
  const bill = await billPeriod(tx, sub, {
    productName: e.product.name,
    customer: e.customer,
    prices: e.endedMetered ? [...e.endedMetered, ...e.prices.filter((p) => !isMetered(p))] : e.prices,
    discount: e.discount,
    ended: { start: sub.currentPeriodStart, end: newStart },
    newStart,
    endsTrial,
    preloaded: b && b.usage.has(sub.id) ? { usage: b.usage.get(sub.id) ?? [], credits: b.credits.get(sub.id) } : undefined,
  });
  // `prorate` plan changes of the period ended: their lines are this order's own
  const carried = await carriedProrations(tx, sub, prorations ?? b?.prorations.get(sub.id));
  const firstCarried = bill.items.length;
  for (const item of carried.items) {
    bill.items.push(item);
    bill.discountable.push(false);
    bill.inclusive.push(undefined);
    bill.subtotal += item.amount;
  }
  const organization = b?.organizations.get(org) ?? (await getOrganization(tx, org));
  // the period's tax, for the customer's billing address and tax id as they are now (metered lines too)
  const amounts = afterDiscount(bill.items.map((i) => i.amount), bill.discountable, bill.discount);
  const tax = taxOf(
    sellerTaxOf(organization),
    { address: e.customer.billing_address, business: e.customer.tax_id !== null, taxId: taxIdOf(e.customer.tax_id) },
    amounts.map((amount, i) => ({ amount, inclusive: bill.inclusive[i] })),
    now,
  );
  const total = tax ? tax.totalAmount : bill.subtotal - bill.discount;
  return { bill, carried, firstCarried, organization, tax, total };
}

/** The next period starts at `newStart`, billed by a new order. */
async function cycleSubscription(
  tx: Queryable,
  deps: RenewalDeps,
  sub: SubscriptionRow,
  e: Embeds,
  now: Date,
  newStart: Date,
  batched?: Batched,
): Promise<SubscriptionRow> {
  const org = sub.organizationId;
  const b = batched?.batch;
  const deferred = batched?.deferred ? batched.out : undefined;
  const endsTrial = sub.status === "trialing";
  const { bill, carried, firstCarried, organization, tax, total } = await billRenewal(tx, sub, e, { newStart, endsTrial, now }, b);
  // the customer's balance pays first (a net credit goes to it); the rest is charged to the saved card; a charge under
  // the processor's minimum is not made: carried to the balance, collected by the next renewal (Stripe's table)
  const { prepaid, ledger, order: settlement } = await settleRenewal(tx, sub, e, total, b, deps.processor.minimumCharge(sub.currency));
  // a balance movement and carried prorations write rows that name the order: they take the savepoint path
  if (deferred && (settlement.applied !== 0 || prepaid > 0 || carried.items.length > 0)) throw new NeedsSavepoint();
  // an invoice with terms (send_invoice) is issued unpaid, due days later, and nothing is charged (billing/terms.ts)
  const issued = settlement.due > 0 ? invoiceDueAt(sub, e.customer, now) : null;
  const pending = renewalOrder(sub, e.customer, bill, tax, { settlement, firstCarried, dueAt: issued }, now);
  const attempt = settlement.due > 0 && !issued ? await charge(tx, deps, sub, settlement.due, e, pending.row.id, b?.methods.get(sub.customerId)) : null;
  const paid = settlement.due <= 0 || attempt?.result.ok === true;
  const served = paid || issued !== null; // an issued invoice serves the period until it is overdue (invoices.ts)
  // a bank debit on its way: the order waits for the bank's answer (Stripe's event: dunning/late.ts,
  // settleLatePayment), the subscription stays active meanwhile — neither paid nor declined
  const processing = !paid && isProcessing(attempt);
  // the processor could not process the charge (not the customer's decline): the subscription stays active, the
  // order pending and held for the processor's retries; the customer is not dunned and the seller is told
  const unprocessed = !paid && !processing ? processorErrorOf(attempt?.result) : null;
  const order = { ...pending, row: { ...pending.row, status: paid ? "paid" : "pending" } };
  if (b && settlement.applied !== 0) b.moved.add(sub.customerId);
  const terms = {
    status: served || processing || unprocessed ? "active" : "past_due",
    currentPeriodStart: newStart,
    currentPeriodEnd: addInterval(newStart, sub.recurringInterval, sub.recurringIntervalCount),
    // a trial ended early (renewed now) ended then
    ...(endsTrial ? { trialEnd: newStart } : {}),
  } satisfies TermsPatch;
  const charged = { organizationId: org, customerId: sub.customerId, orderId: order.row.id, checkoutId: null, amount: settlement.due, currency: sub.currency, attempt: "renewal" } as const;
  let renewed: SubscriptionRow;
  let summaries: Map<string, ProductSummaryWire>;
  if (deferred && b) {
    // a deferred renewal (writes.ts): its rows are written with the whole batch's, the subscription's
    // as updateSubscription would write it
    renewed = { ...sub, ...terms, modifiedAt: now };
    summaries = b.summaries;
    deferred.deferred = {
      terms: renewed,
      order,
      payments: attempt ? [{ id: randomUUID(), ...paymentOf(deps.processor, attempt, charged, now) }] : [],
      dunning: [],
      cycle: null,
    };
  } else {
    // sent together (pipelined, run in this order): the subscription's new terms, the order — in a batch without
    // its invoice number (finishBatch numbers it); alone it takes the number now and the organization's counter
    // stays locked until the commit —, the balance movement, the prorations billed, and the charge attempt
    // (Polar's Payment; a failure starts dunning below)
    [renewed, summaries] = await Promise.all([
      patchSubscriptionTerms(tx, org, sub.id, terms, now),
      b?.summaries.has(sub.productId) ? b.summaries : loadProductSummaries(tx, org, [sub.productId]),
      b ? insertUnnumberedOrder(tx, order) : insertPlannedOrder(tx, order, organization.slug),
      recordSettlement(tx, org, ledger, { customerId: sub.customerId, currency: sub.currency, orderId: order.row.id, subscriptionId: sub.id }),
      prepaid > 0 ? markUsageBilled(tx, org, sub.id, order.row.id) : undefined,
      carried.billed(order.row.id),
      attempt ? recordCharge(tx, deps.processor, attempt, charged, now) : undefined,
    ]);
  }

  // the batch read the new period's meters when the renewal starts it at the period's end, as here
  const sameEnd = renewed.currentPeriodStart.getTime() === sub.currentPeriodEnd.getTime();
  const wire = await wireOf(tx, renewed, e, sameEnd ? b?.newMeters.get(sub.id) : undefined);
  const data = orderWire(order.row, order.items, {
    customer: e.customer,
    product: summaries.get(sub.productId) ?? null,
    discount: order.row.discountId ? e.discount : null,
    subscription: renewed,
  });
  const fill = { invoiceNumberOf: order.row.id };
  const events: OutboxEvent[] = [{ type: "order.created", organizationId: org, data, ...fill }];
  if (paid) events.push({ type: "order.paid", organizationId: org, data, ...fill, ...(endsTrial ? { mail: "subscription_cycled_after_trial" as const } : {}) });
  events.push({ type: "subscription.updated", organizationId: org, data: wire });
  const declined = !served && !processing && !unprocessed;
  if (unprocessed) {
    const held = heldStart(org, sub.id, order.row.id, now);
    if (deferred?.deferred) deferred.deferred.dunning.push(held);
    else await insertDunning(tx, held);
    await noteProcessorError(tx, org, unprocessed, { what: "renewal", id: order.row.id }, now, deps.log);
  }
  if (declined && deferred?.deferred && b) {
    const settings = b.dunningSettings.get(org) ?? (await organizationDunningSettings(tx, org));
    b.dunningSettings.set(org, settings);
    const start = dunningStart(settings, org, wire, order.row.id, now);
    deferred.deferred.dunning.push(start.row);
    events.push(...start.events);
  } else if (declined) {
    events.push(...(await startDunning(tx, org, wire, order.row.id, now)));
  }
  if (!declined && endsTrial) events.push({ type: "subscription.active", organizationId: org, data: wire });
  // a deferred renewal has no meter credits to cycle (writes.ts: canDefer); its grants are cycled with
  // the batch's, their events placed here
  if (served && deferred?.deferred) deferred.deferred.cycle = { at: events.length, now };
  else if (served) {
    // a trial's usage counts as none (its credit rolls over whole)
    const ended = endsTrial ? null : { customer: { id: e.customer.id, externalId: e.customer.external_id }, start: sub.currentPeriodStart, end: newStart };
    await cycleMeterCredits(tx, org, sub.id, bill.consumed, now, b?.creditGrants.get(sub.id), { start: terms.currentPeriodStart, end: terms.currentPeriodEnd }, ended);
    events.push(...cycledEvents(org, await cycleGrants(tx, org, sub.id, now)));
  }
  // past due: the seat holders' access follows the team's (renewed, their cycled credits say so: cycledEvents)
  events.push(customerStateChanged(org, sub.customerId), ...(declined ? await seatHoldersChanged(tx, org, sub) : []));
  if (batched) {
    batched.out.orders.push({ organizationId: org, id: order.row.id });
    batched.out.events.push(...events);
  } else {
    await enqueue(tx, events);
  }
  return renewed;
}

/** Charges the customer's default payment method (the one the checkout saved, unless they chose another). */
async function charge(tx: Queryable, deps: RenewalDeps, sub: SubscriptionRow, amount: number, e: Embeds, orderId: string, method?: PaymentMethodRow): Promise<ChargeOutcome> {
  return chargeSaved(
    tx,
    deps.processor,
    sub.organizationId,
    sub.customerId,
    {
      amount,
      currency: sub.currency,
      description: `${e.product.name} — renewal`,
      // the order it pays: a payment the processor finishes later (a bank debit) is settled by its event
      metadata: { subscription_id: sub.id, order_id: orderId },
      // the order is new: no earlier attempt whose answer was lost to ask again (payments/service.ts)
      idempotencyKey: `till-order-${orderId}-${randomUUID()}`,
    },
    method,
  );
}

/**
 * A trial ending without a card on file, where the organization lets trials start without one and chose to end
 * them (plan_settings.trial_end_without_card `cancel`); with `past_due` it is billed as any renewal (declined).
 */
async function endsCardless(tx: Queryable, deps: RenewalDeps, sub: SubscriptionRow, customer: Embeds["customer"], batched?: Batched): Promise<boolean> {
  const org = sub.organizationId;
  const settings = (batched?.batch.organizations.get(org) ?? (await getOrganization(tx, org))).plan_settings;
  if (!settings.trials_without_card || settings.trial_end_without_card !== "cancel") return false;
  // a customer who pays invoices needs no card
  if (batched?.batch.methods.has(sub.customerId) || invoiceDueAt(sub, customer, new Date())) return false;
  return !(await hasChargeableMethod(tx, deps.processor, org, sub.customerId));
}

/**
 * Renews a locked subscription in the caller's transaction: ends it or starts its next period. `endsNow`
 * renews as if the period had ended now (the till-only renew route); otherwise at its recorded end.
 */
export async function renewLocked(
  tx: Queryable,
  deps: RenewalDeps,
  sub: SubscriptionRow,
  now: Date,
  endsNow: boolean,
  /** A batch's renewal (server/jobs/schedules.ts): reads from the batch, leaves numbering and events to finishBatch. */
  batched?: Batched,
): Promise<SubscriptionRow> {
  const e = batched?.batch.embeds.get(sub.id) ?? (await embeds(tx, sub, deps.baseURL));
  if (sub.cancelAtPeriodEnd) return endSubscription(tx, sub, e, now, endsNow);
  if (sub.status === "trialing" && (await endsCardless(tx, deps, sub, e.customer, batched))) return endSubscription(tx, sub, e, now, endsNow);
  const newStart = endsNow ? now : sub.currentPeriodEnd;
  // a change waiting for this period's end applies whenever the period ends: at its recorded end, or now when
  // the renewal is forced (ended early), never carried into the next period
  if (pendingAt(sub, endsNow ? sub.currentPeriodEnd : newStart)) {
    // a plan change that waited for this renewal: written first, so the new period is billed at its terms
    if (batched?.deferred) throw new NeedsSavepoint();
    const { row, endedMetered } = await applyPendingUpdate(tx, sub, e.prices, now, deps.baseURL);
    batched?.batch.newMeters.delete(sub.id);
    return cycleSubscription(tx, deps, row, { ...(await embeds(tx, row, deps.baseURL)), endedMetered }, now, newStart, batched);
  }
  return cycleSubscription(tx, deps, sub, e, now, newStart, batched);
}

/**
 * POST /v1/subscriptions/{id}/renew, idempotent per period either way:
 * - with `periodStart` (the `current_period_start` the caller saw): renews that period now, whatever its end;
 *   once it has been renewed (or the subscription ended in it), the subscription is answered as it is;
 * - without: renews the current period only if its end has been reached, at that end (what the renewal
 *   schedule does on its next run); otherwise, a repeat of a renewal included, the subscription is answered
 *   as it is. A bare call sent twice never bills twice.
 * Nothing is billed for an answer "as it is".
 */
export async function renewNow(db: Db, deps: RenewalDeps, organizationId: string, id: string, periodStart?: Date): Promise<SubscriptionWire> {
  // a renewal billed now charges under the subscription's lock: in one of the pool's turns (db/call-turns.ts)
  return withCallTurn(db, () => db.transaction(async (tx) => {
    const sub = await lockSubscription(tx, organizationId, id);
    if (!sub) throw notFound("Subscription not found");
    const asItIs = async () => wireOf(tx, sub, await embeds(tx, sub, deps.baseURL));
    if (periodStart) {
      const current = sub.currentPeriodStart.getTime();
      if (periodStart.getTime() > current) {
        throw invalid(["body", "current_period_start"], `The subscription's current period started at ${sub.currentPeriodStart.toISOString()}.`);
      }
      const over = periodStart.getTime() < current || sub.endedAt !== null || sub.status === "canceled";
      if (over) return asItIs();
    }
    if (sub.endedAt || sub.status === "canceled") throw alreadyCanceled();
    if (sub.status !== "active" && sub.status !== "trialing") throw notPermitted(`A ${sub.status} subscription cannot be renewed.`);
    const now = await orgNow(tx, organizationId);
    if (!periodStart && sub.currentPeriodEnd.getTime() > now.getTime()) return asItIs();
    const renewed = await renewLocked(tx, deps, sub, now, Boolean(periodStart));
    return wireOf(tx, renewed, await embeds(tx, renewed, deps.baseURL));
  }));
}
