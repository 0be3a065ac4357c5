// Rules for subscriptions: created by a confirmed checkout (active, or trialing until the trial ends), read
// by the seller with filters, and the customer's active subscriptions for its state.
import type { Db, Queryable } from "../../db/client.js";
import type { CustomFieldData, Metadata, SubscriptionAddOn } from "../../db/schema/index.js";
import { notFound } from "../errors.js";
import type { SortKey } from "../listing.js";
import type { CsvExport } from "../csv.js";
import { loadPrices } from "../products/service.js";
import type { PriceWire } from "../products/wire.js";
import { toWires } from "./load.js";
import * as repo from "./repository.js";
import { subscriptionMeters } from "./usage.js";
import { toSubscriptionWire, type SubscriptionEmbeds, type SubscriptionRow, type SubscriptionWire } from "./wire.js";

const NOT_FOUND = "Subscription not found";

export async function getSubscription(db: Db, organizationId: string, id: string, baseURL: string): Promise<SubscriptionWire> {
  const row = await repo.findSubscription(db, organizationId, id);
  const [wire] = row ? await toWires(db, organizationId, [row], baseURL) : [];
  if (!wire) throw notFound(NOT_FOUND);
  return wire;
}

export async function listSubscriptions(
  db: Db,
  organizationId: string,
  filter: repo.SubscriptionFilter,
  sorting: Array<SortKey<repo.SubscriptionSort>>,
  pageNo: number,
  limit: number,
  baseURL: string,
) {
  const { rows, total } = await repo.listSubscriptions(db, organizationId, filter, sorting, pageNo, limit);
  return { items: await toWires(db, organizationId, rows, baseURL), total };
}

// ---- for other domains ----------------------------------------------------------------------------

/** Whether the customer (by id, or a live customer by email) already has an active or trialing subscription. */
export const hasActiveSubscription = (db: Queryable, organizationId: string, who: { customerId?: string | null; email?: string | null }) =>
  repo.hasActiveSubscription(db, organizationId, who);

export interface SubscriptionFromCheckout {
  /** Chosen by the caller, so statements that refer to the subscription can be sent alongside. */
  id: string;
  organizationId: string;
  checkoutId: string;
  customerId: string;
  productId: string;
  priceIds: string[];
  amount: number;
  currency: string;
  recurringInterval: string;
  recurringIntervalCount: number;
  /** Set when the checkout starts a trial: the subscription is trialing until then. */
  trialEnd: Date | null;
  /** The end of the first paid period (computed by the caller from the interval). */
  periodEnd: Date;
  discountId: string | null;
  seats: number | null;
  /** The add-ons chosen at checkout (none when left out). */
  addOns?: SubscriptionAddOn[];
  metadata: Metadata;
  customFieldData: CustomFieldData;
  /** The buyer's purchase order number given at checkout. */
  purchaseOrder?: string | null;
  now: Date;
}

/**
 * The row of the subscription a confirmed checkout starts: active, or trialing until the trial ends. The
 * checkout confirm inserts it within its own single fulfilling statement.
 */
export function newSubscriptionFromCheckout(s: SubscriptionFromCheckout): SubscriptionRow {
  const trialing = s.trialEnd !== null;
  return {
    id: s.id,
    organizationId: s.organizationId,
    status: trialing ? "trialing" : "active",
    amount: s.amount,
    currency: s.currency,
    recurringInterval: s.recurringInterval,
    recurringIntervalCount: s.recurringIntervalCount,
    currentPeriodStart: s.now,
    currentPeriodEnd: trialing && s.trialEnd ? s.trialEnd : s.periodEnd,
    trialStart: trialing ? s.now : null,
    trialEnd: s.trialEnd,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    startedAt: s.now,
    endsAt: null,
    endedAt: null,
    customerId: s.customerId,
    productId: s.productId,
    startedProductId: null,
    priceIds: s.priceIds,
    discountId: s.discountId,
    checkoutId: s.checkoutId,
    seats: s.seats,
    customerCancellationReason: null,
    customerCancellationComment: null,
    prorationBehavior: null,
    addOns: s.addOns ?? [],
    pendingUpdate: null,
    trialRemindedAt: null,
    collectionMethod: null,
    daysUntilDue: null,
    purchaseOrder: s.purchaseOrder ?? null,
    customFieldData: s.customFieldData,
    metadata: s.metadata,
    createdAt: s.now,
    modifiedAt: null,
  };
}

/** The `Subscription` shape of a row whose embeds the caller already holds (webhook payloads). */
export const subscriptionWire = (row: SubscriptionRow, embeds: SubscriptionEmbeds) => toSubscriptionWire(row, embeds);

