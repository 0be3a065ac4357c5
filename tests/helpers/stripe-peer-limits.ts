// The stand-in's rate limiter (opt-in) and request counts. Stripe limits an account's API requests per second,
// in each mode apart (https://docs.stripe.com/rate-limits: 25 a second in a sandbox or test mode, 100 live), and
// answers one over the limit with a 429 `rate_limit` error and a `Stripe-Rate-Limited-Reason` header. It does not
// ask the client to retry it: without `Stripe-Should-Retry: true`, stripe-node retries a 409 or a 5xx but not a
// 429 (RequestSender._shouldRetry), so a caller that wants to go on must wait and send again itself. A test may
// still set `shouldRetry` to see what the client does with the header. Counted per account and mode, in windows
// of one wall-clock second; the test controls are neither limited nor counted.
import { StripeFailure, type Authed } from "./stripe-peer.js";
import { RATE_LIMIT_ERROR } from "./stripe-peer-faults.js";

export interface RateLimit {
  /** Requests a second in test mode (Stripe's: 25). */
  test?: number;
  /** Requests a second in live mode (Stripe's: 100). */
  live?: number;
  /** The `Stripe-Should-Retry` header on the 429 (absent unless set; Stripe's rate limiter does not send it). */
  shouldRetry?: boolean;
}

/** Stripe's published limits: 25 requests a second in test mode, 100 live. */
export const STRIPE_RATE_LIMITS: RateLimit = { test: 25, live: 100 };

export class PeerLimits {
  /** The limit in force (undefined: none, the default). */
  rateLimit: RateLimit | undefined;
  /** Requests served (answered by a route, whatever the answer) per account and mode: `acct_x|test`. */
  readonly served = new Map<string, number>();
  /** Requests refused with a 429 per account and mode. */
  readonly limited = new Map<string, number>();
  private window = { second: 0, counts: new Map<string, number>() };

  /** Counts the request of `auth`, or refuses it with Stripe's 429 when the second's limit is spent. */
  take(auth: Authed): void {
    const key = `${auth.account.id}|${auth.livemode ? "live" : "test"}`;
    const limit = auth.livemode ? this.rateLimit?.live : this.rateLimit?.test;
    if (limit !== undefined) {
      const second = Math.floor(Date.now() / 1000);
      if (second !== this.window.second) this.window = { second, counts: new Map() };
      const used = this.window.counts.get(key) ?? 0;
      if (used >= limit) {
        this.limited.set(key, (this.limited.get(key) ?? 0) + 1);
        const headers: Record<string, string> = { "stripe-rate-limited-reason": "global-rate" };
        if (this.rateLimit?.shouldRetry !== undefined) headers["stripe-should-retry"] = String(this.rateLimit.shouldRetry);
        throw new StripeFailure(429, { ...RATE_LIMIT_ERROR }, headers);
      }
      this.window.counts.set(key, used + 1);
    }
    this.served.set(key, (this.served.get(key) ?? 0) + 1);
  }

  /** Requests served for an account (both modes unless one is named). */
  servedFor(account: string, mode?: "test" | "live"): number {
    return (mode ? [mode] : ["test", "live"]).reduce((n, m) => n + (this.served.get(`${account}|${m}`) ?? 0), 0);
  }
}
