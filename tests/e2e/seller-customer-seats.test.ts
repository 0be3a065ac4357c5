// The seller app's customer page for a team customer, in a real Chromium against the real server: the seats of
// their seat-based subscription (how many are taken, who holds each, claimed or invited) and their members with
// roles, read from /v1/customer-seats and /v1/members; the list pages' shared toolbar (search, the side shown and
// a link to the other) and the side navigation's icons in its groups. Desktop and phone, axe-clean, photographed.
import { describe, expect, it } from "vitest";
import { buySeats, seatsProduct } from "../helpers/seats.js";
import { checkPage, useSellerPages } from "../helpers/seller-browser.js";

const pages = useSellerPages("customer-seats");

describe("a team customer's page", () => {
  it("shows the seats and the members; the customers list's toolbar; the navigation's icons", async () => {
    const { server, seller } = pages;
    const { product } = await seatsProduct(seller, { description: "Team workspace", note: null });
    const bought = await buySeats(server, seller, product, 3, "team");
    await seller.sdk.customerSeats.assignSeat({ subscriptionId: bought.subscriptionId, email: "invited@example.com" });
    const members = (await seller.sdk.members.listMembers({ customerId: bought.customerId })).result.items;

    for (const width of [1280, 390]) {
      const page = await pages.open(width);
      await page.goto(`/customers/${bought.customerId}?mode=live`);
      const seats = page.getByRole("region", { name: `Seats of ${product.name}` });
      await seats.waitFor();
      await page.getByText(`${product.name}: 1 of 3 seats taken`).waitFor();
      expect(await seats.getByText("invited@example.com").count()).toBe(1);
      expect(await seats.getByText("Pending", { exact: true }).count()).toBe(1);
      // the members, each with their role, or the hint that there are none
      if (members.length > 0) {
        const table = page.getByRole("region", { name: "The customer's members" });
        for (const m of members) expect(await table.getByText(m.email).count()).toBeGreaterThan(0);
      } else await page.getByText("No members:").waitFor();
      await checkPage(page, `${width > 500 ? "desktop" : "phone"}-customer-seats`);
    }

    const page = await pages.open(1280);
    await page.goto("/customers?mode=live");
    await page.getByRole("searchbox", { name: "Search by email or name" }).fill(bought.buyer);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=/);
    await page.getByRole("link", { name: bought.buyer }).waitFor();
    expect(await page.locator(".toolbar .side-mark").innerText()).toBe("Live");
    expect(await page.getByRole("link", { name: "Show sandbox" }).getAttribute("href")).toMatch(/^\/customers\?.*mode=sandbox/);
    const nav = page.getByRole("navigation", { name: "Sections" });
    for (const group of ["Sales", "Catalog", "Customers", "Usage", "Developers", "Settings"]) await nav.getByRole("list", { name: group }).waitFor();
    // every section's link has its icon, hidden from screen readers (the link's name stays its label)
    expect(await nav.locator("a svg[aria-hidden=true]").count()).toBe(await nav.getByRole("link").count());
    expect(await nav.getByRole("link", { name: "Customers", exact: true }).getAttribute("aria-current")).toBe("page");
    await checkPage(page, "desktop-customers-toolbar");
    expect(pages.problems).toEqual([]);
  }, 240_000);
});
