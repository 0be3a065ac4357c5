// How the importer's requests reach a seller's Stripe account: at the account's rate limit and never over it (a token
// bucket shared by every request of one source), a "too many requests" waited out and sent again, and Stripe's
// errors said as BillingSourceError in words a seller can act on (never the key).
import { BillingSourceError, type SourceRequests } from "../../billing-import.js";
import { Stripe, withoutCallSite } from "../client.js";

/** Stripe's published rate limits (requests per second): test mode, live mode. */
export const STRIPE_TEST_LIMIT = 25;
export const STRIPE_LIVE_LIMIT = 100;

/**
 * A token bucket of `burst` tokens refilled at `rate` per second, kept as the time the next token is due (the
 * generic cell rate algorithm): `reserve` takes a token and answers how long to wait before using it, so concurrent
 * callers are spread at the rate. With `burst` 1 no second, wherever it starts, sees more than `rate` requests.
 */
export interface TokenBucket {
  readonly rate: number;
  /** Takes the next token: milliseconds to wait before sending. */
  reserve(): number;
  /** No token before `ms` from now (the account answered "too many requests": everyone waits, not only the caller). */
  holdFor(ms: number): void;
}

export function tokenBucket(rate: number, burst = 1, now: () => number = Date.now): TokenBucket {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`a rate limit is a positive number of requests per second, not ${rate}`);
  const interval = 1000 / rate;
  const tolerance = (Math.max(1, Math.floor(burst)) - 1) * interval;
  // when the bucket is next empty of the tokens taken so far (the theoretical arrival time of the next request)
  let due = -Infinity;
  return {
    rate,
    reserve() {
      const t = now();
      const next = Math.max(due, t);
      const at = Math.max(t, next - tolerance);
      due = next + interval;
      return at - t;
    },
    holdFor(ms) {
      due = Math.max(due, now() + ms + tolerance);
    },
  };
}

/** What a request does, for the messages of its errors. */
export interface RequestPurpose {
  /** What till was doing, as a seller reads it ("read the subscriptions"). */
  action: string;
  /** The permission a restricted key needs for it, as Stripe's dashboard names it ("Subscriptions: Read"). */
  permission: string;
}

export interface PaceOptions {
  /** Requests per second. */
  limit: number;
  /** Tokens that may be spent at once (1: requests spaced evenly). */
  burst?: number;
  /** "Too many requests" answers one request waits out before the source gives up (retryable). */
  maxThrottled?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface Pace {
  readonly requests: SourceRequests;
  /** Sends a request of the `stripe` client at the pace; Stripe's errors answer as BillingSourceError. */
  send<T>(purpose: RequestPurpose, call: () => Promise<T>): Promise<T>;
  /** send, with null for an object that does not exist (Stripe's resource_missing). */
  sendOrMissing<T>(purpose: RequestPurpose, call: () => Promise<T>): Promise<T | null>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait after the `n`th "too many requests" in a row (1-based): doubling from half a second to 8 s, jittered. */
export function throttledWait(n: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** (n - 1), 8000);
  return Math.round(base * (0.5 + random() / 2));
}

export function createPace(opts: PaceOptions): Pace {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? sleepFor;
  const maxThrottled = opts.maxThrottled ?? 8;
  const bucket = tokenBucket(opts.limit, opts.burst ?? 1, now);
  const requests: SourceRequests = { sent: 0, throttled: 0, limit: opts.limit };

  /** Sends `call` at the pace; Stripe's resource_missing answers `missing()` when given. */
  async function paced<T, M>(purpose: RequestPurpose, call: () => Promise<T>, missing?: () => M): Promise<T | M> {
    for (let throttled = 0; ; ) {
      const wait = bucket.reserve();
      if (wait > 0) await sleep(wait);
      requests.sent++;
      try {
        // the client's own retries (a connection lost, a 5xx, a 409) happen inside this call
        return await withoutCallSite(call);
      } catch (err) {
        if (err instanceof Stripe.errors.StripeRateLimitError && throttled < maxThrottled) {
          throttled++;
          requests.throttled++;
          // the next token, this request's again included, comes after the pause
          bucket.holdFor(throttledWait(throttled));
          continue;
        }
        if (missing && err instanceof Stripe.errors.StripeError && err.code === "resource_missing") return missing();
        throw sourceError(err, purpose);
      }
    }
  }

  return {
    requests,
    send: (purpose, call) => paced(purpose, call),
    sendOrMissing: (purpose, call) => paced(purpose, call, () => null),
  };
}

/**
 * Stripe's error as the seller reads it. A refused key or a missing permission is not retryable (the seller acts
 * first); an outage, a lost connection or a rate limit that did not pass is. Stripe's own message is kept only for a
 * request it refused as invalid (it names the object, never the key); an authentication or permission error's message
 * quotes the key, so it is never used. What is not Stripe's error is till's own and thrown as it is.
 */
export function sourceError(err: unknown, purpose: RequestPurpose): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  const retryLater = "Try the import again later.";
  switch (err.type) {
    case "StripeAuthenticationError":
      return new BillingSourceError(
        "Stripe no longer accepts the key till holds for this account (it was rolled, revoked or expired): connect the account again with `till stripe connect`.",
        false,
      );
    case "StripePermissionError":
      return new BillingSourceError(
        `The Stripe key till holds may not ${purpose.action}: give the restricted key "${purpose.permission}" in Stripe's dashboard ` +
          "(Developers → API keys), or connect a secret key with `till stripe connect`.",
        false,
      );
    case "StripeRateLimitError":
      return new BillingSourceError(`Stripe kept answering "too many requests" while till tried to ${purpose.action}. ${retryLater}`, true);
    case "StripeConnectionError":
      return new BillingSourceError(`Stripe could not be reached while till tried to ${purpose.action}. ${retryLater}`, true);
    case "StripeAPIError":
      return new BillingSourceError(`Stripe had an error of its own while till tried to ${purpose.action}. ${retryLater}`, true);
    default:
      return new BillingSourceError(`Stripe refused to ${purpose.action}: ${err.message}`, (err.statusCode ?? 400) >= 500);
  }
}
