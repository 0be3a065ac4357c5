// An import's plan: every object read from the processor, what it becomes in till or why it cannot, decided from the
// snapshot and what earlier runs imported (their links and digests: a rerun writes only what changed). Pure: the
// dry run stores it, the import applies it (apply.ts).
import type { SourceCustomer, SourceSnapshot, SourceSubscription } from "../../payments/billing-import.js";
import type { ImportAction, ImportKind } from "../../../shared/stripe-import.js";
import { catalogUse, digestOf, PENDING_METER, planDiscounts, productDigest, planMeter, planProduct, priceKey, recurrenceLabel, recurrenceOf } from "./plan-catalog.js";
import type { PlannedDiscount, PlannedMeter, PlannedProduct } from "./plan-catalog.js";
import { MAX_DAYS_UNTIL_DUE } from "../terms.js";
import { MAX_ADD_ONS } from "../products/add-ons.js";

export interface PlanItem {
  kind: ImportKind;
  sourceId: string;
  label: string;
  action: ImportAction;
  becomes: string | null;
  tillId: string | null;
  reason: string | null;
}

/** What earlier runs left: links (kind + source id → till's id and digest), and subscriptions handed over. */
export interface Existing {
  links: Map<string, { tillId: string; digest: string }>;
  /** Live till customers by email (a customer of the same email is adopted, not duplicated). */
  emails: Map<string, string>;
  /** The processor's subscription id → till's subscription and the hand-over's state. */
  handovers: Map<string, { subscriptionId: string; state: string }>;
}

export const linkKey = (kind: string, sourceId: string) => `${kind}|${sourceId}`;

export interface PlannedCustomer {
  source: SourceCustomer;
  body: Record<string, unknown> | null;
  reason: string | null;
}

export interface PlannedSubscription {
  source: SourceSubscription;
  /** The till product (its link key) and prices (link keys) it bills. */
  productKey: string;
  priceKeys: string[];
  seats: number | null;
  /** The other products it bills, each one price in a quantity: till's add-ons of its product. */
  addOns: PlannedAddOn[];
  /** The coupon (its link key) applied, if any. */
  discountKey: string | null;
  trialing: boolean;
  /**
   * Canceled at Stripe to end with its period: till's ends then too, and Stripe's is left as it is (it renews
   * nowhere, so there is nothing to hand over).
   */
  ending: boolean;
}

export interface PlannedAddOn {
  productKey: string;
  priceKey: string;
  quantity: number;
}

export interface Plan {
  items: PlanItem[];
  meters: PlannedMeter[];
  products: PlannedProduct[];
  discounts: PlannedDiscount[];
  customers: PlannedCustomer[];
  subscriptions: PlannedSubscription[];
}

const IMPORTED_STATUSES = new Set(["active", "trialing", "past_due"]);

function customerBody(c: SourceCustomer): Pick<PlannedCustomer, "body" | "reason"> {
  if (!c.email) return { body: null, reason: "The customer has no email: till identifies customers by email. Add one at Stripe and run the import again." };
  const address = c.address?.country ? { ...c.address, postal_code: c.address.postalCode } : null;
  const body: Record<string, unknown> = {
    email: c.email.toLowerCase(),
    name: c.name,
    external_id: c.id,
    metadata: { ...c.metadata, stripe_customer_id: c.id },
    ...(address ? { billing_address: { line1: address.line1, line2: address.line2, postal_code: address.postal_code, city: address.city, state: address.state, country: address.country } } : {}),
    ...(c.taxIds[0] ? { tax_id: c.taxIds[0].value } : {}),
  };
  return { body, reason: null };
}

/** Whether rank `a` comes before `b` (compared field by field). */
function ranksBefore(a: number[], b: number[]): boolean {
  for (const [i, v] of a.entries()) if (v !== b[i]) return v < (b[i] ?? 0);
  return false;
}

/**
 * Stripe customers sharing an email: till has one customer per email, so one comes over — the one imported before,
 * else one with a subscription, else the oldest — and the others say which (their subscriptions could not be charged
 * through another Stripe customer's payment method).
 */
