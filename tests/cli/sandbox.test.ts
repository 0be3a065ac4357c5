// The sandbox from the terminal (cli/mode.ts): --sandbox/--live, TILL_SANDBOX and `till sandbox on|off` choose the
// side of a session, an API key's prefix decides its own (a contradiction is exit 2 before any request), sandbox
// keys come from `till keys create --sandbox`, and `till trigger` / `till listen` use the sandbox unless --live —
// so a trigger leaves the live catalog, orders and invoice numbers untouched.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, spawnTill, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let receiver: Receiver;
let seller: Seller;
/** The seller's own signed-in profile (a session, as `till login` stores it). */
let cli: TillOptions;
let liveKey: string;
let sandboxKey: string;

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> =>
  till(args, { ...cli, ...extra, env: { ...cli.env, ...extra.env } });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
const json = <T>(r: TillResult): T => parseJson<T>(ok(r).stdout);
const names = (items: Array<{ name: string }>) => items.map((i) => i.name).sort();

function sessionProfile(s: Seller): TillOptions {
  const configDir = tempConfigDir();
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const profile = {
    server: server.url,
    token: s.token,
    user: { id: s.user.id, email: s.user.email, name: "Test User" },
    organization: { id: s.organizationId, name: "Sandboxed", slug: s.slug },
  };
  writeFileSync(path.join(configDir, "config.json"), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  return { configDir, env: {} };
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "cli-sandbox");
  cli = sessionProfile(seller);
  [liveKey, sandboxKey] = await Promise.all([seller.createKey(), seller.createSandboxKey()]);
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

describe("choosing the side", () => {
  it("--sandbox, TILL_SANDBOX and `till sandbox on` act on the sandbox; --live and the default live", async () => {
    ok(await run(["products", "create", "Only in the sandbox", "--price", "1000", "--sandbox"]));
    ok(await run(["products", "create", "Only live", "--price", "1000"]));
    const listed = async (extra: Partial<TillOptions> = {}, flags: string[] = []) =>
      names(json<Array<{ name: string }>>(await run(["products", "list", "--json", ...flags], extra)));
    expect(await listed()).toEqual(["Only live"]);
    expect(await listed({}, ["--sandbox"])).toEqual(["Only in the sandbox"]);
    expect(await listed({ env: { TILL_SANDBOX: "1" } })).toEqual(["Only in the sandbox"]);
    expect(await listed({ env: { TILL_SANDBOX: "1" } }, ["--live"])).toEqual(["Only live"]);

    expect(ok(await run(["sandbox"])).stdout).toBe("Mode: live (default).\n");
    expect(ok(await run(["sandbox", "on"])).stdout).toMatch(/^Sandbox on for profile default/);
    expect(JSON.parse(readFileSync(path.join(cli.configDir, "config.json"), "utf8")).profiles.default.sandbox).toBe(true);
    expect(await listed()).toEqual(["Only in the sandbox"]);
    expect(await listed({}, ["--live"])).toEqual(["Only live"]);
    const status = json<{ sandbox: boolean; mode_source: string; organization: { id: string; name: string }; live_organization_id: string }>(
      await run(["auth", "status", "--json"]),
    );
    expect(status).toMatchObject({ sandbox: true, mode_source: "profile", live_organization_id: seller.organizationId, organization: { name: "Sandboxed (sandbox)" } });
    expect(status.organization.id).not.toBe(seller.organizationId);
    expect(ok(await run(["auth", "status"])).stdout).toContain("Mode: sandbox (till sandbox on, profile default)");
    ok(await run(["sandbox", "off"]));
    expect(await listed()).toEqual(["Only live"]);
    expect(ok(await run(["auth", "status"])).stdout).toContain("Mode: live (default)");
  });

  it("lists the organization's sandbox among organizations in sandbox mode", async () => {
    const orgs = json<Array<{ id: string; name: string; slug: string; active: boolean }>>(await run(["orgs", "list", "--json", "--sandbox"]));
    expect(orgs).toEqual([expect.objectContaining({ active: true, slug: `${seller.slug}-sandbox`, name: expect.stringMatching(/\(sandbox\)$/) })]);
    const live = json<Array<{ id: string }>>(await run(["orgs", "list", "--json"]));
    expect(live.map((o) => o.id)).toEqual([seller.organizationId]);
  });

  it("refuses a choice the API key contradicts, and a TILL_SANDBOX it cannot read (exit 2, nothing sent)", async () => {
    const keyed = (key: string, env: Record<string, string> = {}) => ({ configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url, ...env } });
    const liveInSandbox = await till(["products", "list", "--sandbox"], keyed(liveKey));
    expect(liveInSandbox.exitCode).toBe(2);
    expect(liveInSandbox.stderr).toContain("--sandbox asks for the sandbox, and TILL_API_KEY is a live key");
    expect(liveInSandbox.stderr).toContain("till keys create <name> --sandbox");
    const sandboxLive = await till(["products", "list", "--live"], keyed(sandboxKey));
    expect(sandboxLive.exitCode).toBe(2);
    const envContradicts = await till(["products", "list"], keyed(sandboxKey, { TILL_SANDBOX: "0" }));
    expect(envContradicts.exitCode).toBe(2);
    const unreadable = await run(["products", "list", "--json"], { env: { TILL_SANDBOX: "maybe" } });
    expect(unreadable.exitCode).toBe(2);
    expect(JSON.parse(unreadable.stderr)).toMatchObject({ error: { code: "usage", message: expect.stringContaining("TILL_SANDBOX") } });
    expect((await till(["products", "list", "--sandbox", "--live"], keyed(sandboxKey))).exitCode).toBe(2);
    // a key acts on its own side without being told
    const sandboxProducts = json<Array<{ name: string }>>(await till(["products", "list", "--json"], keyed(sandboxKey)));
    expect(names(sandboxProducts)).toEqual(["Only in the sandbox"]);
    const status = json<{ sandbox: boolean; mode_source: string }>(await till(["auth", "status", "--json"], keyed(sandboxKey)));
    expect(status).toMatchObject({ sandbox: true, mode_source: "key" });
  });
});

