// Rules for invoices and credit notes: who may ask for one (a paid order with a billing name and address),
// how a request becomes a PDF (the jobs worker leases the pending rows, renders, stores with the files), and
// the signed URLs that serve them. Requests are written in the causing transaction: generateInvoice's own, or
// the outbox fan-out's for a paid order (order.paid, when its billing details are there) and a succeeded
// refund (refund.updated → a credit note).
import { createHmac, timingSafeEqual } from "node:crypto";
import { Readable } from "node:stream";
import type { Db, Queryable } from "../../db/client.js";
import { enqueue, type OutboxSubscriber } from "../../db/outbox.js";
import type { OrderItemTax } from "../../db/schema/index.js";
import { notFound, notPermitted } from "../errors.js";
import { missingInvoiceBillingDetails, notEligibleForInvoice } from "./errors.js";
import { findOrder, getOrder } from "../orders/service.js";
import type { OrderRow } from "../orders/wire.js";
import type { FileStorage } from "../files/storage.js";
import { renderInvoicePdf, type InvoiceDocumentData, type InvoiceParty, type TaxTotal } from "./document.js";
import * as repo from "./repository.js";
import { invoiceDetailsOf } from "../settings/invoices.js";
import { invoiceSpeaker } from "./i18n/index.js";
import { matchLocale, resolveLocale } from "../../../shared/i18n/locales.js";

const NOT_FOUND = "Order not found";
const PAID = new Set(["paid", "refunded", "partially_refunded"]);
/** How long an invoice URL handed out stays valid (like the files' signed downloads). */
export const INVOICE_URL_TTL_MS = 60 * 60 * 1000;


const hasBillingDetails = (o: Pick<OrderRow, "billingName" | "billingAddress">) => Boolean(o.billingName?.trim() && o.billingAddress?.country);

/** The order of the caller (a customer's own only, when `customerId` is given), else 404. */
async function orderOf(db: Queryable, organizationId: string, orderId: string, customerId?: string): Promise<OrderRow> {
  const row = await findOrder(db, organizationId, orderId);
  if (!row || (customerId !== undefined && row.customerId !== customerId)) throw notFound(NOT_FOUND);
  return row;
}

/** An invoice with terms is a document before it is paid: the buyer pays it by its due date (billing/terms.ts). */
const issuedUnpaid = (o: Pick<OrderRow, "status" | "dueAt">) => o.status === "pending" && o.dueAt !== null;

/**
 * POST …/orders/{id}/invoice: (re)generates the order's invoice — 202, the worker makes it. A paid order, or an
 * invoice with terms still owed (409 OrderNotEligibleForInvoice otherwise), with a billing name and address (422
 * MissingInvoiceBillingDetails).
 */
export async function generateInvoice(db: Db, organizationId: string, orderId: string, customerId?: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await orderOf(tx, organizationId, orderId, customerId);
    if (!PAID.has(row.status) && !issuedUnpaid(row)) throw notEligibleForInvoice();
    if (!hasBillingDetails(row)) throw missingInvoiceBillingDetails();
    await repo.requestInvoice(tx, organizationId, orderId, row.invoiceNumber, true);
  });
}

// ---- signed URLs ----------------------------------------------------------------------------------

const signature = (secret: string, id: string, expires: number) => createHmac("sha256", `${secret}:invoice-download`).update(`${id}.${expires}`).digest("base64url");

export function signedInvoiceUrl(baseURL: string, secret: string, id: string, now = Date.now()): string {
  const expires = Math.floor((now + INVOICE_URL_TTL_MS) / 1000);
  return `${baseURL}/v1/invoices/${id}/pdf?expires=${expires}&signature=${signature(secret, id, expires)}`;
}

export interface DocumentLink {
  id: string;
  number: string;
  url: string;
  refund_id: string | null;
  generated_at: string | null;
}

export interface InvoiceAnswer {
  url: string;
  /** till's extensions (the SDKs read `url` only): the invoice's number and the order's credit notes. */
  number: string;
  credit_notes: DocumentLink[];
}

/**
 * GET …/orders/{id}/invoice: a signed URL of the generated invoice, and the credit notes made so far. 404 when
 * the order is not the caller's or its invoice was not generated yet.
 */
