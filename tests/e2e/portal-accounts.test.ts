// The customer portal's connected accounts in a real Chromium against the real server, whose OAuth
// flows and deliveries go to loopback GitHub and Discord peers (tests/helpers/delivery-peers.ts): a customer
// with a repository benefit and a Discord benefit sees both waiting for an account, connects GitHub and Discord
// (the browser goes to each provider and back), sees who is connected and the benefits delivered, and
// disconnects. No script or console errors; no serious accessibility violations.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, seriousViolations } from "../helpers/browser.js";
import { CARDS, createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { DiscordPeer, GithubPeer, peerEnv } from "../helpers/delivery-peers.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let browser: Browser;
let customerId: string;
let repoBenefitId: string;
const github = new GithubPeer();
const discord = new DiscordPeer();
const guild = "110000000000000001";
const role = "330000000000000003";

beforeAll(async () => {
  await Promise.all([github.start(), discord.start()]);
  server = await startServer(peerEnv(github, discord));
  await server.worker.start();
  browser = await launchForPages();
  seller = await createSeller(server, "portal-accounts");
  github.sellerTokens.add("ghp_portal");
  github.repositories.add("acme/book");
  github.addUser({ id: 1234, login: "ada-gh" });
  github.oauth.user = "ada-gh";
  discord.botToken = "portal-bot";
  discord.addGuild(guild, [{ id: "220000000000000002", position: 4, permissions: String(1n << 28n) }, { id: role, position: 1, permissions: "0" }], ["220000000000000002"]);
  discord.users.set("440000000000000004", { id: "440000000000000004", username: "ada-dc" });
  discord.oauth.user = "440000000000000004";
  for (const [platform, body] of [
    ["github", { token: "ghp_portal", client_id: "gh-client", client_secret: "gh-secret" }],
    ["discord", { bot_token: "portal-bot", client_id: "555", client_secret: "dc-secret" }],
  ] as const) {
    expect((await rawRequest(server.url, seller.token, "PUT", `/v1/benefit-integrations/${platform}`, body)).status).toBe(200);
  }
  const repo = await seller.sdk.benefits.create({
    type: "github_repository",
    description: "The book's sources",
    properties: { repositoryOwner: "acme", repositoryName: "book", permission: "pull" },
  });
  const community = await seller.sdk.benefits.create({ type: "discord", description: "Readers' club", properties: { guildToken: guild, roleId: role, kickMember: false } });
  repoBenefitId = repo.id;
  const product = await createProduct(seller, "fixed");
  await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [repo.id, community.id] } });
  const confirmed = await pay(server, await seller.sdk.checkouts.create({ products: [product.id] }));
  customerId = confirmed.customerId!;
}, 90_000);

afterAll(async () => {
  await closePages(browser);
  await server?.close();
  await Promise.all([github.stop(), discord.stop()]);
});

async function open(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) problems.push(msg.text());
  });
  const session = await seller.sdk.customerSessions.create({ customerId });
  await page.goto(`/portal?customer_session_token=${session.token}`);
  return { page, problems };
}

