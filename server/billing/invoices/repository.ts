// SQL for invoices and credit notes (the `invoice` table) and the rows a document is made from. Every function
// that serves a caller takes the organization id and filters by it; the worker's claim works across
// organizations, like the other outbox consumers.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { billingOrganization, checkout, customer, customerBalanceEntry, discount, invoice, order, orderItem, organization, payment, product, refund } from "../../db/schema/index.js";

export type InvoiceRow = typeof invoice.$inferSelect;

/**
 * Asks for an order's invoice. `regenerate`: an existing one is made again (a new version, the billing details
 * may have changed); otherwise an existing one is left as it is.
 */
export async function requestInvoice(
  db: Queryable,
  organizationId: string,
  orderId: string,
  number: string,
  regenerate: boolean,
  /** Made again unasked when one exists (an invoice with terms, issued unpaid, now paid): not announced. */
  again = false,
): Promise<void> {
  // asked for (regenerate): announced with order.updated once made
  const insert = db.insert(invoice).values({ organizationId, orderId, kind: "invoice", number, asked: regenerate });
  if (!regenerate && !again) {
    await insert.onConflictDoNothing({ target: invoice.orderId, where: sql`kind = 'invoice'` });
    return;
  }
  await insert.onConflictDoUpdate({
    target: invoice.orderId,
    targetWhere: sql`kind = 'invoice'`,
    set: {
      status: "pending",
      version: sql`${invoice.version} + 1`,
      attempts: 0,
      nextAttemptAt: sql`now()`,
      lastError: null,
      modifiedAt: sql`now()`,
      asked: regenerate,
    },
  });
}

/** Asks for a refund's credit note, numbered "{invoice number}-CN{n}" (n: the order's credit notes so far + 1). */
export async function requestCreditNote(db: Queryable, organizationId: string, orderId: string, refundId: string): Promise<void> {
  await db
    .insert(invoice)
    .select(
      sql`SELECT gen_random_uuid(), ${organizationId}::uuid, ${orderId}::uuid, 'credit_note', ${refundId}::uuid,
        o.invoice_number || '-CN' || (SELECT count(*) + 1 FROM ${invoice} i WHERE i.organization_id = ${organizationId} AND i.order_id = ${orderId} AND i.kind = 'credit_note'),
        'pending', 1, NULL::text, NULL::integer, 0, now(), NULL::timestamptz, NULL::text, NULL::text, NULL::timestamptz, now(), NULL::timestamptz, false, NULL::text
        FROM ${order} o WHERE o.organization_id = ${organizationId} AND o.id = ${orderId}`,
    )
    // a credit note exists once per refund; a clash of numbers (two at once) fails the transaction, which is retried
    .onConflictDoNothing({ target: invoice.refundId, where: sql`refund_id IS NOT NULL` });
}

