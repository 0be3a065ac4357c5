// The customer portal's calls: /v1/customer-portal/* with the customer session's token (Authorization:
// Bearer); where the page keeps that token: portal-session.ts. Errors are Polar's ({error, detail} or a 422's
// {detail: [{loc, msg, type}]}), read by the checkout's parser into one message plus per-field messages;
// a 401 means the session is missing or expired.
import { CANCELLATION_REASONS as ALL_REASONS } from "../../shared/cancellation-reasons.js";
import { errorOf, type Address, type CheckoutError, type Price } from "./checkout-api.js";
import { t } from "./i18n/intl.js";

export type { Address };
export type PortalError = CheckoutError;
export type Result<T> = { ok: true; data: T } | { ok: false; error: PortalError };

export type CancellationReason = (typeof ALL_REASONS)[number];
/**
 * Polar's CustomerCancellationReason in the order the cancel form offers them (its words: the catalog's
 * `subs.reason.*`).
 */
export const CANCELLATION_REASONS: readonly CancellationReason[] = [
  "too_expensive",
  "missing_features",
  "switched_service",
  "unused",
  "customer_service",
  "low_quality",
  "too_complex",
  "other",
];

export interface Organization {
  id: string;
  name: string;
  slug: string;
  /** What the seller lets a customer change (a product's seller carries it). */
  customer_portal_settings?: { subscription?: { update_plan?: boolean; update_seats?: boolean } };
}

export interface PortalProduct {
  id: string;
  name: string;
  description: string | null;
  organization: Organization;
}

export interface PortalCustomer {
  id: string;
  email: string;
  name: string | null;
  billing_name: string | null;
  billing_address: Address | null;
  tax_id: [string, string] | null;
  /** Connected GitHub / Discord accounts, by platform. */
  oauth_accounts?: Partial<Record<OauthPlatform, { account_id: string; account_username: string | null }>>;
}

export type OauthPlatform = "github" | "discord";

export interface PortalSubscription {
  id: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  recurring_interval_count?: number | null;
  status: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  ends_at: string | null;
  ended_at: string | null;
  canceled_at: string | null;
  customer_cancellation_reason: string | null;
  /** A seat-based subscription's seats; null otherwise. */
  seats?: number | null;
  /** Its metered prices' usage over the current period: what the next renewal bills beyond the credits. */
  meters?: PortalSubscriptionMeter[];
  /** Its prices (a metered one's cap_amount and till's unit_tiers: what the usage is measured against). */
  prices?: Price[];
  product: PortalProduct;
  /** till's own: the add-ons it holds with its product, each with what it adds per period. */
  items?: PortalSubscriptionItem[];
  /** till's own: the add-ons its product offers in its currency (what the customer may add). */
  available_add_ons?: PortalAddOnProduct[];
  /** A change waiting for the period's end (a next_period change); `items` null leaves the add-ons as they are. */
  pending_update?: { applies_at: string; items: Array<{ product_id: string; quantity: number; amount: number }> | null } | null;
}

/** An add-on a subscription holds: its product, quantity (units or seats) and amount per period. */
export interface PortalSubscriptionItem {
  id: string;
  product_id: string;
  product: { id: string; name: string } | null;
  price: Price | null;
  quantity: number;
  amount: number;
}

/** A product offered as an add-on, with its prices. */
export interface PortalAddOnProduct {
  id: string;
  name: string;
  prices: Price[];
}

export interface PortalSubscriptionMeter {
  id: string;
  meter_id: string;
  consumed_units: number;
  credited_units: number;
  /** What the renewal bills for it so far, in minor units. */
  amount: number;
  meter: { id: string; name: string };
}

export interface PortalOrder {
  id: string;
  created_at: string;
  status: string;
  total_amount: number;
  currency: string;
  description: string;
  invoice_number: string;
  is_invoice_generated: boolean;
  /** subscription_cycle with status pending: a renewal whose charge failed (past due). */
  billing_reason?: string;
  product: PortalProduct | null;
  /**
   * Its lines: `label` is English (the API's); a wallet top-up's one line names its kind (`wallet_credit`, till's own).
   */
  items: Array<{ label: string; wallet_credit?: "top_up" | "auto_recharge" | null }>;
  /** till's own: an unpaid order's hosted pay page (a link to pass on to whoever pays), else null. */
  pay_url?: string | null;
}

