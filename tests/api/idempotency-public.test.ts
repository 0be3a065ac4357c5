// Idempotency-Key on public writes and POST /api/auth/checkout: keys per customer, checkout, user or address; a
// body the checkout request's schema refuses keeps nothing; a checkout confirm retried without a key after a lost
// answer.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { NotOpenCheckout } from "@polar-sh/sdk/models/errors/notopencheckout.js";
import { Polar as Polar049 } from "polar-sdk-049";
import { NotOpenCheckout as NotOpenCheckout049 } from "polar-sdk-049/models/errors/notopencheckout.js";
import { describe, expect, it } from "vitest";
import { checkout as checkoutTable, customer as customerTable, customerSession, idempotencyKey } from "../../server/db/schema/index.js";
import { createProduct, publicRequest, tokenize, uniqueBuyer } from "../helpers/checkout.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { idempotencyFixture, send } from "./idempotency-fixtures.js";

const fx = idempotencyFixture();

describe("public writes: the credential in the path or the session is the scope", () => {
  it("a confirm retried with its key replays the confirmed checkout, session token included; the stored answer is sealed", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    const token = await tokenize(fx.server, checkout.clientSecret);
    const body = { customer_email: uniqueBuyer("idem"), customer_name: "Ada", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    const key = randomUUID();
    const path = `/v1/checkouts/client/${checkout.clientSecret}/confirm`;
    const first = await send(fx.server.url, "POST", path, { key, body });
    expect(first.status).toBe(200);
    const sessionToken = first.body?.customer_session_token as string;
    expect(sessionToken).toMatch(/^till_cst_/);
    const again = await send(fx.second.url, "POST", path, { key, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const orders = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    expect(orders).toHaveLength(1);
    const dump = JSON.stringify(await fx.db().select().from(idempotencyKey));
    expect(dump).not.toContain(sessionToken);
    expect(dump).not.toContain(checkout.clientSecret);
    expect(dump).toContain("/v1/checkouts/client/:client_secret/confirm");
  });

  it("another checkout's client secret is another scope", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const a = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    const b = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    const key = randomUUID();
    const patch = { customer_name: "Same Body" };
    expect((await send(fx.server.url, "PATCH", `/v1/checkouts/client/${a.clientSecret}`, { key, body: patch })).status).toBe(200);
    const onB = await send(fx.server.url, "PATCH", `/v1/checkouts/client/${b.clientSecret}`, { key, body: patch });
    expect(onB.status).toBe(200);
    expect(onB.headers.get("idempotent-replayed")).toBeNull();
    expect(onB.body?.id).toBe(b.id);
  });

  it("customer portal writes are keyed per customer", async () => {
    const product = await createProduct(fx.seller, "monthly");
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    const confirmed = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("portal-idem"),
      customer_name: "Ada",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await tokenize(fx.server, checkout.clientSecret),
    });
    const portalToken = confirmed.body.customer_session_token as string;
    const key = randomUUID();
    const first = await send(fx.server.url, "PATCH", "/v1/customer-portal/customers/me", { token: portalToken, key, body: { billing_name: "Ada Corp" } });
    expect(first.status).toBe(200);
    const again = await send(fx.server.url, "PATCH", "/v1/customer-portal/customers/me", { token: portalToken, key, body: { billing_name: "Ada Corp" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const [row] = await fx.db().select().from(idempotencyKey).where(eq(idempotencyKey.route, "/v1/customer-portal/customers/me"));
    expect(row?.scope).toMatch(/^customer:[0-9a-f-]{36}$/);
  });
});

describe("POST /api/auth/checkout", () => {
  it("replays the checkout it opened for the same key; another body is 422, a bad key 400 VALIDATION_ERROR", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const shopper = new Client(fx.server.url);
    const { user } = await shopper.signUp(uniqueEmail("idem-shopper"));
    const key = randomUUID();
    const first = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(first.status).toBe(200);
    const again = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.url).toBe(first.body.url);
    const [row] = await fx.db().select().from(idempotencyKey).where(eq(idempotencyKey.scope, `user:${user.id}`));
    expect(row?.route).toBe("/api/auth/*");

    const mismatch = await shopper.post("/api/auth/checkout", { products: [product.id], redirect: true }, { "idempotency-key": key });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    const bad = await shopper.post("/api/auth/checkout", { products: [product.id] }, { "idempotency-key": "x".repeat(300) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR" });

    // a visitor without a session is keyed by its address: the signed-in user's answer is not replayed to it
    const visitor = new Client(fx.server.url);
    const fresh = await visitor.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(fresh.status).toBe(200);
    expect(fresh.body.url).not.toBe(first.body.url);
  });

  it("a body its schema refuses (400 VALIDATION_ERROR) leaves the key unused: the corrected body may take it", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const shopper = new Client(fx.server.url);
    const { user } = await shopper.signUp(uniqueEmail("idem-refused"));
    const key = randomUUID();
    const refused = await shopper.post("/api/auth/checkout", { products: 42, redirect: false }, { "idempotency-key": key });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(await fx.db().select().from(idempotencyKey).where(eq(idempotencyKey.scope, `user:${user.id}`))).toEqual([]);
    const corrected = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(corrected.status).toBe(200);
    const again = await shopper.post<{ url: string }>("/api/auth/checkout", { products: [product.id], redirect: false }, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.url).toBe(corrected.body.url);
    // a refusal once the request began (no such product) is kept like an answer
    const other = randomUUID();
    const missing = await shopper.post("/api/auth/checkout", { products: [randomUUID()], redirect: false }, { "idempotency-key": other });
    expect(missing.status).toBe(400);
    expect(missing.body).not.toMatchObject({ code: "VALIDATION_ERROR" });
    const reused = await shopper.post("/api/auth/checkout", { products: [randomUUID()], redirect: false }, { "idempotency-key": other });
    expect(reused.status).toBe(422); // the key holds the first answer: another body is refused
  });
});

describe("a confirm retried without a key after a lost answer", () => {
  async function openCheckout(kind: "fixed" | "free" = "fixed") {
    const product = await createProduct(fx.seller, kind);
    const checkout = await fx.seller.sdk.checkouts.create({ products: [product.id] });
    const token = kind === "free" ? undefined : await tokenize(fx.server, checkout.clientSecret);
    const body = { customer_email: uniqueBuyer("retry"), customer_name: "Ada", customer_billing_address: { country: "FR" }, confirmation_token_id: token };
    return { checkout, body, path: `/v1/checkouts/client/${checkout.clientSecret}/confirm` };
  }
  const ordersOf = async (checkoutId: string) => (await fx.seller.sdk.orders.list({ checkoutId })).result.items.length;
  /** The portal sessions of the buyer: a retry must not start another. */
  const sessionsOf = async (email: string) =>
    (
      await fx.db()
        .select({ id: customerSession.id })
        .from(customerSession)
        .innerJoin(customerTable, eq(customerTable.id, customerSession.customerId))
        .where(eq(customerTable.email, email))
    ).length;

  it("the same confirm (its confirmation token) again: the first answer, with its portal session token (no new session), and one order", async () => {
    const { checkout, body, path } = await openCheckout();
    const first = await publicRequest(fx.server, "POST", path, body);
    expect(first.status).toBe(200);
    expect(first.body.customer_session_token).toMatch(/^till_cst_/);
    const retry = await publicRequest(fx.server, "POST", path, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await sessionsOf(body.customer_email)).toBe(1);
    expect(await ordersOf(checkout.id)).toBe(1);
    // the row keeps the token's hash and the session token sealed: neither the confirmation token nor the session in
    // clear
    const [row] = await fx.db().select().from(checkoutTable).where(eq(checkoutTable.id, checkout.id));
    expect(row?.confirmationHash).toMatch(/^[0-9a-f]{64}\./);
    expect(row?.confirmationHash).not.toContain(first.body.customer_session_token as string);
    expect(row?.confirmationHash).not.toContain(body.confirmation_token_id as string);
  });

  it("two identical confirms at once: both answered with the same session token, one order", async () => {
    const { checkout, body, path } = await openCheckout();
    const results = await Promise.all([publicRequest(fx.server, "POST", path, body), publicRequest(fx.server, "POST", path, body)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results[0]?.body.id).toBe(results[1]?.body.id);
    expect(results[0]?.body.customer_session_token).toBe(results[1]?.body.customer_session_token);
    expect(await ordersOf(checkout.id)).toBe(1);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });

  it("the buyer's details and card sent again (a leaked checkout URL) open no portal: the card tokenizes to a new token, refused as not open", async () => {
    const { checkout, body, path } = await openCheckout();
    expect((await publicRequest(fx.server, "POST", path, body)).status).toBe(200);
    const retokenized = await tokenize(fx.server, checkout.clientSecret);
    expect(retokenized).not.toBe(body.confirmation_token_id);
    const replay = await publicRequest(fx.server, "POST", path, { ...body, confirmation_token_id: retokenized });
    expect(replay).toEqual({ status: 403, body: { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` } });
    // as both SDKs see it: Polar's error for a checkout that is no longer open
    const again = async (sdk: Polar | Polar049) =>
      sdk.checkouts.clientConfirm({
        clientSecret: checkout.clientSecret,
        checkoutConfirmStripe: {
          customerEmail: body.customer_email,
          customerName: body.customer_name,
          customerBillingAddress: { country: "FR" },
          confirmationTokenId: await tokenize(fx.server, checkout.clientSecret),
        },
      });
    await expect(again(new Polar({ serverURL: fx.server.url }))).rejects.toBeInstanceOf(NotOpenCheckout);
    await expect(again(new Polar049({ serverURL: fx.server.url }))).rejects.toBeInstanceOf(NotOpenCheckout049);
    expect(await sessionsOf(body.customer_email)).toBe(1);
    expect(await ordersOf(checkout.id)).toBe(1);
  });

  it("a free checkout's confirm sent again without a key is refused as not open; with its Idempotency-Key it is replayed", async () => {
    const { checkout, body, path } = await openCheckout("free");
    const key = randomUUID();
    const first = await send(fx.server.url, "POST", path, { key, body });
    expect(first.status).toBe(200);
    const bare = await publicRequest(fx.server, "POST", path, body);
    expect(bare).toEqual({ status: 403, body: { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` } });
    const keyed = await send(fx.server.url, "POST", path, { key, body });
    expect(keyed.headers.get("idempotent-replayed")).toBe("true");
    expect(keyed.body).toEqual(first.body);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });

  it("another confirm (other fields or token), or the same one after five minutes, is refused as not open", async () => {
    const { checkout, body, path } = await openCheckout();
    expect((await publicRequest(fx.server, "POST", path, body)).status).toBe(200);
    const notOpen = { error: "NotOpenCheckout", detail: `Checkout ${checkout.id} is not open: succeeded` };
    const otherEmail = await publicRequest(fx.server, "POST", path, { ...body, customer_email: uniqueBuyer("intruder") });
    expect(otherEmail).toEqual({ status: 403, body: notOpen });
    const otherToken = await publicRequest(fx.server, "POST", path, { ...body, confirmation_token_id: `${body.confirmation_token_id}x` });
    expect(otherToken).toEqual({ status: 403, body: notOpen });
    await fx.db().update(checkoutTable).set({ modifiedAt: new Date(Date.now() - 4 * 60_000) }).where(eq(checkoutTable.id, checkout.id));
    expect((await publicRequest(fx.server, "POST", path, body)).status).toBe(200);
    await fx.db().update(checkoutTable).set({ modifiedAt: new Date(Date.now() - 5 * 60_000 - 1_000) }).where(eq(checkoutTable.id, checkout.id));
    expect(await publicRequest(fx.server, "POST", path, body)).toEqual({ status: 403, body: notOpen });
    expect(await ordersOf(checkout.id)).toBe(1);
    expect(await sessionsOf(body.customer_email)).toBe(1);
  });
});
