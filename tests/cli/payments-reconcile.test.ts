// `till payments reconcile` against the Stripe stand-in: clean → exit 0; then each kind of
// difference (a payment missing on either side, an amount and a status that differ) printed, exit 1, --json.
import { eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payment as paymentTable } from "../../server/db/schema/index.js";
import type { Reconciliation } from "../../shared/stripe.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { reservePort } from "../helpers/ports.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { confirmationToken, STRIPE_CARDS } from "../helpers/stripe-sandbox.js";
import { PeerCharges } from "../helpers/stripe-peer-charges.js";
import { parseJson, tempConfigDir, till, type TillOptions } from "./till.js";

const KEY = "sk_live_51TillReconcileAaaaaaaaaaaaaaa1234";
const PUBLISHABLE = "pk_live_51TillReconcileBbbbbbbbbbbbbbbb";
const OWNER = { account: "acct_1Reconcile", livemode: true };

let peer: StripePeer;
let charges: PeerCharges;
let server: TestServer;
let seller: Seller;
let product: Product;
let cli: TillOptions;

/**
 * A paid order (through the Stripe adapter) whose payment till records under `processorId` (a PaymentIntent of the
 * charges' store).
 */
async function paidOrder(processorId: (amount: number) => string) {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  // the organization is connected to Stripe: the checkout is paid with a Stripe confirmation token (Stripe.js's)
  const token = await confirmationToken(peer, STRIPE_CARDS.visa, undefined, PUBLISHABLE);
  await pay(server, checkout, { confirmationTokenId: token }, null);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  const id = processorId(order.totalAmount);
  await server.database.db.update(paymentTable).set({ processor: "stripe", processorPaymentId: id }).where(eq(paymentTable.orderId, order.id));
  return { order, id };
}

beforeAll(async () => {
  peer = new StripePeer([{ id: OWNER.account, keys: [{ secret: KEY }, { secret: PUBLISHABLE }] }]);
  charges = new PeerCharges(peer);
  const stripeUrl = await peer.start();
  const { port, release } = await reservePort();
  await release();
  server = await startServer({ TILL_BASE_URL: "https://till.example.com", TILL_TRUSTED_ORIGINS: `http://127.0.0.1:${port}`, TILL_STRIPE_API_URL: stripeUrl }, { port });
  seller = await createSeller(server, "reconcile");
  const key = await seller.createKey();
  const res = await fetch(`${server.url}/v1/stripe/connection`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ secret_key: KEY, publishable_key: PUBLISHABLE }),
  });
  expect(res.status, await res.text()).toBe(200);
  product = await createProduct(seller, "fixed");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url } };
});
afterAll(async () => {
  await server?.close();
  await peer?.stop();
});

describe("till payments reconcile", () => {
  it("exits 0 when till and Stripe agree", async () => {
    await paidOrder((amount) => charges.createPayment(OWNER, { amount }).paymentIntent.id);
    const res = await till(["payments", "reconcile", "--since", "7d", "--json"], cli);
    expect(res.exitCode, res.stderr).toBe(0);
    const body = parseJson<Reconciliation>(res.stdout);
    expect(body.differences).toEqual([]);
    expect(body.compared).toMatchObject({ till_payments: 1, stripe_payment_intents: 1, stripe_charges: 1 });
    // the list endpoints were read through the official client's pagination, with Stripe's parameters only
    expect(peer.requests.some((r) => r.path === "/v1/payment_intents")).toBe(true);
  });

  it("prints every difference and exits 1: missing on either side, amount and status mismatches", async () => {
    const orphan = charges.createPayment(OWNER, { amount: 4200 }).paymentIntent;
    const gone = await paidOrder(() => "pi_neverMadeInStripe000000");
    const dearer = await paidOrder((amount) => charges.createPayment(OWNER, { amount: amount + 100 }).paymentIntent.id);
    const canceled = await paidOrder((amount) => charges.createPayment(OWNER, { amount, status: "canceled" }).paymentIntent.id);

    const res = await till(["payments", "reconcile", "--json"], cli);
    expect(res.exitCode, res.stderr).toBe(1);
    const kinds = parseJson<Reconciliation>(res.stdout).differences.map((d) => [d.kind, d.stripe_id, d.order_id]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["missing_in_till", orphan.id, null],
        ["missing_in_stripe", gone.id, gone.order.id],
        ["amount_mismatch", dearer.id, dearer.order.id],
        ["status_mismatch", canceled.id, canceled.order.id],
      ]),
    );
    expect(kinds).toHaveLength(4);

    const text = await till(["payments", "reconcile", "--since", "1d"], cli);
    expect(text.exitCode).toBe(1);
    for (const word of ["missing in till", "missing in Stripe", "amount differs", "status differs", orphan.id, gone.id]) expect(text.stdout).toContain(word);
    expect(text.stderr).toContain("4 difference(s)");
  });

  it("says how to connect when Stripe is not connected, and refuses a window in the future", async () => {
    const other = await createSeller(server, "reconcile-none");
    const res = await till(["payments", "reconcile"], { ...cli, env: { ...cli.env, TILL_API_KEY: await other.createKey() } });
    expect(res.exitCode).not.toBe(0);
    expect(res.stderr).toContain("till stripe connect");
    const future = await fetch(`${server.url}/v1/stripe/reconcile`, {
      method: "POST",
      headers: { authorization: `Bearer ${cli.env?.TILL_API_KEY ?? ""}`, "content-type": "application/json" },
      body: JSON.stringify({ since: "2999-01-01T00:00:00Z" }),
    });
    expect(future.status).toBe(422);
  });
});
