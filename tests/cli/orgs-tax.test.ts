// `till orgs tax show|set|add|remove`, end to end: the CLI as a child process against the real server with an
// organization API key; what it sets is the organization's tax_settings as GET /v1/organizations/{id} answers
// it, and a checkout created afterwards is taxed by it. Bad places are the server's 422 (exit 2).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const stored = async () =>
  (await rawRequest(server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`)).body.tax_settings;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-tax");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
});
afterAll(async () => server?.close());

describe("till orgs billing", () => {
  it("show warns while the address or tax id is missing; set keeps what it is not given; the invoice prints it", async () => {
    const empty = await run(["orgs", "billing", "show"]);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/Address:?\s+none/);
    expect(empty.stderr).toContain("warning: invoices carry no seller address or tax id: set your legal details with `till orgs billing set");

    const partial = await run(["orgs", "billing", "set", "--name", "Tax Co Ltd", "--line1", "1 High St", "--city", "London", "--country", "gb"]);
    expect(partial.exitCode, partial.stderr).toBe(0);
    expect(partial.stdout).toMatch(/Address:?\s+1 High St, London, GB/);
    expect(partial.stderr).toContain("warning: invoices carry no seller tax id:");

    const done = await run(["orgs", "billing", "set", "--tax-id", "GB123456789", "--postal-code", "EC1A 1BB", "--json"]);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toBe("");
    const details = {
      name: "Tax Co Ltd",
      address: { line1: "1 High St", line2: null, postal_code: "EC1A 1BB", city: "London", state: null, country: "GB" },
      tax_id: "GB123456789",
      email: null,
    };
    expect(parseJson(done.stdout)).toEqual(details);
    expect((await rawRequest(server.url, seller.token, "GET", `/v1/organizations/${seller.organizationId}`)).body.invoice_details).toEqual(details);

    const nothing = await run(["orgs", "billing", "set"]);
    expect(nothing.exitCode).toBe(2);
    const badCountry = await run(["orgs", "billing", "set", "--country", "Germany"]);
    expect([badCountry.exitCode, badCountry.stderr]).toEqual([2, "error: option '--country <CC>' argument 'Germany' is invalid. expected a two-letter country code such as FR or US.\n"]);
  });
});

describe("till orgs tax", () => {
  it("show, set, add and remove the registrations; --json prints the settings", async () => {
    const empty = await run(["orgs", "tax", "show"]);
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(empty.stdout).toContain("none (no tax is collected)");

    const set = await run(["orgs", "tax", "set", "DE", "us-ca", "--json"]);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(parseJson(set.stdout)).toEqual({ registrations: [{ country: "DE" }, { country: "US", state: "CA" }], prices_include_tax: false });

    const add = await run(["orgs", "tax", "add", "CA-BC", "GB", "DE"]);
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stdout).toContain("Registered in: DE, US-CA, CA-BC, GB");
    // it says whose settings it changed, and in which mode (the sandbox has settings of its own)
    const name = (await seller.sdk.organizations.get({ id: seller.organizationId })).name;
    expect(add.stdout.split("\n")[0]).toBe(`Saved the tax settings of ${name} (${seller.slug}), live.`);
    const inSandbox = await till(["orgs", "tax", "set", "FR"], { ...cli, env: { ...cli.env, TILL_API_KEY: await seller.createSandboxKey() } });
    expect(inSandbox.exitCode, inSandbox.stderr).toBe(0);
    expect(inSandbox.stdout).toMatch(new RegExp(`^Saved the tax settings of ${name} \\(${seller.slug}-sandbox\\), sandbox\\.\nRegistered in: FR\n`));

    const removed = await run(["orgs", "tax", "remove", "US-CA"]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const inclusive = await run(["orgs", "tax", "set", "--prices-include-tax"]);
    expect(inclusive.exitCode, inclusive.stderr).toBe(0);
    expect(inclusive.stdout).toContain("Prices: include tax");
    expect(await stored()).toEqual({ registrations: [{ country: "DE" }, { country: "CA", state: "BC" }, { country: "GB" }], prices_include_tax: true });

    const shown = await run(["orgs", "tax", "show", "--json"]);
    expect(parseJson(shown.stdout)).toEqual(await stored());
    const text = await run(["orgs", "tax", "show"]);
    expect(text.stdout).toMatch(/Registered in:?\s+DE, CA-BC, GB/);
  });

  it("the settings tax the next checkout", async () => {
    expect((await run(["orgs", "tax", "set", "GB", "--no-prices-include-tax"])).exitCode).toBe(0);
    const product = await createProduct(seller, "fixed");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id], customerBillingAddress: { country: "GB" } });
    expect(checkout).toMatchObject({ taxAmount: 500, totalAmount: 3000 });
  });

  it("a place the server refuses is exit 2 with its message; nothing changes", async () => {
    const before = await stored();
    const bad = await run(["orgs", "tax", "add", "US-ZZ"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("US state");
    const us = await run(["orgs", "tax", "add", "US"]);
    expect(us.exitCode).toBe(2);
    expect(us.stderr).toContain("names its state");
    expect(await stored()).toEqual(before);
  });

  it("usage errors before any request: nothing to set, a place not registered, a malformed place", async () => {
    expect((await run(["orgs", "tax", "set"])).exitCode).toBe(2);
    const missing = await run(["orgs", "tax", "remove", "FR"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("not registered in FR");
    expect((await run(["orgs", "tax", "add", "US-CA-X"])).exitCode).toBe(2);
  });

  it("--help names the commands and the place syntax", async () => {
    const help = await run(["orgs", "tax", "--help"]);
    expect(help.stdout).toContain("show");
    expect(help.stdout).toContain("US-CA");
  });
});
