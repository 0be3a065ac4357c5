// Money into a wallet from the customer's saved card: the seller's top-up (POST /v1/wallets/{id}/top-up) and the
// auto-recharge. Both charge through chargeSaved, the path renewals take (the organization's processor, the
// customer's default card, off-session), and a paid charge is an order of its own (billing_reason `purchase`, no
// product, one line "Wallet top-up", untaxed: the credit is a prepayment, the invoices it later pays carry the
// tax) whose ledger movement credits the wallet. Each is keyed (`idempotencyKey`): a key already credited
// answers its order again and charges nothing, and the processor gets the same key for the charge (Stripe's
// Idempotency-Key, `processorKeyOf`), so a retry after a charge whose transaction rolled back is answered with
// that charge instead of taking the money twice.
import { createHash, randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { requestEmail } from "../customer-emails/service.js";
import { loadCustomers } from "../customers/service.js";
import { notFound } from "../errors.js";
import { insertPlannedOrder, orderWire, planOrderFromCheckout } from "../orders/service.js";
import { getOrganization } from "../organizations/service.js";
import { chargeableMethods, chargeSaved, recordCharge } from "../payments/service.js";
import * as repo from "./repository.js";

export interface TopUp {
  amount: number;
  kind: "top_up" | "auto_recharge";
  /** One credit per key and organization. */
  key: string;
}

export type TopUpOutcome = { ok: true; orderId: string | null; replayed: boolean } | { ok: false; code: string; message: string };

const LABEL = { top_up: "Wallet top-up", auto_recharge: "Wallet auto-recharge" } as const;

/** The processor's idempotency key of the charge behind the movement keyed `key` (Stripe allows 255 characters). */
export const processorKeyOf = (organizationId: string, key: string) =>
  `till-wallet-${organizationId}-${createHash("sha256").update(key).digest("hex").slice(0, 40)}`;

/** Charges the customer's saved card `t.amount` and credits the wallet with it (an order of its own); a decline moves nothing. */
export async function chargeIntoWallet(tx: Queryable, processor: PaymentProcessor, w: repo.WalletRow, t: TopUp, now: Date): Promise<TopUpOutcome> {
  const org = w.organizationId;
  const done = await repo.movementByKey(tx, org, t.key);
  if (done) return { ok: true, orderId: done.orderId, replayed: true };
  const customer = (await loadCustomers(tx, org, { ids: [w.customerId], externalIds: [] })).byId.get(w.customerId);
  if (!customer) throw notFound("Customer not found");
  const attempt = await chargeSaved(tx, processor, org, w.customerId, {
    amount: t.amount,
    currency: w.currency,
    description: LABEL[t.kind],
    metadata: { wallet_id: w.id },
    idempotencyKey: processorKeyOf(org, t.key),
  });
  if (!attempt.result.ok) return { ok: false, code: attempt.result.code, message: attempt.result.message };
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
  const order = { row: { ...planned.row, productId: null, checkoutId: null }, items: planned.items };
  await insertPlannedOrder(tx, order, organization.slug);
  await recordCharge(tx, processor, attempt, { organizationId: org, customerId: w.customerId, orderId: order.row.id, checkoutId: null, amount: t.amount, currency: w.currency, attempt: "top_up" }, now);
  await repo.insertMovement(tx, {
    organizationId: org,
    customerId: w.customerId,
    currency: w.currency,
    amount: t.amount,
    reason: t.kind,
    orderId: order.row.id,
    idempotencyKey: t.key,
  });
  const data = orderWire(order.row, order.items, { customer, product: null, discount: null, subscription: null });
  const fill = { invoiceNumberOf: order.row.id };
  await enqueue(tx, [
    { type: "order.created", organizationId: org, data, ...fill },
    { type: "order.paid", organizationId: org, data, ...fill },
    customerStateChanged(org, w.customerId),
  ]);
  return { ok: true, orderId: order.row.id, replayed: false };
}

export type RechargeOutcome = "none" | "blocked" | "recharged" | "declined";

/**
 * The wallet's auto-recharge after a movement spent it (`cause`: that movement's id): under the wallet's
 * lock, a balance below the threshold charges the saved card the chosen amount, once per cause. A decline blocks
 * recharging (and emails the customer) until a card saved after it, or the customer turns it on again.
 */
export async function maybeRecharge(tx: Queryable, processor: PaymentProcessor, organizationId: string, walletId: string, cause: string, now: Date): Promise<RechargeOutcome> {
  const w = await repo.lockWallet(tx, organizationId, walletId);
  if (!w || !w.autoRechargeEnabled || w.autoRechargeAmount <= 0 || w.balance >= w.autoRechargeThreshold) return "none";
  if (w.rechargeBlockedAt) {
    const method = (await chargeableMethods(tx, processor, organizationId, [w.customerId])).get(w.customerId);
    if (!method || method.createdAt <= w.rechargeBlockedAt) return "blocked";
  }
  const r = await chargeIntoWallet(tx, processor, w, { amount: w.autoRechargeAmount, kind: "auto_recharge", key: `auto_recharge:${cause}` }, now);
  if (r.ok) {
    if (w.rechargeBlockedAt) await repo.updateRecharge(tx, organizationId, w.id, { rechargeBlockedAt: null }, now);
    return r.replayed ? "none" : "recharged";
  }
  // the wall clock, as a saved card's created_at is: a card saved after this unblocks
  await repo.updateRecharge(tx, organizationId, w.id, { rechargeBlockedAt: new Date() }, now);
  const customer = (await loadCustomers(tx, organizationId, { ids: [w.customerId], externalIds: [] })).byId.get(w.customerId);
  if (customer?.email) {
    await requestEmail(tx, {
      organizationId,
      causeId: randomUUID(),
      type: "wallet_recharge_failed",
      recipient: customer.email,
      data: { amount: w.autoRechargeAmount, currency: w.currency, balance: w.balance, reason: r.message },
    });
  }
  return "declined";
}
