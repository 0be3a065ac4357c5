// `till checkout-links`, end to end: the CLI as a child process against the real server with an organization API
// key; what it changed is read back through the Polar SDK, and the link it prints is followed like a browser.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let cli: TillOptions;
let fixed: Product;
let monthly: Product;

const run = (args: string[]): Promise<TillResult> => till(args, cli);
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};
const json = <T>(r: TillResult): T => parseJson<T>(ok(r).stdout);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "cli-links");
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
  [fixed, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
});
afterAll(async () => server?.close());

describe("till checkout-links", () => {
  it("create prints the link's URL alone, and the URL opens a checkout with the flags' settings", async () => {
    const discount = await seller.sdk.discounts.create({ name: "CLI ten", type: "percentage", basisPoints: 1000, duration: "once" });
    const r = ok(
      await run([
        "checkout-links", "create", "--product", fixed.id, "--product", monthly.id, "--label", "Pricing page", "--discount", discount.id,
        "--no-discount-codes", "--success-url", "https://example.com/thanks", "--metadata", "campaign=spring", "--metadata", "wave:=2",
      ]),
    );
    const url = r.stdout.trim();
    expect(url).toMatch(new RegExp(`^${server.url}/v1/checkout-links/till_cl_[\\w-]+/redirect$`));
    expect(r.stderr).toContain("each visit opens a new checkout");
    const [link] = (await seller.sdk.checkoutLinks.list({ limit: 100 })).result.items.filter((l) => l.url === url);
    expect(link).toMatchObject({ label: "Pricing page", discountId: discount.id, allowDiscountCodes: false, successUrl: "https://example.com/thanks", metadata: { campaign: "spring", wave: 2 } });
    expect(link?.products.map((p) => p.id)).toEqual([fixed.id, monthly.id]);

    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(307);
    const secret = new URL(res.headers.get("location") ?? "").pathname.split("/")[2] ?? "";
    const checkouts = (await seller.sdk.checkouts.list({ productId: fixed.id, limit: 100 })).result.items;
    const opened = checkouts.find((c) => c.clientSecret === secret);
    expect(opened).toMatchObject({ discountId: discount.id, successUrl: "https://example.com/thanks", metadata: { campaign: "spring", wave: 2 } });

    const full = json<{ id: string; url: string; products: unknown[] }>(await run(["checkout-links", "create", "--product", fixed.id, "--json"]));
    expect(full.url).toContain("/v1/checkout-links/");
    expect(full.products).toHaveLength(1);
  });

  it("lists, gets, updates and deletes", async () => {
    const id = json<{ id: string }>(await run(["checkout-links", "create", "--product", monthly.id, "--label", "Yearly promo", "--trial", "14d", "--json"])).id;
    const [table, listed, filtered] = await Promise.all([
      run(["checkout-links", "list", "--all"]),
      run(["checkout-links", "list", "--json", "--all"]),
      run(["checkout-links", "list", "--product", fixed.id, "--json", "--all"]),
    ]);
    // without a terminal, rows are tab-separated: id, label, products, URL, created
    expect(ok(table).stdout).toMatch(new RegExp(`^${id}\tYearly promo\t${monthly.name}\thttp://\\S+/redirect\t\\d{4}-`, "m"));
    expect(json<Array<{ id: string }>>(listed).map((l) => l.id)).toContain(id);
    expect(json<Array<{ id: string }>>(filtered).map((l) => l.id)).not.toContain(id);

    const got = ok(await run(["checkout-links", "get", id]));
    expect(got.stdout).toMatch(/^Label: Yearly promo$/m);
    expect(got.stdout).toMatch(/^Trial: 14 days$/m);
    expect(got.stdout).toContain(monthly.name);

    const updated = ok(await run(["checkout-links", "update", id, "--label", "Spring promo", "--product", fixed.id, "--require-billing-address"]));
    expect(updated.stdout).toContain(`Updated checkout link ${id}`);
    const after = await seller.sdk.checkoutLinks.get({ id });
    expect(after).toMatchObject({ label: "Spring promo", requireBillingAddress: true, trialInterval: null });
    expect(after.products.map((p) => p.id)).toEqual([fixed.id]);

    const nothing = await run(["checkout-links", "update", id]);
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain("nothing to update");

    ok(await run(["checkout-links", "delete", id]));
    const gone = await run(["checkout-links", "get", id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toMatch(/not found/i);
    expect((await fetch(after.url, { redirect: "manual" })).status).toBe(404);
  });

  it("refuses bad input with exit 2 before or from the server, naming the flag, and creates nothing", async () => {
    const archived = await createProduct(seller, "fixed");
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const before = (await seller.sdk.checkoutLinks.list({ limit: 100 })).result.pagination.totalCount;
    const [none, badId, badUrl, twice, refused, noDiscount] = await Promise.all([
      run(["checkout-links", "create"]),
      run(["checkout-links", "create", "--product", "pro"]),
      run(["checkout-links", "create", "--product", fixed.id, "--success-url", "ftp://example.com"]),
      run(["checkout-links", "create", "--product", fixed.id, "--product", fixed.id]),
      run(["checkout-links", "create", "--product", archived.id]),
      run(["checkout-links", "create", "--product", fixed.id, "--no-discount"]),
    ]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("--product");
    expect(badId.exitCode).toBe(2);
    expect(badId.stderr).toContain("--product <id>");
    expect(badUrl.exitCode).toBe(2);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("given twice");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--product.*archived/);
    expect(noDiscount.exitCode).toBe(2);
    expect((await seller.sdk.checkoutLinks.list({ limit: 100 })).result.pagination.totalCount).toBe(before);

    const json404 = await run(["checkout-links", "get", "0b5c1d2e-0000-4000-8000-000000000000", "--json"]);
    expect(json404.exitCode).toBe(1);
    expect(JSON.parse(json404.stderr)).toMatchObject({ error: { code: "ResourceNotFound" } });
  });
});
