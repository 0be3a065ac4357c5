// SQL of payments: a customer's saved payment methods (adopting the ones their checkouts saved), and the
// charge attempts. Every function takes the organization id and filters by it.
import { and, asc, count, desc, eq, inArray, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { insertFrom, record, shapeOf } from "../../db/json-rows.js";
import { rawQuery } from "../../db/prepared.js";
import { checkout, customer, order, payment, paymentMethod, subscription } from "../../db/schema/index.js";
import { orderBy, type SortKey } from "../listing.js";

export type PaymentMethodRow = typeof paymentMethod.$inferSelect;
export type PaymentRow = typeof payment.$inferSelect;
export type NewPayment = typeof payment.$inferInsert;

/**
 * Copies into payment_method the methods the customer's checkouts saved with the processor that are not there
 * yet (a removed one stays removed: its row is kept). A customer without a default gets the newest as default.
 */
export async function adoptCheckoutMethods(db: Queryable, organizationId: string, customerId: string, processor: string): Promise<void> {
  await db.execute(sql`
    INSERT INTO ${paymentMethod} (organization_id, customer_id, processor, processor_method_id, type, brand, last4, exp_month, exp_year, created_at)
    SELECT DISTINCT ON (m.pm) ${organizationId}::uuid, ${customerId}::uuid, ${processor}, m.pm, coalesce(m.type, 'card'),
      coalesce(m.brand, 'unknown'), coalesce(m.last4, substring(m.pm from 'pm_test_(\\d{4})'), '0000'),
      coalesce(split_part(m.exp, '/', 1), '0')::int, coalesce(nullif(split_part(m.exp, '/', 2), ''), '0')::int, m.created_at
    FROM (
      SELECT c.payment_processor_metadata ->> 'payment_method_id' AS pm, c.payment_processor_metadata ->> 'payment_method_brand' AS brand,
        c.payment_processor_metadata ->> 'payment_method_type' AS type,
        c.payment_processor_metadata ->> 'payment_method_last4' AS last4,
        coalesce(c.payment_processor_metadata ->> 'payment_method_exp',
          replace(substring(c.payment_processor_metadata ->> 'payment_method_id' from 'pm_test_\\d{4}_(\\d{1,2}_\\d{4})'), '_', '/')) AS exp,
        coalesce(c.modified_at, c.created_at) AS created_at
      FROM ${checkout} c
      WHERE c.organization_id = ${organizationId} AND c.customer_id = ${customerId} AND c.status = 'succeeded'
        AND c.payment_processor_metadata ? 'payment_method_id'
    ) m
    ORDER BY m.pm, m.created_at DESC
    ON CONFLICT (organization_id, customer_id, processor_method_id) DO NOTHING`);
  await ensureDefault(db, organizationId, customerId);
}

/** When no live method is the default, the newest becomes it. */
async function ensureDefault(db: Queryable, organizationId: string, customerId: string): Promise<void> {
  await db.execute(sql`
    UPDATE ${paymentMethod} SET is_default = true, modified_at = now()
    WHERE id = (
      SELECT id FROM ${paymentMethod}
      WHERE organization_id = ${organizationId} AND customer_id = ${customerId} AND deleted_at IS NULL
      ORDER BY created_at DESC, id DESC LIMIT 1
    ) AND NOT EXISTS (
      SELECT 1 FROM ${paymentMethod}
      WHERE organization_id = ${organizationId} AND customer_id = ${customerId} AND deleted_at IS NULL AND is_default
    )`);
}

const live = (organizationId: string, customerId: string) =>
  and(eq(paymentMethod.organizationId, organizationId), eq(paymentMethod.customerId, customerId), isNull(paymentMethod.deletedAt));

/** The customer's live payment methods, the default first, then newest first. */
export async function listMethods(db: Queryable, organizationId: string, customerId: string, limit: number, offset: number) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(paymentMethod)
      .where(live(organizationId, customerId))
      .orderBy(desc(paymentMethod.isDefault), desc(paymentMethod.createdAt), asc(paymentMethod.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(paymentMethod).where(live(organizationId, customerId)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The method renewals and retries charge: the default, else the newest. */
export async function chargeableMethod(db: Queryable, organizationId: string, customerId: string): Promise<PaymentMethodRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentMethod)
    .where(live(organizationId, customerId))
    .orderBy(desc(paymentMethod.isDefault), desc(paymentMethod.createdAt), asc(paymentMethod.id))
    .limit(1);
  return row;
}

/**
 * adoptCheckoutMethods for many customers in two statements (the renewal schedule's batch): each customer's
 * checkout-saved methods are adopted, and the newest live one becomes the default where none is.
 */
export async function adoptCheckoutMethodsOf(db: Queryable, organizationId: string, customerIds: string[], processor: string): Promise<void> {
  if (customerIds.length === 0) return;
  const ids = sql`(SELECT jsonb_array_elements_text(${JSON.stringify(customerIds)}::jsonb)::uuid)`;
  await db.execute(sql`
    INSERT INTO ${paymentMethod} (organization_id, customer_id, processor, processor_method_id, type, brand, last4, exp_month, exp_year, created_at)
    SELECT DISTINCT ON (m.customer_id, m.pm) ${organizationId}::uuid, m.customer_id, ${processor}, m.pm, coalesce(m.type, 'card'),
      coalesce(m.brand, 'unknown'), coalesce(m.last4, substring(m.pm from 'pm_test_(\\d{4})'), '0000'),
      coalesce(split_part(m.exp, '/', 1), '0')::int, coalesce(nullif(split_part(m.exp, '/', 2), ''), '0')::int, m.created_at
    FROM (
      SELECT c.customer_id, c.payment_processor_metadata ->> 'payment_method_id' AS pm, c.payment_processor_metadata ->> 'payment_method_brand' AS brand,
        c.payment_processor_metadata ->> 'payment_method_type' AS type,
        c.payment_processor_metadata ->> 'payment_method_last4' AS last4,
        coalesce(c.payment_processor_metadata ->> 'payment_method_exp',
          replace(substring(c.payment_processor_metadata ->> 'payment_method_id' from 'pm_test_\\d{4}_(\\d{1,2}_\\d{4})'), '_', '/')) AS exp,
        coalesce(c.modified_at, c.created_at) AS created_at
      FROM ${checkout} c
      WHERE c.organization_id = ${organizationId} AND c.customer_id IN ${ids} AND c.status = 'succeeded'
        AND c.payment_processor_metadata ? 'payment_method_id'
    ) m
    ORDER BY m.customer_id, m.pm, m.created_at DESC
    ON CONFLICT (organization_id, customer_id, processor_method_id) DO NOTHING`);
  await db.execute(sql`
    UPDATE ${paymentMethod} SET is_default = true, modified_at = now()
    WHERE id IN (
      SELECT DISTINCT ON (customer_id) id FROM ${paymentMethod}
      WHERE organization_id = ${organizationId} AND customer_id IN ${ids} AND deleted_at IS NULL
      ORDER BY customer_id, created_at DESC, id DESC
    ) AND NOT EXISTS (
      SELECT 1 FROM ${paymentMethod} d
      WHERE d.organization_id = ${organizationId} AND d.customer_id = ${paymentMethod}.customer_id AND d.deleted_at IS NULL AND d.is_default
    )`);
}

/** chargeableMethod of each customer (the default, else the newest live one), by customer id; absent: none. */
export async function chargeableMethodsOf(db: Queryable, organizationId: string, customerIds: string[]): Promise<Map<string, PaymentMethodRow>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([paymentMethod.customerId])
    .from(paymentMethod)
    .where(and(eq(paymentMethod.organizationId, organizationId), inArray(paymentMethod.customerId, customerIds), isNull(paymentMethod.deletedAt)))
    .orderBy(asc(paymentMethod.customerId), desc(paymentMethod.isDefault), desc(paymentMethod.createdAt), asc(paymentMethod.id));
  return new Map(rows.map((r) => [r.customerId, r]));
}

export async function findMethod(db: Queryable, organizationId: string, customerId: string, id: string): Promise<PaymentMethodRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentMethod)
    .where(and(live(organizationId, customerId), eq(paymentMethod.id, id)))
    .limit(1);
  return row;
}

