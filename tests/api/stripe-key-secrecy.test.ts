// The Stripe keys never show: a sandbox organization connected to the Stripe stand-in with
// its keys, a purchase paid through Stripe (with its events processed), then the raw columns read — the secret key
// and the webhook signing secret sealed, neither in clear — and the server's whole log output searched for any
// secret or restricted key and any signing secret. The API's answers on the way carry none either (the
// connection's status shows the key's hint: its kind and last four characters).
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeConnection } from "../../server/db/schema/index.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { confirmationToken, startStripeSandbox, STRIPE_CARDS, STRIPE_KEYS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let log = "";
const answers: string[] = [];

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  s = await startStripeSandbox({}, { logStream: stream });
  await s.server.worker.start();
}, 120_000);
afterAll(async () => {
  await s?.server.worker.stop();
  await s?.close();
});

describe("Stripe keys", () => {
  it("are sealed at rest and never in the log or an API answer, after a purchase through Stripe", async () => {
    const seller = { ...s.seller, sdk: s.sdk, token: s.key };
    const product = await createProduct(seller, "fixed");
    const checkout = await s.sdk.checkouts.create({ products: [product.id] });
    answers.push(JSON.stringify(checkout));
    const confirmed = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
      customer_email: uniqueBuyer("stripe-keys"),
      customer_name: "Ada Buyer",
      customer_billing_address: { country: "FR" },
      confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.visa),
    });
    expect(confirmed.status).toBe(200);
    answers.push(JSON.stringify(confirmed.body));
    // Stripe's payment_intent.succeeded delivered and processed
    await until(async () => (s.peer.deliveries.some((d) => d.type === "payment_intent.succeeded" && d.status === 200) ? true : undefined), "the event delivered");
    const connection = await fetch(`${s.server.url}/v1/stripe/connection`, { headers: { authorization: `Bearer ${s.key}` } });
    answers.push(await connection.text());

    const endpointSecret = [...s.peer.endpoints.values()][0]?.secret ?? "";
    expect(endpointSecret).toMatch(/^whsec_/);
    const [row] = await s.server.database.db.select().from(stripeConnection);
    if (!row) throw new Error("no connection row");
    for (const column of [row.secretKey, row.webhookSecret]) {
      expect(column).not.toContain(STRIPE_KEYS.secret);
      expect(column).not.toContain(endpointSecret);
      expect(column).not.toMatch(/sk_test_|rk_test_|whsec_/);
    }
    expect(log.length).toBeGreaterThan(0);
    // the log names no key at all; the connection's answer shows the key's hint only (its kind and last four)
    expect(log).not.toMatch(/sk_test_|rk_test_|sk_live_|rk_live_|whsec_/);
    for (const text of [log, ...answers]) {
      expect(text).not.toContain(STRIPE_KEYS.secret);
      expect(text).not.toContain(STRIPE_KEYS.secret.slice(8, -4));
      expect(text).not.toContain(endpointSecret);
      expect(text).not.toContain("whsec_");
    }
  }, 60_000);
});