describe("till keys create --sandbox", () => {
  it("makes a till_test_ key of the live organization that acts on its sandbox", async () => {
    const made = json<{ key: string; organization_id: string; sandbox: boolean }>(await run(["keys", "create", "ci-tests", "--sandbox", "--json"]));
    expect(made.key).toMatch(/^till_test_/);
    expect(made).toMatchObject({ organization_id: seller.organizationId, sandbox: true });
    const live = json<{ key: string }>(await run(["keys", "create", "deploy", "--json"]));
    expect(live.key).toMatch(/^till_live_/);
    const listed = ok(await run(["keys", "list"]));
    expect(listed.stdout).toContain(`${made.key.slice(0, 14)}…`);
    expect(listed.stdout).toContain(`${live.key.slice(0, 14)}…`);
    const who = json<{ sandbox: boolean; organization: { id: string } }>(
      await till(["auth", "status", "--json"], { configDir: tempConfigDir(), env: { TILL_API_KEY: made.key, TILL_SERVER: server.url } }),
    );
    expect(who.sandbox).toBe(true);
    expect(who.organization.id).not.toBe(seller.organizationId);
  });
});

describe("till trigger", () => {
  it("works in the sandbox by default: nothing live is made, no live invoice number is used", async () => {
    const liveSdk = sdkFor(server, liveKey);
    const liveProductsBefore = (await liveSdk.products.list({ limit: 100 })).result.items.length;
    const out = json<{ event: string; sandbox: boolean; created: Record<string, string> }>(await run(["trigger", "order.paid", "--json"]));
    expect(out).toMatchObject({ event: "order.paid", sandbox: true });
    expect((await liveSdk.products.list({ limit: 100 })).result.items.length).toBe(liveProductsBefore);
    expect((await liveSdk.orders.list({})).result.items).toEqual([]);
    await expect(liveSdk.orders.get({ id: out.created.order ?? "" })).rejects.toMatchObject({ statusCode: 404 });
    const sandboxOrder = await sdkFor(server, sandboxKey).orders.get({ id: out.created.order ?? "" });
    expect(sandboxOrder.invoiceNumber).toMatch(/^TEST[A-Z0-9]{1,8}-0001$/);
    const human = ok(await run(["trigger", "customer.created"]));
    expect(human.stderr).toBe("Triggered customer.created in the sandbox: your sandbox webhook endpoints and `till listen` get it in a moment.\n");
  });

  it("with a live API key needs --live (exit 2 before any request), and then makes it live", async () => {
    const keyed = { configDir: tempConfigDir(), env: { TILL_API_KEY: liveKey, TILL_SERVER: server.url } };
    const before = (await sdkFor(server, liveKey).customers.list({ limit: 100 })).result.items.length;
    const refused = await till(["trigger", "customer.created"], keyed);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("till trigger works in the sandbox unless told --live, and TILL_API_KEY is a live key");
    expect(refused.stderr).toContain("hint: pass --live");
    expect((await sdkFor(server, liveKey).customers.list({ limit: 100 })).result.items.length).toBe(before);
    const live = parseJson<{ sandbox: boolean; created: { customer: string } }>(ok(await till(["trigger", "customer.created", "--live", "--json"], keyed)).stdout);
    expect(live.sandbox).toBe(false);
    expect((await sdkFor(server, liveKey).customers.get({ id: live.created.customer })).id).toBe(live.created.customer);
    // a sandbox key needs nothing
    ok(await till(["trigger", "customer.created"], { configDir: tempConfigDir(), env: { TILL_API_KEY: sandboxKey, TILL_SERVER: server.url } }));
  });
});

