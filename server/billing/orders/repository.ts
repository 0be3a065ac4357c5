// SQL for orders, their items and the per-organization invoice counter. Every function takes the caller's
// organization id and filters by it.
import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { insertFrom, record, shapeOf } from "../../db/json-rows.js";
import { rawQuery } from "../../db/prepared.js";
import { customer, discount, invoiceCounter, order, orderItem, product, type MarkedPaidBy } from "../../db/schema/index.js";
import { dateColumn, jsonColumn, plainColumn, textColumn, uuidLiteral, type CsvExport } from "../csv.js";
import { metadataWhere, type SortKey } from "../listing.js";
import { filteredTotal, listTotal } from "../list-counts.js";
import { INVOICE_NUMBER } from "../invoice-numbers/service.js";
import type { OrderItemRow, OrderRow } from "./wire.js";

export type OrderValues = Omit<typeof order.$inferInsert, "id" | "createdAt" | "modifiedAt">;

/**
 * Inserts an order (built by the caller, ids and times included) with the organization's next invoice number
 * ("{prefix}-0001"), and its items. The number comes from an upsert of the organization's counter row in the
 * same statement (a data-modifying CTE); that row's lock orders concurrent confirms, so numbers are unique
 * and gapless among committed orders — and the lock is held from here to the commit, so callers send this
 * last. The items go in a second statement right behind it (pipelined).
 */
export async function insertOrder(db: Queryable, row: OrderRow, items: OrderItemRow[], prefix: string): Promise<void> {
  const counter = db.$with("invoice_n", { number: sql<string>`number` }).as(sql`
    INSERT INTO ${invoiceCounter} (organization_id, prefix, last_number) VALUES (${row.organizationId}, ${prefix}, 1)
    ON CONFLICT (organization_id) DO UPDATE SET last_number = ${invoiceCounter}.last_number + 1
    RETURNING ${sql.raw(INVOICE_NUMBER)} AS number`);
  // prepared: on postgres.js an unprepared statement with parameters costs a describe round trip first
  await Promise.all([
    db
      .with(counter)
      .insert(order)
      .values({ ...row, invoiceNumber: sql`(SELECT number FROM ${counter})` })
      .prepare("order_insert")
      .execute(),
    items.length ? db.insert(orderItem).values(items).prepare("order_items_insert").execute() : Promise.resolve(),
  ]);
}

/** The invoice number an order holds until numberOrders gives it its own (unique: it names the order). */
export const unnumbered = (orderId: string) => `pending-${orderId}`;

/**
 * Inserts an order without its invoice number (a placeholder, see `unnumbered`), and its items, pipelined: the
 * renewal schedule numbers a whole batch's orders in one statement at the batch's end (numberOrders), so the
 * organization's counter row is locked for milliseconds, not for the batch.
 */
export async function insertUnnumberedOrder(db: Queryable, row: OrderRow, items: OrderItemRow[]): Promise<void> {
  await Promise.all([
    db.insert(order).values({ ...row, invoiceNumber: unnumbered(row.id) }).prepare("order_insert_unnumbered").execute(),
    items.length ? db.insert(orderItem).values(items).prepare("order_items_insert").execute() : Promise.resolve(),
  ]);
}

const orderShape = shapeOf(order);
const itemShape = shapeOf(orderItem);
const INSERT_ORDERS = insertFrom(orderShape, "$1::text::jsonb");
const INSERT_ITEMS = insertFrom(itemShape, "$1::text::jsonb");

/**
 * insertUnnumberedOrder for many orders (a billing run's batch): the orders in one statement, then all their items
 * in another (pipelined), each a prepared statement whatever the count. The orders may be of several
 * organizations; each row carries its own.
 */
export async function insertUnnumberedOrders(db: Queryable, planned: Array<{ row: OrderRow; items: OrderItemRow[] }>): Promise<void> {
  if (planned.length === 0) return;
  const orders = JSON.stringify(planned.map((p) => record(orderShape, { ...p.row, invoiceNumber: unnumbered(p.row.id) })));
  const items = planned.flatMap((p) => p.items.map((i) => record(itemShape, i)));
  await Promise.all([rawQuery(db, INSERT_ORDERS, [orders]), items.length ? rawQuery(db, INSERT_ITEMS, [JSON.stringify(items)]) : undefined]);
}

/**
 * Gives orders inserted unnumbered in the caller's transaction the organization's next invoice numbers, in the
 * given order, in one statement: the counter row moves by their count (its lock, held from here to the commit,
 * keeps numbers unique and gapless among committed orders). Returns how many orders were numbered.
 */
