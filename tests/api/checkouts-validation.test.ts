// /v1/checkouts: 422 for every bad input with nothing written, the keys' scopes, and one organization's
// checkouts out of another's reach. The rest of /v1/checkouts: checkouts.test.ts.
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { describe, expect, it } from "vitest";
import { issues, locs } from "../helpers/api.js";
import { createProduct, publicRequest } from "../helpers/checkout.js";
import { sdkFor } from "../helpers/seller.js";
import { checkoutFixture } from "./checkouts-fixtures.js";

const fx = checkoutFixture();

describe("validation: 422 for every bad input, nothing written", () => {
  it("refuses malformed create bodies", async () => {
    const before = (await fx.countRows(fx.seller.organizationId)).checkouts;
    const cases: Array<[unknown, Array<string | number>]> = [
      [{}, ["body", "products"]],
      [{ products: [] }, ["body", "products"]],
      [{ products: ["not-a-uuid"] }, ["body", "products", 0]],
      [{ products: [crypto.randomUUID()] }, ["body", "products", 0]],
      [{ products: [fx.fixed.id, fx.fixed.id] }, ["body", "products", 1]],
      [{ products: [fx.fixed.id], amount: "ten" }, ["body", "amount"]],
      [{ products: [fx.fixed.id], amount: 1.5 }, ["body", "amount"]],
      [{ products: [fx.fixed.id], seats: 0 }, ["body", "seats"]],
      [{ products: [fx.fixed.id], success_url: "not a url" }, ["body", "success_url"]],
      [{ products: [fx.fixed.id], success_url: "javascript:alert(1)" }, ["body", "success_url"]],
      [{ products: [fx.fixed.id], embed_origin: "ftp://files.example" }, ["body", "embed_origin"]],
      [{ products: [fx.fixed.id], metadata: { nested: { a: 1 } } }, ["body", "metadata", "nested"]],
      [{ products: [fx.fixed.id], customer_email: "nope" }, ["body", "customer_email"]],
      [{ products: [fx.fixed.id], customer_ip_address: "999.1.1.1" }, ["body", "customer_ip_address"]],
      [{ products: [fx.fixed.id], trial_interval: "fortnight" }, ["body", "trial_interval"]],
      [{ products: [fx.fixed.id], currency: "xxx" }, ["body", "currency"]],
      [{ products: [fx.fixed.id], currency: "eur" }, ["body", "currency"]],
      [{ products: [fx.fixed.id], customer_billing_address: { country: "ZZ" } }, ["body", "customer_billing_address", "country"]],
      [{ products: [fx.fixed.id], prices: { [fx.fixed.id]: [{ amount_type: "free" }] } }, ["body", "prices"]],
      [{ products: [fx.fixed.id], subscription_id: crypto.randomUUID() }, ["body", "subscription_id"]],
      [{ products: [fx.fixed.id], min_seats: 5, max_seats: 2 }, ["body", "max_seats"]],
      [{ products: [fx.fixed.id], custom_field_data: { a: { b: 1 } } }, ["body", "custom_field_data", "a"]],
      ["{broken", ["body"]],
    ];
    for (const [body, loc] of cases) {
      const res = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    const archived = await createProduct(fx.seller, "fixed");
    await fx.seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const res = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [archived.id] });
    expect(issues(res.body)[0]).toMatchObject({ loc: ["body", "products", 0], msg: "Product is archived." });
    const foreign = await createProduct(fx.other, "fixed");
    const foreignRes = await fx.raw(fx.seller.token, "POST", "/v1/checkouts/", { products: [foreign.id] });
    expect(issues(foreignRes.body)[0]).toMatchObject({ loc: ["body", "products", 0], msg: "Product does not exist." });
    expect((await fx.countRows(fx.seller.organizationId)).checkouts).toBe(before);
  });

  it("refuses malformed updates, confirms and queries without changing anything", async () => {
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    for (const [body, loc] of [
      [{ customer_email: 12 }, ["body", "customer_email"]],
      [{ allow_trial: true }, ["body", "allow_trial"]],
      [{ seats: -1 }, ["body", "seats"]],
      [{ product_id: "x" }, ["body", "product_id"]],
      [{ customer_billing_address: { line1: "no country" } }, ["body", "customer_billing_address", "country"]],
    ] as const) {
      const res = await publicRequest(fx.server, "PATCH", `/v1/checkouts/client/${created.clientSecret}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)).toContainEqual(loc);
    }
    const confirm = await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, { confirmation_token_id: 5 });
    expect(locs(confirm.body)).toContainEqual(["body", "confirmation_token_id"]);
    const seller422 = await fx.raw(fx.seller.token, "PATCH", `/v1/checkouts/${created.id}`, { metadata: "x" });
    expect(seller422.status).toBe(422);
    expect((await fx.raw(fx.seller.token, "GET", "/v1/checkouts/not-a-uuid")).status).toBe(422);
    for (const q of ["status=closed", "sorting=amount", "product_id=x", "limit=0", "page=abc"]) {
      expect((await fx.raw(fx.seller.token, "GET", `/v1/checkouts/?${q}`)).status, q).toBe(422);
    }
    const after = await fx.seller.sdk.checkouts.get({ id: created.id });
    expect(after).toMatchObject({ modifiedAt: null, customerEmail: null });
    expect(await publicRequest(fx.server, "POST", `/v1/checkouts/client/${created.clientSecret}/confirm`, { customer_email: "a@b.co" })).toMatchObject({ status: 422 });
  });
});

describe("scopes and tenancy", () => {
  it("a key without checkouts:write cannot create or update; a read key can read", async () => {
    const readKey = await fx.seller.createKey({ checkouts: ["read"] });
    const readSdk = sdkFor(fx.server, readKey);
    await expect(readSdk.checkouts.create({ products: [fx.fixed.id] })).rejects.toMatchObject({ statusCode: 403 });
    const created = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    expect((await readSdk.checkouts.get({ id: created.id })).id).toBe(created.id);
    expect((await fx.raw(readKey, "PATCH", `/v1/checkouts/${created.id}`, { customer_name: "x" })).status).toBe(403);
    const noKey = await fx.seller.createKey({ products: ["read"] });
    expect((await fx.raw(noKey, "GET", "/v1/checkouts/")).status).toBe(403);
  });

  it("another organization's checkouts are 404 and never listed", async () => {
    const mine = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id] });
    await expect(fx.other.sdk.checkouts.get({ id: mine.id })).rejects.toBeInstanceOf(ResourceNotFound);
    const res = await fx.raw(fx.other.token, "PATCH", `/v1/checkouts/${mine.id}`, { customer_name: "Mallory" });
    expect(res).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "Checkout not found" } });
    const theirs = await fx.other.sdk.checkouts.list({ limit: 100 });
    expect(theirs.result.items.map((c) => c.id)).not.toContain(mine.id);
    const filtered = await fx.seller.sdk.checkouts.list({ organizationId: fx.other.organizationId }).catch((e: unknown) => e);
    expect(filtered).toMatchObject({ statusCode: 404 });
    expect((await fx.seller.sdk.checkouts.get({ id: mine.id })).customerName).toBeNull();
    await expect(fx.seller.sdk.checkouts.update({ id: crypto.randomUUID(), checkoutUpdate: {} })).rejects.toBeInstanceOf(ResourceNotFound);
    expect(HTTPValidationError).toBeTruthy();
  });
});
