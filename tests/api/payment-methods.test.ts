// Payment methods: the customer's saved cards in the portal through @polar-sh/sdk 0.47.1 and
// 0.49.0 — the card the checkout saved listed, a card added with a test processor token (made the default),
// confirm, the till-only make-default route, delete (the last card of a customer with a subscription that will
// be charged again is kept: 400 PaymentMethodInUseByActiveSubscription), a card whose setup is refused (400
// PaymentMethodSetupFailed; a refused confirm is a 422 on setup_intent_id, the error both SDKs model for
// confirmPaymentMethod) — and the seller's customers.listPaymentMethods (+ by external id, 0.49.0 only).
// Only brand, last four digits and expiry are stored; another customer's or organization's methods are 404s,
// and a sandbox organization's are never listed live.
import { eq } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { HTTPValidationError as HTTPValidationError049 } from "polar-sdk-049/models/errors/httpvalidationerror.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paymentMethod } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, sdk049For, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let monthly: Product;
let portal: Polar;
let portal049: Polar049;

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const BASE = "/v1/customer-portal/customers/me/payment-methods";

async function subscriber(s: Seller, product: Product, card = "4242 4242 4242 4242", extra: Record<string, unknown> = {}) {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  const confirmed = await pay(server, checkout, { customerEmail: uniqueBuyer("pm"), ...extra }, card);
  const customerId = confirmed.customerId ?? "";
  const session = (await s.sdk.customerSessions.create({ customerId })).token;
  return { customerId, session };
}

async function cardToken(session: string, number: string): Promise<string> {
  const res = await raw(session, "POST", `${BASE}/test-card`, { number, exp_month: 11, exp_year: new Date().getUTCFullYear() + 4, cvc: "123" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.confirmation_token_id as string;
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "pm");
  other = await createSeller(server, "pm-other");
  monthly = await createProduct(seller, "monthly");
  portal = new Polar({ serverURL: server.url });
  portal049 = new Polar049({ serverURL: server.url });
}, 120_000);
afterAll(async () => server?.close());

