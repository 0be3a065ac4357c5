// Reading a seller's whole Stripe Billing business in one pass: every list in pages of 100, all lists at once, each
// with what it needs expanded so nothing takes a request per object. Three things no list can carry are read only
// for the objects that need them: a customer's tax ids past the first page, a subscription's items past the first
// page, and the tiers of a tiered price's other currencies (Stripe expands those one currency at a time).
import type Stripe from "stripe";
import type { SourcePrice, SourceSnapshot } from "../../billing-import.js";
import { lacksOptionTiers, mapCoupon, mapMeter, mapPrice, mapProduct, mapPromotionCode } from "./map-catalog.js";
import { isEnded, mapCustomer, mapSubscription } from "./map-customers.js";
import type { Pace, RequestPurpose } from "./pace.js";

export interface SourceContext {
  stripe: Stripe;
  pace: Pace;
  livemode: boolean;
  /** The account's id when the connection knows it (else it is read). */
  accountId: string | null;
}

type ApiList<T> = Stripe.ApiList<T>;
type Progress = (kind: string, read: number) => void;

const PAGE = 100;
/** Requests for single objects in flight at once (the pace spreads them anyway). */
const SINGLES_AT_ONCE = 8;

export const PURPOSES = {
  account: { action: "read the account", permission: "Account: Read" },
  products: { action: "read the products", permission: "Products: Read" },
  prices: { action: "read the prices", permission: "Prices: Read" },
  meters: { action: "read the billing meters", permission: "Billing meters: Read" },
  coupons: { action: "read the coupons", permission: "Coupons: Read" },
  promotionCodes: { action: "read the promotion codes", permission: "Promotion codes: Read" },
  customers: { action: "read the customers and their payment methods", permission: "Customers: Read" },
  subscriptions: { action: "read the subscriptions", permission: "Subscriptions: Read" },
  handOver: { action: "change the subscriptions it takes over", permission: "Subscriptions: Write" },
} satisfies Record<string, RequestPurpose>;

const PRICE_EXPAND = ["data.tiers", "data.currency_options"];
const COUPON_EXPAND = ["data.applies_to", "data.currency_options"];
const CUSTOMER_EXPAND = ["data.invoice_settings.default_payment_method", "data.tax_ids"];
const SUBSCRIPTION_EXPAND = ["data.default_payment_method", "data.discounts"];
/** A subscription read alone: the same expansions. */
export const ONE_SUBSCRIPTION_EXPAND = SUBSCRIPTION_EXPAND.map((path) => path.slice("data.".length));

/** Every object of a list, page after page (stopping early once `stop` says the read failed elsewhere). */
async function listAll<T extends { id: string }>(
  ctx: SourceContext,
  purpose: RequestPurpose,
  page: (startingAfter: string | undefined) => Promise<ApiList<T>>,
  progress: (count: number) => void,
  stop: () => boolean,
): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const list = await ctx.pace.send(purpose, () => page(after));
    out.push(...list.data);
    progress(list.data.length);
    const last = list.data.at(-1);
    if (!list.has_more || !last || stop()) return out;
    after = last.id;
  }
}

/** Runs `fn` over `items`, a few at a time. */
export async function eachAtMost<T, R>(items: T[], atOnce: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return out;
}

/** A subscription's items in full (its first page came with it). */
export async function itemsOf(ctx: SourceContext, s: Stripe.Subscription): Promise<Stripe.SubscriptionItem[]> {
  if (!s.items.has_more) return s.items.data;
  return listAll(ctx, PURPOSES.subscriptions, (after) => ctx.stripe.subscriptionItems.list({ subscription: s.id, limit: PAGE, starting_after: after }), () => {}, () => false);
}

async function taxIdsOf(ctx: SourceContext, c: Stripe.Customer): Promise<Stripe.TaxId[]> {
  if (!c.tax_ids?.has_more) return c.tax_ids?.data ?? [];
  return listAll(ctx, PURPOSES.customers, (after) => ctx.stripe.customers.listTaxIds(c.id, { limit: PAGE, starting_after: after }), () => {}, () => false);
}

/** A tiered price again, with the tiers of each of its currencies. */
async function withOptionTiers(ctx: SourceContext, price: Stripe.Price): Promise<Stripe.Price> {
  if (!lacksOptionTiers(price)) return price;
  const expand = ["tiers", ...Object.keys(price.currency_options ?? {}).map((code) => `currency_options.${code}.tiers`)];
  return ctx.pace.send(PURPOSES.prices, () => ctx.stripe.prices.retrieve(price.id, { expand }));
}

/**
 * The prices subscriptions bill that no list answers: inline prices (made with a subscription's `price_data`), taken
 * from the items themselves (an inline price has one currency, no tiers).
 */
