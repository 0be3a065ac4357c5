// Rules for checkouts: updated by the seller or by the customer's page, read by both, and expired 24 h after
// creation (create.ts). Every write is one transaction that locks the checkout row and records its webhook
// event in the outbox.
import type { ProcessorErrorLog } from "../processor-connections/processor-errors.js";
import type { Db, Queryable } from "../../db/client.js";
import { enqueue } from "../../db/outbox.js";
import { processorOfConnection, type PaymentProcessor } from "../../payments/processor.js";
import { findCustomerRow } from "../customers/service.js";
import { ApiError, notFound } from "../errors.js";
import { alreadyActiveSubscription, expiredCheckout, notOpenCheckout } from "./errors.js";
import type { SortKey } from "../listing.js";
import { toOrganizationWire, type OrganizationWire } from "../organizations/wire.js";
import { hasActiveSubscription } from "../subscriptions/service.js";
import { publishCheckoutEvents } from "./events.js";
import type { CheckoutPatch } from "./input.js";
import { applyPatch, type PatchMode } from "./patch.js";
import { assertMinimumCharge } from "./minimum.js";
import * as repo from "./repository.js";
import { nowAtOffset, orgNow } from "../clock.js";
import { loadView, loadViews, lockedView } from "./state.js";
import {
  statusOf,
  toCheckoutPublicWire,
  toCheckoutWire,
  clientSecretLookup,
  type CheckoutPublicWire,
  type CheckoutRow,
  type CheckoutView,
  type CheckoutWire,
} from "./wire.js";

const NOT_FOUND = "Checkout not found";

export interface CheckoutDeps {
  db: Db;
  baseURL: string;
  processor: PaymentProcessor;
  /** The instance reviews organizations' details (TILL_ORG_REVIEW=required): said in a refusal's missing steps. */
  reviewRequired?: boolean;
  /** Where a payment the processor could not process is logged for the operator (noteProcessorError). */
  log?: ProcessorErrorLog;
}

// ---- shared checks ------------------------------------------------------------------------------------

/**
 * The customer's page may act on an open checkout only — or a failed one (its bank debit was refused: paid again
 * with another method, payment-failed.ts): 410 once expired, 403 once confirmed or done.
 */
export function assertOpenForCustomer(row: CheckoutRow, now = new Date()): void {
  const status = statusOf(row, now);
  if (status === "expired" || (status === "failed" && row.expiresAt.getTime() <= now.getTime())) throw expiredCheckout();
  if (status !== "open" && status !== "failed") throw notOpenCheckout(row, status);
}

/**
 * Organizations that allow one subscription per customer (the default) refuse a second one: checked as
 * soon as the customer is known (by id or email) on a recurring product.
 */
export async function assertSubscriptionAllowed(tx: Queryable, view: CheckoutView): Promise<void> {
  const { row, product, organization } = view;
  if (!product?.is_recurring) return;
  if (organization?.subscription_settings.allow_multiple_subscriptions) return;
  if (!row.customerId && !row.customerEmail) return;
  if (await hasActiveSubscription(tx, row.organizationId, { customerId: row.customerId, email: row.customerEmail })) {
    throw alreadyActiveSubscription();
  }
}

/** The columns a patch may change (everything but identity and lifecycle). */
export function patchValues(row: CheckoutRow): repo.CheckoutPatchValues {
  const { id: _id, organizationId: _org, clientSecret: _secret, clientSecretHash: _hash, createdAt: _created, modifiedAt: _modified, ...values } = row;
  return values;
}

const sameValue = (a: unknown, b: unknown) =>
  a === b || (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : JSON.stringify(a) === JSON.stringify(b));

/** Only the columns `after` changed from `before`: a narrow UPDATE is far cheaper to build than all forty. */
export function changedValues(before: CheckoutRow, after: CheckoutRow): repo.CheckoutPatchValues {
  const next = patchValues(after) as Record<string, unknown>;
  const prev = patchValues(before) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(next).filter(([key, value]) => !sameValue(value, prev[key]))) as repo.CheckoutPatchValues;
}

// ---- read ---------------------------------------------------------------------------------------------

/** The processor's id of the payment that paid the checkout; null for a free checkout or an unknown one. */
export async function paymentIdOfCheckout(db: Queryable, organizationId: string, id: string): Promise<string | null> {
  const row = await repo.findCheckout(db, organizationId, id);
  return row?.paymentProcessorMetadata.payment_id ?? null;
}

