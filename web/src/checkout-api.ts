// The hosted checkout's calls: /v1/checkouts/client/{client_secret} (get, update, confirm), the test
// processor's card tokenizer, and the event stream. Errors come back as one readable message plus, for a
// 422, the message of each field (keyed by the field's path, e.g. "customer_email").

import type { UnitTiers } from "../../shared/tiers.js";
import { t } from "./i18n/intl.js";
import { serverMessage } from "./i18n/server-errors.js";
export type FieldMode = "required" | "optional" | "disabled";

export interface Price {
  id: string;
  amount_type: string;
  price_currency?: string;
  price_amount?: number;
  minimum_amount?: number | null;
  maximum_amount?: number | null;
  preset_amount?: number | null;
  recurring_interval?: string | null;
  is_archived?: boolean;
  /** metered_unit: the price of one unit in minor units, as a decimal string ("0.5" is half a cent). */
  unit_amount?: string;
  cap_amount?: number | null;
  /** metered_unit: till's tiers (shared/tiers.ts), when the price has them. */
  unit_tiers?: UnitTiers | null;
  meter?: { id: string; name: string };
  seat_tiers?: { seat_tier_type?: string; tiers: SeatTier[]; minimum_seats?: number; maximum_seats?: number | null };
}

export interface SeatTier {
  min_seats: number;
  max_seats: number | null;
  price_per_seat: number;
}

export interface CheckoutProduct {
  id: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  recurring_interval: string | null;
  recurring_interval_count?: number | null;
  prices: Price[];
  medias?: { id: string; name: string; public_url: string; mime_type?: string }[];
  benefits?: { id: string; type: string; description: string }[];
}

export interface CustomField {
  slug: string;
  name: string;
  type: "text" | "number" | "date" | "checkbox" | "select";
  properties: {
    form_label?: string | null;
    form_help_text?: string | null;
    form_placeholder?: string | null;
    textarea?: boolean | null;
    options?: { value: string; label: string }[];
    ge?: number | null;
    le?: number | null;
  };
}

export interface Address {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

/** till's own: an add-on chosen with the product (its quantity: units, or seats for a seat-based price). */
export interface AddOnChoice {
  product_id: string;
  quantity: number;
}

export interface Checkout {
  id: string;
  status: "open" | "expired" | "confirmed" | "succeeded" | "failed";
  client_secret: string;
  success_url: string;
  embed_origin: string | null;
  amount: number;
  seats: number | null;
  min_seats: number | null;
  max_seats: number | null;
  price_per_seat: number | null;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  total_amount: number;
  /** till's: the same price without the discount, tax included (what renewals charge once it is spent). */
  undiscounted_total_amount?: number;
  /** till's: "VAT reverse charged" when the buyer's tax id makes the sale reverse charge, else null. */
  reverse_charge?: string | null;
  currency: string;
  active_trial_interval: string | null;
  active_trial_interval_count: number | null;
  trial_end: string | null;
  allow_discount_codes: boolean;
  is_discount_applicable: boolean;
  is_free_product_price: boolean;
  is_payment_required: boolean;
  is_payment_form_required: boolean;
  is_business_customer: boolean;
  customer_name: string | null;
  customer_email: string | null;
  customer_billing_name: string | null;
  customer_billing_address: Address | null;
  customer_tax_id: string | null;
  /** The locale the seller gave at creation (Polar's), or the one the page recorded at the confirm. */
  locale?: string | null;
  /** till's: the known customer's stored locale (the page's read only). */
  customer_locale?: string | null;
  custom_field_data: Record<string, string | number | boolean | null>;
  billing_address_fields: Record<"country" | "state" | "city" | "postal_code" | "line1" | "line2", FieldMode>;
  products: CheckoutProduct[];
  product: CheckoutProduct | null;
  /** till's: the add-ons the product offers, and those chosen (each with its amount per period). */
  available_add_ons?: CheckoutProduct[];
  add_ons?: Array<AddOnChoice & { amount: number; name: string | null }>;
  product_price: Price | null;
  discount: { name: string; code: string | null; type: string; duration: string; duration_in_months?: number; basis_points?: number; amount?: number } | null;
  attached_custom_fields: { custom_field: CustomField; order: number; required: boolean }[];
  /** till's `default_locale`: the organization's language for buyers nothing else names one for. */
  organization: { name: string; avatar_url: string | null; default_locale?: string | null };
  /**
   * What the page needs to take the card: `processor` "stripe" with the organization's `publishable_key` (Stripe's
   * Payment Element), else "test" (the built-in test processor's form); after a confirm the processor has not
   * finished, the intent: `intent_status` ("requires_action": 3-D Secure) and `intent_client_secret`.
   */
  payment_processor_metadata?: Record<string, string>;
}

export type ConfirmedCheckout = Checkout & { customer_session_token?: string | null; receipt_email?: string | null };

export interface CheckoutError {
  status: number;
  message: string;
  fields: Record<string, string>;
  /** The server's machine code of the error (shared/customer-errors.ts), when it gave one. */
  code?: string;
}

export type Result<T> = { ok: true; data: T } | { ok: false; error: CheckoutError };

interface Issue {
  loc?: unknown[];
  msg?: string;
  /** till's machine code (shared/customer-errors.ts), beside Polar's fields. */
  code?: string;
}

/**
 * A Polar-shaped error answer ({error, detail, code?} or a 422's {detail: [{loc, msg, type, code?}]}) as one message
 * and per-field messages, said in the page's language by their codes (i18n/server-errors.ts).
 */
export function errorOf(status: number, body: unknown): CheckoutError {
  const b = (typeof body === "object" && body !== null ? body : {}) as { detail?: unknown; code?: unknown };
  if (typeof b.detail === "string") {
    const code = typeof b.code === "string" ? b.code : null;
    return { status, message: serverMessage(b.detail, code), fields: {}, ...(code ? { code } : {}) };
  }
  if (Array.isArray(b.detail)) {
    const fields: Record<string, string> = {};
    const messages: string[] = [];
    for (const issue of b.detail as Issue[]) {
      const msg = typeof issue.msg === "string" ? serverMessage(issue.msg, issue.code) : t("server.invalid");
      // ["body", "customer_billing_address", "country"] → "customer_billing_address.country"
      const key = (issue.loc ?? []).filter((p) => p !== "body").join(".");
      if (key && !fields[key]) fields[key] = msg;
      messages.push(msg);
    }
    return { status, message: messages[0] ?? t("server.checkForm"), fields };
  }
  if (status === 404) return { status, message: t("server.notFound"), fields: {} };
  return { status, message: t("server.status", { status }), fields: {} };
}

async function call<T>(method: "GET" | "POST" | "PATCH", url: string, body?: unknown): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? undefined : { "content-type": "application/json" },
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
  return res.ok ? { ok: true, data: parsed as T } : { ok: false, error: errorOf(res.status, parsed) };
}

