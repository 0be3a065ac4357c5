// The seller app's subscription, order and settings pages in the sandbox, where the other files prove them live:
// a sandbox subscription's plan changed as previewed (the order billed read back through the SDK, its billing reason
// said in a seller's words on its page), then part of that order refunded and listed in the refunds view with its
// reason and status in a seller's words; an add-on offered from the product's editor, then added to the plan that
// offers it; a seat-based subscription's seats raised now, fewer scheduled, the scheduled change dropped; the team
// (the live organization's, whichever side is shown) inviting from the sandbox side; the status page saying a
// sandbox sells from the start; a settings form saved on the sandbox twin. One page visit per action at a desktop's
// width; read back through the API.
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Locator, Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { organizationSandbox } from "../../server/db/schema/index.js";
import { refundReason, refundStatus } from "../../web/src/seller/words.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { sdkFor } from "../helpers/seller.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("sandbox-side");
let sandbox: Polar;
let sandboxKey = "";
let planSub = "";
let seatsSub = "";
let seatsName = "";
const ids = { starter: "", team: "", storage: "" };

const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
const flat = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
const toast = (page: Page, text: string | RegExp) => page.locator(".toast").getByText(text).first().waitFor();
const line = async (scope: Locator, testId: string, label: string) =>
  flat(await scope.getByTestId(testId).locator("dt", { hasText: new RegExp(`^${label}$`) }).locator("xpath=following-sibling::dd[1]").textContent());
const sandboxApi = (method: string, path: string, body?: unknown) => rawRequest(pages.server.url, sandboxKey, method, path, body);

/** A paid sandbox subscription to `productId` (`seats` of it for a seat-based plan). */
async function subscribe(productId: string, seats?: number): Promise<string> {
  const checkout = await sandbox.checkouts.create({ products: [productId], ...(seats ? { seats } : {}) });
  await pay(pages.server, checkout, { customerEmail: uniqueBuyer("sandbox-side") });
  const [order] = (await sandbox.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order?.subscriptionId) throw new Error("no subscription");
  return order.subscriptionId;
}

beforeAll(async () => {
  sandboxKey = await pages.seller.createSandboxKey();
  sandbox = sdkFor(pages.server, sandboxKey);
  const monthly = (name: string, amount: number) =>
    sandbox.products.create({ name, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: "usd" }] });
  const [starter, team, storage] = [await monthly("Starter", 1000), await monthly("Team", 4000), await monthly("Storage", 500)];
  [ids.starter, ids.team, ids.storage] = [starter.id, team.id, storage.id];
  const seats = await sandbox.products.create({
    name: "Seats plan",
    recurringInterval: "month",
    prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { seatTierType: "volume", tiers: [{ minSeats: 1, maxSeats: 20, pricePerSeat: 1000 }] } }],
  });
  seatsName = seats.name;
  planSub = await subscribe(starter.id);
  seatsSub = await subscribe(seats.id, 2);
}, 180_000);

/** Opens the subscription's change dialog (`button` names it), lets `fill` set it, chooses `proration` (billed now
 *  unless told), and waits for the preview. */
async function review(page: Page, button: RegExp, plan: string, fill: (dialog: Locator) => Promise<void>, proration = "invoice") {
  await page.getByRole("button", { name: button }).click();
  const dialog = page.getByRole("dialog", { name: `Change ${plan}` });
  await dialog.waitFor();
  await fill(dialog);
  await dialog.getByLabel("Proration").selectOption(proration);
  await dialog.getByRole("button", { name: "Review the change" }).click();
  await dialog.getByRole("button", { name: "Confirm the change" }).waitFor();
  return dialog;
}

