// A seat-based subscription's seats changed from the seller app in Chromium against the real server: more seats
// billed now, the dialog's preview equal to the order it bills (read back through the SDK); fewer seats from the
// next period, shown on the page as a scheduled change, then dropped after asking once more (Keep the change first
// changes nothing). Live side, at a desktop's width and a phone's; axe-clean and photographed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { closePages, launchForPages } from "../helpers/browser.js";
import { createProduct } from "../helpers/checkout.js";
import { buySeats } from "../helpers/seats.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
let subId = "";
let productName = "";

const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "sub-seats");
  // volume tiers: 1–4 seats at $10 each, 5–20 at $8 each
  const product = await createProduct(seller, "seats");
  productName = product.name;
  subId = (await buySeats(server, seller, product, 2)).subscriptionId;
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 900 } });
  contexts.push(context);
  return page;
}

/** Opens the change dialog, asks for `seats` with `proration`, and waits for its preview. */
async function review(page: Page, seats: string, proration: string) {
  await page.getByRole("button", { name: "Change plan or seats…" }).click();
  const dialog = page.getByRole("dialog", { name: `Change ${productName}` });
  await dialog.getByLabel("Seats").fill(seats);
  await dialog.getByLabel("Proration").selectOption(proration);
  await dialog.getByRole("button", { name: "Review the change" }).click();
  await dialog.getByRole("button", { name: "Confirm the change" }).waitFor();
  return dialog;
}

describe("a subscription's seats changed in the seller app", () => {
  it("desktop: more seats billed now as previewed; fewer from the next period, scheduled, then dropped", async () => {
    const page = await open(1280);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByRole("heading", { level: 1, name: new RegExp(`^${productName} · `) }).waitFor();

    let dialog = await review(page, "5", "invoice");
    const billed = flat(await dialog.getByTestId("billed-now").textContent());
    await checkPage(page, "desktop-subscription-seats-preview");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await page.locator(".toast").getByText(new RegExp(`^Changed: ${productName}, 5 seats; billed `)).waitFor();
    const changed = await seller.sdk.subscriptions.get({ id: subId });
    expect([changed.seats, changed.amount]).toEqual([5, 4000]);
    const [order] = (await seller.sdk.orders.list({ subscriptionId: subId, sorting: ["-created_at"], limit: 10 })).result.items;
    expect(order?.billingReason).toBe("subscription_update");
    expect(billed).toContain(usd(order?.totalAmount ?? -1));

    dialog = await review(page, "3", "next_period");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await dialog.waitFor({ state: "hidden" });
    const pending = page.getByRole("region", { name: "Scheduled change" });
    await pending.getByText(/it 3 seats\.$/).waitFor();
    expect((await seller.sdk.subscriptions.get({ id: subId })).pendingUpdate).toMatchObject({ seats: 3 });
    await checkPage(page, "desktop-subscription-scheduled");

    await pending.getByRole("button", { name: "Drop the scheduled change…" }).click();
    await page.getByRole("dialog", { name: "Drop the scheduled change?" }).getByRole("button", { name: "Keep the change" }).click();
    expect((await seller.sdk.subscriptions.get({ id: subId })).pendingUpdate).toMatchObject({ seats: 3 });
    await pending.getByRole("button", { name: "Drop the scheduled change…" }).click();
    await page.getByRole("button", { name: "Yes, drop it" }).click();
    await page.locator(".toast").getByText("Dropped the scheduled change.").waitFor();
    await pending.waitFor({ state: "detached" });
    expect(await seller.sdk.subscriptions.get({ id: subId })).toMatchObject({ seats: 5, pendingUpdate: null });
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone: the seats' preview and a scheduled change fit", async () => {
    const page = await open(390);
    await page.goto(`/subscriptions/${subId}?mode=live`);
    await page.getByRole("heading", { level: 1, name: new RegExp(`^${productName} · `) }).waitFor();
    const dialog = await review(page, "4", "next_period");
    await checkPage(page, "phone-subscription-seats-preview");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await page.getByRole("region", { name: "Scheduled change" }).getByText(/it 4 seats\.$/).waitFor();
    await checkPage(page, "phone-subscription-scheduled");
    expect(problems).toEqual([]);
  }, 120_000);
});
