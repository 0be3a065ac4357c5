// Invoices with terms: how a customer's or a subscription's renewals are collected. `charge_automatically` (the
// default, stored as null) charges the saved payment method; `send_invoice` issues the order unpaid, due
// `days_until_due` days later (net 15/30/60), and emails it with its pay link. Stripe's own names and rule (a
// send_invoice needs its days; charge_automatically has none). A subscription's own terms win; null takes its
// customer's. The buyer's purchase order number rides along to each invoice.
import { z } from "zod";
import type { CollectionMethod } from "../db/schema/index.js";
import type { ValidationIssue } from "./errors.js";

export const COLLECTION_METHODS = ["charge_automatically", "send_invoice"] as const satisfies readonly CollectionMethod[];
/** The terms an invoice gets when the seller chose send_invoice without saying how many days (Stripe requires them). */
export const DEFAULT_DAYS_UNTIL_DUE = 30;
/** The longest terms (the API's bound; an import refuses a processor's longer ones). */
export const MAX_DAYS_UNTIL_DUE = 365;
const DAY_MS = 86_400_000;

/** The request fields (till's own on Polar's customer and subscription bodies). */
export const termsInput = {
  collection_method: z.enum(COLLECTION_METHODS).nullish(),
  days_until_due: z.int({ message: "Input should be a valid integer" }).min(0).max(MAX_DAYS_UNTIL_DUE).nullish(),
};
export const purchaseOrderInput = z.string().max(100).nullish();

export interface Terms {
  collectionMethod: CollectionMethod | null;
  daysUntilDue: number | null;
}

/**
 * The stored terms after a request: unchanged where it says nothing; `send_invoice` keeps or takes its days (30 by
 * default); `charge_automatically` (or null) has none, and days given with it are refused, as Stripe does.
 */
export function patchTerms(
  current: Terms,
  input: { collection_method?: CollectionMethod | null | undefined; days_until_due?: number | null | undefined },
): Terms | ValidationIssue {
  // only the two terms: `current` may be a whole row, and the answer is merged into a row's patch
  if (input.collection_method === undefined && input.days_until_due === undefined) {
    return { collectionMethod: current.collectionMethod, daysUntilDue: current.daysUntilDue };
  }
  const method = input.collection_method === undefined ? current.collectionMethod : input.collection_method === "charge_automatically" ? null : input.collection_method;
  if (method !== "send_invoice") {
    if (input.days_until_due != null) {
      return { loc: ["body", "days_until_due"], msg: "days_until_due applies only to the send_invoice collection method.", type: "value_error", input: input.days_until_due };
    }
    return { collectionMethod: null, daysUntilDue: null };
  }
  const days = input.days_until_due ?? current.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE;
  return { collectionMethod: "send_invoice", daysUntilDue: days };
}

/** The terms on the wire (till's own fields: both SDKs drop them). */
export const termsWire = (t: Terms) => ({
  collection_method: t.collectionMethod ?? ("charge_automatically" as const),
  days_until_due: t.collectionMethod === "send_invoice" ? (t.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE) : null,
});

/** How a subscription's renewal is collected: its own terms, else its customer's. */
export function effectiveTerms(sub: Terms, customer: Terms): { sendInvoice: boolean; days: number } {
  const own = sub.collectionMethod !== null ? sub : customer;
  return { sendInvoice: own.collectionMethod === "send_invoice", days: own.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE };
}

/** The due date of an invoice issued at `issuedAt` with `days` terms. */
export const dueDate = (issuedAt: Date, days: number) => new Date(issuedAt.getTime() + days * DAY_MS);

/** A purchase order number as stored: trimmed, null when blank. */
export const storedPurchaseOrder = (v: string | null | undefined) => v?.trim() || null;