export async function invoiceOf(db: Db, deps: { baseURL: string; secret: string }, organizationId: string, orderId: string, customerId?: string): Promise<InvoiceAnswer> {
  await orderOf(db, organizationId, orderId, customerId);
  const docs = await repo.documentsOfOrder(db, organizationId, orderId);
  const inv = docs.find((d) => d.kind === "invoice" && d.path);
  if (!inv) throw notFound("The invoice of this order has not been generated yet: generate it first (POST …/invoice).");
  const link = (d: repo.InvoiceRow): DocumentLink => ({
    id: d.id,
    number: d.number,
    url: signedInvoiceUrl(deps.baseURL, deps.secret, d.id),
    refund_id: d.refundId,
    generated_at: d.generatedAt?.toISOString() ?? null,
  });
  return { url: link(inv).url, number: inv.number, credit_notes: docs.filter((d) => d.kind === "credit_note" && d.path).map(link) };
}

/**
 * GET …/orders/{id}/receipt (SDK 0.49.0): the paid order's document — the invoice PDF, marked paid — 200 with
 * its URL once made; otherwise 202 and it is asked for (when the order is paid and has its billing details;
 * else 404, nothing can be made).
 */
export async function receiptOf(db: Db, deps: { baseURL: string; secret: string }, organizationId: string, orderId: string, customerId?: string): Promise<{ url: string } | null> {
  return db.transaction(async (tx) => {
    const row = await orderOf(tx, organizationId, orderId, customerId);
    const docs = await repo.documentsOfOrder(tx, organizationId, orderId);
    const inv = docs.find((d) => d.kind === "invoice" && d.path);
    if (inv) return { url: signedInvoiceUrl(deps.baseURL, deps.secret, inv.id) };
    if (!PAID.has(row.status) || !hasBillingDetails(row)) throw notFound("This order has no receipt: it is not paid or has no billing name and address.");
    await repo.requestInvoice(tx, organizationId, orderId, row.invoiceNumber, false);
    return null;
  });
}

/** The PDF behind a signed URL; a wrong, altered or expired signature is 403, an unknown document 404. */
export async function openSignedInvoice(db: Db, storage: FileStorage, secret: string, id: string, query: { expires?: unknown; signature?: unknown }) {
  const expires = Number(query.expires);
  const given = Buffer.from(typeof query.signature === "string" ? query.signature : "");
  const expected = Buffer.from(/^[0-9a-f-]{36}$/i.test(id) && Number.isFinite(expires) ? signature(secret, id.toLowerCase(), expires) : "");
  if (expected.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) throw notPermitted("The invoice URL is not valid.");
  if (expires * 1000 <= Date.now()) throw notPermitted("The invoice URL has expired.");
  const row = await repo.findDocument(db, id.toLowerCase());
  const file = row?.path ? await storage.read(row.path) : null;
  if (!row || !file) throw notFound("Invoice not found");
  return { row, ...file };
}

// ---- requests from the outbox ---------------------------------------------------------------------

interface OutboxView {
  type: string;
  organizationId: string;
  payload: Record<string, unknown>;
}

const str = (v: unknown) => (typeof v === "string" ? v : null);

/** An order issued as an invoice with terms: unpaid, with its due date (order.created). */
const issuedInvoice = (r: OutboxView) => r.type === "order.created" && r.payload.status === "pending" && typeof r.payload.due_at === "string";

/**
 * The fan-out's subscriber: a paid order with its billing details gets its invoice made at once (till's choice:
 * the confirmation email and the portal can link it), an invoice with terms when it is issued (made again, marked
 * paid, once paid), a succeeded refund its credit note. Returns how many documents were asked for.
 */
export async function requestFromOutbox(tx: Queryable, rows: OutboxView[]): Promise<number> {
  let n = 0;
  for (const r of rows) {
    const p = r.payload;
    if (r.type === "order.paid" || issuedInvoice(r)) {
      const id = str(p.id);
      const number = str(p.invoice_number);
      const address = p.billing_address as { country?: unknown } | null | undefined;
      if (!id || !number || !str(p.billing_name)?.trim() || typeof address?.country !== "string") continue;
      // an invoice with terms printed "Due" when issued is printed again once paid
      await repo.requestInvoice(tx, r.organizationId, id, number, false, r.type === "order.paid" && typeof p.due_at === "string");
      n += 1;
    } else if (r.type === "refund.updated" && p.status === "succeeded") {
      const id = str(p.id);
      const orderId = str(p.order_id);
      if (!id || !orderId) continue;
      await repo.requestCreditNote(tx, r.organizationId, orderId, id);
      n += 1;
    }
  }
  return n;
}

/** The worker runs requestFromOutbox on every fanned-out batch (db/outbox.ts). */
export const outboxSubscriber: OutboxSubscriber<OutboxView> = { name: "invoices", receive: (tx, rows) => requestFromOutbox(tx, rows) };

// ---- making the documents (the worker) ------------------------------------------------------------

