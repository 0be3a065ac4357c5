// A subscription's add-ons in the customer portal, in a real Chromium against the real server: the customer adds an
// add-on with a quantity (by keyboard), the portal shows what that bills now and at the renewal, Confirm bills exactly
// the amount shown; they change its quantity and remove it, and the subscription's items follow each step; with the
// seller's next_period proration the change waits for the renewal and the portal shows it; in the pseudo-locale every
// word is the catalog's. axe-clean at each step, on a desktop and on a phone.
import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "../helpers/browser.js";
import { subscription } from "../../server/db/schema/index.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { section, text, usd, usePortalPages } from "../helpers/portal-pages.js";
import { pseudoCatalog } from "../../shared/i18n/pseudo.js";

const DAY = 86_400_000;
const portal = usePortalPages("portal-add-ons");

/** The seller bills a change now; with `downgradesWait`, a change that lowers the price waits for the renewal. */
async function settings(downgradesWait: boolean) {
  const res = await portal.api("PATCH", `/v1/organizations/${portal.seller.organizationId}`, {
    subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
    plan_settings: { downgrades_at_period_end: downgradesWait },
  });
  expect(res.status).toBe(200);
}

interface Item {
  product_id: string;
  quantity: number;
  amount: number;
}
/** The subscription as the seller's API has it (till's `items` and `pending_update`, which the SDKs drop). */
async function held(id: string) {
  const res = await portal.api("GET", `/v1/subscriptions/${id}`);
  const body = res.body as { items: Item[]; pending_update: { items: Item[] | null } | null };
  return { items: body.items.map((i) => [i.product_id, i.quantity]), pending: body.pending_update?.items?.map((i) => [i.product_id, i.quantity]) ?? null };
}

/** Team (20.00 a month) offering Storage (5.00 a unit) and Support (3.00 a seat); a subscriber 10 days in a period. */
async function subscribed() {
  const storage = await portal.seller.sdk.products.create({ name: "Storage", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
  const support = await portal.seller.sdk.products.create({
    name: "Support",
    recurringInterval: "month",
    prices: [{ amountType: "seat_based", priceCurrency: "usd", seatTiers: { tiers: [{ minSeats: 1, maxSeats: 50, pricePerSeat: 300 }] } }],
  });
  const team = await portal.api("POST", "/v1/products/", {
    name: "Team", recurring_interval: "month", prices: [{ amount_type: "fixed", price_amount: 2000, price_currency: "usd" }], add_on_ids: [storage.id, support.id],
  });
  expect(team.status).toBe(201);
  const checkout = await portal.seller.sdk.checkouts.create({ products: [team.body.id as string] });
  const confirmed = await pay(portal.server, checkout, { customerEmail: uniqueBuyer("portal-add-ons") });
  const customerId = confirmed.customerId ?? "";
  const [sub] = (await portal.seller.sdk.subscriptions.list({ customerId })).result.items;
  if (!sub) throw new Error("no subscription");
  const start = new Date(Date.now() - 10 * DAY);
  await portal.server.database.db.update(subscription).set({ currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start }).where(eq(subscription.id, sub.id));
  return { storage, support, sub, customerId };
}

/** Opens the add-ons form, lets `choose` set it, reviews it: the preview region (axe-clean, screenshot taken). */
async function review(page: Page, choose: (form: Locator) => Promise<void>, shot: string) {
  const subs = section(page, "Subscriptions");
  await subs.getByRole("button", { name: "Change add-ons" }).click();
  const form = page.getByRole("form", { name: "Change the add-ons of Team" });
  await choose(form);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `.tmp/portal-add-ons-${shot}-form.png`, fullPage: true });
  await form.getByRole("button", { name: "Review the change" }).click();
  const preview = page.getByRole("region", { name: "Changing Team: what you will pay" });
  await preview.waitFor();
  expect(await seriousViolations(page)).toEqual([]);
  // the page fits its width (a phone's too): nothing wider than the viewport
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()?.width ?? 0);
  await page.screenshot({ path: `.tmp/portal-add-ons-${shot}.png`, fullPage: true });
  return preview;
}

