// The two statements of a confirm's transaction, written by hand: a confirm is till's hottest write path, and
// building its ten inserts and updates with the query builder cost more CPU than the database spent running
// them. Rows travel as one JSON parameter that jsonb_populate_record(set) turns into the tables' row types, so
// a statement's text does not change with the number of grants, items and events (prepared once per connection);
// the purchase's has a text per combination of the parts it may leave empty (fulfilText). Tenancy stays explicit: the
// organization id is a parameter of every statement that touches its rows.
//
// 1. lockForConfirm, sent with BEGIN: locks the checkout (concurrent confirms of one checkout queue here)
//    and inserts the new customer — only when the checkout is still the one the caller validated.
// 2. fulfilStatement, sent with COMMIT: the checkout's final row, the subscription, the benefit grants and
//    the license keys they issue, the customer's portal session, the order with the organization's next
//    invoice number and its items, the customer's balance movement (the credit it used), the card's charge
//    (its `payment` row), and the outbox
//    events (the invoice number filled in by the statement itself). The invoice counter's row is locked from
//    its insert to the commit: every confirm of the organization passes through that lock, so nothing waits
//    on the application while it is held.
import { getTableName } from "drizzle-orm";
import { insertFrom, q, record, shapeOf } from "../../db/json-rows.js";
import type { PipelinedTx } from "../../db/prepared.js";
import {
  benefitGrant,
  checkout,
  customer,
  customerBalanceEntry,
  customerSession,
  invoiceCounter,
  licenseKey,
  order,
  orderItem,
  outbox,
  payment,
  subscription,
} from "../../db/schema/index.js";
import type { OutboxEventType } from "../../db/outbox.js";
import { INVOICE_NUMBER } from "../invoice-numbers/service.js";

const customerShape = shapeOf(customer);
const checkoutShape = shapeOf(checkout);
const subscriptionShape = shapeOf(subscription);
const grantShape = shapeOf(benefitGrant);
const licenseKeyShape = shapeOf(licenseKey);
const sessionShape = shapeOf(customerSession);
const orderShape = shapeOf(order);
const itemShape = shapeOf(orderItem);
const balanceShape = shapeOf(customerBalanceEntry);
const paymentShape = shapeOf(payment);
const outboxTable = q(getTableName(outbox));
const counterTable = q(getTableName(invoiceCounter));

// ---- 1. the lock, and the new customer ---------------------------------------------------------------

const LOCK_FOR_CONFIRM = `WITH locked AS (
  SELECT status, modified_at, product_id, discount_id FROM checkout WHERE id = $1::text::uuid FOR UPDATE
), ins AS (
  ${insertFrom(customerShape, "$2::text::jsonb", {}, "jsonb_populate_record")}
  WHERE $2::text IS NOT NULL AND EXISTS (SELECT 1 FROM locked WHERE status IN ('open', 'failed')
    AND modified_at IS NOT DISTINCT FROM $3::text::timestamptz
    AND product_id IS NOT DISTINCT FROM $4::text::uuid
    AND discount_id IS NOT DISTINCT FROM $5::text::uuid)
  ON CONFLICT DO NOTHING
  RETURNING id
)
SELECT status, floor(extract(epoch FROM modified_at) * 1000)::text AS modified_ms, product_id::text AS product_id, discount_id::text AS discount_id,
  (SELECT id::text FROM ins) AS customer_id
FROM locked`;

export interface LockedVersion {
  status: string;
  modifiedAt: Date | null;
  productId: string | null;
  discountId: string | null;
  /** The new customer was inserted (the checkout was unchanged and no customer had the email or external id). */
  customerInserted: boolean;
}

/** The checkout as the caller read it: the new customer is inserted only if it is still so under the lock. */
export interface ExpectedVersion {
  id: string;
  modifiedAt: Date | null;
  productId: string | null;
  discountId: string | null;
}

/**
 * Locks the checkout and reads what tells whether it changed since `expected`; inserts `newCustomer` (a full
 * customer row) in the same statement when it is still open and unchanged and no live customer of the
 * organization has its email or external id. Undefined when the checkout is gone.
 */