/** Saves a method (or brings back one removed earlier with the same processor reference). */
export async function upsertMethod(db: Queryable, row: typeof paymentMethod.$inferInsert, now: Date): Promise<PaymentMethodRow> {
  const [saved] = await db
    .insert(paymentMethod)
    .values(row)
    .onConflictDoUpdate({
      target: [paymentMethod.organizationId, paymentMethod.customerId, paymentMethod.processorMethodId],
      set: { deletedAt: null, modifiedAt: now, ...(row.type ? { type: row.type } : {}), brand: row.brand, last4: row.last4, expMonth: row.expMonth, expYear: row.expYear },
    })
    .returning();
  if (!saved) throw new Error("payment method not saved");
  return saved;
}

/**
 * Inserts a method unless the customer has it, kept or removed (a removed one is not brought back): undefined when it
 * was there.
 */
export async function insertMethodIfAbsent(db: Queryable, row: typeof paymentMethod.$inferInsert): Promise<PaymentMethodRow | undefined> {
  const [saved] = await db
    .insert(paymentMethod)
    .values(row)
    .onConflictDoNothing({ target: [paymentMethod.organizationId, paymentMethod.customerId, paymentMethod.processorMethodId] })
    .returning();
  return saved;
}

export async function setDefault(db: Queryable, organizationId: string, customerId: string, id: string, now: Date): Promise<void> {
  await db
    .update(paymentMethod)
    .set({ isDefault: sql`${paymentMethod.id} = ${id}`, modifiedAt: now })
    .where(and(live(organizationId, customerId), sql`${paymentMethod.isDefault} <> (${paymentMethod.id} = ${id})`));
}