export const claimDue = (db: Db, limit: number, leaseMs: number, token: string) => repo.claimDue(db, limit, leaseMs, token);

/** "FR" → "France" / "Frankreich" in the document's language; a code Intl does not know is printed as is. */
function addressLines(a: Record<string, string | null> | null | undefined, country: (code: string) => string): string[] {
  if (!a) return [];
  const cityLine = [a.postal_code, a.city].filter(Boolean).join(" ");
  const name = a.country?.trim() ? country(a.country.trim()) : null;
  return [a.line1, a.line2, cityLine, a.state, name].filter((x): x is string => Boolean(x && x.trim()));
}

/** The rate a tax total is of, keyed so that lines of the same rate add up. */
function rateOf(t: OrderItemTax): Omit<TaxTotal, "amount"> {
  const types = [...new Set(t.components.map((c) => c.type.toLowerCase()))];
  return { kind: t.reverse_charge || types.length !== 1 ? null : types[0]!, jurisdiction: t.jurisdiction ?? null, rate: t.reverse_charge ? 0 : t.rate, reverseCharge: t.reverse_charge };
}

const REST: Omit<TaxTotal, "amount"> = { kind: null, jurisdiction: null, rate: null, reverseCharge: false };

/** The order's tax per rate: each line's stored tax, summed by rate; what is not on a line shows as "Tax". */
export function taxTotals(items: Array<{ taxAmount: number; tax: OrderItemTax | null }>, orderTax: number): TaxTotal[] {
  const byRate = new Map<string, TaxTotal>();
  const add = (rate: Omit<TaxTotal, "amount">, amount: number) => {
    const key = JSON.stringify(rate);
    const total = byRate.get(key) ?? { ...rate, amount: 0 };
    total.amount += amount;
    byRate.set(key, total);
  };
  for (const item of items) {
    if (!item.tax && item.taxAmount === 0) continue;
    add(item.tax ? rateOf(item.tax) : REST, item.taxAmount);
  }
  const onLines = [...byRate.values()].reduce((a, b) => a + b.amount, 0);
  if (onLines !== orderTax) add(REST, orderTax - onLines);
  return [...byRate.values()];
}

const periodOf = (i: { periodStart: Date | null; periodEnd: Date | null }) =>
  i.periodStart && i.periodEnd ? { start: i.periodStart, end: i.periodEnd } : null;

