// `till payments reconcile`: till's payments through Stripe compared with the account's
// PaymentIntents and charges over a window, read with the official client's auto-pagination (bounded). Every
// difference is listed: a payment till recorded that Stripe does not have, a payment Stripe took that till has
// no record of, and a payment on both sides whose amount or status differ. Nothing is changed.
import type { Queryable } from "../../db/client.js";
import type { ReconcileDifference } from "../../../shared/stripe.js";
import type { ReconcileResult, TillPayment } from "../accounts.js";
import type { Stripe } from "./client.js";
import { stripeOf, type StripeContext } from "./connection.js";
import { NOT_CONNECTED } from "./connect.js";

/** Objects read per list at most: past it the answer says `truncated` and compares what it read. */
export const MAX_OBJECTS = 10_000;
/**
 * Stripe's objects are read from this long before the window: a payment till recorded just inside it may have started
 * before.
 */
const MARGIN_MS = 24 * 3600_000;

type StripeSide = {
  object: "payment_intent" | "charge"; id: string; amount: number; currency: string; status: string; paymentIntent: string | null; created: number;
  /** Stripe's customer it was taken from; null when none. */
  customer: string | null;
};

/** Stripe's status in till's words (succeeded, failed, pending). */
function tillStatusOf(s: StripeSide): string {
  if (s.status === "succeeded") return "succeeded";
  if (s.status === "canceled" || s.status === "failed" || s.status === "requires_payment_method") return "failed";
  return "pending";
}

const tillSide = (p: TillPayment) => ({ amount: p.amount, currency: p.currency, status: p.status });
const stripeWire = (s: StripeSide) => ({ object: s.object, amount: s.amount, currency: s.currency, status: s.status });

function compare(payment: TillPayment, s: StripeSide): ReconcileDifference[] {
  const out: ReconcileDifference[] = [];
  const base = { stripe_id: s.id, payment_id: payment.id, order_id: payment.orderId, till: tillSide(payment), stripe: stripeWire(s) };
  if (s.amount !== payment.amount || s.currency !== payment.currency) {
    out.push({ kind: "amount_mismatch", ...base, message: `till recorded ${payment.amount} ${payment.currency}, Stripe has ${s.amount} ${s.currency}` });
  }
  if (tillStatusOf(s) !== payment.status) {
    out.push({ kind: "status_mismatch", ...base, message: `till recorded ${payment.status}, Stripe says ${s.status}` });
  }
  return out;
}

async function readStripe(stripe: Stripe, since: Date): Promise<{ intents: StripeSide[]; charges: StripeSide[]; truncated: boolean }> {
  const created = { gte: Math.floor((since.getTime() - MARGIN_MS) / 1000) };
  const [intents, charges] = await Promise.all([
    stripe.paymentIntents.list({ created, limit: 100 }).autoPagingToArray({ limit: MAX_OBJECTS }),
    stripe.charges.list({ created, limit: 100 }).autoPagingToArray({ limit: MAX_OBJECTS }),
  ]);
  const pid = (v: string | { id: string } | null) => (v == null ? null : typeof v === "string" ? v : v.id);
  return {
    intents: intents.map((pi): StripeSide => ({
      object: "payment_intent", id: pi.id, amount: pi.amount, currency: pi.currency, status: pi.status, paymentIntent: null, created: pi.created,
      customer: pid(pi.customer),
    })),
    charges: charges.map((ch): StripeSide => ({
      object: "charge", id: ch.id, amount: ch.amount, currency: ch.currency, status: ch.status,
      paymentIntent: pid(ch.payment_intent), created: ch.created, customer: pid(ch.customer),
    })),
    truncated: intents.length >= MAX_OBJECTS || charges.length >= MAX_OBJECTS,
  };
}

/** Compares till's payments through Stripe (`tillPayments`) with the account's over the window. */
export async function reconcile(
  ctx: StripeContext,
  db: Queryable,
  organizationId: string,
  window: { since: Date; until: Date },
  tillPayments: (processor: string, max: number) => Promise<TillPayment[]>,
  importedCustomers: (processor: string) => Promise<ReadonlySet<string>> = async () => new Set(),
): Promise<ReconcileResult> {
  const { since, until } = window;
  const stripe = (await stripeOf(db, ctx, organizationId))?.stripe;
  if (!stripe) return { ok: false, status: 404, detail: NOT_CONNECTED };
  const [payments, imported, read] = await Promise.all([
    tillPayments("stripe", MAX_OBJECTS),
    importedCustomers("stripe"),
    readStripe(stripe, since).catch((err: unknown) => `Stripe could not be read: ${err instanceof Error ? err.message : String(err)}`),
  ]);
  if (typeof read === "string") return { ok: false, status: 502, detail: read };
  const byId = new Map<string, StripeSide>([...read.intents, ...read.charges].map((s) => [s.id, s]));
  const differences: ReconcileDifference[] = [];
  const known = new Set<string>();
  for (const payment of payments) {
    const id = payment.processorPaymentId;
    if (!id) continue;
    known.add(id);
    const s = byId.get(id);
    if (!s) {
      differences.push({
        kind: "missing_in_stripe", stripe_id: id, payment_id: payment.id, order_id: payment.orderId, till: tillSide(payment), stripe: null,
        message: `till recorded ${id}; Stripe has no such payment`,
      });
      continue;
    }
    if (s.object === "charge" && s.paymentIntent) known.add(s.paymentIntent);
    differences.push(...compare(payment, s));
  }
  const sinceS = since.getTime() / 1000;
  const inWindow = (s: StripeSide) => s.created >= sinceS;
  // Stripe Billing's own payments of a customer imported into till (its invoices before the hand-over): taken by
  // Stripe for a business till took over, not a payment till lost track of
  const billing = new Set<string>();
  const ofImported = (s: StripeSide) => {
    if (s.customer === null || !imported.has(s.customer)) return false;
    billing.add(s.paymentIntent ?? s.id);
    return true;
  };
  // what Stripe took that till has no record of: PaymentIntents that took or are taking money, and charges made
  // without a PaymentIntent (a charge of a PaymentIntent is its PaymentIntent's)
  for (const pi of read.intents) {
    if (!inWindow(pi) || known.has(pi.id) || !["succeeded", "processing", "requires_capture"].includes(pi.status) || ofImported(pi)) continue;
    differences.push({
      kind: "missing_in_till", stripe_id: pi.id, payment_id: null, order_id: null, till: null, stripe: stripeWire(pi),
      message: `Stripe's ${pi.id} (${pi.status}) has no payment in till`,
    });
  }
  for (const ch of read.charges) {
    if (!inWindow(ch) || known.has(ch.id) || ch.status !== "succeeded") continue;
    if ((ch.paymentIntent && (known.has(ch.paymentIntent) || byId.has(ch.paymentIntent))) || ofImported(ch)) continue;
    differences.push({ kind: "missing_in_till", stripe_id: ch.id, payment_id: null, order_id: null, till: null, stripe: stripeWire(ch), message: `Stripe's charge ${ch.id} has no payment in till` });
  }
  return {
    ok: true,
    reconciliation: {
      since: since.toISOString(),
      until: until.toISOString(),
      compared: { till_payments: payments.length, stripe_payment_intents: read.intents.length, stripe_charges: read.charges.length, stripe_billing: billing.size },
      truncated: read.truncated || payments.length >= MAX_OBJECTS,
      differences,
    },
  };
}
