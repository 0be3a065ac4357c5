// A slow payment processor does not hold the server up: confirms that charge through Stripe do so under the
// checkout's lock, and each holds a pooled connection while Stripe answers. They take turns (db/call-turns.ts):
// at most half the pool waits on Stripe at once, so while Stripe holds its answers, requests that call no one
// (a product read) are answered; when Stripe answers, every confirm ends paid, charged once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTurnsOf, limitCallTurns } from "../../server/db/call-turns.js";
import { usingPostgres } from "../helpers/db.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

type IntentAnswer = { object?: string; status?: string; metadata?: Record<string, string> };

// PostgreSQL only: PGlite has one connection for everything, which a charging transaction holds whatever the turns
describe.skipIf(!usingPostgres)("Stripe answering slowly", () => {
  let s: StripeSandbox;
  beforeAll(async () => {
    s = await startStripeSandbox();
  }, 120_000);
  afterAll(async () => {
    if (s) s.peer.holdAnswer = undefined;
    await s?.close();
  });
  // the PaymentIntents till asked Stripe for (each one charge: a retry of a request is sent with its key)
  const intentsAsked = () => s.peer.requests.filter((r) => r.method === "POST" && r.path === "/v1/payment_intents").length;

  it("holds at most half the pool's connections: a product read is answered while confirms wait on Stripe; then each is paid once", async () => {
    const turns = callTurnsOf(s.server.database.db);
    // the test server's pool has 5 connections (tests/helpers/db.ts): 2 turns
    expect(turns?.turns).toBe(2);
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "fixed");
    const asked = intentsAsked();
    // one more confirm than the pool has connections: without turns, they would hold every one of them
    const checkouts = await Promise.all(Array.from({ length: 6 }, () => s.sdk.checkouts.create({ products: [product.id] })));
    const ids = new Set(checkouts.map((c) => c.id));
    let held = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    s.peer.holdAnswer = async (req, answer) => {
      const intent = answer as IntentAnswer;
      if (req.method !== "POST" || intent.object !== "payment_intent" || !ids.has(intent.metadata?.checkout_id ?? "")) return;
      held++;
      await released;
    };
    const tokens = await Promise.all(checkouts.map(() => confirmationToken(s.peer, STRIPE_CARDS.visa)));
    const confirms = checkouts.map((c, i) =>
      publicRequest(s.server, "POST", `/v1/checkouts/client/${c.clientSecret}/confirm`, {
        customer_email: uniqueBuyer(`slow-stripe-${i}`),
        customer_name: "Ada Buyer",
        customer_billing_address: { country: "FR" },
        confirmation_token_id: tokens[i],
      }),
    );
    try {
      // two charges wait on Stripe, the other four wait for a turn (without a connection)
      await until(async () => (held === 2 && turns?.state.waiting === 4 ? true : undefined), "two charges held, four confirms waiting");
      const read = s.sdk.products.get({ id: product.id });
      const answered = await Promise.race([read.then(() => "answered"), new Promise((r) => setTimeout(() => r("still waiting"), 5_000))]);
      expect(answered).toBe("answered");
      expect(held).toBe(2);
    } finally {
      release();
    }
    const answers = await Promise.all(confirms);
    expect(answers.map((a) => [a.status, a.body.status])).toEqual(checkouts.map(() => [200, "confirmed"]));
    s.peer.holdAnswer = undefined;
    expect(held).toBe(6);
    expect(turns?.state).toEqual({ held: 0, waiting: 0 });
    // each checkout made one order, paid once at Stripe
    await until(async () => {
      const orders = (await s.sdk.orders.list({ limit: 100 })).result.items.filter((o) => o.checkoutId && ids.has(o.checkoutId));
      return orders.length === 6 ? orders : undefined;
    }, "six orders");
    expect(intentsAsked() - asked).toBe(6);
  });

  it("answers 503 with Retry-After when no turn comes within the wait, having changed nothing; the retry pays", async () => {
    // one turn, waited for 300 ms (the server's own is 15 s)
    limitCallTurns(s.server.database.db, 1, 300);
    const product = await createProduct({ ...s.seller, sdk: s.sdk, token: s.key }, "fixed");
    const asked = intentsAsked();
    const [first, second] = await Promise.all([0, 1].map(() => s.sdk.checkouts.create({ products: [product.id] })));
    let held = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    s.peer.holdAnswer = async (req, answer) => {
      const intent = answer as IntentAnswer;
      if (req.method !== "POST" || intent.object !== "payment_intent" || intent.metadata?.checkout_id !== first!.id) return;
      held++;
      await released;
    };
    const confirm = async (clientSecret: string, token: string) =>
      publicRequest(s.server, "POST", `/v1/checkouts/client/${clientSecret}/confirm`, {
        customer_email: uniqueBuyer("slow-stripe-busy"),
        customer_name: "Ada Buyer",
        customer_billing_address: { country: "FR" },
        confirmation_token_id: token,
      });
    const secondToken = await confirmationToken(s.peer, STRIPE_CARDS.visa);
    const waiting = confirm(first!.clientSecret, await confirmationToken(s.peer, STRIPE_CARDS.visa));
    let busy: Response;
    try {
      await until(async () => (held === 1 ? true : undefined), "the first charge held");
      busy = await fetch(`${s.server.url}/v1/checkouts/client/${second!.clientSecret}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ customer_email: uniqueBuyer("slow-stripe-busy"), customer_name: "Ada Buyer", customer_billing_address: { country: "FR" }, confirmation_token_id: secondToken }),
      });
    } finally {
      release();
    }
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("2");
    expect(await busy.json()).toEqual({ error: "ServiceUnavailable", detail: "Too many payments are waiting on the payment processor right now; retry shortly." });
    expect((await waiting).status).toBe(200);
    s.peer.holdAnswer = undefined;
    // nothing was charged or changed for the refused confirm: the checkout is open, and the same confirm pays
    expect((await s.sdk.checkouts.get({ id: second!.id })).status).toBe("open");
    expect(intentsAsked() - asked).toBe(1);
    const retried = await confirm(second!.clientSecret, secondToken);
    expect([retried.status, retried.body.status]).toEqual([200, "confirmed"]);
  });
});
