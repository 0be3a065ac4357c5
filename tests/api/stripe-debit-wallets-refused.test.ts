// A Stripe bank debit refused (docs/billing.md, "A refused bank debit's top-up"): a wallet's top-up paid by a US bank
// account the bank refuses. Its order does not stay pending as if money were still to be collected: it becomes `void`
// (Polar's OrderStatus in both SDKs) and the seller hears it as order.updated — once, a replayed refusal sends nothing
// more — a webhook both SDKs' validateEvent accept. The wallet is not credited. The stand-in's bank answers when the
// test says (peer.payments.settleDebit).
import { and, eq } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { Polar as Polar049 } from "polar-sdk-049";
import { describe, expect, it } from "vitest";
import { stripeEvent } from "../../server/db/schema/index.js";
import { createProduct, uniqueBuyer } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { confirmWithBankAccount, STRIPE_BANK_ACCOUNTS, until, type StripeSandbox, useWebhookSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
const receiver = new Receiver();
let endpointSecret = "";

useWebhookSandbox(receiver, "/refused", ["order.created", "order.updated", "order.paid"], (r) => {
  ({ s, seller, endpointSecret } = r);
});

type Hook = { type: string; data: { id: string; status?: string } };
const hooksOf = (orderId: string, type: string) =>
  receiver
    .at("/refused")
    .map((hit) => ({ hit, event: JSON.parse(hit.body) as Hook }))
    .filter(({ event }) => event.type === type && event.data.id === orderId);
const processed = (intentId: string, type: string, count = 1) =>
  until(async () => {
    const rows = await s.server.database.db.select().from(stripeEvent).where(and(eq(stripeEvent.objectId, intentId), eq(stripeEvent.type, type)));
    return rows.length >= count && rows.every((r) => r.processedAt) ? rows : undefined;
  }, `${type} processed`);

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("a wallet top-up whose bank debit is refused", () => {
  it("voids its order (order.updated, once, valid for both SDKs) and credits nothing", async () => {
    const product = await createProduct(seller, "trial");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    const customerId = (await confirmWithBankAccount(s, checkout.clientSecret, STRIPE_BANK_ACCOUNTS.usFails, uniqueBuyer("wallet-refused"))).customer_id as string;
    const wallet = await api("POST", "/v1/wallets/", { customer_id: customerId, currency: "usd" });
    const walletId = String(wallet.body.id);
    const top = await api("POST", `/v1/wallets/${walletId}/top-up`, { amount: 2500 }, { "idempotency-key": "refused-1" });
    expect(top.status, JSON.stringify(top.body)).toBe(202);
    const intent = [...s.peer.payments.intents.values()].find((i) => i.object === "payment_intent" && i.metadata.wallet_id === walletId);
    if (!intent) throw new Error("no charge");
    const orderId = intent.metadata.order_id ?? "";
    expect((await s.sdk.orders.get({ id: orderId })).status).toBe("pending");

    s.peer.payments.settleDebit(intent.id);
    await processed(intent.id, "payment_intent.payment_failed");
    const [hook] = await until(async () => {
      const found = hooksOf(orderId, "order.updated");
      return found.length > 0 ? found : undefined;
    }, "order.updated");
    if (!hook) throw new Error("no hook");
    expect(validateEvent(hook.hit.body, hook.hit.headers, endpointSecret)).toMatchObject({ type: "order.updated", data: { id: orderId, status: "void", paid: false } });
    expect(validateEvent049(hook.hit.body, hook.hit.headers, endpointSecret)).toMatchObject({ type: "order.updated", data: { id: orderId, status: "void" } });
    expect((await s.sdk.orders.get({ id: orderId })).status).toBe("void");
    expect((await new Polar049({ accessToken: s.key, serverURL: s.server.url }).orders.get({ id: orderId })).status).toBe("void");
    expect((await api("GET", `/v1/wallets/${walletId}`)).body.balance).toBe(0);
    expect(hooksOf(orderId, "order.paid")).toEqual([]);

    // Stripe sends the refusal again (another event id): nothing more is sent
    const endpoint = [...s.peer.endpoints.values()][0];
    if (!endpoint) throw new Error("no endpoint");
    const target = { secret: endpoint.secret, url: s.peer.rewriteUrl(endpoint.url), livemode: false };
    expect((await s.peer.deliver(target, { type: "payment_intent.payment_failed", data: { object: { id: intent.id } } })).status).toBe(200);
    await processed(intent.id, "payment_intent.payment_failed", 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(hooksOf(orderId, "order.updated")).toHaveLength(1);
    expect((await s.sdk.orders.get({ id: orderId })).status).toBe("void");
  }, 60_000);
});