/** An order's invoice PDF and its credit notes, each an hour-long signed URL (billing/invoices). */
export interface OrderInvoice {
  url: string;
  number: string;
  credit_notes: Array<{ id: string; number: string; url: string }>;
}

/** A saved card (PaymentMethodCard, with till's is_default): never the number. */
export interface PaymentMethod {
  id: string;
  type: string;
  is_default?: boolean;
  method_metadata?: { brand: string; last4: string; exp_month: number; exp_year: number };
}

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

export interface PaymentConfirmation {
  status: string;
  /** With `requires_action`: what Stripe.js's handleNextAction takes (3-D Secure). */
  client_secret?: string | null;
  error?: string | null;
  /** A failed payment's reason (Stripe's decline code): `authentication_required` asks the customer to authenticate. */
  decline_reason?: string | null;
}

/** How this seller takes cards: Stripe's Payment Element (their publishable key) or the test processor's form. */
export interface PortalProcessor {
  processor: "stripe" | "test";
  publishable_key: string | null;
}

/**
 * A setup waiting for the customer's bank (till's `next_action`): microdeposits to verify when they arrive (their
 * two amounts, or the code in their descriptor; or on Stripe's own page), or nothing to do but wait.
 */
export type SetupWait =
  | { type: "verify_with_microdeposits"; verify_with_microdeposits: { arrival_date: string | null; hosted_verification_url: string | null; microdeposit_type: "amounts" | "descriptor_code" } }
  | { type: "processing" };

/**
 * Adding a card: saved, or its bank asks the customer to act first (a SetupIntent's client secret): authenticate, or
 * verify microdeposits.
 */
export type AddedPaymentMethod = { status: "succeeded"; payment_method: PaymentMethod } | { status: "requires_action"; client_secret: string; next_action?: SetupWait };

export interface PortalGrant {
  id: string;
  granted_at: string | null;
  is_granted: boolean;
  is_revoked: boolean;
  benefit_id: string;
  benefit: {
    id: string;
    type: string;
    description: string;
    organization: Organization;
    properties: Record<string, unknown>;
  };
  properties: Record<string, unknown>;
  /** Why a GitHub invitation or Discord role is not given (yet). */
  error?: { message: string; type: string; timestamp: string } | null;
}

export interface LicenseKey {
  id: string;
  benefit_id: string;
  key: string;
  display_key: string;
  status: string;
  limit_activations: number | null;
  usage: number;
  limit_usage: number | null;
  expires_at: string | null;
  activations?: { id: string; label: string }[];
}

export interface Downloadable {
  id: string;
  benefit_id: string;
  file: { id: string; name: string; size_readable: string; download: { url: string; expires_at: string } };
}

export interface Introspection {
  expires_at: string;
  return_url: string | null;
}

export interface Wallet {
  id: string;
  balance: number;
  currency: string;
}

export interface WalletTransaction {
  id: string;
  created_at: string;
  type: string;
  amount: number;
  /** English (the API's): the portal says till's own movements from their type (and product) instead. */
  description: string;
  /** The product a usage movement paid for. */
  product_name: string | null;
}

export interface AutoRecharge {
  enabled: boolean;
  threshold_amount: number;
  amount: number;
  blocked_at: string | null;
}

export interface CreditOffer {
  checkout_link_id: string;
  name: string;
  url: string;
}

interface ListResource<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export interface BillingUpdate {
  billing_name?: string | null;
  billing_address?: Address | null;
  tax_id?: string | null;
}

/** Polar's CustomerSeat, as the seats section shows it. */
export interface Seat {
  id: string;
  status: "pending" | "claimed" | "revoked" | string;
  email: string | null;
  customer_email: string | null;
  invitation_token_expires_at: string | null;
  claimed_at: string | null;
}

