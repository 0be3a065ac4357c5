// /v1/checkouts paid: the test processor (declines, then success), double confirms, the outbox written in the
// confirming transaction, the event stream, and the app's POST /api/auth/checkout.
import { and, eq } from "drizzle-orm";
import { NotOpenCheckout } from "@polar-sh/sdk/models/errors/notopencheckout.js";
import { PaymentError } from "@polar-sh/sdk/models/errors/paymenterror.js";
import { describe, expect, it } from "vitest";
import { benefitGrant, checkout } from "../../server/db/schema/index.js";
import { issues, locs } from "../helpers/api.js";
import { CARDS, createProduct, pay, publicRequest, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { checkoutFixture } from "./checkouts-fixtures.js";
import { TEST_SECRET } from "../helpers/server.js";
import { lookupHash } from "../../server/seal.js";

const fx = checkoutFixture();

describe("payment with the test processor", () => {
  it("tokenizes cards: numbers must pass the Luhn check and expiry must be in the future", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const url = `/v1/checkouts/client/${created.clientSecret}/test-card`;
    const year = new Date().getUTCFullYear();
    const ok = await publicRequest(fx.server, "POST", url, { number: CARDS.ok, exp_month: 1, exp_year: year + 1, cvc: "999" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ card: { brand: "visa", last4: "4242" } });
    expect(ok.body.confirmation_token_id).toMatch(/^tok_test_/);
    expect(String(ok.body.confirmation_token_id)).not.toContain("4242424242424242");
    const luhn = await publicRequest(fx.server, "POST", url, { number: "4242 4242 4242 4241", exp_month: 1, exp_year: year + 1, cvc: "123" });
    expect(luhn.status).toBe(422);
    expect(issues(luhn.body)[0]).toMatchObject({ loc: ["body", "number"], msg: "Your card number is invalid." });
    const expired = await publicRequest(fx.server, "POST", url, { number: CARDS.ok, exp_month: 1, exp_year: year - 1, cvc: "123" });
    expect(issues(expired.body)[0]).toMatchObject({ msg: "Your card's expiration date is in the past." });
    const shape = await publicRequest(fx.server, "POST", url, { number: CARDS.ok, exp_month: 13, exp_year: "soon", cvc: "12" });
    expect(locs(shape.body)).toEqual([["body", "exp_month"], ["body", "exp_year"], ["body", "cvc"]]);
    expect((await publicRequest(fx.server, "POST", "/v1/checkouts/client/nope/test-card", { number: CARDS.ok })).status).toBe(404);
  });

  it("a token is new for every tokenizing and pays only the checkout it was made for, once", async () => {
    const a = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const b = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const tokenA = await tokenize(fx.server, a.clientSecret);
    // the same card again: another token (a random part), so the card's details do not rebuild one
    expect(await tokenize(fx.server, a.clientSecret)).not.toBe(tokenA);
    const buyer = { customer_email: uniqueBuyer("bound"), customer_name: "Bound", customer_billing_address: { country: "FR" } };
    const onB = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${b.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA });
    expect(onB).toEqual({ status: 400, body: { error: "PaymentError", detail: "The payment details are invalid. Please enter your card again.", code: "invalid_token" } });
    expect((await fx.seller.sdk.checkouts.get({ id: b.id })).status).toBe("open");
    expect((await publicRequest(fx.server, "POST", `/v1/checkouts/client/${a.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA })).status).toBe(200);
    // used: the checkout it paid takes no second payment, and no other checkout takes it
    const again = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${b.clientSecret}/confirm`, { ...buyer, confirmation_token_id: tokenA });
    expect(again.status).toBe(400);
    expect((await fx.seller.sdk.orders.list({ checkoutId: b.id })).result.items).toHaveLength(0);
    expect((await fx.seller.sdk.orders.list({ checkoutId: a.id })).result.items).toHaveLength(1);
  });

  it("a declined card leaves the checkout open and nothing created; the next card succeeds", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const before = await fx.countRows(fx.seller.organizationId);
    const events = (await fx.outboxOf(fx.seller.organizationId)).length;
    const email = uniqueBuyer("decline");
    const attempt = (card: string) => pay(fx.server, created, { customerEmail: email }, card);
    await expect(attempt(CARDS.declined)).rejects.toBeInstanceOf(PaymentError);
    await expect(attempt(CARDS.declined)).rejects.toMatchObject({ error: "PaymentError", detail: "Your card was declined." });
    await expect(attempt(CARDS.insufficient)).rejects.toMatchObject({ detail: "Your card has insufficient funds." });
    const raw400 = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Decline",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(fx.server, created.clientSecret, CARDS.declined),
    });
    expect(raw400).toEqual({ status: 400, body: { error: "PaymentError", detail: "Your card was declined.", code: "card_declined" } });
    const bogus = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, {
      customer_email: email,
      customer_name: "Decline",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: "tok_forged",
    });
    expect(bogus.status).toBe(400);
    expect((await fx.seller.sdk.checkouts.get({ id: created.id })).status).toBe("open");
    expect(await fx.countRows(fx.seller.organizationId)).toEqual(before);
    expect((await fx.outboxOf(fx.seller.organizationId)).length).toBe(events);

    const confirmed = await attempt(CARDS.ok);
    expect(confirmed).toMatchObject({ status: "confirmed", customerEmail: email, customerSessionToken: expect.stringMatching(/^till_cst_/) });
    expect((await fx.seller.sdk.checkouts.get({ id: created.id })).status).toBe("succeeded");
    expect((await fx.countRows(fx.seller.organizationId)).orders).toBe(before.orders + 1);
  });

  it("two parallel confirms of one checkout make one order; the other is refused as not open", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const token = await tokenize(fx.server, created.clientSecret);
    const body = { customer_email: uniqueBuyer("twice"), customer_name: "Twice", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    const otherBody = { ...body, customer_email: uniqueBuyer("twice-other") };
    const url = `/v1/checkouts/client/${created.clientSecret}/confirm`;
    const results = await Promise.all([publicRequest(fx.server, "POST", url, body), publicRequest(fx.server, "POST", url, otherBody)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    const refused = results.find((r) => r.status === 403);
    expect(refused?.body).toEqual({ error: "NotOpenCheckout", detail: `Checkout ${created.id} is not open: succeeded` });
    expect((await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items).toHaveLength(1);
    await expect(pay(fx.server, created)).rejects.toBeInstanceOf(NotOpenCheckout);
    // the confirm that won, sent again, is its own retry (tests/api/idempotency.test.ts): answered, nothing made
    const won = results[0]?.status === 200 ? body : otherBody;
    expect((await publicRequest(fx.server, "POST", url, won)).status).toBe(200);
    expect((await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items).toHaveLength(1);
  });
});

describe("fulfilment and the outbox", () => {
  it("writes the flow's events in order, with the API shapes as payloads, in the confirming transaction", async () => {
    const benefit = await fx.seller.sdk.benefits.create({ type: "custom", description: "Welcome note", properties: { note: "Hi" } });
    const product = await createProduct(fx.seller, "monthly");
    await fx.seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const created = await fx.seller.sdk.checkouts.create({ products: [product.id], metadata: { source: "test" } });
    const start = (await fx.outboxOf(fx.seller.organizationId)).length;
    const createdEvent = (await fx.outboxOf(fx.seller.organizationId)).at(-1);
    expect(createdEvent).toMatchObject({ type: "checkout.created", payload: { id: created.id, status: "open" } });

    await pay(fx.server, created);
    const events = (await fx.outboxOf(fx.seller.organizationId)).slice(start);
    expect(events.map((e) => e.type)).toEqual([
      "checkout.updated",
      "customer.created",
      "subscription.created",
      "subscription.active",
      "order.created",
      "order.paid",
      "benefit_grant.created",
      "checkout.updated",
      // recorded by reference: the worker computes the state when it fans the event out
      "customer.state_changed",
    ]);
    const [confirmedEvt, customerEvt, subEvt, , orderEvt, , grantEvt, succeededEvt] = events.map((e) => e.payload as Record<string, unknown>);
    expect(confirmedEvt).toMatchObject({ id: created.id, status: "confirmed" });
    expect(succeededEvt).toMatchObject({ id: created.id, status: "succeeded", customer_id: customerEvt?.id });
    const o = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items[0];
    const orderWire = await fx.raw(fx.seller.token, "GET", `/v1/orders/${o?.id}`);
    // the API's `pay_url` (till's, a link that pays while the order is owed: none here) is not a webhook field
    const { pay_url: payUrl, ...orderApi } = orderWire.body;
    expect(payUrl).toBeNull();
    expect(orderEvt).toEqual(orderApi);
    const subWire = await fx.raw(fx.seller.token, "GET", `/v1/subscriptions/${o?.subscriptionId}`);
    expect(subEvt).toEqual(subWire.body);
    expect(grantEvt).toMatchObject({ benefit_id: benefit.id, customer_id: customerEvt?.id, subscription_id: o?.subscriptionId, is_granted: true });
    const grants = await fx.db().select().from(benefitGrant).where(and(eq(benefitGrant.benefitId, benefit.id), eq(benefitGrant.customerId, String(customerEvt?.id))));
    expect(grants).toHaveLength(1);
    expect(grants[0]?.grantedAt).not.toBeNull();
    const grantList = await fx.seller.sdk.benefitGrants.list({ customerId: String(customerEvt?.id) });
    expect(grantList.result.items.map((g) => g.benefitId)).toEqual([benefit.id]);
  });

  it("streams the checkout's status to the customer's page (server-sent events)", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    const controller = new AbortController();
    const res = await fetch(`${fx.server.url}/v1/checkouts/client/${created.clientSecret}/stream`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const received: Array<{ key: string; payload: Record<string, unknown> }> = [];
    let buffer = "";
    const readUntil = async (done: () => boolean) => {
      while (!done()) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const message = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (message.startsWith("data: ")) received.push(JSON.parse(message.slice(6)));
        }
      }
    };
    await readUntil(() => received.length >= 1);
    expect(received[0]).toEqual({ key: "checkout.updated", payload: { status: "open" } });
    await pay(fx.server, created);
    await readUntil(() => received.some((e) => e.key === "checkout.webhook_event_delivered"));
    controller.abort();
    const order = (await fx.seller.sdk.orders.list({ checkoutId: created.id })).result.items[0];
    expect(received.slice(1)).toEqual([
      { key: "checkout.updated", payload: { status: "confirmed" } },
      { key: "checkout.order_created", payload: { order_id: order?.id } },
      { key: "checkout.updated", payload: { status: "succeeded" } },
      { key: "checkout.webhook_event_delivered", payload: { status: "succeeded" } },
    ]);
  });
});