export async function numberOrders(db: Queryable, organizationId: string, orderIds: string[], prefix: string): Promise<number> {
  if (orderIds.length === 0) return 0;
  const numbered = await rowsOf<{ id: string }>(
    db,
    sql`
    WITH mine AS (SELECT t.id::uuid AS id, t.k FROM jsonb_array_elements_text(${JSON.stringify(orderIds)}::jsonb) WITH ORDINALITY AS t(id, k)),
    bumped AS (
      INSERT INTO ${invoiceCounter} (organization_id, prefix, last_number) VALUES (${organizationId}, ${prefix}, ${orderIds.length})
      ON CONFLICT (organization_id) DO UPDATE SET last_number = ${invoiceCounter}.last_number + ${orderIds.length}
      RETURNING prefix, last_number)
    UPDATE ${order} o SET invoice_number = x.prefix || '-' || lpad(x.n::text, greatest(4, length(x.n::text)), '0')
    FROM (SELECT m.id, b.prefix, b.last_number - ${orderIds.length} + m.k AS n FROM mine m, bumped b) x
    WHERE o.id = x.id AND o.organization_id = ${organizationId} AND o.invoice_number = 'pending-' || o.id::text
    RETURNING o.id`,
  );
  return numbered.length;
}

export async function findOrder(db: Queryable, organizationId: string, id: string): Promise<OrderRow | undefined> {
  const [row] = await db
    .select()
    .from(order)
    .where(and(eq(order.organizationId, organizationId), eq(order.id, id)))
    .limit(1);
  return row;
}

/** The purchase a completed checkout made: its order and the order's subscription (one order per checkout). */
export async function ownerOfCheckout(db: Queryable, organizationId: string, checkoutId: string): Promise<{ orderId: string; subscriptionId: string | null } | undefined> {
  const [row] = await db
    .select({ orderId: order.id, subscriptionId: order.subscriptionId })
    .from(order)
    .where(and(eq(order.organizationId, organizationId), eq(order.checkoutId, checkoutId)))
    .limit(1);
  return row;
}

/** The order, locked until the caller's transaction ends (refunds of one order queue on this lock). */
export async function lockOrder(db: Queryable, organizationId: string, id: string): Promise<OrderRow | undefined> {
  const [row] = await db
    .select()
    .from(order)
    .where(and(eq(order.organizationId, organizationId), eq(order.id, id)))
    .limit(1)
    .for("update");
  return row;
}

/**
 * A pending order settled by its charge's late answer: `paid` (a dunning retry, a bank debit), or `void` when nothing
 * will pay it any more (a top-up's bank debit refused; Polar's OrderStatus has it). False when it was not pending.
 */
export async function settlePendingOrder(db: Queryable, organizationId: string, orderId: string, status: "paid" | "void", now: Date): Promise<boolean> {
  const rows = await db
    .update(order)
    .set({ status, modifiedAt: now })
    .where(and(eq(order.organizationId, organizationId), eq(order.id, orderId), eq(order.status, "pending")))
    .returning({ id: order.id });
  return rows.length > 0;
}

/** Who marked the order paid, and when (dunning/mark-paid.ts; the caller settles it). */
export async function recordMarkedPaid(db: Queryable, organizationId: string, id: string, by: MarkedPaidBy, now: Date): Promise<void> {
  await db
    .update(order)
    .set({ markedPaidAt: now, markedPaidBy: by, modifiedAt: now })
    .where(and(eq(order.organizationId, organizationId), eq(order.id, id)));
}

export async function updateOrderRefunds(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Pick<OrderRow, "status" | "refundedAmount" | "refundedTaxAmount" | "modifiedAt">,
): Promise<void> {
  await db
    .update(order)
    .set(patch)
    .where(and(eq(order.organizationId, organizationId), eq(order.id, id)));
}

export async function updateOrder(
  db: Queryable,
  organizationId: string,
  id: string,
  patch: Partial<Pick<OrderRow, "billingName" | "billingAddress" | "status">>,
): Promise<OrderRow | undefined> {
  const [row] = await db
    .update(order)
    .set({ ...patch, modifiedAt: new Date() })
    .where(and(eq(order.organizationId, organizationId), eq(order.id, id)))
    .returning();
  return row;
}

export async function itemsOfOrders(db: Queryable, organizationId: string, orderIds: string[]): Promise<OrderItemRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .select()
    .from(orderItem)
    .where(and(eq(orderItem.organizationId, organizationId), inArray(orderItem.orderId, orderIds)))
    .orderBy(asc(orderItem.position), asc(orderItem.id));
}

export type OrderSort = "created_at" | "status" | "invoice_number" | "amount" | "net_amount" | "customer" | "product" | "discount" | "subscription";

export interface OrderFilter {
  productIds?: string[] | undefined;
  /** one_time: orders of one-time purchases; recurring: orders of subscriptions */
  billingTypes?: string[] | undefined;
  discountIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  checkoutIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  /** till's own: orders in these statuses (the seller app's filter) */
  statuses?: string[] | undefined;
  metadata?: Record<string, string[]> | undefined;
}