export async function lockForConfirm(tx: PipelinedTx, expected: ExpectedVersion, newCustomer: object | null): Promise<LockedVersion | undefined> {
  const [row] = await tx.first(LOCK_FOR_CONFIRM, [
    expected.id,
    newCustomer ? JSON.stringify(record(customerShape, newCustomer)) : null,
    expected.modifiedAt?.toISOString() ?? null,
    expected.productId,
    expected.discountId,
  ]);
  if (!row) return undefined;
  // epoch milliseconds: the precision of the caller's Date, whatever the session's DateStyle and TimeZone
  const modifiedMs = row.modified_ms as string | null;
  return {
    status: row.status as string,
    modifiedAt: modifiedMs === null ? null : new Date(Number(modifiedMs)),
    productId: row.product_id as string | null,
    discountId: row.discount_id as string | null,
    customerInserted: row.customer_id !== null,
  };
}

// ---- 2. everything the purchase creates ---------------------------------------------------------------

/** Columns a checkout's update may set: all but its identity. */
const mutable = checkoutShape.columns.filter(([key]) => !["id", "organizationId", "clientSecret", "clientSecretHash", "createdAt"].includes(key)).map(([, c]) => q(c));

/**
 * The outbox rows of the events matching `where`, each one millisecond after the previous in the order given
 * (whichever part of the statement inserts it).
 */
const outboxInsert = (where: string, payload: string) => `INSERT INTO ${outboxTable} (id, organization_id, type, payload, created_at, available_at, attempts)
  SELECT gen_random_uuid(), $3::text::uuid, e.x ->> 't',
    ${payload},
    $5::text::timestamptz + (e.i - 1) * interval '1 millisecond', $5::text::timestamptz, 0
  FROM jsonb_array_elements((SELECT j -> 'events' FROM d)) WITH ORDINALITY AS e(x, i)
  WHERE ${where}
  RETURNING 1`;

/**
 * The parts a purchase may leave empty: left out of its statement then (an empty INSERT still opens its table and
 * indexes, and fires its statement triggers).
 */
type Optional = "sub" | "grants" | "keys" | "bal" | "pay";

/** `name AS (INSERT … the rows of the JSON's array `key` …)`. */
const rowsPart = (name: string, shape: Parameters<typeof insertFrom>[0], key: string) => `${name} AS (
  ${insertFrom(shape, `(SELECT j -> '${key}' FROM d)`)}
  RETURNING 1
)`;

const OPTIONAL: Record<Optional, string> = {
  sub: rowsPart("sub", subscriptionShape, "subscriptions"),
  grants: rowsPart("grants", grantShape, "grants"),
  keys: rowsPart("keys", licenseKeyShape, "license_keys"),
  bal: rowsPart("bal", balanceShape, "balance"),
  pay: rowsPart("pay", paymentShape, "payments"),
};

/**
 * The purchase's statement with the optional parts it has (a handful of texts, each prepared once per connection).
 * The parts run in the order the final SELECT reads them, then the unread ones: the invoice counter's row is locked
 * as late as possible — after the checkout, subscription, grants and most events — and held to the commit.
 */
function fulfilText(has: Record<Optional, boolean>): string {
  const part = (name: Optional) => (has[name] ? [OPTIONAL[name]] : []);
  const read = (name: Optional, column: string) => (has[name] ? [`(SELECT count(*) FROM ${name})::int AS ${column}`] : []);
  const parts = [
    `upd AS (
  UPDATE checkout AS c SET (${mutable.join(", ")}) = (SELECT ${mutable.map((c) => `r.${c}`).join(", ")} FROM jsonb_populate_record(c, (SELECT j -> 'checkout' FROM d)) AS r)
  WHERE c.id = $2::text::uuid AND c.organization_id = $3::text::uuid
  RETURNING 1
)`,
    ...part("sub"),
    ...part("grants"),
    ...part("keys"),
    `sessions AS (
  ${insertFrom(sessionShape, "(SELECT j -> 'customer_session' FROM d)", {}, "jsonb_populate_record")}
  RETURNING 1
)`,
    `plain AS (
  ${outboxInsert("NOT e.x ? 'n'", "e.x -> 'p'")}
)`,
    `inv AS (
  INSERT INTO ${counterTable} (organization_id, prefix, last_number) VALUES ($3::text::uuid, $4::text, 1)
  ON CONFLICT (organization_id) DO UPDATE SET last_number = ${counterTable}.last_number + 1
  RETURNING ${INVOICE_NUMBER} AS number
)`,
    `ord AS (
  ${insertFrom(orderShape, "(SELECT j -> 'order' FROM d)", { invoice_number: "(SELECT number FROM inv)" }, "jsonb_populate_record")}
  RETURNING 1
)`,
    rowsPart("items", itemShape, "items"),
    `numbered AS (
  ${outboxInsert("e.x ? 'n'", "jsonb_set(e.x -> 'p', '{invoice_number}', to_jsonb((SELECT number FROM inv)))")}
)`,
    ...part("bal"),
    ...part("pay"),
  ];
  const reads = [
    "(SELECT count(*) FROM upd)::int AS updated",
    ...read("sub", "subscriptions"),
    ...read("grants", "grants"),
    ...read("keys", "license_keys"),
    "(SELECT count(*) FROM sessions)::int AS sessions",
    "(SELECT count(*) FROM plain)::int AS events",
    "(SELECT number FROM inv) AS invoice_number",
  ];
  return `WITH d AS (SELECT $1::text::jsonb AS j),\n${parts.join(", ")}\nSELECT ${reads.join(",\n  ")}`;
}