describe("POST /api/auth/checkout (the app's checkout request)", () => {
  it("opens a checkout for the signed-in user and answers {url, redirect}", async () => {
    const client = new Client(fx.server.url);
    const { user } = await client.signUp(uniqueEmail("shopper"));
    const res = await client.post<{ url: string; redirect: boolean }>("/api/auth/checkout", {
      products: [fx.fixed.id, fx.monthly.id],
      metadata: { campaign: "spring" },
      customFieldData: {},
      allowDiscountCodes: false,
      redirect: false,
      embedOrigin: "https://shop.example",
      successUrl: "/thanks",
    });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(false);
    const secret = res.body.url.split("/checkout/")[1] ?? "";
    expect(res.body.url).toBe(`${fx.server.config.baseURL}/checkout/${secret}`);
    const [row] = await fx.db().select().from(checkout).where(eq(checkout.clientSecretHash, lookupHash(TEST_SECRET, "checkout-secret", secret)));
    expect(row).toMatchObject({
      organizationId: fx.seller.organizationId,
      externalCustomerId: user.id,
      customerEmail: user.email,
      allowDiscountCodes: false,
      embedOrigin: "https://shop.example",
      successUrl: `${fx.server.config.baseURL}/thanks`,
      metadata: { campaign: "spring" },
      productIds: [fx.fixed.id, fx.monthly.id],
    });
  });

  it("referenceId names the customer; a visitor without a session may check out too", async () => {
    const visitor = new Client(fx.server.url);
    const res = await visitor.post<{ url: string; redirect: boolean }>("/api/auth/checkout", { products: fx.fixed.id, referenceId: "org_42" });
    expect(res.status).toBe(200);
    expect(res.body.redirect).toBe(true);
    const secret = res.body.url.split("/checkout/")[1] ?? "";
    const [row] = await fx.db().select().from(checkout).where(eq(checkout.clientSecretHash, lookupHash(TEST_SECRET, "checkout-secret", secret)));
    expect(row).toMatchObject({ externalCustomerId: "org_42", metadata: { referenceId: "org_42" }, customerEmail: null });
    const bySlug = await visitor.post<{ url: string }>("/api/auth/checkout", { slug: fx.free.id });
    expect(bySlug.status).toBe(200);
  });

  it("answers errors with the message to show the user", async () => {
    const visitor = new Client(fx.server.url);
    const unknown = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [crypto.randomUUID()] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Product does not exist. (products.0)");
    const mixed = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [fx.fixed.id, (await createProduct(fx.other, "fixed")).id] });
    expect(mixed.body.message).toBe("Products must all belong to the same organization. (products)");
    const slug = await visitor.post<{ message: string }>("/api/auth/checkout", { slug: "pro-plan" });
    expect(slug).toMatchObject({ status: 400, body: { message: "Product not found" } });
    const none = await visitor.post<{ message: string }>("/api/auth/checkout", {});
    expect(none).toMatchObject({ status: 400, body: { message: "Products are required" } });
    const badBody = await visitor.post<{ message: string; code: string }>("/api/auth/checkout", { products: 5 });
    expect(badBody).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", message: "Invalid body parameters" } });
    const badDiscount = await visitor.post<{ message: string }>("/api/auth/checkout", { products: [fx.fixed.id], discountId: "nope" });
    expect(badDiscount.body.message).toBe("Input should be a valid UUID (discount_id)");
  });
});
