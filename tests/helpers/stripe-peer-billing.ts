// The stand-in's Stripe Billing objects (never shipped), written from the API reference of the version the
// installed package pins (2026-10-28.endive): products and prices (stripe-peer-catalog.ts), Billing Meters,
// coupons and promotion codes (stripe-peer-coupons.ts), customers with their tax ids (stripe-peer-customers.ts),
// subscriptions and their items (stripe-peer-subscriptions.ts), and the stand-in's clock that ends and renews
// them (stripe-peer-billing-clock.ts). Lists and `expand[]` are stripe-peer-store.ts's. Every StripePeer has them.
import type { Authed, PeerRoute, StripePeer } from "./stripe-peer.js";
import { registerCatalog } from "./stripe-peer-catalog.js";
import { registerCoupons } from "./stripe-peer-coupons.js";
import { registerCustomers } from "./stripe-peer-customers.js";
import { registerSubscriptions } from "./stripe-peer-subscriptions.js";
import { registerBillingClock } from "./stripe-peer-billing-clock.js";
import { Expander, Ordered, type Json, type Stored } from "./stripe-peer-store.js";
import { now } from "./stripe-peer-util.js";

/** An invoice the stand-in's clock made: what it charged, to which method, and whether that was paid. */
export interface PeerInvoice extends Stored {
  object: "invoice";
  customer: string;
  subscription: string;
  billing_reason: "subscription_create" | "subscription_cycle";
  status: "paid" | "open";
  amount_due: number;
  amount_paid: number;
  currency: string;
  period_start: number;
  period_end: number;
  /** The payment method charged (the subscription's default, else the customer's invoice default); null: none. */
  payment_method: string | null;
}

export interface BillingObjects {
  products: Ordered<Stored>;
  prices: Ordered<Stored>;
  meters: Ordered<Stored>;
  coupons: Ordered<Stored>;
  promotionCodes: Ordered<Stored>;
  /** The customers of stripe-peer-payments.ts (its map), in creation order. */
  customers: Ordered<Stored>;
  taxIds: Ordered<Stored>;
  subscriptions: Ordered<Stored>;
  subscriptionItems: Ordered<Stored>;
  /** The discounts applied to subscriptions (di_…), each from a coupon or a promotion code. */
  discounts: Map<string, Stored>;
  /** Every invoice made, in order (a test reads them: no /v1/invoices route). */
  invoices: PeerInvoice[];
  expander: Expander;
  /** The account's time: the real clock, moved forward by `advance`. */
  now(owner: { account: string }): number;
  /**
   * Moves the account's clock to `to` (unix seconds): each subscription whose period ends by then ends
   * (cancel_at_period_end: canceled) or renews (a new period and an invoice charged to its default payment method;
   * none, or a declining one: past_due). Returns the subscriptions changed, as Stripe shows them.
   */
  advance(account: string, to: number, livemode?: boolean): Json[];
  /** The subscription's latest invoice failed: an open invoice, the subscription past_due. */
  failPayment(subscriptionId: string): Json;
}

/** What the billing routes share: the objects, the peer (its params, its events) and the caller's time. */
export interface BillingCtx {
  peer: StripePeer;
  b: BillingObjects;
  nowOf(auth: Authed): number;
  /** The invoices by id (what `latest_invoice` expands to). */
  invoiceById: Map<string, PeerInvoice>;
}

export function registerBillingObjects(peer: StripePeer, route: PeerRoute): BillingObjects {
  const offsets = new Map<string, number>();
  const byCustomer = (o: Stored) => (typeof o.customer === "string" ? [`customer:${o.customer}`] : []);
  const b: BillingObjects = {
    products: new Ordered(new Map()),
    prices: new Ordered(new Map(), (o) => [`product:${String(o.product)}`]),
    meters: new Ordered(new Map()),
    coupons: new Ordered(new Map()),
    promotionCodes: new Ordered(new Map()),
    customers: new Ordered(peer.payments.customers as unknown as Map<string, Stored>),
    taxIds: new Ordered(new Map(), byCustomer),
    subscriptions: new Ordered(new Map(), byCustomer),
    subscriptionItems: new Ordered(new Map(), (o) => [`subscription:${String(o.subscription)}`]),
    discounts: new Map(),
    invoices: [],
    expander: new Expander(),
    now: (owner) => now() + (offsets.get(owner.account) ?? 0),
    advance: () => [],
    failPayment: () => ({}),
  };
  const ctx: BillingCtx = { peer, b, nowOf: (auth) => b.now({ account: auth.account.id }), invoiceById: new Map() };
  registerCatalog(ctx, route);
  registerCoupons(ctx, route);
  registerCustomers(ctx, route);
  registerSubscriptions(ctx, route);
  Object.assign(b, registerBillingClock(ctx, route, offsets));
  return b;
}