export async function removeMethod(db: Queryable, organizationId: string, customerId: string, id: string, now: Date): Promise<void> {
  await db
    .update(paymentMethod)
    .set({ deletedAt: now, isDefault: false, modifiedAt: now })
    .where(and(live(organizationId, customerId), eq(paymentMethod.id, id)));
  await ensureDefault(db, organizationId, customerId);
}

export async function otherMethodCount(db: Queryable, organizationId: string, customerId: string, id: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(paymentMethod)
    .where(and(live(organizationId, customerId), ne(paymentMethod.id, id)));
  return row?.n ?? 0;
}

/** Whether the customer has a subscription that will be charged again (trialing, active or past due, not ending). */
export async function hasBillableSubscription(db: Queryable, organizationId: string, customerId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: subscription.id })
    .from(subscription)
    .where(
      and(
        eq(subscription.organizationId, organizationId),
        eq(subscription.customerId, customerId),
        inArray(subscription.status, ["trialing", "active", "past_due"]),
        eq(subscription.cancelAtPeriodEnd, false),
      ),
    )
    .limit(1);
  return Boolean(row);
}

export async function insertPayment(db: Queryable, row: NewPayment): Promise<PaymentRow> {
  const [saved] = await db.insert(payment).values(row).returning();
  if (!saved) throw new Error("payment not recorded");
  return saved;
}

const INSERT_PAYMENTS = insertFrom(shapeOf(payment), "$1::text::jsonb");

/** Charge attempts of many orders in one statement (a billing run's batch); each row carries its own id. */
export async function insertPayments(db: Queryable, rows: Array<NewPayment & { id: string }>): Promise<void> {
  if (rows.length === 0) return;
  const shape = shapeOf(payment);
  await rawQuery(db, INSERT_PAYMENTS, [JSON.stringify(rows.map((r) => record(shape, { method: "card", ...r })))]);
}

export type PaymentSortKey = "created_at" | "status" | "amount" | "method";

export interface PaymentFilter {
  checkoutIds?: string[] | undefined;
  orderIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  customerEmail?: string | undefined;
  statuses?: string[] | undefined;
  methods?: string[] | undefined;
}

export async function listPayments(db: Queryable, organizationId: string, f: PaymentFilter, sorting: Array<SortKey<PaymentSortKey>>, limit: number, offset: number) {
  const where: SQL[] = [eq(payment.organizationId, organizationId)];
  if (f.checkoutIds) where.push(inArray(payment.checkoutId, f.checkoutIds));
  if (f.orderIds) where.push(inArray(payment.orderId, f.orderIds));
  if (f.customerIds) where.push(inArray(payment.customerId, f.customerIds));
  if (f.statuses) where.push(inArray(payment.status, f.statuses));
  if (f.methods) where.push(inArray(payment.method, f.methods));
  if (f.customerEmail) {
    where.push(
      inArray(
        payment.customerId,
        db
          .select({ id: customer.id })
          .from(customer)
          .where(and(eq(customer.organizationId, organizationId), sql`lower(${customer.email}) = lower(${f.customerEmail})`)),
      ),
    );
  }
  const cond = and(...where);
  const columns = { created_at: payment.createdAt, status: payment.status, amount: payment.amount, method: payment.method };
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(payment)
      .where(cond)
      .orderBy(...orderBy(sorting, columns, payment.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(payment).where(cond),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function findPayment(db: Queryable, organizationId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), eq(payment.id, id)))
    .limit(1);
  return row;
}

/** The order's last charge attempt. */
export async function lastPaymentOfOrder(db: Queryable, organizationId: string, orderId: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), eq(payment.orderId, orderId)))
    .orderBy(desc(payment.createdAt), desc(payment.id))
    .limit(1);
  return row;
}

/**
 * The order's latest payment still pending of `method` (a bank transfer awaiting the customer's money) or with the
 * processor's `declineReason` (`processing`: a bank debit on its way), if any.
 */
export async function pendingPaymentOfOrder(db: Queryable, organizationId: string, orderId: string, match: { method: string } | { declineReason: string }): Promise<PaymentRow | undefined> {
  const which = "method" in match ? eq(payment.method, match.method) : eq(payment.declineReason, match.declineReason);
  const [row] = await db
    .select()
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), eq(payment.orderId, orderId), eq(payment.status, "pending"), which))
    .orderBy(desc(payment.createdAt), desc(payment.id))
    .limit(1);
  return row;
}