describe("the portal's connected accounts", () => {
  it("connects GitHub and Discord through their OAuth pages, shows the benefits delivered, and disconnects", async () => {
    const { page, problems } = await open();
    const accounts = page.getByRole("region", { name: "Connected accounts" });
    await accounts.waitFor();
    // both benefits wait for an account, and say so
    await expect
      .poll(
        async () => {
          await page.reload();
          await accounts.waitFor();
          return page.getByText(/To get access, connect your (GitHub|Discord) account: Connect (GitHub|Discord)\./).count();
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(2);
    // each offers to connect the account it waits for (a link to the Connect buttons)
    await page.getByRole("link", { name: "Connect GitHub" }).click();
    expect(new URL(page.url()).hash).toBe("#connected-accounts");

    await accounts.getByRole("button", { name: "Connect GitHub" }).click();
    await page.getByText("Your GitHub account is connected.").waitFor({ timeout: 15_000 });
    await accounts.getByText("Connected as").first().waitFor();
    expect(await accounts.textContent()).toContain("ada-gh");

    await accounts.getByRole("button", { name: "Connect Discord" }).click();
    await page.getByText("Your Discord account is connected.").waitFor({ timeout: 15_000 });
    expect(await accounts.textContent()).toContain("ada-dc");

    // the worker delivers: the page shows the invitation and the role once reloaded
    await expect
      .poll(async () => Boolean(github.invitationOf("acme/book", "ada-gh")) && discord.rolesOf(guild, "440000000000000004")?.includes(role), { timeout: 15_000, interval: 300 })
      .toBe(true);
    await expect
      .poll(
        async () => {
          await page.reload();
          await accounts.waitFor();
          return (await page.getByText("Invited to").count()) + (await page.getByText("Your Discord role is given.").count());
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(2);
    expect(await seriousViolations(page)).toEqual([]);

    await accounts.getByRole("button", { name: "Disconnect GitHub" }).click();
    await page.getByText("Your GitHub account is disconnected. Access already given to it stays until the benefit ends.").waitFor();
    await accounts.getByRole("button", { name: "Connect GitHub" }).waitFor();
    // disconnecting forgets the account, not the access it was given (docs/decisions.md)
    expect(github.invitationOf("acme/book", "ada-gh")).toBeTruthy();
    const me = await seller.sdk.customers.get({ id: customerId });
    expect(me.id).toBe(customerId);
    expect(problems).toEqual([]);
  }, 90_000);

  it("the checkout's success view invites the buyer to connect GitHub, with a link to the portal's connected accounts that works", async () => {
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [repoBenefitId] } });
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource")) problems.push(msg.text());
    });
    await page.goto(`/checkout/${checkout.clientSecret}`);
    await page.getByLabel("Email", { exact: true }).fill(uniqueBuyer("success-connect"));
    await page.getByLabel("Name", { exact: true }).fill("Ada Buyer");
    await page.getByLabel("Country", { exact: true }).selectOption("DE");
    await page.getByLabel("Card number", { exact: true }).fill(CARDS.ok);
    await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 34");
    await page.getByLabel("CVC", { exact: true }).fill("123");
    await page.locator("button.pay").click();
    await page.getByRole("heading", { level: 1, name: "Thank you for your purchase" }).waitFor({ timeout: 15_000 });

    const invite = page.getByTestId("connect-accounts");
    await invite.waitFor({ timeout: 15_000 });
    expect(await invite.textContent()).toBe("To get this benefit, connect your GitHub account: connect it in your portal.");
    expect(await seriousViolations(page)).toEqual([]);
    await invite.getByRole("link", { name: "connect it in your portal" }).click();

    // the portal, at its connected accounts: Connect GitHub goes to GitHub and back, and the repository is given
    const accounts = page.getByRole("region", { name: "Connected accounts" });
    await accounts.waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).hash).toBe("#connected-accounts");
    await accounts.getByRole("button", { name: "Connect GitHub" }).click();
    await page.getByText("Your GitHub account is connected.").waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).hash).toBe("#connected-accounts");
    const [order] = (await seller.sdk.orders.list({ productId: product.id, limit: 1 })).result.items;
    await expect
      .poll(async () => {
        const grants = (await rawRequest(server.url, seller.token, "GET", `/v1/benefits/${repoBenefitId}/grants?limit=100`)).body as {
          items: Array<{ customer_id: string; properties: Record<string, unknown> }>;
        };
        return grants.items.find((g) => g.customer_id === order?.customerId)?.properties.granted_account_id;
      }, { timeout: 15_000, interval: 300 })
      .toBe("1234");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("a benefit the seller has not connected yet: the portal says access will follow, with no seller instructions", async () => {
    const fresh = await createSeller(server, "portal-unconnected");
    const repo = await fresh.sdk.benefits.create({
      type: "github_repository",
      description: "Early sources",
      properties: { repositoryOwner: "acme", repositoryName: "book", permission: "pull" },
    });
    const product = await createProduct(fresh, "fixed");
    await fresh.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [repo.id] } });
    const confirmed = await pay(server, await fresh.sdk.checkouts.create({ products: [product.id] }));
    // the worker records why the grant waits: the seller's integration
    await expect
      .poll(async () => {
        const grants = (await rawRequest(server.url, fresh.token, "GET", `/v1/benefits/${repo.id}/grants`)).body as { items: Array<{ error: { type: string } | null }> };
        return grants.items[0]?.error?.type;
      }, { timeout: 15_000, interval: 300 })
      .toBe("integration_missing");
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    const session = await fresh.sdk.customerSessions.create({ customerId: confirmed.customerId! });
    await page.goto(`/portal?customer_session_token=${session.token}`);
    const benefits = page.getByRole("region", { name: "Benefits" });
    await benefits.getByText("Your access will follow: the seller is finishing its setup. Nothing to do on your side.").waitFor({ timeout: 15_000 });
    expect(await page.locator("body").textContent()).not.toMatch(/till benefits|github connect/);
    await page.screenshot({ path: "/tmp/portal-unconnected.png", fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  }, 90_000);
});