function inlinePrices(listed: Map<string, SourcePrice>, items: Stripe.SubscriptionItem[][]): SourcePrice[] {
  const found = new Map<string, SourcePrice>();
  for (const item of items.flat()) {
    if (!listed.has(item.price.id) && !found.has(item.price.id)) found.set(item.price.id, mapPrice(item.price));
  }
  return [...found.values()];
}

interface Lists {
  products: Stripe.Product[];
  prices: Stripe.Price[];
  meters: Stripe.Billing.Meter[];
  coupons: Stripe.Coupon[];
  promotionCodes: Stripe.PromotionCode[];
  customers: Stripe.Customer[];
  subscriptions: Stripe.Subscription[];
}

/** Every list at once. Prices are listed active and inactive apart: a list without `active` answers active ones. */
async function readLists(ctx: SourceContext, onPage: Progress | undefined): Promise<Lists> {
  const { stripe } = ctx;
  const counts = new Map<string, number>();
  let failed = false;
  const stop = () => failed;
  const list = <T extends { id: string }>(kind: string, purpose: RequestPurpose, page: (after: string | undefined) => Promise<ApiList<T>>) =>
    listAll(ctx, purpose, page, (n) => {
      const read = (counts.get(kind) ?? 0) + n;
      counts.set(kind, read);
      onPage?.(kind, read);
    }, stop).catch((err: unknown) => {
      failed = true;
      throw err;
    });
  const limit = PAGE;
  const [products, activePrices, inactivePrices, meters, coupons, promotionCodes, customers, subscriptions] = await Promise.all([
    list("products", PURPOSES.products, (after) => stripe.products.list({ limit, starting_after: after })),
    list("prices", PURPOSES.prices, (after) => stripe.prices.list({ limit, active: true, expand: PRICE_EXPAND, starting_after: after })),
    list("prices", PURPOSES.prices, (after) => stripe.prices.list({ limit, active: false, expand: PRICE_EXPAND, starting_after: after })),
    list("meters", PURPOSES.meters, (after) => stripe.billing.meters.list({ limit, starting_after: after })),
    list("coupons", PURPOSES.coupons, (after) => stripe.coupons.list({ limit, expand: COUPON_EXPAND, starting_after: after })),
    list("promotion_codes", PURPOSES.promotionCodes, (after) => stripe.promotionCodes.list({ limit, starting_after: after })),
    list("customers", PURPOSES.customers, (after) => stripe.customers.list({ limit, expand: CUSTOMER_EXPAND, starting_after: after })),
    list("subscriptions", PURPOSES.subscriptions, (after) => stripe.subscriptions.list({ limit, status: "all", expand: SUBSCRIPTION_EXPAND, starting_after: after })),
  ]);
  return { products, prices: [...activePrices, ...inactivePrices], meters, coupons, promotionCodes, customers, subscriptions };
}

async function accountIdOf(ctx: SourceContext): Promise<string> {
  if (ctx.accountId) return ctx.accountId;
  const account = await ctx.pace.send(PURPOSES.account, () => ctx.stripe.accounts.retrieveCurrent());
  return account.id;
}

/** The whole importable account. */
export async function readSnapshot(ctx: SourceContext, onPage?: Progress): Promise<SourceSnapshot> {
  const [accountId, lists] = await Promise.all([accountIdOf(ctx), readLists(ctx, onPage)]);
  const live = lists.subscriptions.filter((s) => !isEnded(s));
  const [prices, items, taxIds] = await Promise.all([
    eachAtMost(lists.prices, SINGLES_AT_ONCE, (p) => withOptionTiers(ctx, p)),
    eachAtMost(live, SINGLES_AT_ONCE, (s) => itemsOf(ctx, s)),
    eachAtMost(lists.customers, SINGLES_AT_ONCE, (c) => taxIdsOf(ctx, c)),
  ]);
  const listed = new Map(prices.map((p) => [p.id, mapPrice(p)]));
  const byProduct = new Map<string, SourcePrice[]>();
  for (const price of [...listed.values(), ...inlinePrices(listed, items)]) {
    const ofProduct = byProduct.get(price.productId);
    if (ofProduct) ofProduct.push(price);
    else byProduct.set(price.productId, [price]);
  }
  return {
    account: { id: accountId, livemode: ctx.livemode },
    products: lists.products.map((p) => mapProduct(p, byProduct.get(p.id) ?? [])),
    meters: lists.meters.map(mapMeter),
    coupons: lists.coupons.map(mapCoupon),
    promotionCodes: lists.promotionCodes.map(mapPromotionCode).filter((c) => c !== null),
    customers: lists.customers.map((c, i) => mapCustomer(c, taxIds[i])),
    subscriptions: live.map((s, i) => mapSubscription(s, items[i])),
  };
}
