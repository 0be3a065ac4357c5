// A sandbox organization connected to the Stripe stand-in, for the tests of paying through Stripe: the stand-in
// started with an account (test keys), till started against it (TILL_STRIPE_API_URL), the sandbox's Stripe
// connection made through PUT /v1/stripe/connection, and the stand-in's events delivered to the test server.
// Confirmation tokens are made as Stripe.js makes them (publishable key, a test card number).
import { Polar } from "@polar-sh/sdk";
import type { WebhookEventType } from "@polar-sh/sdk/models/components/webhookeventtype.js";
import { afterAll, beforeAll } from "vitest";
import type { Receiver } from "./receiver.js";
import { reservePort } from "./ports.js";
import { createSeller, type Seller } from "./seller.js";
import { startServer, type TestServer } from "./server.js";
import { StripePeer } from "./stripe-peer.js";
import { PeerCharges } from "./stripe-peer-charges.js";
import { PeerFaults } from "./stripe-peer-faults.js";

export const STRIPE_KEYS = {
  secret: "sk_test_51TillPayAaaaaaaaaaaaaaaaaaaaa1234",
  publishable: "pk_test_51TillPayBbbbbbbbbbbbbbbbbbbbbbb",
};

/** Stripe's test card numbers by what they do. */
export const STRIPE_CARDS = {
  visa: "4242424242424242",
  declined: "4000000000000002",
  insufficient: "4000000000009995",
  chargesFail: "4000000000000341",
  authAlways: "4000002760003184",
  authOnSetup: "4000002500003155",
  threeDS: "4000000000003220",
  // declined with an error code and no decline_code (Stripe's "Declined payments" test cards)
  expired: "4000000000000069",
  incorrectCvc: "4000000000000127",
  processingError: "4000000000000119",
  lost: "4000000000009987",
} as const;

export interface StripeSandbox {
  peer: StripePeer;
  /** The account's charges, refunds and disputes (the PaymentIntents till makes become charges here). */
  charges: PeerCharges;
  /** Stripe's faults a test turns on: 429s, 500s, connections dropped after the charge (stripe-peer-faults.ts). */
  faults: PeerFaults;
  server: TestServer;
  seller: Seller;
  /** A till_test_ key of the seller's sandbox, and the SDK on it. */
  key: string;
  sdk: Polar;
  close(): Promise<void>;
}

export async function startStripeSandbox(env: Record<string, string> = {}, opts: Parameters<typeof startServer>[1] = {}): Promise<StripeSandbox> {
  const peer = new StripePeer([{ id: "acct_1TillPay", keys: [{ secret: STRIPE_KEYS.secret }, { secret: STRIPE_KEYS.publishable }] }]);
  const charges = new PeerCharges(peer, { followPayments: true });
  const faults = new PeerFaults(peer);
  const stripeUrl = await peer.start();
  const { port, release } = await reservePort();
  await release();
  const server = await startServer(
    { TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl, TILL_WEBHOOKS_ALLOW_PRIVATE: "true", ...env },
    { ...opts, port },
  );
  // Stripe reaches till's public URL; in the tests that is the test server
  peer.rewriteUrl = (url) => `${server.url}${new URL(url).pathname}`;
  charges.deliverToOrigin = server.url;
  const seller = await createSeller(server, "stripe-pay");
  const key = await seller.createSandboxKey();
  const res = await fetch(`${server.url}/v1/stripe/connection`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ secret_key: STRIPE_KEYS.secret, publishable_key: STRIPE_KEYS.publishable }),
  });
  if (res.status !== 200) throw new Error(`connect failed: ${res.status} ${await res.text()}`);
  return {
    peer,
    charges,
    faults,
    server,
    seller,
    key,
    sdk: new Polar({ accessToken: key, serverURL: server.url }),
    async close() {
      await server.close();
      await peer.stop();
    },
  };
}