/** A pending transfer whose cancel the processor refused for good (transfer-cancel.ts): not asked again. */
export const CANCEL_REFUSED_CODE = "cancel_refused";
const awaitingTransfer = and(eq(payment.status, "pending"), eq(payment.method, "customer_balance"), sql`${payment.declineReason} IS DISTINCT FROM ${CANCEL_REFUSED_CODE}`);

/** Which of one organization's orders have a bank transfer awaiting the money (payment_pending_transfer_idx). */
export async function ordersAwaitingTransfer(db: Queryable, organizationId: string, orderIds: string[]): Promise<string[]> {
  if (orderIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ orderId: payment.orderId })
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), inArray(payment.orderId, orderIds), awaitingTransfer));
  return rows.flatMap((r) => (r.orderId ? [r.orderId] : []));
}

/**
 * Orders no longer owed (paid another way, or void) whose bank transfer still awaits the money, up to `limit`; of one
 * organization when given. Nothing is locked: each is handled under its order's lock.
 */
export async function settledOrdersAwaitingTransfer(db: Queryable, organizationId: string | undefined, limit: number): Promise<Array<{ organizationId: string; orderId: string }>> {
  const rows = await db
    .selectDistinct({ organizationId: payment.organizationId, orderId: payment.orderId })
    .from(payment)
    .innerJoin(order, and(eq(order.id, payment.orderId), eq(order.organizationId, payment.organizationId)))
    .where(and(awaitingTransfer, ne(order.status, "pending"), organizationId ? eq(payment.organizationId, organizationId) : undefined))
    .limit(limit);
  return rows.flatMap((r) => (r.orderId ? [{ organizationId: r.organizationId, orderId: r.orderId }] : []));
}

/**
 * The payment the processor finished later (3-D Secure completed): its pending row becomes succeeded; false when there
 * is none.
 */
export async function succeedPendingPayment(db: Queryable, organizationId: string, processorPaymentId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(payment)
    .set({ status: "succeeded", declineReason: null, declineMessage: null, modifiedAt: now })
    .where(and(eq(payment.organizationId, organizationId), eq(payment.processorPaymentId, processorPaymentId), eq(payment.status, "pending")))
    .returning({ id: payment.id });
  return rows.length > 0;
}

/**
 * The payment the processor refused later (a bank debit that was processing): its pending row becomes failed (or,
 * `pending`, stays so with the reason noted); false when there is none pending.
 */
export async function failPendingPayment(
  db: Queryable, organizationId: string, processorPaymentId: string, failure: { code: string; message: string }, now: Date, status: "failed" | "pending" = "failed",
): Promise<boolean> {
  const rows = await db
    .update(payment)
    .set({ status, declineReason: failure.code, declineMessage: failure.message, modifiedAt: now })
    .where(and(eq(payment.organizationId, organizationId), eq(payment.processorPaymentId, processorPaymentId), eq(payment.status, "pending")))
    .returning({ id: payment.id });
  return rows.length > 0;
}

/**
 * The customer's charge of `attempt` in `currency` still on its way (a bank debit `processing`), if any: a wallet's
 * top-up or auto-recharge waiting for the bank's answer.
 */
export async function processingChargeOf(db: Queryable, organizationId: string, customerId: string, currency: string, attempt: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payment)
    .where(
      and(
        eq(payment.organizationId, organizationId),
        eq(payment.customerId, customerId),
        eq(payment.currency, currency),
        eq(payment.attempt, attempt),
        // written out, not bound: the partial index payment_processing_idx (0068) is chosen only when the planner
        // sees these constants (a prepared statement's generic plan would not)
        sql`${payment.status} = 'pending' AND ${payment.declineReason} = 'processing'`,
      ),
    )
    .limit(1);
  return row;
}

/** The payment the processor knows by one of `processorIds` (a PaymentIntent's or a charge's id), newest first. */
export async function findByProcessorIds(db: Queryable, organizationId: string, processorIds: string[]): Promise<PaymentRow | undefined> {
  if (processorIds.length === 0) return undefined;
  const [row] = await db
    .select()
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), inArray(payment.processorPaymentId, processorIds)))
    .orderBy(desc(payment.createdAt))
    .limit(1);
  return row;
}

/** The organization's payments made through `processor` since `since`, oldest first, at most `limit`. */
export async function paymentsOfProcessorSince(db: Queryable, organizationId: string, processor: string, since: Date, limit: number): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payment)
    .where(and(eq(payment.organizationId, organizationId), eq(payment.processor, processor), sql`${payment.createdAt} >= ${since.toISOString()}::timestamptz`))
    .orderBy(payment.createdAt, payment.id)
    .limit(limit);
}
