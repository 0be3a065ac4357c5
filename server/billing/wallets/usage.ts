// Usage paid from the wallet as it happens: a product whose metadata says `till_usage_from_wallet:
// true` (till's own switch, balance/service.ts) has the metered usage of its active subscriptions debited from the
// customer's wallet right after each ingest. The customers a batch named are measured over their current period
// as the renewal measures them (meteredUsage, the period's meter credits, the prices' tiers and cap), and the
// wallet pays what that costs beyond what it paid already this period, as far as its balance goes: one `usage`
// movement per step, keyed by (subscription, period, paid so far), so two checks of the same totals debit once.
// The renewal then bills the whole period and settles only what the wallet did not cover (renewal.ts).
//
// The organization's opted-in products are cached here for a moment (TTL_MS): an organization without any pays
// no query. A crash between the batch's commit and the debit loses nothing: the customer's next batch measures
// the same totals, and the renewal bills whatever the wallet did not pay.
import type { Db } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import { prepaidUsage, USAGE_FROM_WALLET_KEY } from "../balance/service.js";
import { loadPrices } from "../products/service.js";
import { creditsOf } from "../subscriptions/meter-credits.js";
import { applyCredits, meteredUsage } from "../subscriptions/usage.js";
import * as repo from "./repository.js";

const TTL_MS = 2000;
const cache = new Map<string, { at: number; products: Map<string, string> }>();

async function prepaidProducts(db: Db, organizationId: string, now = Date.now()): Promise<Map<string, string>> {
  const hit = cache.get(organizationId);
  if (hit && now - hit.at < TTL_MS) return hit.products;
  const products = await repo.productsWithFlag(db, organizationId, USAGE_FROM_WALLET_KEY);
  if (cache.size > 10_000) cache.clear();
  cache.set(organizationId, { at: now, products });
  return products;
}

/** The customers a batch named (lower-cased ids, external ids). */
export interface NamedCustomers {
  ids: Set<string>;
  externalIds: Set<string>;
}

/** Debits the usage of the named customers' prepaid subscriptions from their wallets; how many wallets moved. */
export async function debitUsage(db: Db, organizationId: string, named: NamedCustomers): Promise<number> {
  if (named.ids.size === 0 && named.externalIds.size === 0) return 0;
  const products = await prepaidProducts(db, organizationId);
  if (products.size === 0) return 0;
  const subs = await repo.subscriptionsOf(db, organizationId, [...named.ids], [...named.externalIds], [...products.keys()]);
  if (subs.length === 0) return 0;
  const prices = await loadPrices(db, organizationId, [...new Set(subs.flatMap((s) => s.priceIds))]);
  const periods = subs.map((s) => ({
    customer: { id: s.customerId, external_id: s.externalId },
    prices: s.priceIds.flatMap((id) => prices.get(id) ?? []),
    start: s.currentPeriodStart,
    end: s.currentPeriodEnd,
  }));
  const [usage, credits] = await Promise.all([meteredUsage(db, organizationId, periods), creditsOf(db, organizationId, subs.map((s) => s.id))]);
  let moved = 0;
  for (const [i, sub] of subs.entries()) {
    // what the renewal would bill for the period's usage so far (each metered price, after credits, tiers, cap)
    const cost = applyCredits(usage[i] ?? [], credits.get(sub.id)).reduce((sum, u) => sum + u.amount, 0);
    if (cost > 0 && (await debitOne(db, organizationId, sub, cost, products.get(sub.productId) ?? "usage"))) moved++;
  }
  return moved;
}

/** Debits the wallet what `cost` is beyond what it paid this period, as far as its balance goes. */
async function debitOne(db: Db, organizationId: string, sub: repo.PrepaidSubscription, cost: number, productName: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    // the period as it is now: a renewal billing it holds the row, and its usage is then the renewal's
    const start = await repo.lockedPeriodStart(tx, organizationId, sub.id);
    if (!start || start.getTime() !== sub.currentPeriodStart.getTime()) return false;
    const found = await repo.walletOf(tx, organizationId, sub.customerId, sub.currency.toLowerCase());
    const w = found && (await repo.lockWallet(tx, organizationId, found.id));
    if (!w || w.balance <= 0) return false;
    const paid = await prepaidUsage(tx, organizationId, sub.id);
    const amount = Math.min(cost - paid, w.balance);
    if (amount <= 0) return false;
    const row = await repo.insertMovementRow(tx, {
      organizationId,
      customerId: sub.customerId,
      currency: w.currency,
      amount: -amount,
      reason: "usage",
      subscriptionId: sub.id,
      // the English text for the API; the portal says the line from the product's name in its reader's language
      description: `Usage: ${productName}`,
      productName,
      idempotencyKey: `usage:${sub.id}:${start.getTime()}:${paid}`,
    });
    if (!row) return false;
    await enqueue(tx, customerStateChanged(organizationId, sub.customerId));
    return true;
  });
}
