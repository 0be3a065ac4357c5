// Applying an import's plan: meters, products with their prices, discounts and customers written through the same
// services as the API (their usual events go out), each with its link in the same transaction, so a crash anywhere
// leaves a rerun to continue without duplicating. Subscriptions are then written `incomplete` with a pending
// hand-over (handover.ts asks the processor to end its own, then till's becomes active): never renewed twice.
import { randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import type { SourcePaymentMethod } from "../../payments/billing-import.js";
import { ApiError } from "../errors.js";
import { parseWith } from "../http.js";
import { createMeter, MeterCreateInput, MeterUpdateInput, updateMeter } from "../meters/service.js";
import { addArchivedPrices, createProduct, updateProduct } from "../products/writes.js";
import { PriceCreateInput, ProductCreateInput, ProductUpdateInput } from "../products/input.js";
import { loadProducts } from "../products/service.js";
import { priceAmount } from "../products/pricing.js";
import { addOnAmount } from "../products/add-ons.js";
import type { ProductWire } from "../products/wire.js";
import type { SubscriptionAddOn } from "../../db/schema/index.js";
import { createDiscount, updateDiscount } from "../discounts/service.js";
import { DiscountCreateInput, DiscountUpdateInput } from "../discounts/input.js";
import { createCustomer, findCustomerRow, updateCustomer } from "../customers/service.js";
import { CustomerCreateInput, CustomerUpdateInput } from "../customers/input.js";
import { adoptSavedMethod } from "../payments/methods.js";
import { insertSubscriptionRow, newSubscriptionFromCheckout } from "../subscriptions/service.js";
import { digestOf, PENDING_METER, productDigest, type PlannedProduct } from "./plan-catalog.js";
import { linkKey, type Plan, type PlanItem, type PlannedAddOn, type PlannedCustomer, type PlannedSubscription } from "./plan.js";
import * as repo from "./repository.js";

export interface ApplyContext {
  db: Db;
  organizationId: string;
  importId: string;
  processor: string;
  baseURL: string;
  /** Links known so far (kind|source id → till id), filled as objects are written. */
  links: Map<string, string>;
  /** The plan's items by kind|source id, updated with what each became. */
  items: Map<string, PlanItem>;
  /** Customers written at once (1 on PGlite, whose one connection takes one transaction at a time). */
  lanes: number;
}

/** A stable lane for a key (an email): FNV-1a, modulo the lanes. */
function laneOf(key: string, lanes: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % lanes;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const note = (ctx: ApplyContext, kind: string, sourceId: string, tillId: string) => {
  ctx.links.set(linkKey(kind, sourceId), tillId);
  const item = ctx.items.get(linkKey(kind, sourceId));
  if (item) item.tillId = tillId;
};

/** A write refused by till's own rules: the item is blocked with the refusal, the rest goes on. */
function refuse(ctx: ApplyContext, kind: string, sourceId: string, err: unknown): void {
  if (!(err instanceof ApiError) || err.status >= 500) throw err;
  const item = ctx.items.get(linkKey(kind, sourceId));
  if (!item) return;
  const detail = Array.isArray(err.body.detail) ? (err.body.detail as Array<{ msg: string }>).map((d) => d.msg).join("; ") : String(err.body.detail);
  item.action = "blocked";
  item.reason = `till refused it: ${detail}`;
}

const actionOf = (ctx: ApplyContext, kind: string, sourceId: string) => ctx.items.get(linkKey(kind, sourceId))?.action;

async function applyMeters(ctx: ApplyContext, plan: Plan): Promise<void> {
  for (const m of plan.meters) {
    const action = actionOf(ctx, "meter", m.source.id);
    if (!m.body || (action !== "create" && action !== "update")) continue;
    const digest = digestOf(m.body);
    const tillId = ctx.links.get(linkKey("meter", m.source.id));
    await ctx.db.transaction(async (tx) => {
      const wire = tillId
        ? await updateMeter(tx, ctx.organizationId, tillId, parseWith(MeterUpdateInput, m.body, "body"))
        : await createMeter(tx, ctx.organizationId, parseWith(MeterCreateInput, m.body, "body"));
      await repo.writeLink(tx, ctx.organizationId, ctx.processor, "meter", m.source.id, wire.id, digest);
      note(ctx, "meter", m.source.id, wire.id);
    }).catch((err: unknown) => refuse(ctx, "meter", m.source.id, err));
  }
}

/** A price body with its meter's link resolved to till's meter (null: the meter was not imported). */
function resolveMeter(ctx: ApplyContext, body: Record<string, unknown>): Record<string, unknown> | null {
  const meter = body.meter_id;
  if (typeof meter !== "string" || !meter.startsWith(PENDING_METER)) return body;
  const id = ctx.links.get(linkKey("meter", meter.slice(PENDING_METER.length)));
  return id ? { ...body, meter_id: id } : null;
}

async function applyProduct(ctx: ApplyContext, tx: Queryable & Db, p: PlannedProduct, digest: string): Promise<void> {
  const tillId = ctx.links.get(linkKey("product", p.key));
  const priced = p.prices.flatMap((price) => {
    const body = price.body && resolveMeter(ctx, price.body);
    return body ? [{ price, body }] : [];
  });
  const linked = (key: string) => ctx.links.get(linkKey("price", key));
  const catalog = priced.filter((x) => x.price.slot === "catalog");
  const archived = priced.filter((x) => x.price.slot === "archived" && !linked(x.price.key));
  let productId: string;
  const newCatalog = catalog.filter((x) => !linked(x.price.key));
  if (tillId) {
    productId = tillId;
    const { recurring_interval: _interval, recurring_interval_count: _count, ...fields } = p.body;
    const prices = catalog.map((x) => linked(x.price.key) ? { id: linked(x.price.key) } : x.body);
    await updateProduct(tx, ctx.organizationId, tillId, parseWith(ProductUpdateInput, { ...fields, prices, is_archived: p.archived }, "body"), ctx.baseURL);
  } else {
    const wire = await createProduct(tx, ctx.organizationId, parseWith(ProductCreateInput, { ...p.body, prices: catalog.map((x) => x.body) }, "body"), ctx.baseURL);
    productId = wire.id;
    if (p.archived) await updateProduct(tx, ctx.organizationId, wire.id, parseWith(ProductUpdateInput, { is_archived: true }, "body"), ctx.baseURL);
  }
  // the catalog prices just made, in the order given (positions follow it); kept ones are linked already
  const product = (await loadProducts(tx, ctx.organizationId, [productId], ctx.baseURL)).get(productId);
  const made = (product?.prices ?? []).filter((w) => !w.is_archived && !catalog.some((x) => linked(x.price.key) === w.id));
  for (const [i, x] of newCatalog.entries()) {
    const id = made[i]?.id;
    if (!id) continue;
    await repo.writeLink(tx, ctx.organizationId, ctx.processor, "price", x.price.key, id, digestOf(x.body));
    note(ctx, "price", x.price.key, id);
  }
  const ids = await addArchivedPrices(tx, ctx.organizationId, productId, archived.map((x) => parseWith(PriceCreateInput, x.body, "body")));
  for (const [i, x] of archived.entries()) {
    const id = ids[i];
    if (!id) continue;
    await repo.writeLink(tx, ctx.organizationId, ctx.processor, "price", x.price.key, id, digestOf(x.body));
    note(ctx, "price", x.price.key, id);
  }
  await repo.writeLink(tx, ctx.organizationId, ctx.processor, "product", p.key, productId, digest);
  note(ctx, "product", p.key, productId);
}

async function applyProducts(ctx: ApplyContext, plan: Plan): Promise<void> {
  for (const p of plan.products) {
    const action = actionOf(ctx, "product", p.key);
    if (action !== "create" && action !== "update") continue;
    const digest = productDigest(p);
    await ctx.db.transaction((tx) => applyProduct(ctx, tx, p, digest)).catch((err: unknown) => refuse(ctx, "product", p.key, err));
  }
}

/**
 * The add-ons each main product offers: those its imported subscriptions bill (added to what it offers already).
 * A product till refuses to offer as an add-on blocks the subscriptions that bill it, with till's reason.
 */
async function applyAddOnOffers(ctx: ApplyContext, plan: Plan): Promise<void> {
  const offers = new Map<string, Set<string>>();
  for (const s of plan.subscriptions) {
    for (const a of s.addOns) offers.set(s.productKey, (offers.get(s.productKey) ?? new Set()).add(a.productKey));
  }
  for (const [baseKey, addOnKeys] of offers) {
    const baseId = ctx.links.get(linkKey("product", baseKey));
    const ids = [...addOnKeys].map((k) => ctx.links.get(linkKey("product", k)));
    if (!baseId || ids.some((id) => !id)) continue;
    await ctx.db.transaction(async (tx) => {
      const offered = (await loadProducts(tx, ctx.organizationId, [baseId], ctx.baseURL)).get(baseId)?.add_on_ids ?? [];
      const missing = (ids as string[]).filter((id) => !offered.includes(id));
      if (missing.length === 0) return;
      await updateProduct(tx, ctx.organizationId, baseId, parseWith(ProductUpdateInput, { add_on_ids: [...offered, ...missing] }, "body"), ctx.baseURL);
    }).catch((err: unknown) => {
      for (const s of plan.subscriptions.filter((x) => x.productKey === baseKey && x.addOns.length > 0)) refuse(ctx, "subscription", s.source.id, err);
    });
  }
}

async function applyDiscounts(ctx: ApplyContext, plan: Plan): Promise<void> {
  const tillProducts = (stripeIds: string[]) =>
    [...ctx.links.entries()].filter(([k]) => stripeIds.some((id) => k.startsWith(`product|${id}/`))).map(([, v]) => v);
  for (const d of plan.discounts) {
    const action = actionOf(ctx, "discount", d.key);
    if (!d.body || (action !== "create" && action !== "update")) continue;
    const digest = digestOf([d.body, d.productIds]);
    const tillId = ctx.links.get(linkKey("discount", d.key));
    const body: Record<string, unknown> = { ...d.body, ...(d.productIds ? { products: tillProducts(d.productIds) } : {}) };
    await ctx.db.transaction(async (tx) => {
      // an update changes what a redemption cannot have depended on: its name, limits, end and metadata
      const { name, metadata, max_redemptions: maxRedemptions, ends_at: endsAt } = body;
      const wire = tillId
        ? await updateDiscount(tx, ctx.organizationId, tillId, parseWith(DiscountUpdateInput, { name, metadata, max_redemptions: maxRedemptions, ends_at: endsAt }, "body"))
        : await createDiscount(tx, ctx.organizationId, parseWith(DiscountCreateInput, body, "body"));
      await repo.writeLink(tx, ctx.organizationId, ctx.processor, "discount", d.key, wire.id, digest);
      note(ctx, "discount", d.key, wire.id);
    }).catch((err: unknown) => refuse(ctx, "discount", d.key, err));
  }
}

async function applyCustomer(ctx: ApplyContext, tx: Queryable & Db, c: PlannedCustomer, body: Record<string, unknown>): Promise<string> {
  const known = ctx.links.get(linkKey("customer", c.source.id)) ?? ctx.items.get(linkKey("customer", c.source.id))?.tillId ?? null;
  if (!known) return (await createCustomer(tx, ctx.organizationId, parseWith(CustomerCreateInput, body, "body"))).id;
  const row = await findCustomerRow(tx, ctx.organizationId, { id: known });
  // a customer till already had (the same email): the Stripe id goes in as its external id only where it has none
  const { email: _email, external_id: externalId, metadata, ...fields } = body;
  const patch = { ...fields, metadata: { ...row.metadata, ...(metadata as Record<string, string>) }, ...(row.externalId ? {} : { external_id: externalId }) };
  await updateCustomer(tx, ctx.organizationId, { id: known }, parseWith(CustomerUpdateInput, patch, "body"));
  return known;
}

/** Writes the customers, calling `after` with each one's processor id once it is written. */
async function applyCustomers(ctx: ApplyContext, plan: Plan, customers: PlannedCustomer[], after: (sourceId: string) => Promise<void>): Promise<void> {
  // a subscription's own method stands in for a customer without a default one
  const subscriptionMethod = new Map<string, SourcePaymentMethod>();
  for (const s of plan.subscriptions) {
    if (s.source.defaultPaymentMethod && !subscriptionMethod.has(s.source.customerId)) subscriptionMethod.set(s.source.customerId, s.source.defaultPaymentMethod);
  }
  for (const c of customers) {
    const action = actionOf(ctx, "customer", c.source.id);
    if (!c.body || (action !== "create" && action !== "update")) continue;
    const digest = digestOf(c.body);
    const write = (body: Record<string, unknown>) => ctx.db.transaction(async (tx) => {
      const id = await applyCustomer(ctx, tx, c, body);
      const method = c.source.defaultPaymentMethod ?? subscriptionMethod.get(c.source.id) ?? null;
      if (method) {
        const { id: processorMethodId, type, brand, last4, expMonth, expYear } = method;
        await adoptSavedMethod(tx, ctx.organizationId, id, ctx.processor, c.source.id, { processorMethodId, type, brand, last4, expMonth, expYear });
      }
      await repo.writeLink(tx, ctx.organizationId, ctx.processor, "customer", c.source.id, id, digest);
      note(ctx, "customer", c.source.id, id);
    });
    await write(c.body).catch(async (err: unknown) => {
      // a tax id till's rules refuse for the customer's country: the customer comes over without it, and says so
      const taxRefused = err instanceof ApiError && Array.isArray(err.body.detail) && (err.body.detail as Array<{ loc: unknown[] }>).some((d) => d.loc.includes("tax_id"));
      if (!taxRefused || !c.body) return refuse(ctx, "customer", c.source.id, err);
      const { tax_id: taxId, ...rest } = c.body;
      await write(rest).catch((again: unknown) => refuse(ctx, "customer", c.source.id, again));
      const item = ctx.items.get(linkKey("customer", c.source.id));
      if (item && item.action !== "blocked") item.reason = `Its tax id ${String(taxId)} was left out: till's rules refuse it for the customer's country.`;
    });
    await after(c.source.id);
  }
}

/** A subscription's add-ons as till holds them (each one's amount per period), or why one cannot be billed. */
function addOnRows(
  links: Array<PlannedAddOn & { productId: string; priceId: string }>,
  products: Map<string, ProductWire>,
  since: Date,
): SubscriptionAddOn[] | string {
  const rows: SubscriptionAddOn[] = [];
  for (const a of links) {
    const price = products.get(a.productId)?.prices.find((p) => p.id === a.priceId);
    const billed = price ? addOnAmount(price, a.quantity) : { refusal: "Its price is gone." };
    // named as the seller knows it; Stripe's product id (not till's key of it) if till's product is gone
    const name = products.get(a.productId)?.name ?? a.productKey.split("/")[0];
    if ("refusal" in billed) return `Its add-on ${name} cannot be billed: ${billed.refusal}`;
    rows.push({ id: randomUUID(), productId: a.productId, priceId: a.priceId, quantity: a.quantity, amount: billed.amount, createdAt: since.toISOString() });
  }
  return rows;
}

/** Writes a subscription till will renew, `incomplete` until the processor has ended its own (handover.ts). */
async function stageSubscription(ctx: ApplyContext, s: PlannedSubscription): Promise<void> {
  const customerId = ctx.links.get(linkKey("customer", s.source.customerId));
  const productId = ctx.links.get(linkKey("product", s.productKey));
  const priceIds = s.priceKeys.map((k) => ctx.links.get(linkKey("price", k)));
  const discountId = s.discountKey ? ctx.links.get(linkKey("discount", s.discountKey)) : null;
  const addOnLinks = s.addOns.map((a) => ({ ...a, productId: ctx.links.get(linkKey("product", a.productKey)), priceId: ctx.links.get(linkKey("price", a.priceKey)) }));
  const item = ctx.items.get(linkKey("subscription", s.source.id));
  if (item?.action === "blocked") return;
  if (!customerId || !productId || priceIds.some((p) => !p) || discountId === undefined || addOnLinks.some((a) => !a.productId || !a.priceId)) {
    if (item) Object.assign(item, { action: "blocked", reason: "Its customer, product, price or coupon was not imported (see their items)." });
    return;
  }
  await ctx.db.transaction(async (tx) => {
    const loaded = await loadProducts(tx, ctx.organizationId, [productId, ...addOnLinks.map((a) => a.productId as string)], ctx.baseURL);
    const product = loaded.get(productId);
    const prices = (product?.prices ?? []).filter((p) => priceIds.includes(p.id));
    const licensed = prices.find((p) => p.amount_type !== "metered_unit");
    const addOns = addOnRows(addOnLinks as Array<PlannedAddOn & { productId: string; priceId: string }>, loaded, s.source.currentPeriodStart);
    if (typeof addOns === "string") {
      if (item) Object.assign(item, { action: "blocked", reason: addOns });
      return;
    }
    // the base product's amount (the add-ons' are theirs; the wire's `amount` adds them up)
    const amount = licensed ? (priceAmount(licensed, { seats: s.seats }) ?? 0) : 0;
    const id = randomUUID();
    const { till_subscription_id: _mark, ...metadata } = s.source.metadata;
    const row = newSubscriptionFromCheckout({
      id, organizationId: ctx.organizationId, checkoutId: "", customerId, productId, priceIds: priceIds as string[], amount,
      currency: s.source.currency, recurringInterval: product?.recurring_interval ?? "month", recurringIntervalCount: product?.recurring_interval_count ?? 1,
      trialEnd: s.trialing ? s.source.trialEnd : null, periodEnd: s.source.currentPeriodEnd, discountId, seats: s.seats, addOns,
      metadata: { ...metadata, stripe_subscription_id: s.source.id }, customFieldData: {}, now: s.source.currentPeriodStart,
    });
    await insertSubscriptionRow(tx, {
      ...row, status: "incomplete", checkoutId: null, startedAt: s.source.created, createdAt: new Date(),
      trialStart: s.trialing ? s.source.trialStart : null, currentPeriodEnd: s.source.currentPeriodEnd,
      // Stripe's terms are the subscription's own: its renewals are invoiced in till as they were at Stripe
      ...(s.source.collection === "send_invoice" ? { collectionMethod: "send_invoice" as const, daysUntilDue: s.source.daysUntilDue } : {}),
      ...(s.ending ? { cancelAtPeriodEnd: true, endsAt: s.source.currentPeriodEnd, canceledAt: new Date() } : {}),
    });
    await repo.insertHandover(tx, {
      subscriptionId: id, organizationId: ctx.organizationId, importId: ctx.importId, processor: ctx.processor,
      // due at once: Stripe is asked while the other customers are written (run.ts writes in what settles first)
      sourceSubscriptionId: s.source.id, state: "pending", sourcePeriodEnd: s.source.currentPeriodEnd, nextAttemptAt: new Date(),
    });
    if (item) item.tillId = id;
  });
}

/**
 * Applies the plan in order (what a subscription needs is written before it); answers how many subscriptions wait.
 * Each customer's subscriptions are staged right after it, so their hand-overs (the processor's requests) go on while
 * the other customers are written; those of customers written earlier (or not at all) after the last one.
 */
export async function applyPlan(ctx: ApplyContext, plan: Plan): Promise<number> {
  await applyMeters(ctx, plan);
  await applyProducts(ctx, plan);
  await applyAddOnOffers(ctx, plan);
  await applyDiscounts(ctx, plan);
  const byCustomer = new Map<string, PlannedSubscription[]>();
  for (const s of plan.subscriptions) {
    const of = byCustomer.get(s.source.customerId);
    if (of) of.push(s);
    else byCustomer.set(s.source.customerId, [s]);
  }
  let staged = 0;
  const stage = async (subscriptions: PlannedSubscription[]) => {
    for (const s of subscriptions) {
      await stageSubscription(ctx, s);
      if (ctx.items.get(linkKey("subscription", s.source.id))?.action === "create") staged += 1;
    }
  };
  // customers are written in lanes at once (on PostgreSQL), those of one email always in the same lane: the second
  // of two Stripe customers sharing an email adopts the till customer the first made, never races it
  const lanes = Array.from({ length: Math.max(1, ctx.lanes) }, () => [] as PlannedCustomer[]);
  for (const c of plan.customers) lanes[laneOf(String(c.body?.email ?? c.source.id), lanes.length)]?.push(c);
  await Promise.all(lanes.map((lane) => applyCustomers(ctx, plan, lane, async (customerId) => {
    const of = byCustomer.get(customerId);
    byCustomer.delete(customerId);
    if (of) await stage(of);
    // PGlite answers without I/O: thousands of writes in a row would hold the event loop (the hand-overs' loop, the
    // server's requests) until the last
    await yieldToLoop();
  })));
  for (const rest of byCustomer.values()) await stage(rest);
  return staged;
}
