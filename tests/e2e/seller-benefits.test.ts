// A product's benefits and its editor's other parts in a real Chromium against the real server: on the product's
// page, an empty organization's benefits teach the next step; benefits of several types made in the page and
// attached at once (a note, license keys, GitHub access, meter credits, a feature flag, files uploaded from the
// page), one changed in place, one detached; a Discord role checked against the seller's bot's guild (a Discord
// peer on loopback), refused for a role above the bot's, made for one below; in the editor a custom field asked, a
// trial, private visibility and an image uploaded from the page. Each is read back through the SDK; every page
// passes axe at a desktop's width and a phone's, and is photographed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Polar } from "@polar-sh/sdk";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { closePages, launchForPages } from "../helpers/browser.js";
import { checkPage, signedInPage } from "../helpers/seller-browser.js";
import { rawRequest } from "../helpers/api.js";
import { DiscordPeer } from "../helpers/delivery-peers.js";

let server: TestServer;
let browser: Browser;
let seller: Seller;
let sandbox: Polar;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

// the seller's Discord bot and its guild, on loopback (its routes are discord-api-types'): the bot's role (Manage
// Roles, position 4) gives the club's role (position 1), not the moderators' (position 6)
const discord = new DiscordPeer();
const GUILD = "110000000000000071";
const BOT_ROLE = "220000000000000072";
const CLUB_ROLE = "330000000000000073";
const MODS_ROLE = "330000000000000074";

beforeAll(async () => {
  await discord.start();
  discord.botToken = "benefits-bot";
  const roles = [
    { id: BOT_ROLE, position: 4, permissions: String(1n << 28n) },
    { id: CLUB_ROLE, position: 1, permissions: "0" },
    { id: MODS_ROLE, position: 6, permissions: "0" },
  ];
  discord.addGuild(GUILD, roles, [BOT_ROLE]);
  [server, browser] = await Promise.all([startServer({ TILL_DISCORD_API_URL: `${discord.url}/api`, TILL_DISCORD_OAUTH_URL: discord.url }), launchForPages()]);
  seller = await createSeller(server, "benefits");
  sandbox = sdkFor(server, await seller.createSandboxKey());
}, 150_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await closePages(browser);
  await server?.close();
  await discord.stop();
});

async function open(width: number): Promise<Page> {
  const { page, context } = await signedInPage(browser, server.url, seller.user.email, problems, { viewport: { width, height: 900 } });
  contexts.push(context);
  return page;
}

const toast = (page: Page, text: string) => page.locator(".toast").getByText(text).first().waitFor();
// a 1×1 PNG
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

async function newBenefit(page: Page, type: string, description: string, fill: (form: ReturnType<Page["getByRole"]>) => Promise<void>) {
  await page.getByRole("button", { name: /^(New benefit|Create the first benefit)$/ }).click();
  const form = page.getByRole("form", { name: "New benefit" });
  await form.getByLabel("Type").selectOption({ label: type });
  await form.getByLabel("Description").fill(description);
  await fill(form);
  await form.getByRole("button", { name: "Create and attach" }).click();
  await toast(page, `Created ${description} and attached it.`);
}