describe("the customer's payment methods", () => {
  it("lists the card the checkout saved, adds one (the default now), makes another default, deletes, keeps the last one of a subscriber", async () => {
    const { customerId, session } = await subscriber(seller, monthly);
    const listed = (await portal.customerPortal.customers.listPaymentMethods({ customerSession: session }, {})).result;
    expect(listed.items).toHaveLength(1);
    const saved = listed.items[0];
    if (!saved || saved.type !== "card" || !("methodMetadata" in saved)) throw new Error("no card");
    expect(saved).toMatchObject({ customerId, processor: "stripe", type: "card" });
    expect(saved.methodMetadata).toMatchObject({ brand: "visa", last4: "4242", expMonth: 12 });

    // the only card of a customer with an active subscription stays
    const inUse = await raw(session, "DELETE", `${BASE}/${saved.id}`);
    expect(inUse.status).toBe(400);
    expect(inUse.body.error).toBe("PaymentMethodInUseByActiveSubscription");

    const token = await cardToken(session, "5555 5555 5555 4444");
    const added = await portal.customerPortal.customers.addPaymentMethod(
      { customerSession: session },
      { confirmationTokenId: token, setDefault: true, returnUrl: "https://example.com/back" },
    );
    if (added.status !== "succeeded") throw new Error("not succeeded");
    expect(added.paymentMethod).toMatchObject({ type: "card", methodMetadata: { brand: "mastercard", last4: "4444", expMonth: 11 } });
    const raw1 = await raw(session, "GET", BASE);
    const items1 = raw1.body.items as Array<{ is_default: boolean; method_metadata: { last4: string } }>;
    expect(items1.map((m) => [m.method_metadata.last4, m.is_default])).toEqual([
      ["4444", true],
      ["4242", false],
    ]);
    // no card number stored: the row has only brand, last four and expiry
    const rows = await server.database.db.select().from(paymentMethod).where(eq(paymentMethod.customerId, customerId));
    expect(JSON.stringify(rows)).not.toMatch(/5555555555554444|4242424242424242/);

    // made default again (till's route), then the other one deleted
    const back = await raw(session, "POST", `${BASE}/${saved.id}/default`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ id: saved.id, is_default: true });
    // the answer is the method as stored, and asking again changes nothing
    const stored = (await raw(session, "GET", BASE)).body.items as Array<{ id: string }>;
    expect(back.body).toEqual(stored.find((m) => m.id === saved.id));
    expect((await raw(session, "POST", `${BASE}/${saved.id}/default`)).body).toEqual(back.body);
    await portal049.customerPortal.customers.deletePaymentMethod({ customerSession: session }, { id: added.paymentMethod.id });
    const after = (await portal049.customerPortal.customers.listPaymentMethods({ customerSession: session }, {})).result.items;
    expect(after.map((m) => m.id)).toEqual([saved.id]);
    // a deleted one is gone, not brought back by the checkout that saved the other
    expect((await raw(session, "DELETE", `${BASE}/${added.paymentMethod.id}`)).status).toBe(404);

    // confirm (Stripe's after-action step) saves a token as well
    const confirmed = await portal.customerPortal.customers.confirmPaymentMethod(
      { customerSession: session },
      { setupIntentId: await cardToken(session, "4000 0000 0000 0341"), setDefault: false },
    );
    expect(confirmed).toMatchObject({ status: "succeeded", paymentMethod: { methodMetadata: { last4: "0341" } } });
    expect(((await raw(session, "GET", BASE)).body.items as unknown[])[0]).toMatchObject({ id: saved.id, is_default: true });
  });

  it("refuses a card whose setup is declined and bad input; another customer's method is a 404", async () => {
    const a = await subscriber(seller, monthly);
    const b = await subscriber(seller, monthly);
    const declined = await raw(a.session, "POST", BASE, { confirmation_token_id: await cardToken(a.session, "4000 0000 0000 0002"), set_default: true, return_url: "https://x.test" });
    expect(declined.status).toBe(400);
    expect(declined.body).toEqual({ error: "PaymentMethodSetupFailed", detail: "Your card was declined." });
    const forged = await raw(a.session, "POST", BASE, { confirmation_token_id: "tok_nope", set_default: true, return_url: "https://x.test" });
    expect(forged.status).toBe(400);

    // a refused confirm: both SDKs parse the answer as their declared HTTPValidationError, and nothing is saved
    const before = (await raw(a.session, "GET", BASE)).body.items as unknown[];
    const refused047 = await portal.customerPortal.customers
      .confirmPaymentMethod({ customerSession: a.session }, { setupIntentId: await cardToken(a.session, "4000 0000 0000 0002"), setDefault: true })
      .catch((e: unknown) => e);
    expect(refused047).toBeInstanceOf(HTTPValidationError);
    expect((refused047 as HTTPValidationError).detail).toEqual([{ loc: ["body", "setup_intent_id"], msg: "Your card was declined.", type: "value_error" }]);
    const refused049 = await portal049.customerPortal.customers
      .confirmPaymentMethod({ customerSession: a.session }, { setupIntentId: "seti_forged", setDefault: true })
      .catch((e: unknown) => e);
    expect(refused049).toBeInstanceOf(HTTPValidationError049);
    expect((refused049 as HTTPValidationError049).detail?.[0]?.loc).toEqual(["body", "setup_intent_id"]);
    expect((await raw(a.session, "GET", BASE)).body.items).toEqual(before);
    const missing = await raw(a.session, "POST", BASE, {});
    expect(missing.status).toBe(422);
    expect((missing.body.detail as Array<{ loc: unknown }>)[0]?.loc).toEqual(["body", "confirmation_token_id"]);
    const badCard = await raw(a.session, "POST", `${BASE}/test-card`, { number: "1234", exp_month: 1, exp_year: 2099, cvc: "1" });
    expect(badCard.status).toBe(422);

    const [bMethod] = (await raw(b.session, "GET", BASE)).body.items as Array<{ id: string }>;
    if (!bMethod) throw new Error("no method");
    expect((await raw(a.session, "DELETE", `${BASE}/${bMethod.id}`)).status).toBe(404);
    expect((await raw(a.session, "POST", `${BASE}/${bMethod.id}/default`)).status).toBe(404);
    expect((await raw(a.session, "DELETE", `${BASE}/not-a-uuid`)).status).toBe(422);
    expect((await raw("nope", "GET", BASE)).status).toBe(401);
  });
});

describe("the seller's view", () => {
  it("customers.listPaymentMethods and …External (0.49.0); another organization's customer is a 404; the sandbox is apart", async () => {
    const externalId = `pm-ext-${Date.now()}`;
    const { customerId } = await subscriber(seller, monthly, "4242 4242 4242 4242", { customerEmail: uniqueBuyer("pm-ext") });
    await seller.sdk.customers.update({ id: customerId, customerUpdate: { externalId } });
    const byId = (await seller.sdk049.customers.listPaymentMethods({ id: customerId })).result;
    expect(byId.items).toHaveLength(1);
    expect(byId.items[0]).toMatchObject({ customerId, type: "card" });
    const byExternal = (await seller.sdk049.customers.listPaymentMethodsExternal({ externalId })).result;
    expect(byExternal.items.map((m) => m.id)).toEqual(byId.items.map((m) => m.id));

    expect((await raw(other.token, "GET", `/v1/customers/${customerId}/payment-methods`)).status).toBe(404);
    expect((await raw(other.token, "GET", `/v1/customers/external/${externalId}/payment-methods`)).status).toBe(404);
    // a key without customers:read
    const ordersOnly = await seller.createKey({ orders: ["read"] });
    expect((await raw(ordersOnly, "GET", `/v1/customers/${customerId}/payment-methods`)).status).toBe(403);

    // the sandbox twin's key sees none of the live customer's methods, nor its payments
    const sandboxKey = await seller.createSandboxKey();
    expect((await raw(sandboxKey, "GET", `/v1/customers/${customerId}/payment-methods`)).status).toBe(404);
    const sandbox049 = sdk049For(server, sandboxKey);
    expect((await sandbox049.payments.list({})).result.items).toHaveLength(0);
  });
});
