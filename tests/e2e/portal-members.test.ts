// The portal's team page in a real Chromium: the owner of a team customer adds a member and a
// billing manager, changes a role, removes a member and sees the refusals they cannot get past (no role for
// themselves); a plain member signing in sees their benefits but neither the team nor the billing sections.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePages, launchForPages } from "../helpers/browser.js";
import { uniqueEmail } from "../helpers/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  server = await startServer();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-members");
}, 60_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
});

async function open(url: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, locale: "en-US", timezoneId: "UTC" });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  await page.goto(url);
  await page.getByRole("heading", { name: "Your purchases" }).waitFor();
  return page;
}

describe("the portal's team", () => {
  it("the owner adds, changes and removes members; a member sees no team and no billing", async () => {
    const team = await seller.sdk.customers.create({ type: "team", email: uniqueEmail("team-e2e"), name: "Acme", owner: { email: "owner-e2e@example.com", name: "Olga" } });
    const { customerPortalUrl } = await seller.sdk.customerSessions.create({ customerId: team.id });
    const page = await open(customerPortalUrl);

    const section = page.getByRole("region", { name: "Team" });
    const list = section.getByRole("list", { name: "Members" });
    await expect.poll(() => list.innerText()).toContain("Olga (owner-e2e@example.com)");
    expect(await list.innerText()).toContain("(you)");
    // the owner's own row has no controls
    expect(await section.getByRole("combobox", { name: "Role of owner-e2e@example.com" }).count()).toBe(0);

    const form = section.getByRole("form", { name: "Add a member" });
    await form.getByLabel("Email").fill("ann-e2e@example.com");
    await form.getByLabel("Name").fill("Ann");
    await form.getByLabel("Role").selectOption("billing_manager");
    await form.getByRole("button", { name: "Add member" }).click();
    await section.getByText("ann-e2e@example.com is a billing manager of the team.").waitFor();
    await form.getByLabel("Email").fill("joe-e2e@example.com");
    await form.getByRole("button", { name: "Add member" }).click();
    await section.getByText("joe-e2e@example.com is a member of the team.").waitFor();

    await section.getByRole("combobox", { name: "Role of joe-e2e@example.com" }).selectOption("billing_manager");
    await section.getByText("joe-e2e@example.com is now a billing manager.").waitFor();
    await section.getByRole("combobox", { name: "Role of joe-e2e@example.com" }).selectOption("member");
    await section.getByText("joe-e2e@example.com is now a member.").waitFor();

    await section.getByRole("button", { name: "Remove ann-e2e@example.com from the team" }).click();
    await section.getByText("ann-e2e@example.com is no longer a member of the team.").waitFor();
    expect(await list.innerText()).not.toContain("ann-e2e@example.com");
    const members = (await seller.sdk.members.listMembers({ customerId: team.id })).result.items.map((m) => [m.email, m.role]);
    expect(members).toEqual([["owner-e2e@example.com", "owner"], ["joe-e2e@example.com", "member"]]);
    await page.screenshot({ path: "/tmp/i29-portal-members.png", fullPage: true });

    // Joe, a plain member: the page opens, without the team and the billing sections
    const joe = members[1] && (await seller.sdk.members.listMembers({ customerId: team.id, role: "member" })).result.items[0];
    const joeSession = await seller.sdk.customerSessions.create({ customerId: team.id, memberId: joe?.id ?? "" });
    const joePage = await open(joeSession.customerPortalUrl);
    expect(await joePage.locator(".lead").innerText()).toContain("joe-e2e@example.com");
    expect(await joePage.getByRole("region", { name: "Team" }).count()).toBe(0);
    expect(await joePage.getByRole("region", { name: /Billing details|Subscriptions|Orders/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);
});