/** Confirm, and wait for the portal's word that it is done. */
async function confirm(page: Page, preview: Locator, done: string | RegExp) {
  await preview.getByRole("button", { name: "Confirm change" }).click();
  await section(page, "Subscriptions").getByRole("status").filter({ hasText: done }).waitFor();
  expect(await seriousViolations(page)).toEqual([]);
}

const latestOrder = async (subscriptionId: string) => (await portal.seller.sdk.orders.list({ subscriptionId, sorting: ["-created_at"], limit: 10 })).result.items[0];

describe("add-ons in the portal", () => {
  it("adds one with a quantity billed as previewed, changes its quantity and removes it; the items follow", async () => {
    await settings(false);
    const { storage, sub, customerId } = await subscribed();
    const { page } = await portal.open(customerId, { viewport: { width: 1280, height: 900 } });
    const subs = section(page, "Subscriptions");
    await subs.getByRole("heading", { name: "Team" }).waitFor();

    // add Storage × 3 by keyboard: the button, the checkbox (Space), One more (Enter) twice
    const preview = await review(page, async (form) => {
      const storageBox = form.getByRole("checkbox", { name: /^Storage/ });
      await storageBox.focus();
      await page.keyboard.press("Space");
      expect(await storageBox.isChecked()).toBe(true);
      await form.getByRole("button", { name: "One more Storage" }).focus();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Enter");
      expect(await form.getByLabel("Quantity of Storage").inputValue()).toBe("3");
      expect(await text(form)).toContain("$3.00 / month per seat");
    }, "add");
    const billed = preview.getByTestId("billed-now");
    const total = await text(billed.locator("dt", { hasText: /^Total$/ }).locator("xpath=following-sibling::dd[1]"));
    expect(await text(preview)).toContain(`Next renewal on`);
    expect(await text(preview)).toContain(usd(3500)); // Team and Storage × 3 at the renewal
    expect((await held(sub.id)).items).toEqual([]);
    await confirm(page, preview, "Done: the add-ons of Team are changed.");
    expect((await held(sub.id)).items).toEqual([[storage.id, 3]]);
    const order = await latestOrder(sub.id);
    expect(order?.billingReason).toBe("subscription_update");
    expect(order?.totalAmount).toBeGreaterThan(0);
    expect(total).toBe(usd(order?.totalAmount ?? -1));
    expect(await text(subs.getByTestId("add-ons-held"))).toBe("Storage × 3: $15.00 / month");

    // its quantity down to 1
    const fewer = await review(page, async (form) => {
      await form.getByLabel("Quantity of Storage").fill("1");
    }, "quantity");
    expect(await text(fewer)).toContain(usd(2500));
    await confirm(page, fewer, "Done: the add-ons of Team are changed.");
    expect((await held(sub.id)).items).toEqual([[storage.id, 1]]);
    expect(await text(subs.getByTestId("add-ons-held"))).toBe("Storage: $5.00 / month");

    // removed
    const none = await review(page, async (form) => {
      await form.getByRole("checkbox", { name: /^Storage/ }).uncheck();
    }, "remove");
    expect(await text(none)).toContain(usd(2000));
    await confirm(page, none, "Done: the add-ons of Team are changed.");
    expect((await held(sub.id)).items).toEqual([]);
    await subs.getByTestId("add-ons-held").waitFor({ state: "detached" });
  });

  it("a downgrade waits for the renewal (next_period), on a phone: nothing billed now, the portal shows the add-ons then", async () => {
    await settings(true);
    const { support, sub, customerId } = await subscribed();
    const { page } = await portal.open(customerId, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const subs = section(page, "Subscriptions");
    await subs.getByRole("heading", { name: "Team" }).waitFor();
    // two Support seats: a raise, billed now
    const raise = await review(page, async (form) => {
      await form.getByRole("checkbox", { name: /^Support/ }).check();
      await form.getByLabel("Seats of Support").fill("2");
    }, "phone-add");
    await confirm(page, raise, "Done: the add-ons of Team are changed.");
    expect(await held(sub.id)).toEqual({ items: [[support.id, 2]], pending: null });
    const before = await latestOrder(sub.id);
    expect(before?.billingReason).toBe("subscription_update");

    // one seat fewer: a downgrade, which the seller lets wait for the renewal
    const lower = await review(page, async (form) => {
      await form.getByRole("button", { name: "One less Support" }).click();
    }, "phone-next-period");
    expect(await text(lower)).toContain("Nothing is billed now.");
    expect(await text(lower)).toContain(usd(2300)); // Team and one Support seat at the renewal
    await confirm(page, lower, /^Done: the add-ons of Team change on /);
    expect(await held(sub.id)).toEqual({ items: [[support.id, 2]], pending: [[support.id, 1]] });
    expect((await latestOrder(sub.id))?.id).toBe(before?.id);
    expect(await text(subs.getByTestId("add-ons-held"))).toBe("Support × 2: $6.00 / month");
    expect(await text(subs.getByTestId("add-ons-pending"))).toBe("Support: $3.00 / month");
    expect(await text(subs)).toMatch(/From \w+ \d+, \d{4}, your add-ons will be:/);
    // the next change starts from the set the renewal writes
    await subs.getByRole("button", { name: "Change add-ons" }).click();
    expect(await page.getByLabel("Seats of Support").inputValue()).toBe("1");
    await page.getByRole("form", { name: "Change the add-ons of Team" }).getByRole("button", { name: "Cancel" }).click();
    // the page fits the phone: nothing wider than the viewport
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: ".tmp/portal-add-ons-phone-pending.png", fullPage: true });
  });

  it("in the pseudo-locale every word of the add-ons (held, pending, the form) comes from the catalog", async () => {
    await settings(false);
    const { storage, sub, customerId } = await subscribed();
    const patch = (body: unknown) => portal.api("PATCH", `/v1/subscriptions/${sub.id}`, body);
    expect((await patch({ items: [{ product_id: storage.id, quantity: 2 }], proration_behavior: "invoice" })).status).toBe(200);
    expect((await patch({ items: [{ product_id: storage.id, quantity: 1 }], proration_behavior: "next_period" })).status).toBe(200);
    const { page } = await portal.open(customerId, { viewport: { width: 360, height: 740 }, locale: "en-XA" });
    const subs = page.locator("section[aria-labelledby=subscriptions-heading]");
    await subs.getByTestId("add-ons-pending").waitFor();
    const pseudo = pseudoCatalog(JSON.parse(readFileSync(new URL("../../web/src/i18n/portal/en.json", import.meta.url), "utf8")) as Record<string, string>);
    await subs.getByRole("button", { name: pseudo["addOns.change"], exact: true }).click();
    await subs.locator("fieldset.add-ons").waitFor();
    const words = await subs.evaluate((root) => {
      const out: string[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) out.push(node.textContent?.trim() ?? "");
      for (const el of root.querySelectorAll("[aria-label]")) out.push(el.getAttribute("aria-label") ?? "");
      return out.filter(Boolean);
    });
    // data: the seller's product names, the stepper's signs and a date as Intl writes it (the renewal's)
    const isData = (w: string) => ["Team", "Storage", "Support", "−", "+"].includes(w) || /^[A-Z][a-z]+ \d{1,2}, \d{4}$/.test(w);
    const untranslated = words.filter((w) => !w.includes("[") && !isData(w));
    expect(untranslated).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: ".tmp/portal-add-ons-pseudo.png", fullPage: true });
  });
});
