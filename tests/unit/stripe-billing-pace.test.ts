// The Stripe importer's pace (server/payments/stripe/billing-import/pace.ts): one token bucket holds every request of a
// source to the account's rate limit, concurrent ones included; "too many requests" is waited out, and Stripe's errors
// come back as BillingSourceError a seller can act on, never quoting the key.
import { describe, expect, it } from "vitest";
import { BillingSourceError } from "../../server/payments/billing-import.js";
import { createPace, throttledWait, tokenBucket } from "../../server/payments/stripe/billing-import/pace.js";
import { Stripe } from "../../server/payments/stripe/client.js";

const purpose = { action: "read the prices", permission: "Prices: Read" };
const E = Stripe.errors;

/** A clock that moves only when told, and a sleep that records its waits and moves the clock. */
function virtualTime() {
  let t = 0;
  const waits: number[] = [];
  return {
    now: () => t,
    advance: (ms: number) => (t += ms),
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}

describe("tokenBucket", () => {
  it("spaces requests at the rate: no second sees more than `rate` of them", () => {
    const time = virtualTime();
    const bucket = tokenBucket(10, 1, time.now);
    expect([1, 2, 3, 4].map(() => bucket.reserve())).toEqual([0, 100, 200, 300]);
    time.advance(1000);
    // tokens do not pile up while nothing is sent
    expect([bucket.reserve(), bucket.reserve()]).toEqual([0, 100]);
  });

  it("a burst spends that many tokens at once, then the rate", () => {
    const time = virtualTime();
    const bucket = tokenBucket(10, 3, time.now);
    expect([1, 2, 3, 4, 5].map(() => bucket.reserve())).toEqual([0, 0, 0, 100, 200]);
  });

  it("a hold makes everyone wait, not only the one who was told to", () => {
    const time = virtualTime();
    const bucket = tokenBucket(25, 1, time.now);
    expect(bucket.reserve()).toBe(0);
    bucket.holdFor(500);
    expect([bucket.reserve(), bucket.reserve()]).toEqual([500, 540]);
  });

  it("a rate that is not a positive number is refused", () => {
    expect(() => tokenBucket(0)).toThrow(RangeError);
    expect(() => tokenBucket(Number.NaN)).toThrow(RangeError);
  });
});

describe("createPace", () => {
  it("concurrent requests are spread at the limit and counted", async () => {
    const time = virtualTime();
    const pace = createPace({ limit: 50, now: time.now, sleep: time.sleep });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => pace.send(purpose, async () => i)));
    expect(answers).toEqual([0, 1, 2, 3, 4, 5]);
    expect(time.waits).toEqual([20, 40, 60, 80, 100]);
    expect(pace.requests).toEqual({ sent: 6, throttled: 0, limit: 50 });
  });

  it("on the real clock, requests in flight together still start no faster than the limit", async () => {
    const pace = createPace({ limit: 100 });
    const starts: number[] = [];
    let inFlight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        pace.send(purpose, async () => {
          starts.push(performance.now());
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 50));
          inFlight--;
        }),
      ),
    );
    expect(most).toBeGreaterThan(1);
    // ten starts 10 ms apart (a timer may fire a little early)
    expect(starts[9]! - starts[0]!).toBeGreaterThanOrEqual(85);
  });

  it("\"too many requests\" is waited out and sent again", async () => {
    const time = virtualTime();
    const pace = createPace({ limit: 25, now: time.now, sleep: time.sleep });
    let calls = 0;
    const answer = await pace.send(purpose, async () => {
      if (++calls === 1) throw new E.StripeRateLimitError({ message: "Too many requests hit the API too quickly." });
      return "ok";
    });
    expect(answer).toBe("ok");
    expect(pace.requests).toMatchObject({ sent: 2, throttled: 1 });
    expect(time.waits).toHaveLength(1);
    expect(time.waits[0]).toBeGreaterThanOrEqual(250);
    expect(time.waits[0]).toBeLessThanOrEqual(500);
  });

  it("a rate limit that does not pass ends as a retryable error", async () => {
    const time = virtualTime();
    const pace = createPace({ limit: 25, maxThrottled: 3, now: time.now, sleep: time.sleep });
    const failed = await pace.send(purpose, () => Promise.reject(new E.StripeRateLimitError({ message: "Too many requests" }))).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(BillingSourceError);
    expect(failed).toMatchObject({ retryable: true });
    expect(pace.requests).toMatchObject({ sent: 4, throttled: 3 });
  });

  it("a refused key and a missing permission are not retryable and never quote the key", async () => {
    const pace = createPace({ limit: 1000 });
    const auth = await pace.send(purpose, () => Promise.reject(new E.StripeAuthenticationError({ message: "Invalid API Key provided: sk_test_****wxyz" }))).catch((err: unknown) => err);
    expect(auth).toMatchObject({ retryable: false });
    expect((auth as Error).message).not.toMatch(/sk_test|wxyz/);
    expect((auth as Error).message).toMatch(/till stripe connect/);
    const permission = await pace
      .send(purpose, () => Promise.reject(new E.StripePermissionError({ message: "The provided key 'rk_test_***wxyz' does not have the required permissions" })))
      .catch((err: unknown) => err);
    expect(permission).toMatchObject({ retryable: false });
    expect((permission as Error).message).toMatch(/read the prices.*"Prices: Read"/);
    expect((permission as Error).message).not.toMatch(/rk_test|wxyz/);
  });

  it("an outage or a lost connection (after the client's own retries) is retryable", async () => {
    const pace = createPace({ limit: 1000 });
    for (const err of [new E.StripeConnectionError({ message: "An error occurred with our connection to Stripe." }), new E.StripeAPIError({ message: "Internal error" })]) {
      const failed = await pace.send(purpose, () => Promise.reject(err)).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(BillingSourceError);
      expect(failed).toMatchObject({ retryable: true });
    }
  });

  it("a missing object is null where asked for, else a refusal; what is not Stripe's error is thrown as it is", async () => {
    const pace = createPace({ limit: 1000 });
    const missing = () => Promise.reject(new E.StripeInvalidRequestError({ message: "No such subscription: 'sub_x'", code: "resource_missing" }));
    expect(await pace.sendOrMissing(purpose, missing)).toBeNull();
    const refused = await pace.send(purpose, missing).catch((err: unknown) => err);
    expect(refused).toMatchObject({ retryable: false, message: "Stripe refused to read the prices: No such subscription: 'sub_x'" });
    const bug = new TypeError("not Stripe's");
    expect(await pace.send(purpose, () => Promise.reject(bug)).catch((err: unknown) => err)).toBe(bug);
  });

  it("the wait after n answers of \"too many requests\" doubles up to 8 s, jittered down to half", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => throttledWait(n, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(throttledWait(1, () => 0)).toBe(250);
  });
});
