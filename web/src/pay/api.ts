// The hosted pay page's calls (/v1/pay/{token}: the link's token is the only credential, no session).
import type { BankTransferInstructions } from "../../../shared/bank-transfer.js";
import { errorOf, type CheckoutError } from "../checkout-api.js";

export interface PayPageData {
  order: {
    id: string;
    created_at: string;
    status: string;
    paid: boolean;
    invoice_number: string;
    billing_reason: string;
    /** An invoice with terms: when it is due. */
    due_at: string | null;
    currency: string;
    total_amount: number;
    due_amount: number;
  };
  organization: { name: string; avatar_url: string | null };
  processor: { processor: "stripe" | "test"; publishable_key: string | null };
  /** A bank transfer to the seller's Stripe account: offered for this order, and started already. */
  bank_transfer: { offered: boolean; started: boolean };
  /** A bank debit of the order is on its way: nothing to pay until the bank answers. */
  debit_processing: boolean;
  payment: { status: string; error: string | null; decline_reason: string | null };
}

export interface PayAnswer {
  status: string;
  client_secret?: string | null;
  error: string | null;
  decline_reason?: string | null;
}

/** Where the customer sends the money (Stripe's instructions), while it is awaited. */
export interface BankTransferAnswer {
  status: "awaiting_transfer" | "processing";
  instructions: BankTransferInstructions | null;
}

export type PayResult<T> = { ok: true; data: T } | { ok: false; error: CheckoutError };

async function call<T>(token: string, method: "GET" | "POST", path: string, body?: unknown): Promise<PayResult<T>> {
  try {
    const res = await fetch(`/v1/pay/${encodeURIComponent(token)}${path}`, {
      method,
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json: unknown = await res.json().catch(() => null);
    return res.ok ? { ok: true, data: json as T } : { ok: false, error: errorOf(res.status, json) };
  } catch {
    return { ok: false, error: { status: 0, message: "The server could not be reached. Check your connection and try again.", fields: {} } };
  }
}

export const payApi = {
  page: (token: string) => call<PayPageData>(token, "GET", ""),
  testCard: (token: string, card: { number: string; exp_month: number; exp_year: number; cvc: string }) =>
    call<{ confirmation_token_id: string }>(token, "POST", "/test-card", card),
  confirm: (token: string, confirmationTokenId: string) => call<PayAnswer>(token, "POST", "/confirm", { confirmation_token_id: confirmationTokenId }),
  status: (token: string) => call<PayAnswer>(token, "GET", "/payment-status"),
  bankTransfer: (token: string) => call<BankTransferAnswer>(token, "POST", "/bank-transfer"),
};