const base = (secret: string) => `/v1/checkouts/client/${encodeURIComponent(secret)}`;

export const checkoutApi = {
  get: (secret: string) => call<Checkout>("GET", base(secret)),
  update: (secret: string, body: Record<string, unknown>) => call<Checkout>("PATCH", base(secret), body),
  /** The answer alone carries the token of the buyer's customer session (the portal link of the success view)
   *  and the address a receipt is emailed to (null when the seller's settings send none). */
  confirm: (secret: string, body: Record<string, unknown>) => call<ConfirmedCheckout>("POST", `${base(secret)}/confirm`, body),
  testCard: (secret: string, card: { number: string; exp_month: number; exp_year: number; cvc: string }) =>
    call<{ confirmation_token_id: string }>("POST", `${base(secret)}/test-card`, card),
};

/** Resolves when the checkout's stream says it succeeded (or failed), or after `timeoutMs`. */
export function waitForOutcome(secret: string, timeoutMs = 15_000): Promise<"succeeded" | "failed" | "timeout"> {
  return new Promise((resolve) => {
    const source = new EventSource(`${base(secret)}/stream`);
    const finish = (outcome: "succeeded" | "failed" | "timeout") => {
      clearTimeout(timer);
      source.close();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    source.onmessage = (e: MessageEvent<string>) => {
      try {
        const msg = JSON.parse(e.data) as { key?: string; payload?: { status?: string } };
        if (msg.key === "checkout.updated" && (msg.payload?.status === "succeeded" || msg.payload?.status === "failed")) {
          finish(msg.payload.status);
        }
      } catch {
        // not ours
      }
    };
  });
}

/** 2500, "usd" → "$25.00": the one formatter of the project's shared/ (emails use it too). */
export { formatMoney } from "../../shared/money.js";

/**
 * Polls the checkout until its status is one of `statuses` (after a failed 3-D Secure it opens again); null after
 * `timeoutMs`.
 */
export async function waitForStatus(secret: string, statuses: Checkout["status"][], timeoutMs = 15_000): Promise<Checkout | null> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const res = await checkoutApi.get(secret);
    if (res.ok && statuses.includes(res.data.status)) return res.data;
    await new Promise((r) => setTimeout(r, 300));
  }
  return null;
}