export async function getCheckout(deps: CheckoutDeps, organizationId: string, id: string): Promise<CheckoutWire> {
  const row = await repo.findCheckout(deps.db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return toCheckoutWire(await loadView(deps.db, row, deps.baseURL, false), await orgNow(deps.db, organizationId));
}

export async function listCheckouts(
  deps: CheckoutDeps,
  organizationId: string,
  filter: repo.CheckoutFilter,
  sorting: Array<SortKey<repo.CheckoutSort>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listCheckouts(deps.db, organizationId, filter, sorting, pageNo, limit);
  const views = await loadViews(deps.db, rows, deps.baseURL, false);
  const now = await orgNow(deps.db, organizationId);
  return { items: views.map((v) => toCheckoutWire(v, now)), total };
}

/**
 * A checkout found by its client secret, with its organization, the organization's now and the processor of its
 * payments.
 */
export interface ClientCheckout {
  row: CheckoutRow;
  organization: OrganizationWire;
  /** The organization's now at the wall clock given (its test clock's, in a sandbox). */
  now: Date;
  processor(): PaymentProcessor;
}

/**
 * The checkout behind a client secret (404), read with its organization, clock and Stripe connection in one statement.
 */
async function findBySecret(deps: CheckoutDeps, clientSecret: string, wall = new Date()): Promise<ClientCheckout> {
  const found = clientSecret.length <= 128 ? await repo.findCheckoutBySecretInContext(deps.db, clientSecretLookup(clientSecret)) : undefined;
  if (!found) throw notFound(NOT_FOUND);
  return {
    row: found.row,
    organization: toOrganizationWire(found.organization, found.billing ?? undefined),
    now: nowAtOffset(found.clockOffsetMs, wall),
    processor: () => processorOfConnection(deps.processor, found.connection),
  };
}

/** The customer's page: 404 for an unknown secret, 410 once expired (Polar's). */
export async function clientGetCheckout(deps: CheckoutDeps, clientSecret: string): Promise<CheckoutPublicWire & { customer_locale: string | null }> {
  const { row, organization, now } = await findBySecret(deps, clientSecret);
  if (statusOf(row, now) === "expired") throw expiredCheckout();
  const [view, customerLocale] = await Promise.all([loadView(deps.db, row, deps.baseURL, organization), storedCustomerLocale(deps.db, row)]);
  return { ...toCheckoutPublicWire(view, now), customer_locale: customerLocale };
}

/**
 * The known customer's stored `locale` (till-only `customer_locale` on the page's read): the page speaks it when
 * the checkout names none, before the browser's languages (shared/i18n/locales.ts resolveLocale).
 */
async function storedCustomerLocale(db: Queryable, row: CheckoutRow): Promise<string | null> {
  if (!row.customerId || row.locale) return null;
  try {
    return (await findCustomerRow(db, row.organizationId, { id: row.customerId })).locale ?? null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** The checkout behind a client secret, for routes that only need to know it exists and is usable. */
export async function clientCheckoutRow(deps: CheckoutDeps, clientSecret: string): Promise<CheckoutRow> {
  const { row, now } = await findBySecret(deps, clientSecret);
  assertNotExpired(row, now);
  return row;
}

/** clientCheckoutRow in two steps, for the confirm: the checkout in its organization's context (404) at `wall`… */
export const clientCheckoutBySecret = (deps: CheckoutDeps, clientSecret: string, wall: Date): Promise<ClientCheckout> => findBySecret(deps, clientSecret, wall);

/** …then 410 once expired at the organization's `now`. */
export function assertNotExpired(row: CheckoutRow, now: Date): void {
  if (statusOf(row, now) === "expired") throw expiredCheckout();
}

// ---- update -------------------------------------------------------------------------------------------

async function updateLocked(
  deps: CheckoutDeps,
  found: CheckoutRow,
  patch: CheckoutPatch,
  mode: Exclude<PatchMode, "create" | "confirm">,
  ipAddress?: string,
  /** The organization's now, when the caller read it already. */
  readNow?: Date,
): Promise<CheckoutView> {
  const now = readNow ?? (await orgNow(deps.db, found.organizationId));
  const preloaded = await loadView(deps.db, found, deps.baseURL, true);
  const view = await deps.db.transaction(async (tx) => {
    const current = await lockedView(tx, preloaded, deps.baseURL);
    const status = statusOf(current.row, now);
    if (mode === "public") assertOpenForCustomer(current.row, now);
    else if (status !== "open") throw notOpenCheckout(current.row, status);
    const patched = await applyPatch(tx, current, patch, mode, now);
    // the customer's own address, first seen when their page writes
    if (ipAddress && !patched.row.customerIpAddress) patched.row.customerIpAddress = ipAddress;
    // every processor holds the same table (Stripe's, which its test mode enforces too): the router's answers for all
    assertMinimumCharge(patched, patch, (c) => deps.processor.minimumCharge(c), now);
    await assertSubscriptionAllowed(tx, patched);
    const row = await repo.updateCheckout(tx, found.id, changedValues(current.row, patched.row));
    const updated = { ...patched, row };
    await enqueue(tx, { type: "checkout.updated", organizationId: row.organizationId, data: toCheckoutWire(updated, now) });
    return updated;
  });
  publishCheckoutEvents(view.row.id, [{ key: "checkout.updated", payload: { status: statusOf(view.row, now) } }]);
  return view;
}

export async function updateCheckout(deps: CheckoutDeps, organizationId: string, id: string, patch: CheckoutPatch): Promise<CheckoutWire> {
  // the organization check happens before the lock: a foreign id is a 404 like any other
  const found = await repo.findCheckout(deps.db, organizationId, id);
  if (!found) throw notFound(NOT_FOUND);
  return toCheckoutWire(await updateLocked(deps, found, patch, "seller"));
}

export async function clientUpdateCheckout(
  deps: CheckoutDeps,
  clientSecret: string,
  patch: CheckoutPatch,
  ipAddress?: string,
): Promise<CheckoutPublicWire> {
  const { row, now } = await findBySecret(deps, clientSecret);
  assertOpenForCustomer(row, now);
  return toCheckoutPublicWire(await updateLocked(deps, row, patch, "public", ipAddress, now));
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

