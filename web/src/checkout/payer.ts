// How the page turns the customer's payment details into the confirm's `confirmation_token_id`, whichever processor
// takes the payment: the organization's Stripe account (Stripe.js: StripePayment.tsx) or the built-in test
// processor (its tokenize endpoint, for sandboxes without Stripe). Card numbers never reach the checkout API.
import { checkoutApi, type Checkout } from "../checkout-api.js";
import { addressValue, cardFieldsOf, parseExpiry, type CardInput, type FormState } from "./model.js";

export type TokenResult = { ok: true; id: string } | { ok: false; issues: Record<string, string> };

/** Who pays, as Stripe's billing details name them (the confirm sends the same to till). */
export interface Billing {
  name: string;
  email: string;
  address: { country: string; line1: string | null; line2: string | null; city: string | null; state: string | null; postal_code: string | null } | null;
}

export interface Payer {
  /** The processor's confirmation token for what the customer entered, or the problems to show by the fields. */
  token(billing: Billing): Promise<TokenResult>;
  /**
   * Runs the processor's next action (3-D Secure) on the intent; resolves with the processor's message when it failed.
   */
  nextAction(clientSecret: string): Promise<string | null>;
}

export function billingOf(checkout: Checkout, form: FormState): Billing {
  const a = addressValue(checkout, form.address);
  return {
    name: form.name.trim(),
    email: form.email.trim(),
    address: a ? { country: a.country, line1: a.line1 ?? null, line2: a.line2 ?? null, city: a.city ?? null, state: a.state ?? null, postal_code: a.postal_code ?? null } : null,
  };
}

/** The test processor: the typed card goes to its tokenize endpoint; it never asks for an action. */
export function testPayer(secret: string, card: CardInput): Payer {
  return {
    async token() {
      const expiry = parseExpiry(card.expiry) ?? { month: 0, year: 0 };
      const res = await checkoutApi.testCard(secret, { number: card.number, exp_month: expiry.month, exp_year: expiry.year, cvc: card.cvc.trim() });
      if (res.ok) return { ok: true, id: res.data.confirmation_token_id };
      const fields = cardFieldsOf(res.error.fields);
      return { ok: false, issues: Object.keys(fields).length > 0 ? fields : { "card.number": res.error.message } };
    },
    nextAction: async () => null,
  };
}