const sortColumns: Record<OrderSort, SQL> = {
  created_at: sql`${order.createdAt}`,
  status: sql`${order.status}`,
  invoice_number: sql`${order.invoiceNumber}`,
  amount: sql`${order.totalAmount}`,
  net_amount: sql`${order.netAmount}`,
  customer: sql`(SELECT ${customer.email} FROM ${customer} WHERE ${customer.id} = ${order.customerId})`,
  product: sql`(SELECT ${product.name} FROM ${product} WHERE ${product.id} = ${order.productId})`,
  discount: sql`(SELECT ${discount.name} FROM ${discount} WHERE ${discount.id} = ${order.discountId})`,
  subscription: sql`${order.subscriptionId}`,
};

function billingTypeWhere(types: string[]): SQL | undefined {
  const oneTime = types.includes("one_time");
  const recurring = types.includes("recurring");
  if (oneTime && recurring) return undefined;
  return oneTime ? sql`${order.subscriptionId} IS NULL` : sql`${order.subscriptionId} IS NOT NULL`;
}

export async function listOrders(
  db: Queryable,
  organizationId: string,
  filter: OrderFilter,
  sorting: Array<SortKey<OrderSort>>,
  pageNo: number,
  limit: number,
): Promise<{ rows: OrderRow[]; total: number }> {
  const filters = [
    filter.productIds?.length ? inArray(order.productId, filter.productIds) : undefined,
    filter.billingTypes?.length ? billingTypeWhere(filter.billingTypes) : undefined,
    filter.discountIds?.length ? inArray(order.discountId, filter.discountIds) : undefined,
    filter.customerIds?.length ? inArray(order.customerId, filter.customerIds) : undefined,
    filter.externalCustomerIds?.length
      ? sql`${order.customerId} IN (SELECT ${customer.id} FROM ${customer} WHERE ${customer.organizationId} = ${organizationId} AND ${inArray(customer.externalId, filter.externalCustomerIds)})`
      : undefined,
    filter.checkoutIds?.length ? inArray(order.checkoutId, filter.checkoutIds) : undefined,
    filter.subscriptionIds?.length ? inArray(order.subscriptionId, filter.subscriptionIds) : undefined,
    filter.statuses?.length ? inArray(order.status, filter.statuses) : undefined,
    ...metadataWhere(order.metadata, filter.metadata),
  ].filter((c) => c !== undefined);
  const where = and(eq(order.organizationId, organizationId), ...filters);
  const orderBy = [
    // created_at is never null: without `nulls last` its order is the (organization_id, created_at) index's
    ...sorting.map((s) => sql`${sortColumns[s.key]} ${sql.raw(s.desc ? "desc" : "asc")}${sql.raw(s.key === "created_at" ? "" : " nulls last")}`),
    asc(order.id),
  ];
  const offset = (pageNo - 1) * limit;
  const [rows, maintained] = await Promise.all([
    offset === 0
      ? db.select().from(order).where(where).orderBy(...orderBy).limit(limit)
      : // a deeper page skips its offset in the index (ids only), then reads its own rows: see listing.ts
        db
          .select()
          .from(order)
          .where(inArray(order.id, db.select({ id: order.id }).from(order).where(where).orderBy(...orderBy).limit(limit).offset(offset)))
          .orderBy(...orderBy),
    filters.length === 0 ? listTotal(db, organizationId, "order") : undefined,
  ]);
  const total =
    maintained ??
    (await filteredTotal(pageNo, limit, rows.length, async () => {
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(order).where(where);
      return count?.n ?? 0;
    }));
  return { rows, total };
}

/**
 * The organization's orders for the CSV export (`GET /v1/orders/export`, optionally of some products), oldest first.
 */
export function ordersExport(organizationId: string, productIds: string[] | undefined): CsvExport {
  return {
    name: "orders",
    columns: [
      textColumn("id", "t.id::text"),
      dateColumn("created_at", "t.created_at"),
      textColumn("invoice_number", "t.invoice_number"),
      textColumn("status", "t.status"),
      textColumn("billing_reason", "t.billing_reason"),
      textColumn("customer_id", "t.customer_id::text"),
      textColumn("customer_email", "c.email"),
      textColumn("product_id", "t.product_id::text"),
      textColumn("product_name", "p.name"),
      textColumn("subscription_id", "t.subscription_id::text"),
      textColumn("currency", "t.currency"),
      plainColumn("subtotal_amount", "t.subtotal_amount"),
      plainColumn("discount_amount", "t.discount_amount"),
      plainColumn("net_amount", "t.net_amount"),
      plainColumn("tax_amount", "t.tax_amount"),
      plainColumn("total_amount", "t.total_amount"),
      plainColumn("refunded_amount", "t.refunded_amount"),
      plainColumn("refunded_tax_amount", "t.refunded_tax_amount"),
      plainColumn("seats", "t.seats"),
      textColumn("billing_name", "t.billing_name"),
      jsonColumn("metadata", "t.metadata"),
    ],
    from: 'FROM "order" t LEFT JOIN customer c ON c.id = t.customer_id LEFT JOIN product p ON p.id = t.product_id',
    where: [
      `t.organization_id = ${uuidLiteral(organizationId)}`,
      ...(productIds?.length ? [`t.product_id IN (${productIds.map(uuidLiteral).join(", ")})`] : []),
    ],
  };
}
