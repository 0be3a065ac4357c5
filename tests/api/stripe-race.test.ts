// Issue 27 §2: a checkout paid through Stripe is made into one order, paid once, whichever of the confirm and
// Stripe's payment_intent.succeeded comes first. Here the event comes first: the Stripe stand-in holds the answer
// of the PaymentIntent till's confirm made until till has recorded the signed event and its worker has started
// acting on it (it read the intent back from Stripe), so the event's purchase races the confirm's own.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeEvent } from "../../server/db/schema/index.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
const receiver = new Receiver();

beforeAll(async () => {
  s = await startStripeSandbox();
  await receiver.start();
  await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/race`, format: "raw", events: ["order.created", "order.paid"] });
  await s.server.worker.start();
}, 120_000);
afterAll(async () => {
  if (s) s.peer.holdAnswer = undefined;
  await s?.server.worker.stop();
  await receiver.stop();
  await s?.close();
});

type IntentAnswer = { object?: string; id?: string; status?: string; metadata?: Record<string, string> };

describe("the confirm and payment_intent.succeeded racing", () => {
  it("makes one paid order when Stripe's event reaches till before the confirm's answer", async () => {
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const seen: string[] = [];
    s.peer.holdAnswer = async (req, answer) => {
      const intent = answer as IntentAnswer;
      if (req.method !== "POST" || intent.object !== "payment_intent" || intent.status !== "succeeded" || intent.metadata?.checkout_id !== checkout.id) return;
      const id = String(intent.id);
      const eventIds = () => new Set(s.peer.events.filter((e) => e.type === "payment_intent.succeeded" && e.object.id === id).map((e) => e.id));
      // till answered the signed event (recorded it), then its worker read the intent back to act on it
      await until(async () => (s.peer.deliveries.some((d) => eventIds().has(d.id) && d.status === 200) ? true : undefined), "the event recorded");
      seen.push("event recorded");
      await until(async () => (s.peer.requests.some((r) => r.method === "GET" && r.path === `/v1/payment_intents/${id}`) ? true : undefined), "the event handled");
      seen.push("event handled");
      // the event's purchase reaches the checkout's lock (held by the confirm, which waits for this answer)
      await new Promise((r) => setTimeout(r, 300));
      seen.push("answer sent");
    };
    const res = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("stripe-race"),
      customer_name: "Ada Buyer",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa),
    });
    s.peer.holdAnswer = undefined;
    expect(seen).toEqual(["event recorded", "event handled", "answer sent"]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const done = await until(async () => {
      const c = await s.sdk.checkouts.get({ id: checkout.id });
      return c.status === "succeeded" ? c : undefined;
    }, "the checkout to succeed");
    expect(done.status).toBe("succeeded");
    const ordersOf = async () => (await s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId === checkout.id);
    const [order, ...more] = await ordersOf();
    expect(more).toEqual([]);
    expect(order?.status).toBe("paid");
    const payments = (await s.sdk.payments.list({ checkoutId: checkout.id })).result.items;
    expect(payments.map((p) => [p.status, p.amount])).toEqual([["succeeded", 2500]]);
    const intents = [...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkout.id);
    expect(intents).toHaveLength(1);
    // the event's handler waited for the confirm and found the checkout done: handled at its first attempt, no
    // error (it once tried to purchase the still-open checkout without the confirm's customer details: a 422)
    const succeeded = and(eq(stripeEvent.objectId, String(intents[0]?.id)), eq(stripeEvent.type, "payment_intent.succeeded"));
    const rows = await until(async () => {
      const got = await s.server.database.db.select().from(stripeEvent).where(succeeded);
      return got.length > 0 && got.every((r) => r.processedAt) ? got : undefined;
    }, "the event processed");
    expect(rows.map((r) => [r.outcome, r.attempts, r.error])).toEqual([["handled", 1, null]]);

    // one order.paid webhook for it (given time for a second to arrive)
    const paidHooks = () => receiver.at("/race").filter((h) => (JSON.parse(h.body) as { type: string; data: { id: string } }).type === "order.paid");
    await receiver.until(() => (paidHooks().length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    expect(paidHooks().map((h) => (JSON.parse(h.body) as { data: { id: string } }).data.id)).toEqual([order?.id]);
    expect((await ordersOf()).length).toBe(1);
  }, 60_000);
});
