// Subscription rows in their full `Subscription` shape: the customer, product, discount, prices and add-ons each row
// refers to, loaded from their domains in one batch, then the metered prices' usage of the page in another.
import type { Queryable } from "../../db/client.js";
import { loadCustomers } from "../customers/service.js";
import { loadDiscountBases } from "../discounts/service.js";
import { loadPrices, loadProducts } from "../products/service.js";
import { loadAddOnEmbeds } from "./add-ons.js";
import { subscriptionMeters } from "./usage.js";
import { toSubscriptionWire, type SubscriptionEmbeds, type SubscriptionRow, type SubscriptionWire } from "./wire.js";

export async function toWires(db: Queryable, organizationId: string, rows: SubscriptionRow[], baseURL: string): Promise<SubscriptionWire[]> {
  if (rows.length === 0) return [];
  const [customers, products, discounts, prices, addOns] = await Promise.all([
    loadCustomers(db, organizationId, { ids: rows.map((r) => r.customerId), externalIds: [] }),
    loadProducts(db, organizationId, rows.map((r) => r.productId), baseURL),
    loadDiscountBases(db, organizationId, rows.flatMap((r) => (r.discountId ? [r.discountId] : []))),
    loadPrices(db, organizationId, rows.flatMap((r) => r.priceIds)),
    loadAddOnEmbeds(db, organizationId, rows, baseURL),
  ]);
  const found = rows.flatMap((row) => {
    const customer = customers.byId.get(row.customerId);
    const product = products.get(row.productId);
    // both are kept forever (soft deletion, archiving); a row without them would be a broken reference
    if (!customer || !product) return [];
    const embeds: SubscriptionEmbeds = {
      customer,
      product,
      discount: row.discountId ? (discounts.get(row.discountId) ?? null) : null,
      prices: row.priceIds.flatMap((id) => prices.get(id) ?? []),
      addOns,
    };
    return [{ row, customer, prices: embeds.prices, embeds }];
  });
  const meters = await subscriptionMeters(db, organizationId, found);
  return found.map((f, i) => toSubscriptionWire(f.row, { ...f.embeds, meters: meters[i] }));
}
