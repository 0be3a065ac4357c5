// Dunning from the customer's side: the portal's retry of a past-due order (confirmRetryPayment), refused for
// another customer's order, waiting for an attempt that holds the order, and limited to five. The schedule, the
// settings and the webhooks: dunning.test.ts.
import { describe, expect, it } from "vitest";
import { lockDunning } from "../../server/billing/dunning/repository.js";
import { usingPostgres } from "../helpers/db.js";
import { dunningFixture } from "./dunning-fixtures.js";

const fx = dunningFixture();

describe("the portal's retry", () => {
  it("is 404 for another customer's order, waits for an attempt holding the order (409 after 5 s), 429 after five attempts", async () => {
    const product = await fx.trialProduct(fx.seller);
    const { sub, session } = await fx.subscribe(fx.seller, product, "4000 0000 0000 0341");
    await fx.renew(fx.seller, sub.id);
    const order = await fx.pendingOrder(fx.seller, sub.id);
    const stranger = await fx.subscribe(fx.seller, await fx.trialProduct(fx.seller), "4242 4242 4242 4242");
    expect((await fx.raw(stranger.session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {})).status).toBe(404);
    expect((await fx.raw(stranger.session, "GET", `/v1/customer-portal/orders/${order.id}/payment-status`)).status).toBe(404);
    expect((await fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, { payment_method_id: "nope" })).status).toBe(422);

    // an attempt under way (a Stripe event's settlement, the schedule's retry; here a held lock) is waited for: a
    // short one ends and the customer's attempt goes on, one held longer than REQUEST_LOCK_WAIT (5 s) answers 409 —
    // PostgreSQL only: PGlite has one connection, which the held transaction would keep from the request
    let attempts = 0;
    if (usingPostgres) {
      const hold = async (ms: number, alsoSend?: () => void) => {
        let locked = () => {};
        const isLocked = new Promise<void>((r) => (locked = r));
        const holder = fx.db().transaction(async (tx) => {
          await lockDunning(tx, fx.seller.organizationId, order.id);
          locked();
          await new Promise((r) => setTimeout(r, ms));
        });
        await isLocked;
        const started = Date.now();
        const sent = fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
        alsoSend?.();
        const answer = await sent;
        await holder;
        return { answer, waited: Date.now() - started };
      };
      const short = await hold(400);
      expect(short.answer.status, JSON.stringify(short.answer.body)).toBe(200);
      expect(short.answer.body).toMatchObject({ status: "failed", error: "Your card was declined." });
      expect(short.waited).toBeGreaterThanOrEqual(300);
      attempts++;
      // held longer: the first request waits 5 s, one sent beside it does not wait too (one request waits per order)
      let beside: Promise<{ answer: Awaited<ReturnType<typeof fx.raw>>; at: number }> | undefined;
      const long = await hold(6_500, () => {
        const sent = Date.now();
        beside = new Promise((r) => setTimeout(r, 300)).then(async () => ({
          answer: await fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {}),
          at: Date.now() - sent,
        }));
      });
      const busy = { error: "PaymentAlreadyInProgress", detail: "A payment of this order is already in progress.", code: "payment_in_progress" };
      expect([long.answer.status, long.answer.body]).toEqual([409, busy]);
      expect(long.waited).toBeGreaterThanOrEqual(4_500);
      const second = await beside;
      expect([second?.answer.status, second?.answer.body]).toEqual([409, busy]);
      expect(second?.at).toBeLessThan(3_000);
    }

    for (let i = attempts; i < 5; i++) {
      const r = await fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: "failed", error: "Your card was declined." });
    }
    const limited = await fx.raw(session, "POST", `/v1/customer-portal/orders/${order.id}/confirm-payment`, {});
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("ManualRetryLimitExceeded");
    // manual attempts leave the schedule alone
    expect((await fx.dunningRow(order.id))?.attempts).toBe(1);
  });
});
