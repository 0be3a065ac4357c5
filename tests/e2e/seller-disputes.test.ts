// The seller app's disputes in a real Chromium, live: an organization connected to the Stripe stand-in with live
// keys, a checkout paid through it, then the customer's bank disputes the charge — `charge.dispute.created` signed
// as Stripe signs it and delivered to till's Stripe endpoint, recorded and processed by the worker. The disputes
// view lists it with its status, reason and amount in a seller's words; the order's page says it at the top with a
// link to it, lists it in its disputes section and shows the card Stripe charged; accepted after its dialog, it
// closes lost at Stripe. A desktop's width and a phone's.
import { describe, expect, it, afterAll } from "vitest";
import type { Page } from "playwright-core";
import { pay } from "../helpers/checkout.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";
import { startAgainstStripe } from "../helpers/stripe-live-server.js";
import { StripePeer } from "../helpers/stripe-peer.js";
import { PeerCharges } from "../helpers/stripe-peer-charges.js";
import { confirmationToken, STRIPE_CARDS } from "../helpers/stripe-sandbox.js";

const KEY = "sk_live_51TillDisputesAaaaaaaaaaaaaaa1234";
const PUBLISHABLE = "pk_live_51TillDisputesBbbbbbbbbbbbbbbb";

const peer = new StripePeer([{ id: "acct_1SellerDisputes", keys: [{ secret: KEY }, { secret: PUBLISHABLE }] }]);
// the PaymentIntents till makes become charges the test can dispute
const charges = new PeerCharges(peer, { followPayments: true });

const pages = useSellerPages("disputes-web", {}, async () => {
  const server = await startAgainstStripe(peer);
  charges.deliverToOrigin = server.url;
  return server;
});
afterAll(async () => {
  await peer.stop();
});

const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
const rowsOf = (page: Page, region: string) => page.getByRole("region", { name: region }).locator("tbody tr").allInnerTexts();

let orderId = "";

describe("the seller app's disputes, live", () => {
  it("desktop: a dispute Stripe opened, in the disputes view and on its order's page", async () => {
    const { server, seller } = pages;
    const key = await seller.createKey();
    const connected = await fetch(`${server.url}/v1/stripe/connection`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ secret_key: KEY, publishable_key: PUBLISHABLE }),
    });
    expect(connected.status, await connected.text()).toBe(200);
    const product = await seller.sdk.products.create({ name: "Course", prices: [{ amountType: "fixed", priceAmount: 4900, priceCurrency: "usd" }] });
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const token = await confirmationToken(peer, STRIPE_CARDS.visa, undefined, PUBLISHABLE);
    await pay(server, checkout, { customerEmail: "dora@example.com", confirmationTokenId: token }, null);
    await expect.poll(async () => (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items[0]?.status).toBe("paid");
    orderId = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items[0]!.id;
    const charge = [...charges.charges.values()].find((c) => c.metadata.checkout_id === checkout.id);
    if (!charge) throw new Error("Stripe holds no charge of the checkout");
    expect(charge.livemode).toBe(true);

    // the customer's bank disputes it: Stripe's signed charge.dispute.created reaches till's endpoint
    await charges.openDispute(charge.id, { reason: "product_not_received" });
    expect(charges.deliveries.filter((d) => d.event.type === "charge.dispute.created").map((d) => d.status)).toEqual([200]);
    await expect.poll(async () => (await seller.sdk.disputes.list({ orderId })).result.items[0]?.status, { timeout: 30_000 }).toBe("needs_response");

    const page = await pages.open(1280);
    await page.goto("/orders?mode=live&view=disputes");
    await expect.poll(async () => (await rowsOf(page, "Disputes")).map(flat)).toEqual([expect.stringMatching(/Needs your response.*Product not received.*\$49\.00/)]);
    await checkPage(page, "desktop-disputes-one");

    // its order: the note at the top links to the dispute; the section lists it; the card Stripe charged
    await page.getByRole("region", { name: "Disputes" }).getByRole("link", { name: "Open the order" }).click();
    await page.getByRole("heading", { level: 1, name: /^Order of / }).waitFor();
    const note = page.getByRole("note").filter({ hasText: "disputes" });
    expect(flat(await note.textContent())).toMatch(
      /^The customer's bank disputes \$49\.00 of this order \(Product not received\): Needs your response, evidence due \d{4}-\d{2}-\d{2}\. See the dispute$/,
    );
    expect((await rowsOf(page, "The order's disputes")).map(flat)).toEqual([expect.stringMatching(/Needs your response.*Product not received.*\$49\.00/)]);
    await page.getByRole("region", { name: "The order's payments" }).getByText("Visa •••• 4242", { exact: true }).waitFor();
    await checkPage(page, "desktop-order-disputed");
    await note.getByRole("link", { name: "See the dispute" }).click();
    await page.waitForURL(new RegExp(`view=disputes&order_id=${orderId}`));
    await expect.poll(async () => (await rowsOf(page, "Disputes")).length).toBe(1);
    await page.getByRole("link", { name: "Show every dispute" }).waitFor();

    // accepted after its dialog (Escape first changes nothing): closed at Stripe, lost
    const menu = page.getByRole("button", { name: /^Actions for dispute of / });
    await menu.click();
    await page.getByRole("menuitem", { name: "Accept the dispute…" }).click();
    const dialog = page.getByRole("dialog", { name: "Accept this dispute?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await seller.sdk.disputes.list({ orderId })).result.items[0]?.status).toBe("needs_response");
    await menu.click();
    await page.getByRole("menuitem", { name: "Accept the dispute…" }).click();
    await dialog.getByRole("button", { name: "Yes, accept the dispute" }).click();
    await page.locator(".toast").getByText("Accepted the dispute: $49.00 goes back to the customer.").waitFor();
    await expect.poll(async () => (await seller.sdk.disputes.list({ orderId })).result.items[0]?.status).toBe("lost");
    await expect.poll(async () => (await rowsOf(page, "Disputes")).map(flat)).toEqual([expect.stringMatching(/Lost.*Product not received.*—.*\$49\.00/)]);
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("phone: the disputes view and the disputed order fit and pass axe", async () => {
    const page = await pages.open(375);
    await page.goto("/orders?mode=live&view=disputes");
    await page.getByRole("region", { name: "Disputes" }).getByText("Lost", { exact: true }).waitFor();
    await checkPage(page, "phone-disputes-one");
    await page.goto(`/orders/${orderId}?mode=live`);
    // a closed dispute is still said, without a date for evidence
    const note = page.getByRole("note").filter({ hasText: "disputes" });
    await note.getByRole("link", { name: "See the dispute" }).waitFor();
    expect(flat(await note.textContent())).toContain("(Product not received): Lost. See the dispute");
    await checkPage(page, "phone-order-disputed");
    expect(pages.problems).toEqual([]);
  }, 120_000);
});