/**
 * `CustomerState.active_subscriptions` entries of a customer, each with its `meters` (CustomerStateSubscriptionMeter:
 * the current period's usage as in `Subscription.meters`, without the embedded meter), all measured in one batch.
 */
export async function activeSubscriptionsForCustomerState(
  db: Queryable,
  organizationId: string,
  customer: { id: string; external_id: string | null },
  /** activeSubscriptionRows of the customer, when the caller read them already */
  active?: SubscriptionRow[],
) {
  const rows = active ?? (await repo.activeSubscriptionsOfCustomer(db, organizationId, customer.id));
  const prices = rows.length === 0 ? new Map<string, PriceWire>() : await loadPrices(db, organizationId, rows.flatMap((r) => r.priceIds));
  const meters = await subscriptionMeters(
    db,
    organizationId,
    rows.map((row) => ({ row, customer, prices: row.priceIds.flatMap((id) => prices.get(id) ?? []) })),
  );
  return rows.map((r, i) => ({
    id: r.id,
    created_at: r.createdAt.toISOString(),
    modified_at: r.modifiedAt?.toISOString() ?? null,
    metadata: r.metadata,
    custom_field_data: r.customFieldData,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    recurring_interval: r.recurringInterval,
    current_period_start: r.currentPeriodStart.toISOString(),
    current_period_end: r.currentPeriodEnd.toISOString(),
    current_meter_period_start: r.currentPeriodStart.toISOString(),
    current_meter_period_end: r.currentPeriodEnd.toISOString(),
    trial_start: r.trialStart?.toISOString() ?? null,
    trial_end: r.trialEnd?.toISOString() ?? null,
    cancel_at_period_end: r.cancelAtPeriodEnd,
    canceled_at: r.canceledAt?.toISOString() ?? null,
    started_at: r.startedAt?.toISOString() ?? null,
    ends_at: r.endsAt?.toISOString() ?? null,
    product_id: r.productId,
    discount_id: r.discountId ?? null,
    meters: (meters[i] ?? []).map(({ meter: _meter, ...m }) => m),
  }));
}

/** The customer's subscriptions that give access now (for activeSubscriptionsForCustomerState). */
export function activeSubscriptionRows(db: Queryable, organizationId: string, customerId: string): Promise<SubscriptionRow[]> {
  return repo.activeSubscriptionsOfCustomer(db, organizationId, customerId);
}

/** Subscription rows by id (what orders embed as `subscription`). */
export async function loadSubscriptionRows(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, SubscriptionRow>> {
  const rows = await repo.findSubscriptionsByIds(db, organizationId, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, r]));
}

/** The organization's subscriptions as CSV (`GET /v1/subscriptions/export`), oldest first. */
export function subscriptionExport(organizationId: string): CsvExport {
  return repo.subscriptionsExport(organizationId);
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** A subscription's row by id, or undefined. */
export const findSubscription: typeof repo.findSubscription = (...args) => repo.findSubscription(...args);
/** The terms patchSubscriptionTerms writes. */
export type TermsPatch = repo.TermsPatch;
/** Writes a subscription's status, period, trial end or end (renewal, dunning, proration); throws if it vanished. */
export const patchSubscriptionTerms: typeof repo.patchSubscriptionTerms = (...args) => repo.patchSubscriptionTerms(...args);
/** The row locked FOR UPDATE until the caller's transaction ends: every change to a subscription takes it. */
export const insertSubscriptionRow: typeof repo.insertSubscription = (...args) => repo.insertSubscription(...args);

export const lockSubscription: typeof repo.lockSubscription = (...args) => repo.lockSubscription(...args);
/**
 * Up to `limit` subscriptions due for renewal (period ended, by the wall clock or a test clock), locked SKIP LOCKED.
 */
export const claimDueSubscriptions: typeof repo.claimDueSubscriptions = (...args) => repo.claimDueSubscriptions(...args);
/** A renewal batch's new terms (status, period, trial end, modified at), one statement; throws if a row vanished. */
export const writeRenewedTerms: typeof repo.writeRenewedTerms = (...args) => repo.writeRenewedTerms(...args);
/** A subscription's row patched (subscription-changes/: an update, a revoke); undefined when it vanished. */
export const writeSubscription: typeof repo.updateSubscription = (...args) => repo.updateSubscription(...args);
/** The customer's subscriptions that have not ended, locked FOR UPDATE (a customer's deletion revokes them). */
export const lockOpenSubscriptionsOfCustomer: typeof repo.lockOpenSubscriptionsOfCustomer = (...args) => repo.lockOpenSubscriptionsOfCustomer(...args);
