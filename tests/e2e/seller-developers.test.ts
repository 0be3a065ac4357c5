// The seller's developer pages in a real Chromium against the real server: webhook endpoints (the empty list with
// its `till` command, one added with its signing secret shown once and copied, a failed delivery's request and
// response, sent again, the secret reset after asking, the endpoint deleted after asking), API keys (one made read
// only with an expiry, copied, used, revoked after asking) and the sandbox's test clock advanced after asking. At a
// desktop's width and a phone's; axe on every page; every action read back through the SDK or the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { uniqueEmail } from "../helpers/client.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { Receiver } from "../helpers/receiver.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let seller: Seller;
let sandbox: Polar;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

beforeAll(async () => {
  receiver = new Receiver();
  [server, browser] = await Promise.all([startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" }), launchForPages(), receiver.start()]);
  // the jobs worker delivers the webhooks (the test server does not start its own)
  await server.worker.start();
  seller = await createSeller(server, "developers");
  sandbox = sdkFor(server, await seller.createSandboxKey());
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
  await receiver?.stop();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, {
    viewport: { width, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  contexts.push(context);
  return page;
}

const toast = (page: Page, text: string | RegExp) => page.locator(".toast").getByText(text).first().waitFor();
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

describe("the seller's developer pages", () => {
  it("desktop: a webhook endpoint added, its secret copied, a delivery's request and response, sent again, the secret reset, deleted", async () => {
    const page = await open(1280);
    await page.goto("/webhooks?mode=sandbox");
    await page.getByText("No webhook endpoints yet in the sandbox.").waitFor();
    await page.getByText("till webhooks endpoints create https://example.com/hooks --all-events").waitFor();
    await checkPage(page, "webhooks-empty");

    receiver.answer("/dev-hook", 500);
    await page.getByRole("link", { name: "Add endpoint" }).click();
    await page.getByRole("heading", { level: 1, name: "New webhook endpoint" }).waitFor();
    await page.getByLabel("URL").fill(`${receiver.url}/dev-hook`);
    await page.getByRole("button", { name: "Add the endpoint" }).click();
    await toast(page, /^Added the endpoint/);
    const secretBox = page.getByRole("group", { name: "Signing secret" });
    await secretBox.getByRole("button", { name: "Copy" }).click();
    await toast(page, "Copied the signing secret.");
    const [made] = (await sandbox.webhooks.listWebhookEndpoints({})).result.items;
    expect(made?.url).toBe(`${receiver.url}/dev-hook`);
    expect(await clipboard(page)).toBe(made?.secret);
    await checkPage(page, "webhook-new-secret");

    // an event for it: its failed delivery's request and response, then sent again
    await sandbox.customers.create({ email: uniqueEmail("hooked") });
    await receiver.until((hits) => hits.some((h) => h.path === "/dev-hook"));
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    const failed = page.getByRole("row", { name: /customer\.created failed \(HTTP 500\)/ });
    // the list as loaded anew (the empty line, or the pager, shows once the answer is in)
    const reloaded = async () => {
      await page.reload();
      await page.getByRole("navigation", { name: "Pages" }).or(page.getByText("Nothing delivered yet.")).waitFor();
    };
    await expect.poll(async () => { await reloaded(); return failed.count(); }, { timeout: 20_000 }).toBeGreaterThan(0);
    await failed.first().getByRole("button", { name: /^Actions for customer\.created/ }).click();
    await page.getByRole("menuitem", { name: "Request and response" }).click();
    const viewer = page.getByRole("dialog", { name: /^customer\.created, / });
    await viewer.getByLabel("Request body").getByText(/"type": "customer\.created"/).waitFor();
    await viewer.getByText("HTTP 500").first().waitFor();
    await checkPage(page, "webhook-delivery-viewer");
    await page.keyboard.press("Escape");
    await viewer.waitFor({ state: "hidden" });
    await failed.first().getByRole("button", { name: /^Actions for customer\.created/ }).click();
    await page.getByRole("menuitem", { name: "Redeliver" }).click();
    await toast(page, /^Sent customer\.created again/);
    const delivered = page.getByRole("row", { name: /customer\.created delivered \(HTTP 200\)/ });
    await expect.poll(async () => { await reloaded(); return delivered.count(); }, { timeout: 20_000 }).toBeGreaterThan(0);
    await checkPage(page, "webhook-endpoint");

    // the secret reset after asking; Escape first keeps it
    await page.getByRole("button", { name: "Reset the secret…" }).click();
    const reset = page.getByRole("dialog", { name: "Make a new signing secret?" });
    // the dialog is its own chunk: an Escape before it is up would be lost, and it would open after
    await reset.waitFor();
    await page.keyboard.press("Escape");
    await reset.waitFor({ state: "hidden" });
    expect((await sandbox.webhooks.getWebhookEndpoint({ id: made?.id ?? "" })).secret).toBe(made?.secret);
    await page.getByRole("button", { name: "Reset the secret…" }).click();
    await reset.getByRole("button", { name: "Yes, make a new secret" }).click();
    await toast(page, "Made a new signing secret: put it in your app now.");
    const renewed = (await sandbox.webhooks.getWebhookEndpoint({ id: made?.id ?? "" })).secret;
    expect(renewed).not.toBe(made?.secret);
    await page.getByRole("group", { name: "Signing secret" }).getByText(renewed).waitFor();

    // deleted from the list's row menu after asking
    await page.getByRole("link", { name: "Webhooks" }).first().click();
    await page.getByRole("button", { name: `Actions for ${receiver.url}/dev-hook` }).click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    const dialog = page.getByRole("dialog", { name: `Delete the endpoint ${receiver.url}/dev-hook?` });
    await checkPage(page, "webhook-delete-dialog");
    await dialog.getByRole("button", { name: "Yes, delete the endpoint" }).click();
    await toast(page, `Deleted the endpoint ${receiver.url}/dev-hook.`);
    expect((await sandbox.webhooks.listWebhookEndpoints({})).result.items).toEqual([]);
    await page.getByText("No webhook endpoints yet in the sandbox.").waitFor();
    expect(problems).toEqual([]);
  }, 240_000);

  it("phone: an API key made read only with an expiry, copied, used and revoked; the sandbox's clock advanced", async () => {
    const page = await open(375);
    await page.goto("/api-keys?mode=live");
    await page.getByText("No live API keys yet.").waitFor();
    await page.getByText("till keys create ci --scope products:read --expires 90d").waitFor();
    await checkPage(page, "phone-api-keys-empty");

    await page.goto("/api-keys?mode=sandbox");
    const form = page.getByRole("form", { name: "New API key" });
    await form.getByLabel("Name").fill("ci read");
    await form.getByLabel("Access").selectOption("read");
    await form.getByLabel("Expires after").selectOption({ label: "30 days" });
    await form.getByRole("button", { name: "Create the key" }).click();
    await toast(page, "Created ci read: copy it now, it is not shown again.");
    await page.getByRole("group", { name: "New key ci read" }).getByRole("button", { name: "Copy" }).click();
    await toast(page, "Copied the new key ci read.");
    const key = await clipboard(page);
    expect(key).toMatch(/^till_test_/);
    const row = page.getByRole("row", { name: /ci read till_test_\S+ read only \d{4}-\d\d-\d\d/ });
    await row.waitFor();
    await checkPage(page, "phone-api-keys");
    // it reads, and may not write
    const withKey = sdkFor(server, key);
    await withKey.products.list({});
    await expect(withKey.products.create({ name: "Nope", prices: [{ amountType: "free" }] })).rejects.toThrow();

    await row.getByRole("button", { name: "Actions for ci read" }).click();
    await page.getByRole("menuitem", { name: "Revoke…" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke ci read?" });
    await checkPage(page, "phone-api-key-revoke-dialog");
    await dialog.getByRole("button", { name: "Yes, revoke it" }).click();
    await toast(page, "Revoked ci read: calls with it are refused from now on.");
    await expect(withKey.products.list({})).rejects.toThrow();
    await expect.poll(() => page.getByRole("row", { name: /ci read/ }).count()).toBe(0);

    // the test clock: a bad duration said at the field, then 31 days after asking
    await page.goto("/settings/developers?mode=sandbox");
    await page.getByText("Sandbox time").waitFor();
    await page.getByLabel("Advance by").fill("soon");
    await page.getByRole("button", { name: "Advance the clock…" }).click();
    await page.getByText(/^Give a duration such as 31d/).waitFor();
    await page.getByLabel("Advance by").fill("31d");
    await page.getByRole("button", { name: "Advance the clock…" }).click();
    const ask = page.getByRole("dialog", { name: "Advance the sandbox's clock by 31d?" });
    await checkPage(page, "phone-clock-dialog");
    await ask.getByRole("button", { name: "Advance by 31d" }).click();
    await toast(page, /^Sandbox time is now .*: 0 renewals on the way\./);
    const clock = (await (await fetch(`${server.url}/v1/test-clock`, { headers: { authorization: `Bearer ${await seller.createSandboxKey()}` } })).json()) as { offset_ms: number };
    expect(clock.offset_ms).toBeGreaterThanOrEqual(31 * 86_400_000 - 60_000);
    await page.getByText("31 days ahead of the wall clock").waitFor();
    await checkPage(page, "phone-settings-clock");
    // live has none: the page says where it is
    await page.goto("/settings/developers?mode=live");
    await page.getByRole("link", { name: "open it in the sandbox" }).waitFor();
    expect(problems).toEqual([]);
  }, 180_000);
  it("the other widths, by keyboard: webhooks on a phone; API keys' scopes and the developer settings on a desktop", async () => {
    const page = await open(375);
    await sandbox.webhooks.createWebhookEndpoint({ url: "https://example.com/phone", format: "raw", events: ["order.created"] });
    await page.goto("/webhooks?mode=sandbox");
    const menu = page.getByRole("button", { name: "Actions for https://example.com/phone" });
    await menu.waitFor();
    await checkPage(page, "phone-webhooks");
    await menu.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "Open" }).waitFor();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
    await page.getByText("Nothing delivered yet.").waitFor();
    await page.getByText("till trigger order.paid").waitFor();
    await checkPage(page, "phone-webhook-endpoint");
    await page.goto("/webhooks/new?mode=sandbox");
    await page.getByLabel("URL").waitFor();
    await checkPage(page, "phone-webhook-new");

    const desk = await open(1280);
    await desk.goto("/api-keys?mode=sandbox");
    await desk.getByRole("row", { name: /till_test_/ }).first().waitFor();
    await desk.getByLabel("Access").selectOption("custom");
    await desk.getByRole("group", { name: "Scopes" }).getByLabel("products").selectOption("write");
    await checkPage(desk, "api-keys");
    await desk.goto("/settings/developers?mode=sandbox");
    await desk.getByText("Sandbox time").waitFor();
    await checkPage(desk, "settings-developers-sandbox");
    expect(problems).toEqual([]);
  }, 120_000);
});
