// A subscription's add-ons (till's own): the products its base product offers (products/add-ons.ts), each held on
// the row with its price, quantity and amount per period. Here: what a requested set of add-ons becomes on a row,
// the embeds the wire names them with, and the benefits the subscription gives with them.
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../db/client.js";
import type { SubscriptionAddOn } from "../../db/schema/index.js";
import type { BenefitWire } from "../benefits/wire.js";
import { invalid } from "../errors.js";
import { addOnAmount, addOnPrice, MAX_ADD_ONS } from "../products/add-ons.js";
import { loadPrices, loadProducts } from "../products/service.js";
import type { ProductWire } from "../products/wire.js";
import { MAX_AMOUNT } from "./change.js";
import type { AddOnEmbeds, SubscriptionRow } from "./wire.js";

/** An add-on as asked for (a PATCH's or a checkout's `items`): its product and quantity. */
export interface AddOnRequest {
  productId: string;
  quantity: number;
}

/** The add-ons' products and prices of the rows, for their wire. */
export async function loadAddOnEmbeds(db: Queryable, organizationId: string, rows: Array<Pick<SubscriptionRow, "addOns">>, baseURL: string): Promise<AddOnEmbeds | undefined> {
  const addOns = rows.flatMap((r) => r.addOns);
  if (addOns.length === 0) return undefined;
  const [products, prices] = await Promise.all([
    loadProducts(db, organizationId, addOns.map((a) => a.productId), baseURL),
    loadPrices(db, organizationId, addOns.map((a) => a.priceId)),
  ]);
  return { products, prices };
}

/**
 * The add-ons a subscription of `base` in `currency` holds once `requested` (the whole set: an add-on left out is
 * removed) applies: an add-on it has keeps its id and price (the price it was sold at), a new one takes the
 * product's price in the currency; each amount is its price for its quantity. A product the base does not offer,
 * listed twice, or that cannot be billed in the currency is refused (422 at `loc`).
 */
export async function resolveAddOns(
  db: Queryable,
  organizationId: string,
  sub: { currency: string; addOns: SubscriptionAddOn[] },
  base: ProductWire,
  requested: AddOnRequest[],
  now: Date,
  loc: Array<string | number>,
): Promise<SubscriptionAddOn[]> {
  if (requested.length > MAX_ADD_ONS) throw invalid(loc, `A subscription holds at most ${MAX_ADD_ONS} add-ons.`);
  const ids = requested.map((r) => r.productId.toLowerCase());
  if (new Set(ids).size !== ids.length) throw invalid(loc, "An add-on is listed twice.");
  const held = new Map(sub.addOns.map((a) => [a.productId, a]));
  const [products, prices] = await Promise.all([
    loadProducts(db, organizationId, ids),
    loadPrices(db, organizationId, sub.addOns.map((a) => a.priceId)),
  ]);
  return requested.map((r, i) => {
    const productId = ids[i] ?? r.productId;
    const at = [...loc, i, "product_id"];
    const existing = held.get(productId);
    const product = products.get(productId);
    if (!existing && (!product || !base.add_on_ids.includes(productId))) throw invalid(at, "The product is not an add-on of the subscription's product.");
    const price = existing ? prices.get(existing.priceId) : product && addOnPrice(product, sub.currency);
    if (!price) throw invalid(at, `The add-on has no price in ${sub.currency}.`);
    const priced = addOnAmount(price, r.quantity);
    if ("refusal" in priced) throw invalid([...loc, i, "quantity"], priced.refusal, "value_error", "seats_unavailable");
    if (priced.amount > MAX_AMOUNT) throw invalid([...loc, i, "quantity"], "The amount for this quantity exceeds the maximum amount.");
    return { id: existing?.id ?? randomUUID(), productId, priceId: price.id, quantity: r.quantity, amount: priced.amount, createdAt: existing?.createdAt ?? now.toISOString() };
  });
}

/** Whether two sets of add-ons bill the same (same products, prices and quantities, in any order). */
export function sameAddOns(a: SubscriptionAddOn[], b: SubscriptionAddOn[]): boolean {
  const key = (x: SubscriptionAddOn[]) => x.map((i) => `${i.productId}:${i.priceId}:${i.quantity}`).sort().join(",");
  return key(a) === key(b);
}

/** The benefits a subscription gives: its product's and each add-on's, once each. */
export async function subscriptionBenefits(db: Queryable, organizationId: string, own: BenefitWire[], addOns: SubscriptionAddOn[]): Promise<BenefitWire[]> {
  const products = addOns.length ? await loadProducts(db, organizationId, addOns.map((a) => a.productId)) : new Map<string, ProductWire>();
  const all = [...own, ...addOns.flatMap((a) => products.get(a.productId)?.benefits ?? [])];
  return [...new Map(all.map((b) => [b.id, b])).values()];
}
