// A payment method added in the portal whose SetupIntent Stripe finishes after the portal answered
// (the customer authenticated it; the page never came back to confirm). Stripe's setup_intent.succeeded keeps the
// method for the customer — once: the page's confirm after it, and a replayed event, find it kept; a method the
// customer removed is not brought back by a late event. A setup that fails keeps nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Seller } from "../helpers/seller.js";
import { PAYMENT_METHODS, portalMethods } from "../helpers/stripe-portal-methods.js";
import { authenticate, confirmationToken, startStripeSandbox, STRIPE_CARDS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;

beforeAll(async () => {
  s = await startStripeSandbox();
  seller = { ...s.seller, sdk: s.sdk, token: s.key };
  await s.server.worker.start();
}, 120_000);
afterAll(async () => {
  await s?.server.worker.stop();
  await s?.close();
});

const { portal, methodsOf, processed, customer } = portalMethods(() => s, () => seller);
const base = PAYMENT_METHODS;

/**
 * Adds a card that asks for 3-D Secure on setup: the portal answers requires_action with the SetupIntent's client
 * secret.
 */
async function addNeedingAction(customerId: string) {
  const res = await portal(customerId, "POST", base, { confirmation_token_id: await confirmationToken(s.peer, STRIPE_CARDS.authOnSetup), set_default: false });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const secret = String((res.body as { client_secret: string }).client_secret);
  expect((res.body as { status: string }).status).toBe("requires_action");
  return { secret, intentId: secret.split("_secret_")[0] ?? "" };
}

describe("a portal setup Stripe finishes later", () => {
  it("setup_intent.succeeded keeps the method once, without the page's confirm; the confirm and a replay find it kept", async () => {
    const customerId = await customer("setup-late");
    const { secret, intentId } = await addNeedingAction(customerId);
    expect((await methodsOf(customerId)).map((m) => m.method_metadata.last4)).toEqual(["4242"]);
    expect((await authenticate(s.peer, intentId, secret)).status).toBe("succeeded");
    await processed(intentId, "setup_intent.succeeded");
    const kept = await until(async () => {
      const items = await methodsOf(customerId);
      return items.length === 2 ? items : undefined;
    }, "the method kept");
    expect(kept.find((m) => m.method_metadata.last4 === "3155")).toMatchObject({ is_default: false });

    // the page comes back and confirms it (set as the default): the same method
    const confirmed = await portal(customerId, "POST", `${base}/confirm`, { setup_intent_id: intentId, set_default: true });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(201);
    const after = await methodsOf(customerId);
    expect(after.map((m) => m.method_metadata.last4).sort()).toEqual(["3155", "4242"]);
    expect(after.find((m) => m.is_default)?.method_metadata.last4).toBe("3155");

    // removed by the customer, then Stripe delivers the event again: it stays removed
    const added = after.find((m) => m.method_metadata.last4 === "3155");
    expect((await portal(customerId, "POST", `${base}/${after.find((m) => m.method_metadata.last4 === "4242")?.id}/default`)).status).toBe(200);
    expect((await portal(customerId, "DELETE", `${base}/${added?.id}`)).status).toBe(204);
    const endpoint = [...s.peer.endpoints.values()][0];
    if (!endpoint) throw new Error("no endpoint");
    const target = { secret: endpoint.secret, url: s.peer.rewriteUrl(endpoint.url), livemode: false };
    expect((await s.peer.deliver(target, { type: "setup_intent.succeeded", data: { object: { id: intentId } } })).status).toBe(200);
    const rows = await processed(intentId, "setup_intent.succeeded", 2);
    expect(rows.map((r) => r.error)).toEqual([null, null]);
    expect((await methodsOf(customerId)).map((m) => m.method_metadata.last4)).toEqual(["4242"]);
  }, 60_000);

  it("a failed setup keeps nothing", async () => {
    const customerId = await customer("setup-failed");
    const { secret, intentId } = await addNeedingAction(customerId);
    expect((await authenticate(s.peer, intentId, secret, "fail")).status).toBe("requires_payment_method");
    await processed(intentId, "setup_intent.setup_failed");
    expect((await methodsOf(customerId)).map((m) => m.method_metadata.last4)).toEqual(["4242"]);
  }, 60_000);
});