describe("a product's benefits and the editor's other parts", () => {
  it("desktop: benefits of every type made and attached, one changed, one detached", async () => {
    const meter = await sandbox.meters.create({ name: "Tokens", filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "llm" }] }, aggregation: { func: "count" } });
    const product = await sandbox.products.create({ name: "Pro", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1900, priceCurrency: "usd" }] });
    const page = await open(1280);
    await page.goto(`/products/${product.id}?mode=sandbox`);
    await page.getByText("No benefits yet.").waitFor();
    await page.getByText('till benefits create license_keys --description "License key" --prefix ACME --activations 3').waitFor();
    await checkPage(page, "desktop-benefits-empty");

    await newBenefit(page, "Custom (a note for the buyer)", "Onboarding call", (f) => f.getByLabel("Note").fill("Book it at https://example.com/call"));
    await newBenefit(page, "License keys", "License key", async (f) => {
      await f.getByLabel("Key prefix").fill("PRO");
      await f.getByLabel("Activations per key").fill("3");
    });
    await newBenefit(page, "GitHub repository access", "SDK access", async (f) => {
      await f.getByLabel("Repository owner").fill("acme");
      await f.getByLabel("Repository name").fill("sdk");
    });
    await newBenefit(page, "Meter credits", "Monthly tokens", async (f) => {
      await f.getByLabel("Meter").selectOption({ label: "Tokens" });
      await f.getByLabel("Units credited each period").fill("1000");
    });
    await newBenefit(page, "Feature flag", "Beta features", async () => {});
    await page.getByRole("button", { name: "New benefit" }).click();
    await checkPage(page, "desktop-benefit-new");
    const form = page.getByRole("form", { name: "New benefit" });
    await form.getByLabel("Type").selectOption({ label: "File downloads" });
    await form.getByLabel("Description").fill("The e-book");
    await form.getByLabel("Files to upload").setInputFiles({ name: "book.txt", mimeType: "text/plain", buffer: Buffer.from("chapter one") });
    await form.getByRole("button", { name: "Create and attach" }).click();
    await toast(page, "Created The e-book and attached it.");

    const attached = (await sandbox.products.get({ id: product.id })).benefits;
    expect(attached.map((b) => b.type).sort()).toEqual(["custom", "downloadables", "feature_flag", "github_repository", "license_keys", "meter_credit"]);
    const credit = attached.find((b) => b.type === "meter_credit");
    expect(credit?.properties).toMatchObject({ meterId: meter.id, units: 1000 });
    expect(attached.find((b) => b.type === "license_keys")?.properties).toMatchObject({ prefix: "PRO", activations: { limit: 3 } });
    expect(attached.find((b) => b.type === "github_repository")?.properties).toMatchObject({ repositoryOwner: "acme", repositoryName: "sdk", permission: "pull" });

    // change one in place; detach another by unticking it
    await page.getByRole("button", { name: "Edit License key" }).click();
    const edit = page.getByRole("form", { name: "Edit License key" });
    await edit.getByLabel("Key prefix").fill("PRO2");
    await edit.getByRole("button", { name: "Save the benefit" }).click();
    await toast(page, "Saved License key.");
    const key = attached.find((b) => b.type === "license_keys");
    expect((await sandbox.benefits.get({ id: key?.id ?? "" })).properties).toMatchObject({ prefix: "PRO2" });
    await page.getByLabel(/^Beta features/).uncheck();
    await page.getByRole("button", { name: "Save benefits" }).click();
    await toast(page, "Benefits saved (5).");
    expect((await sandbox.products.get({ id: product.id })).benefits.map((b) => b.description)).not.toContain("Beta features");
    await checkPage(page, "desktop-benefits");
    expect(problems).toEqual([]);
  }, 240_000);

  it("desktop: a Discord role made in the page, checked against the bot's guild, read back through the SDK", async () => {
    const product = await sandbox.products.create({ name: "Club", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    const page = await open(1280);
    await page.goto(`/products/${product.id}?mode=sandbox`);
    await page.getByRole("button", { name: /^(New benefit|Create the first benefit)$/ }).click();
    const form = page.getByRole("form", { name: "New benefit" });
    await form.getByLabel("Type").selectOption({ label: "Discord role" });
    await form.getByText("No Discord bot is connected yet").waitFor();
    await form.getByRole("button", { name: "Cancel" }).click();

    // the sandbox's bot connected (`till benefits discord connect`): the form checks the role against its guild
    const bot = { bot_token: "benefits-bot", client_id: "555", client_secret: "dc-secret" };
    const connected = await rawRequest(server.url, await seller.createSandboxKey(), "PUT", "/v1/benefit-integrations/discord", bot);
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    await page.reload();
    await page.getByRole("button", { name: /^(New benefit|Create the first benefit)$/ }).click();
    await form.getByLabel("Type").selectOption({ label: "Discord role" });
    await form.getByText("Your Discord bot is connected").waitFor();
    await form.getByLabel("Description").fill("Readers' club");
    await form.getByLabel("Server (guild) id").fill(GUILD);
    await form.getByLabel("Role id").fill(MODS_ROLE);
    await form.getByLabel("Remove the member when the benefit ends").check();
    await form.getByRole("button", { name: "Create and attach" }).click();
    // a role above the bot's own is refused, said at the role's field (not as the server's path), and nothing is made
    const role = form.getByLabel("Role id");
    await expect.poll(() => role.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await role.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`[id="${describedBy.split(" ").pop()}"]`).innerText()).toBe(`The bot's highest role must be above role ${MODS_ROLE} to give it.`);
    expect(await form.getByText("properties.").count()).toBe(0);
    await checkPage(page, "desktop-benefit-discord-refused");
    expect((await sandbox.benefits.list({ typeFilter: "discord" })).result.items).toEqual([]);
    await form.getByLabel("Role id").fill(CLUB_ROLE);
    await form.getByRole("button", { name: "Create and attach" }).click();
    await toast(page, "Created Readers' club and attached it.");
    await checkPage(page, "desktop-benefit-discord");

    const [club] = (await sandbox.products.get({ id: product.id })).benefits;
    expect(club).toMatchObject({ type: "discord", description: "Readers' club" });
    expect((await sandbox.benefits.get({ id: club?.id ?? "" })).properties).toMatchObject({ guildToken: GUILD, roleId: CLUB_ROLE, kickMember: true });
    expect(problems).toEqual([]);
  }, 120_000);

  it("desktop and phone: the editor asks a custom field, sets a trial and visibility, uploads an image", async () => {
    const field = await sandbox.customFields.create({ type: "text", name: "Company", slug: "company", properties: {} });
    const product = (await sandbox.products.list({ query: "Pro" })).result.items[0];
    const page = await open(1280);
    await page.goto(`/products/${product?.id ?? ""}/edit?mode=sandbox`);
    await page.getByLabel("Who sees it").selectOption({ label: "Private: sold only through links and the API" });
    await page.getByLabel("Free trial").selectOption({ label: "Days" });
    await page.getByLabel("Trial length").fill("7");
    await page.getByLabel("Ask a custom field").selectOption({ label: "Company" });
    await page.getByLabel("Company: an answer is required").check();
    await page.getByLabel("Add images").setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: PNG });
    await page.getByRole("list", { name: "Images" }).getByText("cover.png").waitFor();
    await checkPage(page, "desktop-product-edit-extras");
    await page.getByRole("button", { name: "Save changes" }).click();
    await toast(page, "Saved Pro.");
    const saved = await sandbox.products.get({ id: product?.id ?? "" });
    expect([saved.visibility, saved.trialInterval, saved.trialIntervalCount]).toEqual(["private", "day", 7]);
    expect(saved.attachedCustomFields.map((a) => [a.customFieldId, a.required])).toEqual([[field.id, true]]);
    expect(saved.medias.map((m) => m.name)).toEqual(["cover.png"]);

    const phone = await open(375);
    await phone.goto(`/products/${product?.id ?? ""}/edit?mode=sandbox`);
    await phone.getByRole("list", { name: "Images" }).getByText("cover.png").waitFor();
    await checkPage(phone, "phone-product-edit-extras");
    await phone.goto(`/products/${product?.id ?? ""}?mode=sandbox`);
    await phone.getByRole("button", { name: "New benefit" }).click();
    await phone.getByRole("form", { name: "New benefit" }).waitFor();
    await checkPage(phone, "phone-benefit-new");
    expect(problems).toEqual([]);
  }, 180_000);
});