/** What the document of this row prints, read from the order (and refund) as stored. */
export async function documentData(
  db: Queryable,
  row: Pick<repo.InvoiceRow, "organizationId" | "orderId" | "refundId" | "kind" | "number" | "createdAt"> & { locale?: string | null },
): Promise<InvoiceDocumentData> {
  const src = await repo.documentSources(db, row.organizationId, row.orderId, row.refundId);
  if (!src) throw new Error(`invoice: order ${row.orderId} not found`);
  const o = src.order;
  // the locale of the first render when there was one (a re-made invoice keeps its language), else resolved now
  const locale = matchLocale(row.locale) ?? resolveLocale({
    checkout: src.checkoutLocale, customer: src.customerLocale,
    organization: typeof src.orgDetails?.default_locale === "string" ? src.orgDetails.default_locale : null,
  });
  const country = invoiceSpeaker(locale).country;
  const details = invoiceDetailsOf(src.orgDetails);
  const storedCountry = typeof src.orgDetails?.country === "string" ? src.orgDetails.country : null;
  const seller: InvoiceParty = {
    name: details.name ?? src.orgName,
    address: details.address ? addressLines(details.address, country) : storedCountry ? [country(storedCountry)] : [],
    taxId: details.tax_id,
    email: details.email ?? src.orgEmail ?? null,
  };
  const buyer: InvoiceParty = {
    name: o.billingName ?? src.customerName ?? src.customerEmail,
    address: addressLines(o.billingAddress, country),
    taxId: o.billingTaxId ? o.billingTaxId[0] : null,
    email: src.customerEmail,
  };
  const invoiceRef = { number: o.invoiceNumber, date: o.createdAt };
  const pricesIncludeTax = o.taxAmount > 0 && o.subtotalAmount - o.discountAmount - o.netAmount > 0;
  if (row.kind === "credit_note") {
    const r = src.refund;
    if (!r) throw new Error(`invoice: refund ${row.refundId ?? "?"} not found`);
    // the refund's tax shown at the order's rate when there is a single one
    const rates = taxTotals(src.items, o.taxAmount);
    const rate = rates.length === 1 ? { ...rates[0]!, amount: 0 } : { ...REST, amount: 0 };
    return {
      kind: "credit_note",
      locale,
      number: row.number,
      date: r.createdAt,
      invoiceRef,
      seller,
      buyer,
      currency: r.currency,
      lines: [{ description: "", refund: { product: src.productName ?? src.items[0]?.label ?? null, invoiceNumber: o.invoiceNumber }, quantity: 1, unitAmount: r.amount, amount: r.amount }],
      subtotal: r.amount,
      discount: 0,
      discountName: null,
      net: r.amount,
      taxes: [{ ...rate, refunded: true, amount: r.taxAmount }],
      tax: r.taxAmount,
      total: r.amount + r.taxAmount,
      walletApplied: 0,
      carried: { out: 0, in: 0 },
      status: "refunded",
      paymentMethod: src.payment ?? null,
      taxNote: o.taxNote,
      pricesIncludeTax: false,
      credit: { reason: r.reason },
    };
  }
  const seats = o.seats && o.seats > 1 ? o.seats : null;
  return {
    kind: "invoice",
    locale,
    number: row.number,
    date: o.createdAt,
    invoiceRef: null,
    seller,
    buyer,
    currency: o.currency,
    lines: src.items.map((i) => {
      if (i.quantity !== null && i.unitAmount !== null) {
        // a metered line: billed units × its price's unit amount, as stored on the line (a fractional one as is)
        const unit = Number(i.unitAmount);
        return {
          description: i.label, usage: i.usage, proration: i.prorationFacts, walletCredit: i.walletCredit, quantity: i.quantity,
          unitAmount: Number.isInteger(unit) ? unit : i.unitAmount, amount: i.amount, period: periodOf(i),
        };
      }
      // a seat-based line is quantity × unit price when it divides exactly; else one line of its amount
      const quantity = seats && i.amount % seats === 0 && !i.proration ? seats : 1;
      return { description: i.label, usage: i.usage, proration: i.prorationFacts, walletCredit: i.walletCredit, quantity, unitAmount: i.amount / quantity, amount: i.amount, period: periodOf(i) };
    }),
    subtotal: o.subtotalAmount,
    discount: o.discountAmount,
    discountName: src.discountName,
    net: o.netAmount,
    taxes: taxTotals(src.items, o.taxAmount),
    tax: o.taxAmount,
    total: o.totalAmount,
    // what the customer's wallet paid (applied_balance_amount is −used); a net credit to it is not a payment; an
    // amount under the processor's minimum carried to the next order is not the wallet's
    walletApplied: src.carry?.reason === "carried" ? 0 : Math.max(0, -o.appliedBalanceAmount),
    carried: { out: src.carry?.reason === "carried" ? -src.carry.amount : 0, in: src.carry?.reason === "carried_collected" ? src.carry.amount : 0 },
    status: o.status,
    dueDate: o.dueAt,
    purchaseOrder: o.purchaseOrder,
    paymentMethod: src.payment ?? null,
    taxNote: o.taxNote,
    pricesIncludeTax,
    credit: null,
  };
}

/** Stores the bytes in the file storage (one part, then completed, as an upload would be). */
async function store(storage: FileStorage, path: string, bytes: Buffer): Promise<void> {
  const part = await storage.writePart(path, 1, Readable.from([bytes]), { size: bytes.length, sha256Base64: null });
  if (!part.ok) throw new Error(`invoice: could not store ${path} (${part.reason})`);
  const done = await storage.completeUpload(path, [1], null);
  if (!done.ok) throw new Error(`invoice: could not store ${path} (${done.reason})`);
}

/** Makes one leased document: renders it, stores it and records it. False when it was asked again meanwhile. */
export async function generateDocument(db: Db, storage: FileStorage, row: repo.InvoiceRow, token: string): Promise<boolean> {
  try {
    const data = await documentData(db, row);
    const bytes = await renderInvoicePdf(data);
    const path = `invoices/${row.organizationId}/${row.id}-v${row.version}.pdf`;
    await store(storage, path, bytes);
    return await db.transaction(async (tx) => {
      if (!(await repo.markGenerated(tx, row, token, { path, size: bytes.length, locale: data.locale }))) return false;
      // an invoice asked for is announced, as Polar announces each generate_invoice: the order changed
      // (is_invoice_generated); one made unasked for a paid order is not (Polar makes none)
      if (row.kind === "invoice" && row.asked) {
        const wire = await getOrder(tx, row.organizationId, row.orderId);
        await enqueue(tx, [{ type: "order.updated", organizationId: row.organizationId, data: wire }]);
      }
      return true;
    });
  } catch (err) {
    await repo.markFailed(db, row, token, err instanceof Error ? err.message : String(err));
    throw err;
  }
}
