// A plan change in the customer portal, in a real Chromium against the real server: the customer chooses another
// plan, the portal shows what the change bills now (its lines, tax and total) and the next renewal, Cancel changes
// nothing, Confirm changes the plan, and the order billed has exactly the amount shown; a seat change the same way.
// axe-clean throughout.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "../helpers/browser.js";
import { subscription } from "../../server/db/schema/index.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { section, text, usd, usePortalPages } from "../helpers/portal-pages.js";
import { buySeats } from "../helpers/seats.js";

const DAY = 86_400_000;
const portal = usePortalPages("portal-change");

describe("changing the plan in the portal", () => {
  it("shows what the change bills now and at the renewal, and Confirm bills exactly that", async () => {
    // a seller taxed in France that bills changes now: a Starter and a Team monthly plan
    await portal.api("PATCH", `/v1/organizations/${portal.seller.organizationId}`, {
      country: "FR",
      tax_settings: { registrations: [{ country: "FR" }], prices_include_tax: false },
      subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
    });
    const starter = await portal.seller.sdk.products.create({ name: "Starter", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const team = await portal.seller.sdk.products.create({ name: "Team", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "usd" }] });
    const checkout = await portal.seller.sdk.checkouts.create({ products: [starter.id] });
    const confirmed = await pay(portal.server, checkout, { customerEmail: uniqueBuyer("portal-change") });
    const customerId = confirmed.customerId ?? "";
    const [sub] = (await portal.seller.sdk.subscriptions.list({ customerId })).result.items;
    if (!sub) throw new Error("no subscription");
    // ten days into a thirty-day period
    const start = new Date(Date.now() - 10 * DAY);
    const period = { currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start };
    await portal.server.database.db.update(subscription).set(period).where(eq(subscription.id, sub.id));

    const { page } = await portal.open(customerId, { viewport: { width: 1280, height: 900 } });
    const subs = section(page, "Subscriptions");
    await subs.getByRole("heading", { name: "Starter" }).waitFor();

    // Cancel leaves the plan as it is
    await subs.getByRole("button", { name: "Change plan" }).click();
    const form = page.getByRole("form", { name: "Change the plan of Starter" });
    await form.getByLabel("New plan").selectOption({ label: "Team" });
    await form.getByRole("button", { name: "Review the change" }).click();
    const preview = page.getByRole("region", { name: "Changing Starter: what you will pay" });
    await preview.waitFor();
    await preview.getByRole("button", { name: "Cancel" }).click();
    await subs.getByRole("button", { name: "Change plan" }).waitFor();
    expect((await portal.seller.sdk.subscriptions.get({ id: sub.id })).productId).toBe(starter.id);

    await subs.getByRole("button", { name: "Change plan" }).click();
    await form.getByLabel("New plan").selectOption({ label: "Team" });
    await form.getByRole("button", { name: "Review the change" }).click();
    await preview.waitFor();
    const billed = preview.getByTestId("billed-now");
    const shown = await text(billed);
    expect(shown).toContain("Tax");
    expect(shown).toContain("Amount due now");
    const total = await text(billed.locator("dt", { hasText: /^Total$/ }).locator("xpath=following-sibling::dd[1]"));
    expect(await text(preview)).toContain(`Next renewal on`);
    expect(await text(preview)).toContain(usd(4800)); // Team with 20% tax at the renewal
    expect(await seriousViolations(page)).toEqual([]);

    await preview.getByRole("button", { name: "Confirm change" }).click();
    await subs.getByRole("status").filter({ hasText: "Done: your subscription is now Team." }).waitFor();
    await subs.getByRole("heading", { name: "Team" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    expect((await portal.seller.sdk.subscriptions.get({ id: sub.id })).productId).toBe(team.id);
    const orders = (await portal.seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["-created_at"], limit: 10 })).result.items;
    const change = orders[0];
    expect(change?.billingReason).toBe("subscription_update");
    expect(change?.totalAmount).toBeGreaterThan(0);
    expect(total).toBe(usd(change?.totalAmount ?? -1));
    expect(shown).toContain(usd(change?.taxAmount ?? -1));
  });

  it("a seat change: the preview before Confirm, and the order billed is the one shown", async () => {
    await portal.api("PATCH", `/v1/organizations/${portal.seller.organizationId}`, {
      subscription_settings: { allow_multiple_subscriptions: true, allow_customer_updates: true, proration_behavior: "invoice" },
    });
    const seats = await createProduct(portal.seller, "seats");
    const bought = await buySeats(portal.server, portal.seller, seats, 2, "portal-change-seats");
    const start = new Date(Date.now() - 12 * DAY);
    const period = { currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * DAY), startedAt: start };
    await portal.server.database.db.update(subscription).set(period).where(eq(subscription.id, bought.subscriptionId));
    const { page } = await portal.open(bought.customerId, { viewport: { width: 1280, height: 900 } });
    const subs = section(page, "Subscriptions");
    await subs.getByRole("button", { name: "Change seats" }).click();
    const form = page.getByRole("form", { name: /^Change the seats of / });
    await form.getByLabel("Number of seats").fill("5");
    await form.getByRole("button", { name: "Review the change" }).click();
    const preview = page.getByRole("region", { name: /: what you will pay$/ });
    await preview.waitFor();
    const billed = preview.getByTestId("billed-now");
    const total = await text(billed.locator("dt", { hasText: /^Total$/ }).locator("xpath=following-sibling::dd[1]"));
    expect((await portal.seller.sdk.subscriptions.get({ id: bought.subscriptionId })).seats).toBe(2);
    expect(await seriousViolations(page)).toEqual([]);

    await preview.getByRole("button", { name: "Confirm change" }).click();
    await subs.getByRole("status").filter({ hasText: "Done: your subscription is now" }).waitFor();
    expect((await portal.seller.sdk.subscriptions.get({ id: bought.subscriptionId })).seats).toBe(5);
    const [change] = (await portal.seller.sdk.orders.list({ subscriptionId: bought.subscriptionId, sorting: ["-created_at"], limit: 10 })).result.items;
    expect(change?.billingReason).toBe("subscription_update");
    expect(total).toBe(usd(change?.totalAmount ?? -1));
  });
});