describe("the seller app's subscriptions, orders and settings in the sandbox", () => {
  it("a plan changed as previewed; its order's billing reason said; part of it refunded and listed", async () => {
    const page = await pages.open(1280);
    await page.goto(`/subscriptions/${planSub}?mode=sandbox`);
    await page.getByRole("heading", { level: 1, name: /^Starter · / }).waitFor();
    const dialog = await review(page, /^Change plan/, "Starter", async (d) => {
      const select = d.getByLabel("New plan", { exact: true });
      await select.locator(`option[value="${ids.team}"]`).waitFor({ state: "attached" });
      await select.selectOption(ids.team);
    });
    const total = await line(dialog, "billed-now", "Total");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await toast(page, `Changed: Team; billed ${total} now.`);
    expect((await sandbox.subscriptions.get({ id: planSub })).productId).toBe(ids.team);
    const [order] = (await sandbox.orders.list({ subscriptionId: planSub, sorting: ["-created_at"], limit: 10 })).result.items;
    expect([order?.billingReason, usd(order?.totalAmount ?? -1)]).toEqual(["subscription_update", total]);

    // the order's page: its billing reason in a seller's words; a dollar refunded after asking
    await page.goto(`/orders/${order?.id ?? ""}?mode=sandbox`);
    await page.getByText("Change of a subscription", { exact: true }).waitFor();
    await page.getByLabel("Amount to refund").fill("1.00");
    await page.getByRole("button", { name: "Refund…" }).click();
    await page.getByRole("dialog", { name: "Refund $1.00?" }).getByRole("button", { name: "Yes, refund $1.00" }).click();
    await toast(page, "Refunded $1.00.");
    const [refund] = (await sandbox.refunds.list({ orderId: order?.id ?? "" })).result.items;
    expect([refund?.amount, refund?.reason]).toEqual([100, "customer_request"]);

    await page.goto("/orders?mode=sandbox&view=refunds");
    const row = page.getByRole("region", { name: "Refunds" }).locator("tbody tr");
    await row.getByText("$1.00").waitFor();
    expect(flat(await row.innerText())).toContain(`${refundReason("customer_request")} ${refundStatus(refund?.status ?? "")}`);
    await checkPage(page, "sandbox-refunds");
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("the product editor offers an add-on, read back through the API", async () => {
    const page = await pages.open(1280);
    await page.goto(`/products/${ids.team}/edit?mode=sandbox`);
    await page.getByRole("heading", { level: 1, name: "Edit Team" }).waitFor();
    const section = page.getByRole("region", { name: "Add-ons" });
    const select = section.getByLabel("Add-on to offer", { exact: true });
    await select.locator(`option[value="${ids.storage}"]`).waitFor({ state: "attached" });
    await select.selectOption(ids.storage);
    await section.getByRole("button", { name: "Offer this add-on" }).click();
    await page.getByRole("list", { name: "Add-ons offered" }).getByText("Storage ($5.00 / month)").waitFor();
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved Team.");
    await page.getByTestId("add-ons").getByRole("link", { name: "Storage ($5.00 / month)" }).waitFor();
    await checkPage(page, "sandbox-product-add-ons");
    expect((await sandboxApi("GET", `/v1/products/${ids.team}`)).body.add_on_ids).toEqual([ids.storage]);
    expect(pages.problems).toEqual([]);
  }, 120_000);

  it("an add-on added to the plan that offers it, billed as previewed", async () => {
    const page = await pages.open(1280);
    await page.goto(`/subscriptions/${planSub}?mode=sandbox`);
    await page.getByRole("heading", { level: 1, name: /^Team · / }).waitFor();
    const dialog = await review(page, /^Change plan, seats or add-ons/, "Team", async (d) => {
      const add = d.getByLabel("Add an add-on");
      await add.locator(`option[value="${ids.storage}"]`).waitFor({ state: "attached" });
      await add.selectOption(ids.storage);
      await d.getByLabel("Its quantity").fill("2");
    });
    const total = await line(dialog, "billed-now", "Total");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await toast(page, `Changed the add-ons of Team; billed ${total} now.`);
    const items = (await sandboxApi("GET", `/v1/subscriptions/${planSub}`)).body.items as Array<{ product_id: string; quantity: number }>;
    expect(items.map((i) => [i.product_id, i.quantity])).toEqual([[ids.storage, 2]]);
    await page.getByRole("region", { name: "The subscription's items" }).getByRole("cell", { name: "Storage" }).waitFor();
    expect(pages.problems).toEqual([]);
  }, 120_000);

  it("seats raised now; fewer from the next period, scheduled, then dropped after asking", async () => {
    const page = await pages.open(1280);
    await page.goto(`/subscriptions/${seatsSub}?mode=sandbox`);
    await page.getByRole("heading", { level: 1, name: new RegExp(`^${seatsName} · `) }).waitFor();
    let dialog = await review(page, /^Change plan or seats/, seatsName, (d) => d.getByLabel("Seats").fill("5"));
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    await toast(page, new RegExp(`^Changed: ${seatsName}, 5 seats; billed `));
    expect((await sandbox.subscriptions.get({ id: seatsSub })).seats).toBe(5);

    dialog = await review(page, /^Change plan or seats/, seatsName, (d) => d.getByLabel("Seats").fill("3"), "next_period");
    await dialog.getByRole("button", { name: "Confirm the change" }).click();
    const pending = page.getByRole("region", { name: "Scheduled change" });
    await pending.getByText(/it 3 seats\.$/).waitFor();
    expect((await sandbox.subscriptions.get({ id: seatsSub })).pendingUpdate).toMatchObject({ seats: 3 });
    await pending.getByRole("button", { name: "Drop the scheduled change…" }).click();
    await page.getByRole("button", { name: "Yes, drop it" }).click();
    await toast(page, "Dropped the scheduled change.");
    expect(await sandbox.subscriptions.get({ id: seatsSub })).toMatchObject({ seats: 5, pendingUpdate: null });
    expect(pages.problems).toEqual([]);
  }, 180_000);

  it("the team invites from the sandbox side; the status says a sandbox sells; a settings form saved on the twin", async () => {
    const { seller, server } = pages;
    const page = await pages.open(1280);
    await page.goto("/settings/team?mode=sandbox");
    const invite = page.getByRole("form", { name: "Invite someone" });
    await invite.getByLabel("Email").fill("sandbox-ann@example.com");
    await invite.getByRole("button", { name: "Send the invitation" }).click();
    await toast(page, /^Invited sandbox-ann@example\.com/);
    const invited = await seller.client.get<Array<{ email: string }>>(`/api/auth/organization/list-invitations?organizationId=${seller.organizationId}`);
    expect(invited.body.map((i) => i.email)).toEqual(["sandbox-ann@example.com"]);

    await page.goto("/settings/organization?mode=sandbox");
    await page.getByText("a sandbox takes test payments from the start").waitFor();
    expect(await page.getByTestId("org-status").innerText()).toBe("Active");

    await page.goto("/settings/dunning?mode=sandbox");
    const dunning = page.getByRole("form", { name: "Failed renewals" });
    await dunning.getByLabel("Retry after (days, comma-separated)").fill("1, 3");
    await dunning.getByRole("button", { name: "Save dunning" }).click();
    await toast(page, "Saved: failed renewals.");
    const [twin] = await server.database.db.select().from(organizationSandbox).where(eq(organizationSandbox.liveOrganizationId, seller.organizationId));
    const saved = await sandboxApi("GET", `/v1/organizations/${twin?.organizationId ?? ""}`);
    expect(saved.body.dunning_settings).toMatchObject({ retry_intervals_days: [1, 3] });
    const live = await rawRequest(server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`);
    expect(live.body.dunning_settings).not.toMatchObject({ retry_intervals_days: [1, 3] });
    expect(pages.problems).toEqual([]);
  }, 120_000);
});
