// A checkout's page and confirm read the checkout by its client secret together with its organization's test
// clock and Stripe connection, in one statement (checkouts/repository.ts, clockOffsetSql, connectionSql). With two
// organizations on one server — one connected to Stripe whose clock is three days ahead, one with neither — each
// checkout runs on its own organization's clock and processor, never the other's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay, publicRequest } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { type StripeSandbox, startStripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
/** The sellers as their sandboxes (the clock and the connection are the sandbox organizations'). */
let connected: Seller;
let plain: Seller;

beforeAll(async () => {
  s = await startStripeSandbox();
  const res = await fetch(`${s.server.url}/v1/test-clock/advance`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
    body: JSON.stringify({ by: "3d" }),
  });
  expect(res.status).toBe(200);
  connected = { ...s.seller, sdk: s.sdk, token: s.key };
  const live = await createSeller(s.server, "no-clock-no-stripe");
  const key = await live.createSandboxKey();
  plain = { ...live, sdk: sdkFor(s.server, key), token: key };
});
afterAll(async () => {
  await s?.close();
});

describe("a checkout beside another organization's clock and Stripe connection", () => {
  it("is open on its own clock and paid by the test processor", async () => {
    const product = await createProduct(plain, "fixed");
    const checkout = await plain.sdk.checkouts.create({ products: [product.id] });
    expect(checkout.paymentProcessorMetadata).toMatchObject({ processor: "test" });
    // three days on the other organization's clock would have expired it
    const page = await publicRequest(s.server, "GET", `/v1/checkouts/client/${checkout.clientSecret}`);
    expect(page.status).toBe(200);
    expect(page.body.status).toBe("open");
    const confirmed = await pay(s.server, checkout);
    expect(confirmed.status).toBe("confirmed");
    expect((await plain.sdk.checkouts.get({ id: checkout.id })).status).toBe("succeeded");
    expect([...s.peer.payments.intents.values()].filter((i) => i.metadata.checkout_id === checkout.id)).toEqual([]);
  });

  it("the connected organization's checkout is expired on its own clock ahead, the other one's not", async () => {
    const product = await createProduct(connected, "fixed");
    const before = await connected.sdk.checkouts.create({ products: [product.id] });
    expect(before.paymentProcessorMetadata).toMatchObject({ processor: "stripe" });
    // made at the clock's now: open; three more days on the clock expire it (the plain organization's stays open)
    const res = await fetch(`${s.server.url}/v1/test-clock/advance`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ by: "3d" }),
    });
    expect(res.status).toBe(200);
    expect((await publicRequest(s.server, "GET", `/v1/checkouts/client/${before.clientSecret}`)).status).toBe(410);
    const product2 = await createProduct(plain, "fixed");
    const other = await plain.sdk.checkouts.create({ products: [product2.id] });
    expect((await publicRequest(s.server, "GET", `/v1/checkouts/client/${other.clientSecret}`)).status).toBe(200);
  });
});