describe("till listen", () => {
  it("forwards the sandbox's events by default and never a live one", async () => {
    const child = spawnTill(["listen", "--forward-to", `${receiver.url}/sandbox-listen`, "--json"], cli);
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const deadline = Date.now() + 20_000;
    while (!/Ready: forwarding sandbox events/.test(stderr)) {
      if (Date.now() > deadline) throw new Error(`listen did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const live = await sdkFor(server, liveKey).customers.create({ email: `listen-live-${Date.now()}@example.com` });
    const sandbox = await sdkFor(server, sandboxKey).customers.create({ email: `listen-sandbox-${Date.now()}@example.com` });
    await receiver.until((hits) => hits.some((h) => h.path === "/sandbox-listen" && h.body.includes(sandbox.id)));
    const forwarded = receiver.at("/sandbox-listen").map((h) => h.body);
    expect(forwarded.some((b) => b.includes(live.id))).toBe(false);
    child.kill("SIGINT");
    await child;
  });
});

describe("till catalog in the sandbox", () => {
  it("pulls the sandbox's catalog with --sandbox (the SDK's requests carry the header too)", async () => {
    const dir = tempConfigDir();
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "sandbox.yaml");
    ok(await run(["catalog", "pull", "--sandbox", "-o", file]));
    const text = readFileSync(file, "utf8");
    expect(text).toContain("Only in the sandbox");
    expect(text).not.toContain("Only live");
    // what `till trigger` made (marked till_trigger) is not the seller's catalog
    expect(text).not.toContain("till trigger");
    expect(text).not.toContain("till_trigger");
  });
});

describe("till sandbox reset", () => {
  it("asks first, refuses --live, then clears the sandbox's customers, products and benefits: nothing renews on a clock advance, nothing live changes", async () => {
    const sandboxSdk = sdkFor(server, sandboxKey);
    const liveSdk = sdkFor(server, liveKey);
    // a subscription made by trigger renews on a clock advance until the reset
    const made = json<{ created: Record<string, string> }>(await run(["trigger", "subscription.created", "--json"]));
    const sub = await sandboxSdk.subscriptions.get({ id: made.created.subscription ?? "" });
    expect(sub.metadata).toMatchObject({ till_trigger: "subscription.created" });
    expect((await sandboxSdk.customers.get({ id: made.created.customer ?? "" })).metadata).toMatchObject({ till_trigger: "subscription.created" });
    const liveProducts = (await liveSdk.products.list({ limit: 100 })).result.items.length;
    const liveCustomers = (await liveSdk.customers.list({ limit: 100 })).result.items.length;

    // nobody to ask (not a terminal): exit 2, nothing changed; --live is refused
    const unasked = await run(["sandbox", "reset"]);
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toMatch(/till sandbox reset --yes/);
    expect((await sandboxSdk.subscriptions.get({ id: sub.id })).status).toBe("active");
    const live = await run(["sandbox", "reset", "--live", "--yes"]);
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toContain("only resets the sandbox");

    const done = json<{ customers_deleted: number; products_archived: number; benefits_deleted: number }>(await run(["sandbox", "reset", "--yes", "--json"]));
    expect(done.customers_deleted).toBeGreaterThan(0);
    expect(done.products_archived).toBeGreaterThan(0);
    expect(done.benefits_deleted).toBeGreaterThan(0);
    expect((await sandboxSdk.customers.list({ limit: 100 })).result.items).toEqual([]);
    expect((await sandboxSdk.products.list({ limit: 100, isArchived: false })).result.items).toEqual([]);
    expect((await sandboxSdk.benefits.list({ limit: 100 })).result.items).toEqual([]);
    expect((await sandboxSdk.subscriptions.get({ id: sub.id })).status).toBe("canceled");
    // the sandbox clock moves on: nothing renews
    const advanced = parseJson<{ renewals: number }>(ok(await till(["clock", "advance", "40d", "--json"], {
      configDir: tempConfigDir(), env: { TILL_API_KEY: sandboxKey, TILL_SERVER: server.url },
    })).stdout);
    expect(advanced.renewals).toBe(0);
    // live is untouched
    expect((await liveSdk.products.list({ limit: 100 })).result.items.length).toBe(liveProducts);
    expect((await liveSdk.customers.list({ limit: 100 })).result.items.length).toBe(liveCustomers);
    const human = ok(await run(["sandbox", "reset", "--yes"]));
    expect(human.stdout).toBe("Sandbox reset: deleted 0 customers, archived 0 products, deleted 0 benefits.\n");
  }, 120_000);
});