function withOneCustomerPerEmail(customers: PlannedCustomer[], snapshot: SourceSnapshot, existing: Existing): PlannedCustomer[] {
  const subscribed = new Set(snapshot.subscriptions.map((s) => s.customerId));
  const rank = (c: PlannedCustomer) => [existing.links.has(linkKey("customer", c.source.id)) ? 0 : 1, subscribed.has(c.source.id) ? 0 : 1, c.source.created.getTime()];
  const keeper = new Map<string, PlannedCustomer>();
  for (const c of customers) {
    const email = c.body ? String(c.body.email) : null;
    if (email === null) continue;
    const kept = keeper.get(email);
    if (!kept || ranksBefore(rank(c), rank(kept))) keeper.set(email, c);
  }
  return customers.map((c) => {
    const kept = c.body ? keeper.get(String(c.body.email)) : undefined;
    if (!kept || kept === c) return c;
    const reason = `Stripe's customer ${kept.source.id} has the same email, and till keeps one customer per email: ` +
      "merge them at Stripe (or change one's email) and run the import again.";
    return { ...c, body: null, reason };
  });
}

/** The action of an importable object: new, changed since the last run, or as it was. */
function actionOf(existing: Existing, kind: string, sourceId: string, digest: string): { action: ImportAction; tillId: string | null } {
  const link = existing.links.get(linkKey(kind, sourceId));
  if (!link) return { action: "create", tillId: null };
  return { action: link.digest === digest ? "unchanged" : "update", tillId: link.tillId };
}

/** Why a subscription stays at the processor (skipped or blocked), or null when it moves. */
function subscriptionRefusal(s: SourceSubscription, existing: Existing): { action: "skipped" | "blocked" | "waiting"; reason: string } | null {
  if (!IMPORTED_STATUSES.has(s.status)) return { action: "skipped", reason: `It is ${s.status} at Stripe: only active, trialing and past-due subscriptions move.` };
  if (s.movedTo && !existing.handovers.has(s.id)) {
    return { action: "blocked", reason: `Its Stripe metadata says it moved to till subscription ${s.movedTo}, which this organization does not hold.` };
  }
  if (s.collection === "send_invoice" && (s.daysUntilDue === null || s.daysUntilDue > MAX_DAYS_UNTIL_DUE)) {
    return { action: "blocked", reason: `Its invoices are due in ${s.daysUntilDue ?? "no set number of"} days at Stripe: till's terms are 0 to ${MAX_DAYS_UNTIL_DUE} days.` };
  }
  if (s.paused) return { action: "blocked", reason: "Its collection is paused at Stripe: resume or cancel it there first." };
  if (s.cancelAt && !s.cancelAtPeriodEnd) return { action: "blocked", reason: "It ends on a set date at Stripe: till ends subscriptions at a period's end only." };
  if (s.status === "past_due") return { action: "waiting", reason: "It is past due at Stripe: it moves once Stripe's open invoice is paid (run the import again)." };
  return null;
}

interface PriceUse {
  productKey: string;
  licensed: boolean;
  /** Sold per seat in till: the subscription's quantity is its seats. */
  seatBased: boolean;
  /** till's amount type of the price (null: it cannot be imported). */
  amountType: string | null;
  reason: string | null;
}

type MappedItems = Pick<PlannedSubscription, "productKey" | "priceKeys" | "seats" | "addOns">;
interface UsedItem {
  priceId: string;
  key: string;
  quantity: number | null;
  price: PriceUse;
}

/** The prices an add-on can bill with its subscription (till's add-ons: fixed per unit, per seat, or free). */
const ADD_ON_TYPES = new Set(["fixed", "seat_based", "free"]);

/**
 * A subscription's items mapped to one till product and its prices, and the other products' as its add-ons; or why
 * they cannot be. The main product is the one it meters (till meters its main product only), else its first item's.
 */