/** What Stripe.js's createConfirmationToken sends for a card typed into the Payment Element. */
export async function confirmationToken(peer: StripePeer, number: string, setupFutureUsage?: "off_session", publishable: string = STRIPE_KEYS.publishable): Promise<string> {
  const body = new URLSearchParams({
    "payment_method_data[type]": "card",
    "payment_method_data[card][number]": number,
    "payment_method_data[card][exp_month]": "12",
    "payment_method_data[card][exp_year]": String(new Date().getUTCFullYear() + 3),
    "payment_method_data[card][cvc]": "123",
    ...(setupFutureUsage ? { setup_future_usage: setupFutureUsage } : {}),
  });
  const res = await fetch(`${peer.url}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${publishable}`, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  const json = (await res.json()) as { id?: string };
  if (!json.id) throw new Error(`confirmation token refused: ${JSON.stringify(json)}`);
  return json.id;
}

/**
 * Stripe's test bank accounts (a SEPA IBAN, a US account at routing 110000000) by what their debit does. The US
 * ones are linked through the Payment Element's bank login (Financial Connections: verified at once); `usManual` is
 * entered by hand (routing and account numbers), which Stripe verifies with microdeposits first.
 */
export const STRIPE_BANK_ACCOUNTS = {
  sepaSucceeds: { type: "sepa_debit", iban: "DE89370400440532013000" },
  sepaFails: { type: "sepa_debit", iban: "DE35370400440532013002" },
  usSucceeds: { type: "us_bank_account", account: "000123456789", linked: "fca_test_success" },
  usFails: { type: "us_bank_account", account: "000111111113", linked: "fca_test_insufficient_funds" },
  usManual: { type: "us_bank_account", account: "000123456789", linked: null },
} as const;
export type StripeBankAccount = (typeof STRIPE_BANK_ACCOUNTS)[keyof typeof STRIPE_BANK_ACCOUNTS];

/** The currency Stripe debits a bank account in: SEPA Direct Debit in euros, a US bank account in dollars. */
export const currencyOfBank = (bank: StripeBankAccount) => (bank.type === "sepa_debit" ? "eur" : "usd");

/**
 * `createProduct`'s `extra` for a product paid by `bank`: its price (createProduct's amount for `kind`) in the bank's
 * currency — a checkout offers and its intent allows a bank debit only in that currency (shared/stripe.ts).
 */
export function pricedForBank(kind: "fixed" | "monthly" | "trial", bank: StripeBankAccount): Record<string, unknown> {
  const amount = { fixed: 2500, monthly: 900, trial: 1200 }[kind];
  return { prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: currencyOfBank(bank) }] };
}

/**
 * What Stripe.js's createConfirmationToken sends for a bank account entered in the Payment Element (its holder named,
 * as Stripe requires).
 */
export async function bankDebitToken(peer: StripePeer, bank: StripeBankAccount, setupFutureUsage?: "off_session"): Promise<string> {
  const body = new URLSearchParams({
    "payment_method_data[type]": bank.type,
    "payment_method_data[billing_details][name]": "Ada Buyer",
    "payment_method_data[billing_details][email]": "ada@example.com",
    ...(bank.type === "sepa_debit"
      ? { "payment_method_data[sepa_debit][iban]": bank.iban }
      : bank.linked
        ? { "payment_method_data[us_bank_account][financial_connections_account]": bank.linked }
        : {
            "payment_method_data[us_bank_account][routing_number]": "110000000",
            "payment_method_data[us_bank_account][account_number]": bank.account,
            "payment_method_data[us_bank_account][account_holder_type]": "individual",
          }),
    ...(setupFutureUsage ? { setup_future_usage: setupFutureUsage } : {}),
  });
  const res = await fetch(`${peer.url}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${STRIPE_KEYS.publishable}`, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  const json = (await res.json()) as { id?: string };
  if (!json.id) throw new Error(`confirmation token refused: ${JSON.stringify(json)}`);
  return json.id;
}

/**
 * A German buyer confirms a checkout with a bank account saved for later charges (the Payment Element's token with
 * `setup_future_usage: off_session`): the confirm's answer, which must be 200.
 */
export async function confirmWithBankAccount(s: StripeSandbox, clientSecret: string, bank: StripeBankAccount, email: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.server.url}/v1/checkouts/client/${clientSecret}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      customer_email: email,
      customer_name: "Ada Buyer",
      customer_billing_address: { country: "DE" },
      confirmation_token_id: await bankDebitToken(s.peer, bank, "off_session"),
    }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`confirm answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** The customer passes (or fails) the 3-D Secure challenge of an intent, as the Stripe.js stand-in does. */
export async function authenticate(peer: StripePeer, intentId: string, clientSecret: string, outcome: "succeed" | "fail" = "succeed") {
  const res = await fetch(`${peer.url}/v1/3ds2/authenticate`, {
    method: "POST",
    headers: { authorization: `Bearer ${STRIPE_KEYS.publishable}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: intentId, client_secret: clientSecret, outcome }),
  });
  return (await res.json()) as { status: string };
}

/** Waits until `check` answers something other than undefined (events arrive a moment after the request). */
export async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A sandbox of `startStripeSandbox` with a webhook endpoint of the seller's at `receiver` and its worker running. */
export interface WebhookSandbox {
  s: StripeSandbox;
  seller: Seller;
  endpointSecret: string;
}

/**
 * A test file's Stripe sandbox (beforeAll/afterAll registered here): the seller's raw-format webhook endpoint at
 * `receiver`'s `path` for `events`, the worker started; `ready` is given it once made. Stops the stand-in's held
 * answer, the worker, the receiver and the server after.
 */
export function useWebhookSandbox(receiver: Receiver, path: string, events: WebhookEventType[], ready: (sandbox: WebhookSandbox) => void): void {
  let s: StripeSandbox | undefined;
  beforeAll(async () => {
    s = await startStripeSandbox();
    await receiver.start();
    const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events });
    await s.server.worker.start();
    ready({ s, seller: { ...s.seller, sdk: s.sdk, token: s.key }, endpointSecret: endpoint.secret });
  }, 120_000);
  afterAll(async () => {
    if (s) s.peer.holdAnswer = undefined;
    await s?.server.worker.stop();
    await receiver.stop();
    await s?.close();
  });
}