export interface SeatsList {
  seats: Seat[];
  available_seats: number;
  total_seats: number;
}

const BASE = "/v1/customer-portal";

/** A call with the session's token; `token` null for the public routes (the seller by slug, sign-in by code). */
export async function call<T>(token: string | null, method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", path: string, body?: unknown): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, {
      method,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: { status: 0, message: t("server.network"), fields: {} } };
  }
  let parsed: unknown = null;
  try {
    parsed = await res.json();
  } catch {
    parsed = null;
  }
  if (res.ok) return { ok: true, data: (res.status === 202 ? null : parsed) as T };
  const error = errorOf(res.status, parsed);
  // errorOf's words for a bare 404 are the checkout's
  if (res.status === 404 && error.message === t("server.notFound")) error.message = t("portal.notFound");
  return { ok: false, error };
}

/** Every page of a list (a customer has few rows; 100 a page). */
export async function all<T>(token: string, path: string): Promise<Result<T[]>> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const r = await call<ListResource<T>>(token, "GET", `${path}?limit=100&page=${page}`);
    if (!r.ok) return r;
    items.push(...r.data.items);
    if (page >= r.data.pagination.max_page || r.data.items.length === 0) return { ok: true, data: items };
  }
}

export const portalApi = {
  /** The seller by slug (public): its id, for asking a sign-in code. */
  organization: (slug: string) => call<{ organization: Organization }>(null, "GET", `/organizations/${encodeURIComponent(slug)}`),
  /** Mails the customer of that email a one-time code (202 whether or not the email is known). */
  requestCode: (email: string, organizationId: string) =>
    call<null>(null, "POST", "/customer-session/request", { email, organization_id: organizationId }),
  authenticate: (code: string) => call<{ token: string }>(null, "POST", "/customer-session/authenticate", { code }),
  /** Confirms a new email address with the token of the mailed link (public): a new session of the customer. */
  verifyEmailUpdate: (token: string) => call<{ token: string }>(null, "POST", "/customers/me/email-update/verify", { token }),
  introspect: (token: string) => call<Introspection>(token, "GET", "/customer-session/introspect"),
  me: (token: string) => call<PortalCustomer>(token, "GET", "/customers/me"),
  updateMe: (token: string, body: BillingUpdate) => call<PortalCustomer>(token, "PATCH", "/customers/me", body),
  subscriptions: (token: string) => all<PortalSubscription>(token, "/subscriptions/"),
  orders: (token: string) => all<PortalOrder>(token, "/orders/"),
  /** The order's invoice once generated (404 before). */
  invoice: (token: string, orderId: string) => call<OrderInvoice>(token, "GET", `/orders/${encodeURIComponent(orderId)}/invoice`),
  grants: (token: string) => all<PortalGrant>(token, "/benefit-grants/"),
  licenseKeys: (token: string) => all<LicenseKey>(token, "/license-keys/"),
  /** The files of downloadables benefits, each with an hour-long signed download URL. */
  downloadables: (token: string) => all<Downloadable>(token, "/downloadables/"),
  licenseKey: (token: string, id: string) => call<LicenseKey>(token, "GET", `/license-keys/${encodeURIComponent(id)}`),
  cancel: (token: string, id: string, reason: CancellationReason, comment: string | null) =>
    call<PortalSubscription>(token, "PATCH", `/subscriptions/${encodeURIComponent(id)}`, {
      cancel_at_period_end: true,
      cancellation_reason: reason,
      cancellation_comment: comment,
    }),
  uncancel: (token: string, id: string) =>
    call<PortalSubscription>(token, "PATCH", `/subscriptions/${encodeURIComponent(id)}`, { cancel_at_period_end: false }),
  /** The seats of a seat-based subscription the customer bought (pages/PortalSeats.tsx). */
  seats: (token: string, subscriptionId: string) => call<SeatsList>(token, "GET", `/seats?subscription_id=${encodeURIComponent(subscriptionId)}`),
  assignSeat: (token: string, subscriptionId: string, email: string) => call<Seat>(token, "POST", "/seats", { subscription_id: subscriptionId, email }),
  revokeSeat: (token: string, id: string) => call<Seat>(token, "DELETE", `/seats/${encodeURIComponent(id)}`),
  /** Where to send the customer to connect a GitHub or Discord account; they come back to `returnTo`. */
  authorizeAccount: (token: string, platform: OauthPlatform, returnTo: string) =>
    call<{ url: string }>(token, "GET", `/customers/me/oauth-accounts/authorize?platform=${platform}&return_to=${encodeURIComponent(returnTo)}`),
  disconnectAccount: (token: string, platform: OauthPlatform) => call<null>(token, "DELETE", `/customers/me/oauth-accounts/${platform}`),
  resendSeat: (token: string, id: string) => call<Seat>(token, "POST", `/seats/${encodeURIComponent(id)}/resend`, {}),
  /** Saved cards (pages/PortalPayments.tsx); a card is tokenized with the test processor, then added or paid with. */
  paymentMethods: (token: string) => all<PaymentMethod>(token, "/customers/me/payment-methods"),
  tokenizeCard: (token: string, card: CardInput) =>
    call<{ confirmation_token_id: string }>(token, "POST", "/customers/me/payment-methods/test-card", card),
  addPaymentMethod: (token: string, confirmationTokenId: string) =>
    call<AddedPaymentMethod>(token, "POST", "/customers/me/payment-methods", {
      confirmation_token_id: confirmationTokenId,
      set_default: true,
      return_url: window.location.href,
    }),
  /** A card whose setup asked for 3-D Secure, saved once the customer passed it (Stripe's SetupIntent id). */
  confirmPaymentMethod: (token: string, setupIntentId: string) =>
    call<AddedPaymentMethod>(token, "POST", "/customers/me/payment-methods/confirm", { setup_intent_id: setupIntentId, set_default: true }),
  setDefaultPaymentMethod: (token: string, id: string) => call<PaymentMethod>(token, "POST", `/customers/me/payment-methods/${encodeURIComponent(id)}/default`, {}),
  /** Stripe's Payment Element (with the seller's publishable key) or the test processor's card form. */
  paymentProcessor: (token: string) => call<PortalProcessor>(token, "GET", "/customers/me/payment-methods/processor"),
  deletePaymentMethod: (token: string, id: string) => call<null>(token, "DELETE", `/customers/me/payment-methods/${encodeURIComponent(id)}`),
  /**
   * The customer's wallets (Polar's), their history, auto-recharge and where to buy credits (till's own;
   * PortalWallet.tsx).
   */
  wallets: (token: string) => all<Wallet>(token, "/wallets/"),
  walletHistory: (token: string, id: string) => call<ListResource<WalletTransaction>>(token, "GET", `/wallets/${encodeURIComponent(id)}/transactions?limit=20`),
  autoRecharge: (token: string, id: string) => call<AutoRecharge>(token, "GET", `/wallets/${encodeURIComponent(id)}/auto-recharge`),
  setAutoRecharge: (token: string, id: string, body: Partial<Pick<AutoRecharge, "enabled" | "threshold_amount" | "amount">>) =>
    call<AutoRecharge>(token, "PUT", `/wallets/${encodeURIComponent(id)}/auto-recharge`, body),
  creditOffers: (token: string) => call<CreditOffer[]>(token, "GET", "/wallets/credit-offers"),
  /** Pays a past-due order now: with a new card's token (saved as the default) or the default card. */
  retryPayment: (token: string, orderId: string, confirmationTokenId: string | null, paymentMethodId: string | null = null) =>
    call<PaymentConfirmation>(
      token,
      "POST",
      `/orders/${encodeURIComponent(orderId)}/confirm-payment`,
      confirmationTokenId ? { confirmation_token_id: confirmationTokenId } : paymentMethodId ? { payment_method_id: paymentMethodId } : {},
    ),
  /** The order's payment now (after 3-D Secure, Stripe tells till how it ended a moment later). */
  paymentStatus: (token: string, orderId: string) => call<PaymentConfirmation>(token, "GET", `/orders/${encodeURIComponent(orderId)}/payment-status`),
};