function mapItems(s: SourceSubscription, prices: Map<string, PriceUse>): MappedItems | string {
  const byProduct = new Map<string, UsedItem[]>();
  for (const item of s.items) {
    const key = priceKey(item.priceId, s.currency);
    const price = prices.get(key);
    if (!price) return `Its price ${item.priceId} has no ${s.currency.toUpperCase()} amount to import.`;
    if (price.reason) return `Its price ${item.priceId} cannot be imported: ${price.reason}`;
    byProduct.set(price.productKey, [...(byProduct.get(price.productKey) ?? []), { priceId: item.priceId, key, quantity: item.quantity, price }]);
  }
  const groups = [...byProduct.entries()];
  const metered = groups.filter(([, used]) => used.some((u) => !u.price.licensed));
  if (metered.length > 1) return "It meters prices of several products: till meters a subscription's main product only.";
  const [productKey = "", base = []] = metered[0] ?? groups[0] ?? [];
  const licensed = base.filter((u) => u.price.licensed);
  if (licensed.length > 1) return "It bills several licensed prices of one product at once: a till subscription has one price per product.";
  const addOns: PlannedAddOn[] = [];
  for (const [key, used] of groups) {
    if (key === productKey) continue;
    const [only] = used;
    if (!only || used.length > 1) return "It bills several prices of one add-on product at once: till bills one price per add-on.";
    if (!ADD_ON_TYPES.has(only.price.amountType ?? "")) return `Its price ${only.priceId} cannot be an add-on: till's add-ons have fixed, per-seat or free prices.`;
    addOns.push({ productKey: key, priceKey: only.key, quantity: only.quantity ?? 1 });
  }
  if (addOns.length > MAX_ADD_ONS) return `It bills more than ${MAX_ADD_ONS} products: a till subscription holds at most ${MAX_ADD_ONS} add-ons.`;
  const seatItem = licensed[0]?.price.seatBased ? licensed[0] : undefined;
  return { productKey, priceKeys: base.map((u) => u.key), seats: seatItem ? (seatItem.quantity ?? 1) : null, addOns };
}

/**
 * Why a subscription's products cannot be offered as till's add-ons, given the main products and add-ons of the
 * subscriptions planned before it (a till product that offers add-ons is no add-on itself), or null.
 */
function addOnConflict(mapped: MappedItems, roles: { bases: Set<string>; addOns: Set<string> }, archived: Set<string>, nameOf: (key: string) => string): string | null {
  if (mapped.addOns.length > 0 && roles.addOns.has(mapped.productKey)) {
    return `Its main product ${nameOf(mapped.productKey)} is an add-on of another subscription's: a till product that offers add-ons is no add-on itself.`;
  }
  for (const a of mapped.addOns) {
    const name = nameOf(a.productKey);
    if (roles.bases.has(a.productKey)) return `Its product ${name} is another subscription's main product: a till product that offers add-ons is no add-on itself.`;
    if (archived.has(a.productKey)) return `Its add-on product ${name} is archived at Stripe: till offers only products on sale as add-ons.`;
  }
  return null;
}

/**
 * What a subscription bills, as the seller knows it: the names of the till products its items' prices make (the
 * Stripe product's name for a price that makes none), e.g. "Team (monthly) + Storage".
 */
function planNameOf(s: SourceSubscription, prices: Map<string, PriceUse>, productName: Map<string, string>, stripeProductName: Map<string, string>): string | null {
  const names = s.items.map((i) => {
    const used = prices.get(priceKey(i.priceId, s.currency));
    return (used && productName.get(used.productKey)) ?? stripeProductName.get(i.priceId);
  });
  return [...new Set(names.filter((n) => n !== undefined))].join(" + ") || null;
}

