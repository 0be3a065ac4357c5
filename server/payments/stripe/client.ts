// The official `stripe` client for an organization's Stripe account, pointed at TILL_STRIPE_API_URL (Stripe's
// API, or a stand-in on loopback in tests), and the facts about Stripe keys till relies on.
import Stripe from "stripe";
import { stripeCalls, stripeErrors, stripeResource } from "../../metrics/registry.js";

/** The Stripe events till's endpoint on the account is registered for. */
export const STRIPE_EVENT_TYPES = [
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.processing",
  "payment_intent.requires_action",
  "payment_intent.canceled",
  "setup_intent.succeeded",
  "setup_intent.setup_failed",
  "charge.refunded",
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.closed",
  "refund.created",
  "refund.updated",
  "refund.failed",
] as const;

export type StripeKeyMode = "test" | "live";

/** `sk_test_…`/`rk_test_…` → test, `sk_live_…`/`rk_live_…` → live; null for anything else. */
export function secretKeyMode(key: string): StripeKeyMode | null {
  const m = /^(?:sk|rk)_(test|live)_[A-Za-z0-9]{8,250}$/.exec(key);
  return m ? (m[1] as StripeKeyMode) : null;
}

export function publishableKeyMode(key: string): StripeKeyMode | null {
  const m = /^pk_(test|live)_[A-Za-z0-9]{8,250}$/.exec(key);
  return m ? (m[1] as StripeKeyMode) : null;
}

/** What may be shown of a secret key: its kind and last four characters (as Stripe's dashboard does). */
export const keyHint = (key: string) => `${key.slice(0, key.indexOf("_", 3) + 1)}…${key.slice(-4)}`;

export function stripeClient(secretKey: string, apiUrl: string): Stripe {
  const url = new URL(apiUrl);
  const protocol = url.protocol === "http:" ? "http" : "https";
  const client = new Stripe(secretKey, {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443,
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: "till" },
  });
  // counted for the metrics endpoint by the path's resource, never its ids
  client.on("request", (e: { method?: string; path?: string }) => stripeCalls.inc({ method: e.method ?? "", resource: stripeResource(e.path ?? "") }));
  client.on("response", (e: { method?: string; path?: string; status?: number }) => {
    const status = e.status ?? 0;
    if (status >= 400) stripeErrors.inc({ method: e.method ?? "", resource: stripeResource(e.path ?? ""), status: String(status) });
  });
  return client;
}

/**
 * Runs `call` (a request of the `stripe` client) without the stack trace the client captures before every
 * request to add its caller's lines to a failed request's error. With source maps on — `npm start` runs till
 * through tsx, which turns them on — reading that stack maps every frame through them: bench:checkout's profile
 * showed it costing a fifth of till's CPU spent in the client. The errors keep the stacks of where they were made.
 */
export function withoutCallSite<T>(call: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return call();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export { Stripe };
