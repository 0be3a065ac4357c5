// The parts of the API's answers (Polar's wire shapes) the seller pages read.
import { assertNever } from "../../../shared/kinds.js";
import { priceKindOf } from "../kinds.js";
import type { UnitTiers } from "../../../shared/tiers.js";

export interface Price {
  id: string;
  amount_type: string;
  price_amount?: number | null;
  price_currency?: string | null;
  minimum_amount?: number | null;
  maximum_amount?: number | null;
  preset_amount?: number | null;
  tax_behavior?: string | null;
  /** metered_unit: the price of one unit in minor units, as a decimal string ("0.5" is half a cent). */
  unit_amount?: string;
  cap_amount?: number | null;
  meter_id?: string;
  meter?: { id: string; name: string };
  unit_tiers?: UnitTiers;
  overage?: string;
  seat_tiers?: { seat_tier_type?: string; tiers: Array<{ min_seats: number; max_seats: number | null; price_per_seat: number }> };
  is_archived: boolean;
}

export interface Benefit {
  id: string;
  type: string;
  description: string;
}

export interface Product {
  id: string;
  name: string;
  description: string | null;
  recurring_interval: string | null;
  recurring_interval_count?: number | null;
  is_recurring: boolean;
  is_archived: boolean;
  created_at: string;
  prices: Price[];
  benefits: Benefit[];
  /** till's own: the products offered as add-ons on this product's subscriptions. */
  add_on_ids?: string[];
}

export interface OrderItem {
  label: string;
  amount: number;
}

export interface Order {
  id: string;
  created_at: string;
  status: string;
  paid: boolean;
  billing_reason: string;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  refunded_amount: number;
  refundable_amount?: number;
  currency: string;
  invoice_number: string | null;
  is_invoice_generated: boolean;
  customer_id: string;
  subscription_id: string | null;
  customer: { id: string; email: string | null; name: string | null };
  product: { id: string; name: string } | null;
  items: OrderItem[];
}

export interface Customer {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
  external_id?: string | null;
}

export interface Subscription {
  id: string;
  created_at: string;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  ends_at: string | null;
  ended_at: string | null;
  started_at?: string | null;
  customer_id: string;
  product_id: string;
  customer: { id: string; email: string | null; name: string | null };
  product: { id: string; name: string; add_on_ids?: string[] };
  /** Seat-based subscriptions' seats; null otherwise. */
  seats?: number | null;
  /** Every price billed: the product's, then the add-ons'. */
  prices?: Price[];
  /** till's own: the add-ons billed with the product, each with its quantity and what it adds per period. */
  items?: SubscriptionItem[];
  /** A change set to apply at the period's end (next_period); `items`: the add-ons it writes (null: unchanged). */
  pending_update?: { applies_at: string; product_id: string | null; seats: number | null; items?: AddOnHeld[] | null } | null;
}

/** An add-on as a subscription holds it (or a scheduled change will). */
export interface AddOnHeld {
  product_id: string;
  quantity: number;
  amount: number;
}

export interface SubscriptionItem extends AddOnHeld {
  id: string;
  product: { id: string; name: string } | null;
  price: Price | null;
}

export interface CustomerState extends Customer {
  active_subscriptions: Array<{ id: string; status: string; amount: number; currency: string; recurring_interval: string; product_id: string }>;
  granted_benefits: Array<{ id: string; benefit_id: string; benefit_type: string; granted_at: string }>;
  active_meters: Array<{ id: string; meter_id: string; consumed_units: number; credited_units: number; balance: number }>;
}

export interface BenefitGrant {
  id: string;
  granted_at: string | null;
  revoked_at: string | null;
  is_granted: boolean;
  is_revoked: boolean;
  benefit: { id: string; type: string; description: string };
}

/** A price in words: "$19.99", "$9.00 / month", "pay what you want", "free". */
export function priceLabel(price: Price | undefined, interval: string | null, money: (n: number, c: string) => string): string {
  if (!price) return "no price";
  const every = interval ? ` / ${interval}` : "";
  const kind = priceKindOf(price.amount_type);
  switch (kind) {
    case "free":
      return "free";
    case "fixed":
      if (price.price_amount === 0) return "free";
      return typeof price.price_amount === "number" ? `${money(price.price_amount, price.price_currency ?? "usd")}${every}` : "fixed";
    case "custom":
      return "pay what you want";
    case "seat_based":
    case "metered_unit":
    case null:
      // "seat based", "metered unit", or the name of a kind this page does not know
      return price.amount_type.replace(/_/g, " ");
    default:
      return assertNever(kind, "price kind");
  }
}
