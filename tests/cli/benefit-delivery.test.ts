// `till benefits github connect|discord connect|grants|regrant` end to end: the CLI as a child process against the
// real server, whose worker delivers to loopback GitHub and Discord peers (tests/helpers/delivery-peers.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { DiscordPeer, GithubPeer, peerEnv } from "../helpers/delivery-peers.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
const github = new GithubPeer();
const discord = new DiscordPeer();

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

interface Grant {
  id: string;
  error: { type: string; message: string } | null;
  properties: Record<string, unknown>;
}

beforeAll(async () => {
  await Promise.all([github.start(), discord.start()]);
  server = await startServer(peerEnv(github, discord));
  await server.worker.start();
  seller = await createSeller(server, "cli-deliver");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
}, 60_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([github.stop(), discord.stop()]);
});

describe("till benefits grants / regrant / connect", () => {
  it("warns when a github_repository or discord benefit is created before the organization connected GitHub or the Discord bot", async () => {
    const gh = ok(await run(["benefits", "create", "github_repository", "--description", "Early", "--repository", "acme/early", "--permission", "pull"]));
    expect(gh.stdout).toMatch(/Created github_repository benefit "Early"/);
    expect(gh.stderr).toMatch(/warning: GitHub is not connected: grants of this benefit wait, not granted, until you connect it \(till benefits github connect\)/);
    const dc = ok(await run(["benefits", "create", "discord", "--description", "Club", "--guild-token", "100000000000000001", "--role", "300000000000000003", "--json"]));
    expect(parseJson<{ warnings: string[] }>(dc.stdout).warnings).toEqual([expect.stringMatching(/Discord bot is not connected.*till benefits discord connect/)]);
    expect(dc.stderr).toMatch(/Discord bot is not connected/);
    const custom = ok(await run(["benefits", "create", "custom", "--description", "Note", "--note", "hi"]));
    expect(custom.stderr).not.toMatch(/warning/);
  }, 60_000);

  it("connects GitHub, lists the failed grant with its error, and regrants it once the repository exists", async () => {
    github.sellerTokens.add("ghp_cli");
    const usage = await run(["benefits", "github", "connect", "--client-id", "x", "--client-secret", "y"]);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toMatch(/--token/);
    ok(await run(["benefits", "github", "connect", "--token", "ghp_cli", "--client-id", "gh-client", "--client-secret", "gh-secret"]));

    const created = parseJson<{ id: string }>(
      ok(await run(["benefits", "create", "github_repository", "--description", "Source", "--repository", "acme/cli", "--permission", "push", "--json"])).stdout,
    );
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [created.id] } });
    const confirmed = await pay(server, await seller.sdk.checkouts.create({ products: [product.id] }));

    // the customer connects their GitHub account; the repository does not exist yet: not_found
    github.addUser({ id: 99, login: "zed" });
    github.oauth.user = "zed";
    const session = await seller.sdk.customerSessions.create({ customerId: confirmed.customerId! });
    const start = await fetch(`${server.url}/v1/customer-portal/customers/me/oauth-accounts/authorize?platform=github`, { headers: { authorization: `Bearer ${session.token}` } });
    const approved = await fetch(((await start.json()) as { url: string }).url, { redirect: "manual" });
    await fetch(approved.headers.get("location")!, { redirect: "manual" });

    // the worker may first fail the grant with account_not_connected (it can run before the customer connects);
    // connecting delivers it again, and that delivery fails with not_found
    let failed: Grant[] = [];
    const settled = () => failed.length === 1 && failed[0]!.error?.type === "not_found";
    for (let i = 0; i < 150 && !settled(); i++) {
      failed = parseJson<Grant[]>(ok(await run(["benefits", "grants", created.id, "--failed", "--json"])).stdout);
      if (!settled()) await new Promise((r) => setTimeout(r, 200));
    }
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error?.type).toBe("not_found");
    const table = ok(await run(["benefits", "grants", created.id])).stdout;
    expect(table).toContain("not_found");

    github.repositories.add("acme/cli");
    const regrant = ok(await run(["benefits", "regrant", failed[0]!.id]));
    expect(regrant.stdout + regrant.stderr).toMatch(/delivered again/);
    for (let i = 0; i < 100 && !github.invitationOf("acme/cli", "zed"); i++) await new Promise((r) => setTimeout(r, 200));
    expect(github.invitationOf("acme/cli", "zed")?.[1].permission).toBe("push");
    let remaining: Grant[] = failed;
    for (let i = 0; i < 50 && remaining.length > 0; i++) {
      remaining = parseJson<Grant[]>(ok(await run(["benefits", "grants", created.id, "--failed", "--json"])).stdout);
      if (remaining.length > 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(remaining).toEqual([]);

    const unknown = await run(["benefits", "regrant", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.exitCode).not.toBe(0);
  }, 90_000);

  it("refuses a Discord bot token Discord refuses, and connects one it accepts", async () => {
    discord.botToken = "good-bot";
    const refused = await run(["benefits", "discord", "connect", "--bot-token", "bad-bot", "--client-id", "123", "--client-secret", "s"]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/refused the bot token/);
    ok(await run(["benefits", "discord", "connect", "--bot-token", "good-bot", "--client-id", "123", "--client-secret", "s"]));
  }, 30_000);
});
