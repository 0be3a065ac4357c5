// An unpaid order's pay link: `pay_url` on GET /v1/orders/{id} (till's own field: both SDKs still parse the order)
// and on the portal's orders while the order is owed, null once paid; the past-due email carries it; the hosted
// page's routes (/v1/pay/{token}) show the order, take a test card and pay it as the portal's retry does (order
// paid, subscription active, order.paid and subscription.active sent); paying again charges nothing; a bad,
// tampered, expired or foreign token is 404.
import { describe, expect, it } from "vitest";
import { payLinkToken, readPayLinkToken, PAY_LINK_DAYS } from "../../server/billing/pay-links.js";
import type { ReceivedMail } from "../helpers/mailbox.js";
import { dunningFixture, DAY } from "./dunning-fixtures.js";

const fx = dunningFixture();

interface Listed {
  id: string;
  status: string;
  pay_url: string | null;
}

const PAY_URL = /\/pay\/([A-Za-z0-9_-]{48}\.[A-Za-z0-9_-]+)$/;

async function failedRenewal(tag: string, mail = false) {
  const product = await fx.trialProduct(fx.seller);
  const subscribed = await fx.subscribe(fx.seller, product, "4000 0000 0000 0341");
  // the worker sends the past-due email
  let received: ReceivedMail | undefined;
  if (mail) await fx.server.worker.start();
  try {
    await fx.renew(fx.seller, subscribed.sub.id);
    if (mail) received = await fx.server.mailbox.waitFor(subscribed.email, /Payment failed/, 15_000);
  } finally {
    if (mail) await fx.server.worker.stop();
  }
  const order = await fx.pendingOrder(fx.seller, subscribed.sub.id);
  expect(order.status, tag).toBe("pending");
  return { ...subscribed, order, mail: received };
}

