// Money into a wallet from the customer's saved card: the seller's top-up (POST /v1/wallets/{id}/top-up) and the
// auto-recharge. Both charge through chargeSaved, the path renewals take (the organization's processor, the
// customer's default card, off-session), and a paid charge is an order of its own (billing_reason `purchase`, no
// product, one line "Wallet top-up", untaxed: the credit is a prepayment, the invoices it later pays carry the
// tax) whose ledger movement credits the wallet. Each is keyed (`idempotencyKey`): a key already credited
// answers its order again and charges nothing, and the processor gets the same key for the charge (Stripe's
// Idempotency-Key, `processorKeyOf`), so a retry after a charge whose transaction rolled back is answered with
// that charge instead of taking the money twice. The order's id is the key's too (walletOrderIdOf): the charge
// names it, and a retry finds it.
// A saved bank account (SEPA, US) answers `processing`: the order waits pending, the wallet is not credited, no
// other auto-recharge is made beside it; the bank's answer comes as Stripe's event (late.ts): credited once, or
// refused as a card's decline is (its order void: nothing will pay it).
import { createHash, randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import type { PaymentProcessor, ProcessorError } from "../../payments/processor.js";
import { requestEmail } from "../customer-emails/service.js";
import { loadCustomers } from "../customers/service.js";
import type { CustomerWire } from "../customers/wire.js";
import { notFound } from "../errors.js";
import { findOrder, insertPlannedOrder, orderWire, planOrderFromCheckout } from "../orders/service.js";
import { getOrganization } from "../organizations/service.js";
import { chargeSaved, isProcessing, isProcessingPayment, lastPaymentOfOrder, recordCharge, type ChargeOutcome } from "../payments/service.js";
import { noteProcessorError } from "../processor-connections/processor-errors.js";
import * as repo from "./repository.js";

export interface TopUp {
  amount: number;
  kind: "top_up" | "auto_recharge";
  /** One credit per key and organization. */
  key: string;
}

/** `processing`: a bank debit on its way, the order pending and the wallet not credited until the bank answers. */
export type TopUpOutcome =
  | { ok: true; orderId: string | null; replayed: boolean; processing: boolean }
  | { ok: false; code: string; message: string; processorError?: ProcessorError };

const LABEL = { top_up: "Wallet top-up", auto_recharge: "Wallet auto-recharge" } as const;

/** The processor's idempotency key of the charge behind the movement keyed `key` (Stripe allows 255 characters). */
export const processorKeyOf = (organizationId: string, key: string) =>
  `till-wallet-${organizationId}-${createHash("sha256").update(key).digest("hex").slice(0, 40)}`;

/** The order of the movement keyed `key`: one id per key and organization, named by the charge's metadata. */
export function walletOrderIdOf(organizationId: string, key: string): string {
  const h = createHash("sha256").update(`till-wallet-order:${organizationId}:${key}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** What a movement's key says it is (the top-up route's `top_up:…`, maybeRecharge's `auto_recharge:…`). */
export const kindOfKey = (key: string): TopUp["kind"] => (key.startsWith("auto_recharge:") ? "auto_recharge" : "top_up");

/**
 * The answer for a key whose order exists but credited nothing: its debit still on its way, or refused by the bank
 * (the same key is the same request: a new attempt takes a new key).
 */
async function earlierOutcome(tx: Queryable, organizationId: string, orderId: string): Promise<TopUpOutcome | null> {
  if (!(await findOrder(tx, organizationId, orderId))) return null;
  const last = await lastPaymentOfOrder(tx, organizationId, orderId);
  if (last?.status === "failed") return { ok: false, code: last.declineReason ?? "payment_failed", message: last.declineMessage ?? "The payment failed." };
  return { ok: true, orderId, replayed: true, processing: isProcessingPayment(last) };
}

/**
 * Charges the customer's saved card `t.amount` and credits the wallet with it (an order of its own); a decline moves
 * nothing; a bank debit still processing leaves the order pending and the wallet as it was (late.ts credits it). All in
 * the caller's transaction (the seller's top-up); the auto-recharge's job takes the same three steps with no
 * transaction open across the charge (recharge.ts).
 */
export async function chargeIntoWallet(tx: Queryable, processor: PaymentProcessor, w: repo.WalletRow, t: TopUp, now: Date): Promise<TopUpOutcome> {
  const plan = await planCharge(tx, w, t);
  if ("done" in plan) return plan.done;
  const attempt = await chargeForWallet(tx, processor, w, t);
  return recordWalletCharge(tx, processor, w, t, { customer: plan.customer, attempt }, now);
}

/** What a charge into the wallet is made for: the key's earlier answer (`done`), or the customer to charge. */
export type ChargePlan = { done: TopUpOutcome } | { customer: CustomerWire };

/** Whether the key was answered already (credited, or its order made), else the customer the charge is for. */
export async function planCharge(db: Queryable, w: repo.WalletRow, t: TopUp): Promise<ChargePlan> {
  const org = w.organizationId;
  const done = await repo.movementByKey(db, org, t.key);
  if (done) return { done: { ok: true, orderId: done.orderId, replayed: true, processing: false } };
  const earlier = await earlierOutcome(db, org, walletOrderIdOf(org, t.key));
  if (earlier) return { done: earlier };
  const customer = (await loadCustomers(db, org, { ids: [w.customerId], externalIds: [] })).byId.get(w.customerId);
  if (!customer) throw notFound("Customer not found");
  return { customer };
}

/** The charge at the processor, keyed by the movement's key (a second ask is answered with the first charge). */
export function chargeForWallet(db: Queryable, processor: PaymentProcessor, w: repo.WalletRow, t: TopUp): Promise<ChargeOutcome> {
  const org = w.organizationId;
  const orderId = walletOrderIdOf(org, t.key);
  return chargeSaved(db, processor, org, w.customerId, {
    amount: t.amount,
    currency: w.currency,
    description: LABEL[t.kind],
    // what the bank's late answer settles (late.ts): the wallet, the order, the movement's key
    metadata: { wallet_id: w.id, order_id: orderId, wallet_movement: t.key },
    idempotencyKey: processorKeyOf(org, t.key),
  });
}

/**
 * The charge's answer recorded (the caller holds the wallet's lock, and planned the key unanswered): a paid or
 * processing charge makes the order (a paid one credits the wallet); a refusal moves nothing (the processor's own
 * failure is noted for the seller).
 */
export async function recordWalletCharge(
  tx: Queryable,
  processor: PaymentProcessor,
  w: repo.WalletRow,
  t: TopUp,
  charged: { customer: CustomerWire; attempt: ChargeOutcome },
  now: Date,
): Promise<TopUpOutcome> {
  const org = w.organizationId;
  const orderId = walletOrderIdOf(org, t.key);
  const { customer, attempt } = charged;
  const processing = isProcessing(attempt);
  if (!attempt.result.ok && !processing) {
    const processorError = attempt.result.processorError;
    if (processorError) await noteProcessorError(tx, org, processorError, { what: t.kind === "top_up" ? "wallet top-up" : "wallet auto-recharge", id: w.id }, now);
    return { ok: false, code: attempt.result.code, message: attempt.result.message, ...(processorError ? { processorError } : {}) };
  }
  const organization = await getOrganization(tx, org);
  const planned = planOrderFromCheckout(
    {
      organizationId: org,
      checkoutId: "",
      customerId: w.customerId,
      productId: "",
      subscriptionId: null,
      billingReason: "purchase",
      currency: w.currency,
      discountId: null,
      subtotalAmount: t.amount,
      discountAmount: 0,
      tax: null,
      seats: null,
      billingName: customer.billing_name ?? customer.name,
      billingAddress: customer.billing_address as Record<string, string | null> | null,
      billingTaxId: null,
      metadata: {},
      customFieldData: {},
      // the label is the API's, in English; the kind lets each document say the line in its reader's language
      items: [{ label: LABEL[t.kind], amount: t.amount, productPriceId: null, walletCredit: t.kind }],
    },
    now,
  );
  const order = {
    row: { ...planned.row, id: orderId, status: processing ? "pending" : "paid", productId: null, checkoutId: null },
    items: planned.items.map((i) => ({ ...i, orderId })),
  };
  await insertPlannedOrder(tx, order, organization.slug);
  await recordCharge(tx, processor, attempt, {
    organizationId: org, customerId: w.customerId, orderId: order.row.id, checkoutId: null, amount: t.amount, currency: w.currency,
    attempt: "top_up",
  }, now);
  const data = orderWire(order.row, order.items, { customer, product: null, discount: null, subscription: null });
  const fill = { invoiceNumberOf: order.row.id };
  if (processing) {
    await enqueue(tx, [{ type: "order.created", organizationId: org, data, ...fill }, customerStateChanged(org, w.customerId)]);
    return { ok: true, orderId, replayed: false, processing: true };
  }
  await creditMovement(tx, w, t, orderId);
  await enqueue(tx, [
    { type: "order.created", organizationId: org, data, ...fill },
    { type: "order.paid", organizationId: org, data, ...fill },
    customerStateChanged(org, w.customerId),
  ]);
  return { ok: true, orderId, replayed: false, processing: false };
}

/** The wallet's credit for the paid order of a top-up or recharge, once per key. */
export async function creditMovement(tx: Queryable, w: repo.WalletRow, t: TopUp, orderId: string): Promise<boolean> {
  return repo.insertMovement(tx, {
    organizationId: w.organizationId,
    customerId: w.customerId,
    currency: w.currency,
    amount: t.amount,
    reason: t.kind,
    orderId,
    idempotencyKey: t.key,
  });
}

/** A recharge was refused (at once, or by the bank later): recharging stops until fixed, and the customer is told. */
export async function blockRecharge(tx: Queryable, w: repo.WalletRow, refused: { amount: number; reason: string }, now: Date): Promise<void> {
  const organizationId = w.organizationId;
  // the wall clock, as a saved card's created_at is: a card saved after this unblocks
  await repo.updateRecharge(tx, organizationId, w.id, { rechargeBlockedAt: new Date() }, now);
  const customer = (await loadCustomers(tx, organizationId, { ids: [w.customerId], externalIds: [] })).byId.get(w.customerId);
  if (customer?.email) {
    await requestEmail(tx, {
      organizationId,
      causeId: randomUUID(),
      type: "wallet_recharge_failed",
      recipient: customer.email,
      data: { amount: refused.amount, currency: w.currency, balance: w.balance, reason: refused.reason },
    });
  }
}