const fulfilTexts = new Map<string, string>();

/** fulfilText, made once per combination of parts. */
function fulfilTextOf(has: Record<Optional, boolean>): string {
  const key = (Object.keys(OPTIONAL) as Optional[]).map((name) => (has[name] ? "1" : "0")).join("");
  let text = fulfilTexts.get(key);
  if (text === undefined) {
    text = fulfilText(has);
    fulfilTexts.set(key, text);
  }
  return text;
}

export interface FulfilEvent {
  type: OutboxEventType;
  data: Record<string, unknown>;
  /**
   * The order's invoice number goes into `data.invoice_number` (only the statement knows it). Marked `n` in the JSON.
   */
  withInvoiceNumber?: boolean;
}

export interface FulfilWrites {
  organizationId: string;
  checkoutId: string;
  /** The checkout's changed columns (properties of its row), written over the locked row. */
  checkoutChanges: object;
  subscription: object | null;
  grants: object[];
  /** The license keys the grants issued (license_keys benefits). */
  licenseKeys: object[];
  /** The customer's session for the portal link of the success page. */
  customerSession: object;
  order: object;
  items: object[];
  invoicePrefix: string;
  events: FulfilEvent[];
  /** The customer's balance movement the order made (it used credit), if any: its ledger row. */
  balance?: object[];
  /** The card's charge (Polar's Payment), when money moved: its row. */
  payments?: object[];
  /** The outbox rows' times: each event one millisecond after the previous, in order. */
  now: Date;
}

/** Runs the purchase's writes in one statement, the transaction's last; answers the order's invoice number. */
export async function fulfilStatement(tx: PipelinedTx, w: FulfilWrites): Promise<string> {
  const changes: Record<string, unknown> = {};
  const values = w.checkoutChanges as Record<string, unknown>;
  for (const [key, column] of checkoutShape.columns) if (key in values) changes[column] = values[key] ?? null;
  const balance = w.balance ?? [];
  const payments = w.payments ?? [];
  const text = fulfilTextOf({ sub: w.subscription !== null, grants: w.grants.length > 0, keys: w.licenseKeys.length > 0, bal: balance.length > 0, pay: payments.length > 0 });
  const json = JSON.stringify({
    checkout: changes,
    subscriptions: w.subscription ? [record(subscriptionShape, w.subscription)] : [],
    grants: w.grants.map((g) => record(grantShape, g)),
    license_keys: w.licenseKeys.map((k) => record(licenseKeyShape, k)),
    customer_session: record(sessionShape, w.customerSession),
    order: record(orderShape, w.order),
    items: w.items.map((i) => record(itemShape, i)),
    balance: balance.map((b) => record(balanceShape, b)),
    payments: payments.map((p) => record(paymentShape, p)),
    events: w.events.map((e) => (e.withInvoiceNumber ? { t: e.type, p: e.data, n: 1 } : { t: e.type, p: e.data })),
  });
  const [row] = await tx.last(text, [json, w.checkoutId, w.organizationId, w.invoicePrefix, w.now.toISOString()]);
  if (!row || row.updated !== 1) throw new Error("confirm: the checkout was not updated");
  return row.invoice_number as string;
}