async function testCard(token: string, number = "4242 4242 4242 4242") {
  const res = await fx.raw("", "POST", `/v1/pay/${token}/test-card`, { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.confirmation_token_id as string;
}

const paymentsOf = async (orderId: string) =>
  (await fx.raw(fx.seller.token, "GET", `/v1/payments/?order_id=${orderId}&limit=100`)).body.items as Array<{ status: string }>;

describe("an unpaid order's pay link", () => {
  it("is on the order, the portal and the email; pays the failed renewal once; then the order shows paid", async () => {
    const { sub, session, order, mail } = await failedRenewal("pay-link", true);

    // the order: pay_url while owed (till's own field), and both SDKs still parse it
    const got = await fx.raw(fx.seller.token, "GET", `/v1/orders/${order.id}`);
    expect(got.status).toBe(200);
    expect(got.body.pay_url).toMatch(new RegExp(`^${fx.server.url}/pay/`));
    const token = PAY_URL.exec(got.body.pay_url as string)?.[1] ?? "";
    expect((await fx.seller.sdk.orders.get({ id: order.id })).status).toBe("pending");
    expect((await fx.seller.sdk049.orders.get({ id: order.id })).status).toBe("pending");
    const listed = await fx.raw(fx.seller.token, "GET", `/v1/orders/?subscription_id=${sub.id}`);
    expect((listed.body.items as Listed[]).find((o) => o.id === order.id)?.pay_url).toMatch(PAY_URL);
    // another organization's key: 404, as for every order route
    expect((await fx.raw(fx.other.token, "GET", `/v1/orders/${order.id}`)).status).toBe(404);

    // the portal lists it with its link
    const portal = await fx.raw(session, "GET", "/v1/customer-portal/orders/");
    const mine = (portal.body.items as Listed[]).find((o) => o.id === order.id);
    expect(mine?.pay_url).toMatch(PAY_URL);

    // the past-due email links to the hosted page
    const mailed = mail?.links.find((l) => PAY_URL.test(l));
    expect(mailed, JSON.stringify(mail?.links)).toBeDefined();
    expect(mail?.text).toContain(mailed ?? "-");
    expect(mail?.html ?? "").toContain(mailed ?? "-");

    // the hosted page's view
    const page = await fx.raw("", "GET", `/v1/pay/${token}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.order).toMatchObject({ id: order.id, status: "pending", paid: false, due_amount: order.totalAmount, currency: order.currency });
    expect(page.body.processor).toEqual({ processor: "test", publishable_key: null });

    // a refused card: the order stays owed
    const refused = await fx.raw("", "POST", `/v1/pay/${token}/confirm`, { confirmation_token_id: await testCard(token, "4000 0000 0000 9995") });
    expect(refused.status, JSON.stringify(refused.body)).toBe(200);
    expect(refused.body.status).toBe("failed");

    // paid: the order, the subscription and the events as a dunning retry leaves them
    const before = (await paymentsOf(order.id)).filter((p) => p.status === "succeeded").length;
    const paid = await fx.raw("", "POST", `/v1/pay/${token}/confirm`, { confirmation_token_id: await testCard(token) });
    expect([paid.status, paid.body.status], JSON.stringify(paid.body)).toEqual([200, "succeeded"]);
    expect((await fx.seller.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect((await fx.seller.sdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const events = await fx.eventTypes(sub.id);
    expect(events).toContain("order.paid");
    expect(events).toContain("subscription.active");
    const succeeded = (await paymentsOf(order.id)).filter((p) => p.status === "succeeded").length;
    expect(succeeded).toBe(before + 1);

    // again: nothing charged, the answer says paid; the page shows it paid; the order has no link any more
    const again = await fx.raw("", "POST", `/v1/pay/${token}/confirm`, { confirmation_token_id: await testCard(token) });
    expect([again.status, again.body.status]).toEqual([200, "succeeded"]);
    expect((await paymentsOf(order.id)).filter((p) => p.status === "succeeded").length).toBe(succeeded);
    expect((await fx.raw("", "GET", `/v1/pay/${token}`)).body.order).toMatchObject({ status: "paid", paid: true, due_amount: 0 });
    expect((await fx.raw(fx.seller.token, "GET", `/v1/orders/${order.id}`)).body.pay_url).toBeNull();
    const portalAfter = await fx.raw(session, "GET", "/v1/customer-portal/orders/");
    expect((portalAfter.body.items as Listed[]).every((o) => (o.pay_url === null) === (o.status !== "pending"))).toBe(true);
  }, 90_000);

  it("is 404 for a malformed, tampered, expired or unknown token; never 500", async () => {
    const { order } = await failedRenewal("pay-link-bad");
    const token = payLinkToken(fx.seller.organizationId, order.id, new Date());
    const tampered = `${token.slice(0, 10)}${token[10] === "A" ? "B" : "A"}${token.slice(11)}`;
    const expired = payLinkToken(fx.seller.organizationId, order.id, new Date(Date.now() - (PAY_LINK_DAYS + 2) * DAY));
    // the other organization's id with this order: signed, but the order is not that organization's
    const foreign = payLinkToken(fx.other.organizationId, order.id, new Date());
    // a path parameter past the router's limit is 414 before any route: a client error either way
    expect((await fx.raw("", "GET", `/v1/pay/${"x".repeat(201)}`)).status).toBe(414);
    for (const bad of ["nope", "a.b.c", "x".repeat(99), tampered, expired, foreign, "%00"]) {
      for (const [method, path, body] of [["GET", "", undefined], ["POST", "/confirm", { confirmation_token_id: "x" }], ["GET", "/payment-status", undefined]] as const) {
        const res = await fx.raw("", method, `/v1/pay/${encodeURIComponent(bad)}${path}`, body);
        expect(res.status, `${bad} ${path}`).toBe(404);
      }
    }
    expect((await fx.raw("", "POST", `/v1/pay/${token}/confirm`, {})).status).toBe(422);
    expect(readPayLinkToken(token, new Date(Date.now() + (PAY_LINK_DAYS + 2) * DAY))).toBeNull();
    expect(readPayLinkToken(token, new Date())).toMatchObject({ organizationId: fx.seller.organizationId, orderId: order.id });
    // a link made on one day is the same link all day
    const at = (iso: string) => payLinkToken(fx.seller.organizationId, order.id, new Date(iso));
    expect(at("2031-05-04T00:00:01Z")).toBe(at("2031-05-04T23:59:59Z"));
    expect(at("2031-05-04T23:59:59Z")).not.toBe(at("2031-05-05T00:00:01Z"));
  }, 60_000);
});