/** Leases up to `limit` pending documents that are due and not leased by another worker. */
export async function claimDue(db: Queryable, limit: number, leaseMs: number, token: string): Promise<InvoiceRow[]> {
  const due = db
    .select({ id: invoice.id })
    .from(invoice)
    .where(
      and(
        eq(invoice.status, "pending"),
        sql`${invoice.nextAttemptAt} <= now()`,
        sql`(${invoice.lockedUntil} IS NULL OR ${invoice.lockedUntil} < now())`,
      ),
    )
    .orderBy(asc(invoice.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  return db
    .update(invoice)
    .set({ lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`, lockedBy: token, attempts: sql`${invoice.attempts} + 1` })
    .where(inArray(invoice.id, due))
    .returning();
}

/**
 * Records a made document, unless it was asked again meanwhile (another version): then only the lease is given
 * back and the new version is made next. The order's is_invoice_generated is set with an invoice. The locale is
 * kept from the first render.
 */
export async function markGenerated(db: Queryable, row: InvoiceRow, token: string, stored: { path: string; size: number; locale: string }): Promise<boolean> {
  const done = await db
    .update(invoice)
    .set({
      status: "generated", path: stored.path, size: stored.size, locale: sql`coalesce(${invoice.locale}, ${stored.locale})`,
      generatedAt: sql`now()`, lockedUntil: null, lockedBy: null, lastError: null, modifiedAt: sql`now()`,
    })
    .where(and(eq(invoice.id, row.id), eq(invoice.lockedBy, token), eq(invoice.version, row.version)))
    .returning({ id: invoice.id });
  if (done.length === 0) {
    await release(db, row.id, token);
    return false;
  }
  if (row.kind === "invoice") {
    await db
      .update(order)
      .set({ isInvoiceGenerated: true })
      .where(and(eq(order.organizationId, row.organizationId), eq(order.id, row.orderId)));
  }
  return true;
}

export async function release(db: Queryable, id: string, token: string): Promise<void> {
  await db
    .update(invoice)
    .set({ lockedUntil: null, lockedBy: null })
    .where(and(eq(invoice.id, id), eq(invoice.lockedBy, token)));
}

/** A failed attempt: tried again after a back-off (attempts² minutes, at most an hour). */
export async function markFailed(db: Queryable, row: InvoiceRow, token: string, error: string): Promise<void> {
  const minutes = Math.min(60, row.attempts * row.attempts);
  await db
    .update(invoice)
    .set({
      lockedUntil: null,
      lockedBy: null,
      lastError: error.slice(0, 1000),
      nextAttemptAt: sql`now() + ${`${minutes} minutes`}::interval`,
    })
    .where(and(eq(invoice.id, row.id), eq(invoice.lockedBy, token)));
}

/** An order's invoice and credit notes, invoice first, credit notes in order. */
export async function documentsOfOrder(db: Queryable, organizationId: string, orderId: string): Promise<InvoiceRow[]> {
  return db
    .select()
    .from(invoice)
    .where(and(eq(invoice.organizationId, organizationId), eq(invoice.orderId, orderId)))
    .orderBy(sql`${invoice.kind} = 'credit_note'`, asc(invoice.createdAt), asc(invoice.number));
}

export async function findDocument(db: Queryable, id: string): Promise<InvoiceRow | undefined> {
  const [row] = await db.select().from(invoice).where(eq(invoice.id, id)).limit(1);
  return row;
}

/**
 * Everything a document of this order prints: the order, its items, the seller, the buyer, the discount and product
 * names.
 */
export async function documentSources(db: Queryable, organizationId: string, orderId: string, refundId: string | null) {
  const [head] = await db
    .select({
      order,
      orgName: organization.name,
      orgDetails: billingOrganization.details,
      orgEmail: billingOrganization.email,
      customerName: customer.name,
      customerEmail: customer.email,
      // the document's language: the checkout's, else the customer's stored one (then the organization's default)
      customerLocale: customer.locale,
      checkoutLocale: checkout.locale,
      discountName: discount.name,
      productName: product.name,
    })
    .from(order)
    .innerJoin(organization, eq(organization.id, order.organizationId))
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, order.organizationId))
    .innerJoin(customer, eq(customer.id, order.customerId))
    .leftJoin(discount, eq(discount.id, order.discountId))
    .leftJoin(product, eq(product.id, order.productId))
    .leftJoin(checkout, eq(checkout.id, order.checkoutId))
    .where(and(eq(order.organizationId, organizationId), eq(order.id, orderId)))
    .limit(1);
  if (!head) return undefined;
  const [items, refunds, payments, carries] = await Promise.all([
    db
      .select()
      .from(orderItem)
      .where(and(eq(orderItem.organizationId, organizationId), eq(orderItem.orderId, orderId)))
      .orderBy(asc(orderItem.position), asc(orderItem.id)),
    refundId
      ? db
          .select()
          .from(refund)
          .where(and(eq(refund.organizationId, organizationId), eq(refund.id, refundId)))
          .limit(1)
      : Promise.resolve([]),
    // the charge that paid the order (the latest that succeeded: a dunning retry's after a declined renewal)
    db
      .select({ method: payment.method, brand: payment.brand, last4: payment.last4 })
      .from(payment)
      .where(and(eq(payment.organizationId, organizationId), eq(payment.orderId, orderId), eq(payment.status, "succeeded")))
      .orderBy(sql`${payment.createdAt} DESC`)
      .limit(1),
    // an amount under the processor's minimum carried to the next order, or collected from the previous one
    db
      .select({ reason: customerBalanceEntry.reason, amount: customerBalanceEntry.amount })
      .from(customerBalanceEntry)
      .where(and(eq(customerBalanceEntry.organizationId, organizationId), eq(customerBalanceEntry.orderId, orderId), inArray(customerBalanceEntry.reason, ["carried", "carried_collected"])))
      .limit(1),
  ]);
  return { ...head, items, refund: refunds[0] ?? null, payment: payments[0] ?? null, carry: carries[0] ?? null };
}