export function planImport(snapshot: SourceSnapshot, existing: Existing, now: Date): Plan {
  const items: PlanItem[] = [];
  const meters = snapshot.meters.map(planMeter);
  const meterTill = new Map<string, string>();
  for (const m of meters) {
    const digest = digestOf(m.body);
    const found = m.body ? actionOf(existing, "meter", m.source.id, digest) : null;
    // prices name their meter by Stripe's id (their digest stays the same from run to run); apply finds till's
    if (m.body) meterTill.set(m.source.id, `${PENDING_METER}${m.source.id}`);
    const becomes = m.body ? `meter of "${m.source.eventName}" events` : null;
    items.push({ kind: "meter", sourceId: m.source.id, label: m.source.name, action: found?.action ?? "blocked", tillId: found?.tillId ?? null, becomes, reason: m.reason });
  }
  const use = catalogUse(snapshot);
  const products = snapshot.products.flatMap((p) => planProduct(p, use, (id) => meterTill.get(id) ?? null));
  const priceProduct = new Map<string, PriceUse>();
  for (const p of products) {
    const found = actionOf(existing, "product", p.key, productDigest(p));
    const sellable = p.prices.some((x) => x.body && x.slot === "catalog");
    items.push({
      kind: "product", sourceId: p.key, label: p.source.name, action: sellable ? found.action : "blocked", tillId: found.tillId,
      becomes: sellable ? `product "${p.name}"${p.archived ? " (archived)" : ""}` : null,
      reason: sellable ? null : "None of its prices can be imported (see them).",
    });
    for (const price of p.prices) {
      const amountType = typeof price.body?.amount_type === "string" ? price.body.amount_type : null;
      priceProduct.set(price.key, { productKey: p.key, licensed: price.source.usage === "licensed", seatBased: amountType === "seat_based", amountType, reason: price.reason });
      const link = existing.links.get(linkKey("price", price.key));
      const action: ImportAction = price.body ? (link ? "unchanged" : "create") : "blocked";
      const becomes = price.body ? `${String(price.body.amount_type)} price in ${price.currency.toUpperCase()}${price.slot === "archived" ? " (archived: kept for its subscriptions)" : ""}` : null;
      const label = price.source.nickname ?? `${p.source.name}, ${recurrenceLabel(recurrenceOf(price.source))}`;
      items.push({ kind: "price", sourceId: price.key, label, action, tillId: link?.tillId ?? null, becomes, reason: price.reason });
    }
  }
  const codesOf = new Map<string, typeof snapshot.promotionCodes>();
  for (const code of snapshot.promotionCodes) codesOf.set(code.couponId, [...(codesOf.get(code.couponId) ?? []), code]);
  const discounts = snapshot.coupons.flatMap((c) => planDiscounts(c, codesOf.get(c.id) ?? []));
  const discountOk = new Set<string>();
  for (const d of discounts) {
    const found = d.body ? actionOf(existing, "discount", d.key, digestOf([d.body, d.productIds])) : null;
    if (d.body) discountOk.add(d.key);
    const becomes = d.body ? `discount "${String(d.body.name)}"` : null;
    items.push({ kind: "discount", sourceId: d.key, label: d.label, action: found?.action ?? "blocked", tillId: found?.tillId ?? null, becomes, reason: d.reason });
  }
  const customers = withOneCustomerPerEmail(snapshot.customers.map((c) => ({ source: c, ...customerBody(c) })), snapshot, existing);
  const customerOk = new Set<string>();
  for (const c of customers) {
    const linked = c.body ? actionOf(existing, "customer", c.source.id, digestOf(c.body)) : null;
    const adopted = c.body && !linked?.tillId ? existing.emails.get(String(c.body.email)) : undefined;
    if (c.body) customerOk.add(c.source.id);
    const action: ImportAction = linked ? (adopted ? "update" : linked.action) : "blocked";
    const becomes = c.body ? (adopted ? `the till customer of the same email` : `customer ${String(c.body.email)}`) : null;
    items.push({ kind: "customer", sourceId: c.source.id, label: c.source.email ?? c.source.name ?? c.source.id, action, tillId: linked?.tillId ?? adopted ?? null, becomes, reason: c.reason });
  }
  const subscriptions: PlannedSubscription[] = [];
  const roles = { bases: new Set<string>(), addOns: new Set<string>() };
  const archived = new Set(products.filter((p) => p.archived).map((p) => p.key));
  const customerOf = new Map(snapshot.customers.map((c) => [c.id, c]));
  // products named as the seller knows them: till's name of the product a link key makes, never the key
  const productName = new Map(products.map((p) => [p.key, p.name]));
  const stripeProductName = new Map(snapshot.products.flatMap((p) => p.prices.map((x) => [x.id, p.name] as const)));
  const nameOf = (key: string) => `"${productName.get(key) ?? key}"`;
  for (const s of snapshot.subscriptions) {
    const plan = planNameOf(s, priceProduct, productName, stripeProductName);
    const label = `${customerOf.get(s.customerId)?.email ?? s.customerId}'s subscription${plan ? ` to ${plan}` : ""}`;
    const done = existing.handovers.get(s.id);
    const push = (action: ImportAction, reason: string | null, becomes: string | null = null) =>
      items.push({ kind: "subscription", sourceId: s.id, label, action, tillId: done?.subscriptionId ?? null, becomes, reason });
    if (done?.state === "moved") {
      push("moved", null, "a till subscription (till renews it)");
      continue;
    }
    if (done?.state === "pending") {
      push("waiting", "Its hand-over to till is under way.");
      continue;
    }
    const refused = subscriptionRefusal(s, existing);
    const mapped = mapItems(s, priceProduct);
    const conflict = typeof mapped === "string" ? mapped : addOnConflict(mapped, roles, archived, nameOf);
    const problem = refused ?? (conflict ? { action: "blocked" as const, reason: conflict } : null)
      ?? (!customerOk.has(s.customerId) ? { action: "blocked" as const, reason: `Its customer ${s.customerId} cannot be imported.` } : null)
      ?? (s.couponIds.length > 1 ? { action: "blocked" as const, reason: "It has several coupons: a till subscription has one discount." } : null)
      ?? (s.couponIds[0] && !discountOk.has(s.couponIds[0]) ? { action: "blocked" as const, reason: `Its coupon ${s.couponIds[0]} cannot be imported.` } : null)
      // a subscription Stripe invoices is paid from its invoice's pay link: nothing to charge is needed
      ?? (s.collection === "automatic" && !s.defaultPaymentMethod && !customerOf.get(s.customerId)?.defaultPaymentMethod
        ? { action: "blocked" as const, reason: "Neither it nor its customer has a default payment method at Stripe: till would have nothing to charge." }
        : null);
    if (problem || typeof mapped === "string") {
      push(problem?.action ?? "blocked", problem?.reason ?? null);
      continue;
    }
    if (mapped.addOns.length > 0) roles.bases.add(mapped.productKey);
    for (const a of mapped.addOns) roles.addOns.add(a.productKey);
    const trialing = s.trialEnd !== null && s.trialEnd > now;
    const ending = s.cancelAtPeriodEnd && !s.movedTo;
    subscriptions.push({ source: s, ...mapped, discountKey: s.couponIds[0] ?? null, trialing, ending });
    const day = s.currentPeriodEnd.toISOString().slice(0, 10);
    const invoiced = s.collection === "send_invoice" ? `, invoiced with ${s.daysUntilDue ?? 0} days to pay` : "";
    push("create", null, ending ? `a till subscription that ends on ${day}, as at Stripe` : `a till subscription that renews from ${day}${invoiced}`);
  }
  return { items, meters, products, discounts, customers, subscriptions };
}

/** Per kind, how many of each action (the run's counts), and how many block. */
export function countsOf(items: Array<Pick<PlanItem, "kind" | "action">>): { counts: Record<string, Record<string, number>>; blocked: number } {
  const counts: Record<string, Record<string, number>> = {};
  let blocked = 0;
  for (const item of items) {
    const kind = (counts[item.kind] ??= {});
    kind[item.action] = (kind[item.action] ?? 0) + 1;
    if (item.action === "blocked") blocked += 1;
  }
  return { counts, blocked };
}
