// The seller's Import from Stripe page in Chromium, live, where seller-stripe-import proves it in the sandbox: an
// organization connected to the Stripe stand-in with live keys (its own server, the worker running), a small Stripe
// business seeded with the live key (a product with a price, a customer with a card, a subscription). From the page:
// a dry run followed until planned, the import asked once more and followed until imported — the product and the
// customer read back through the live SDK, none of them on the sandbox side, Stripe's subscription set to end with
// its period — then undone after asking, handing the subscription back to Stripe.
import type Stripe from "stripe";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";
import { startAgainstStripe } from "../helpers/stripe-live-server.js";
import { customerWithCard, peerClient } from "../helpers/stripe-billing-seed.js";
import { StripePeer } from "../helpers/stripe-peer.js";

const KEY = "sk_live_51TillImportLiveAaaaaaaaaaaaa1234";
const PUBLISHABLE = "pk_live_51TillImportLiveBbbbbbbbbbbbbbbb";
const EMAIL = "ada-live@buyers.example.com";

const peer = new StripePeer([{ id: "acct_1SellerImportLive", keys: [{ secret: KEY }, { secret: PUBLISHABLE }] }]);

const pages = useSellerPages("import-live", {}, () => startAgainstStripe(peer));
let stripe: Stripe;
let subscriptionId = "";

beforeAll(async () => {
  const connected = await fetch(`${pages.server.url}/v1/stripe/connection`, {
    method: "PUT",
    headers: { authorization: `Bearer ${await pages.seller.createKey()}`, "content-type": "application/json" },
    body: JSON.stringify({ secret_key: KEY, publishable_key: PUBLISHABLE }),
  });
  expect(connected.status, await connected.text()).toBe(200);
  stripe = peerClient(peer, KEY);
  const product = await stripe.products.create({ name: "Pro live" });
  const price = await stripe.prices.create({ product: product.id, currency: "usd", unit_amount: 1500, recurring: { interval: "month" } });
  const ada = await customerWithCard(stripe, EMAIL);
  subscriptionId = (await stripe.subscriptions.create({ customer: ada.id, items: [{ price: price.id }] })).id;
  expect(price.livemode).toBe(true);
}, 120_000);

afterAll(async () => {
  await peer.stop();
});

/** The run's status, as the page's facts say it once the run has settled. */
const settledAs = (page: Page, words: RegExp) => page.locator("dd").filter({ hasText: words }).waitFor({ timeout: 30_000 });

/** Clicks a button that starts a run: the page then loads that run (another `run` in the address). */
async function startRun(page: Page, button: string) {
  const before = new URL(page.url()).searchParams.get("run");
  await page.getByRole("button", { name: button, exact: true }).click();
  await page.waitForURL((u) => u.searchParams.get("run") !== null && u.searchParams.get("run") !== before);
}

describe("Import from Stripe, live", () => {
  it("plans, imports into the live side only, and undoes after asking", async () => {
    const { server, seller } = pages;
    const page = await pages.open(1280);
    await page.goto("/settings/payments?mode=live");
    await page.getByRole("link", { name: "Import from Stripe" }).click();
    await page.getByRole("heading", { name: "Import from Stripe" }).waitFor();

    await startRun(page, "Start a dry run");
    await settledAs(page, /planned \(dry run/);
    await page.getByRole("heading", { name: "Dry run of acct_1SellerImportLive (live mode)" }).waitFor();
    expect((await seller.sdk.products.list({ query: "Pro live" })).result.items).toEqual([]);
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await page.getByText("1 subscription(s) handed over").waitFor();
    await startRun(page, "Yes, import now");
    await settledAs(page, /^imported$/);
    await checkPage(page, "stripe-import-live-imported");

    // on the live side, and only there
    const products = (await seller.sdk.products.list({ query: "Pro live" })).result.items;
    expect(products.map((p) => [p.name, p.prices.map((x) => ("priceAmount" in x ? x.priceAmount : null))])).toEqual([["Pro live", [1500]]]);
    expect((await seller.sdk.customers.list({ email: EMAIL })).result.items.map((c) => c.email)).toEqual([EMAIL]);
    const sandbox = sdkFor(server, await seller.createSandboxKey());
    expect((await sandbox.products.list({ query: "Pro live" })).result.items).toEqual([]);
    expect((await sandbox.customers.list({ email: EMAIL })).result.items).toEqual([]);
    expect((await stripe.subscriptions.retrieve(subscriptionId)).cancel_at_period_end).toBe(true);

    await page.getByRole("button", { name: "Undo this import" }).click();
    await page.getByRole("button", { name: "Yes, hand them back" }).click();
    await settledAs(page, /^undone/);
    expect((await stripe.subscriptions.retrieve(subscriptionId)).cancel_at_period_end).toBe(false);
    await checkPage(page, "stripe-import-live-undone");
    expect(pages.problems).toEqual([]);
  }, 150_000);
});
