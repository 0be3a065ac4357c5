// The seller app's meters in a real Chromium against the real server: an empty list on the live side that
// teaches the next step (with the `till` command); on the sandbox side a meter made with the filter builder — a
// condition, then an "any of" group of two — while the page counts the ingested events the filter matches, read
// back through the SDK; its page (facts, chart), edited, then archived from a row's menu after its confirmation
// (Escape first changes nothing) and restored. At a desktop's width and a phone's every page passes axe and is
// photographed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
let sandbox: Polar;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchForPages()]);
  seller = await createSeller(server, "meters");
  sandbox = sdkFor(server, await seller.createSandboxKey());
}, 150_000);

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

const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).first().waitFor();
const count = (page: Page) => page.getByTestId("live-count").innerText();

describe("the seller app's meters", () => {
  it("desktop: a meter built with conditions and a group, counted live, edited, archived and restored", async () => {
    const page = await open(1280);
    await page.goto("/meters?mode=live");
    await page.getByText("No meters yet.").waitFor();
    await page.getByText('till meters create "API calls" --event-name api_call --count').waitFor();
    await checkPage(page, "desktop-meters-empty");

    const customer = await sandbox.customers.create({ email: "meter-user@example.com" });
    const events = [
      { name: "api.call", metadata: { tier: "pro" } },
      { name: "api.call", metadata: { tier: "pro" } },
      { name: "api.call", metadata: { tier: "team" } },
      { name: "api.call", metadata: { tier: "free" } },
      { name: "other", metadata: { tier: "pro" } },
    ];
    await sandbox.events.ingest({ events: events.map((e) => ({ ...e, customerId: customer.id })) });

    await page.goto("/meters?mode=sandbox");
    await page.getByRole("link", { name: "Create your first meter" }).click();
    await page.getByRole("heading", { level: 1, name: "New meter" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Paid API calls");
    const first = page.getByRole("group", { name: "Filter, condition 1" });
    await first.getByLabel("Value").fill("api.call");
    await expect.poll(() => count(page)).toBe("4 events match this filter now.");
    // an "any of" group: tier is pro, or tier is team
    await page.getByRole("button", { name: "Add a group" }).click();
    const group = page.getByRole("group", { name: "Filter, group 2", exact: true });
    await group.getByLabel("Events match").selectOption("or");
    await group.getByRole("group", { name: "Filter, group 2, condition 1" }).getByLabel("Property").fill("metadata.tier");
    await group.getByRole("group", { name: "Filter, group 2, condition 1" }).getByLabel("Value").fill("pro");
    await expect.poll(() => count(page)).toBe("2 events match this filter now.");
    await group.getByRole("button", { name: "Add a condition to filter, group 2" }).click();
    await group.getByRole("group", { name: "Filter, group 2, condition 2" }).getByLabel("Property").fill("metadata.tier");
    await group.getByRole("group", { name: "Filter, group 2, condition 2" }).getByLabel("Value").fill("team");
    await expect.poll(() => count(page)).toBe("3 events match this filter now.");
    await checkPage(page, "desktop-meter-new");
    await page.getByRole("button", { name: "Create meter" }).click();
    await page.getByRole("heading", { level: 1, name: "Paid API calls" }).waitFor();
    await toast(page, "Created Paid API calls.");
    const meter = (await sandbox.meters.list({})).result.items[0];
    expect(meter?.filter).toEqual({
      conjunction: "and",
      clauses: [
        { property: "name", operator: "eq", value: "api.call" },
        {
          conjunction: "or",
          clauses: [
            { property: "metadata.tier", operator: "eq", value: "pro" },
            { property: "metadata.tier", operator: "eq", value: "team" },
          ],
        },
      ],
    });
    expect(meter?.aggregation).toEqual({ func: "count" });
    await page.getByText('name is "api.call" and (metadata.tier is "pro" or metadata.tier is "team")').waitFor();
    await expect.poll(async () => (await page.getByTestId("meter-total").innerText()).trim()).toBe("3");
    await checkPage(page, "desktop-meter");

    // edit: the name, and a condition removed (the count follows)
    await page.getByRole("link", { name: "Edit meter" }).click();
    await page.getByLabel("Name", { exact: true }).fill("API calls");
    await expect.poll(() => count(page)).toBe("3 events match this filter now.");
    await page.getByRole("button", { name: "Remove filter, group 2", exact: true }).click();
    await expect.poll(() => count(page)).toBe("4 events match this filter now.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved API calls.");
    const edited = await sandbox.meters.get({ id: meter?.id ?? "" });
    expect([edited.name, edited.filter.clauses.length]).toEqual(["API calls", 1]);

    // archive from the row's menu: Escape keeps it, the confirmation archives it; restore
    await page.goto("/meters?mode=sandbox");
    const menu = page.getByRole("button", { name: "Actions for API calls" });
    await menu.click();
    await page.getByRole("menuitem", { name: "Archive…" }).click();
    const dialog = page.getByRole("dialog", { name: "Archive API calls?" });
    await dialog.waitFor();
    await checkPage(page, "desktop-meters-archive-dialog");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await sandbox.meters.get({ id: meter?.id ?? "" })).archivedAt).toBeFalsy();
    await menu.click();
    await page.getByRole("menuitem", { name: "Archive…" }).click();
    await dialog.getByRole("button", { name: "Yes, archive it" }).click();
    await toast(page, "Archived API calls.");
    expect((await sandbox.meters.get({ id: meter?.id ?? "" })).archivedAt).toBeTruthy();
    await page.getByRole("link", { name: "Show archived" }).click();
    await page.getByRole("button", { name: "Actions for API calls" }).click();
    await page.getByRole("menuitem", { name: "Restore" }).click();
    await toast(page, "Restored API calls.");
    expect((await sandbox.meters.get({ id: meter?.id ?? "" })).archivedAt).toBeFalsy();
    await checkPage(page, "desktop-meters");
    expect(problems).toEqual([]);
  }, 180_000);

  it("phone: the list as cards, the builder, a meter's page", async () => {
    const page = await open(375);
    const meter = (await sandbox.meters.list({})).result.items[0];
    await page.goto("/meters?mode=sandbox");
    await page.getByRole("button", { name: "Actions for API calls" }).waitFor();
    await checkPage(page, "phone-meters");
    await page.goto(`/meters/${meter?.id ?? ""}/edit?mode=sandbox`);
    await page.getByRole("button", { name: "Add a group" }).click();
    await page.getByRole("group", { name: "Filter, group 2", exact: true }).waitFor();
    await expect.poll(() => count(page)).toBe("4 events match this filter now.");
    await checkPage(page, "phone-meter-edit");
    await page.goto(`/meters/${meter?.id ?? ""}?mode=sandbox`);
    await page.getByTestId("meter-total").waitFor();
    await checkPage(page, "phone-meter");
    expect(problems).toEqual([]);
  }, 120_000);
});
