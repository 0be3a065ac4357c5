// /v1/checkout-links through @polar-sh/sdk 0.47.1 and 0.49.0 (each response passes the SDK's validation): the
// three create variants, list/get/update/delete, and the link's public URL, which opens a fresh checkout per
// visit carrying the link's success URL, discount, metadata and settings; archived products, deleted links,
// prefill from the URL, tenancy, scopes, Idempotency-Key and the sandbox.
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay, publicSdk } from "../helpers/checkout.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let fixed: Product;
let monthly: Product;
let seats: Product;
let discountId: string;

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

/** Follows a link's URL once, as a browser would, without following the redirect. */
async function visit(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { redirect: "manual", ...init });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get("location"), cacheControl: res.headers.get("cache-control") };
}

/** The checkout a redirect led to, as its page reads it. */
async function checkoutAt(location: string) {
  const secret = new URL(location).pathname.split("/")[2] ?? "";
  return publicSdk(server).checkouts.clientGet({ clientSecret: secret });
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "links");
  other = await createSeller(server, "links-other");
  [fixed, monthly, seats] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly"), createProduct(seller, "seats")]);
  discountId = (await seller.sdk.discounts.create({ name: "Link ten", type: "percentage", basisPoints: 1000, duration: "once" })).id;
});
afterAll(async () => server?.close());

describe("checkout links through the SDK", () => {
  it("creates, gets, lists, updates and deletes with 0.47.1", async () => {
    const link = await seller.sdk.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [fixed.id, monthly.id],
      label: "Spring campaign",
      allowDiscountCodes: false,
      requireBillingAddress: true,
      discountId,
      successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}",
      returnUrl: "https://shop.example/",
      metadata: { campaign: "spring", wave: 2 },
    });
    expect(link).toMatchObject({
      paymentProcessor: "stripe",
      label: "Spring campaign",
      allowDiscountCodes: false,
      requireBillingAddress: true,
      discountId,
      successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}",
      returnUrl: "https://shop.example/",
      metadata: { campaign: "spring", wave: 2 },
      organizationId: seller.organizationId,
    });
    expect(link.products.map((p) => p.id)).toEqual([fixed.id, monthly.id]);
    expect(link.discount?.id).toBe(discountId);
    expect(link.clientSecret).toMatch(/^till_cl_/);
    expect(link.url).toBe(`${server.url}/v1/checkout-links/${link.clientSecret}/redirect`);

    expect(await seller.sdk.checkoutLinks.get({ id: link.id })).toMatchObject({ id: link.id, label: "Spring campaign" });
    const listed = await seller.sdk.checkoutLinks.list({ productId: monthly.id });
    expect(listed.result.items.map((l) => l.id)).toContain(link.id);
    const none = await seller.sdk.checkoutLinks.list({ productId: seats.id });
    expect(none.result.items.map((l) => l.id)).not.toContain(link.id);

    const updated = await seller.sdk.checkoutLinks.update({
      id: link.id,
      checkoutLinkUpdate: { label: null, discountId: null, products: [monthly.id], allowDiscountCodes: true, metadata: { campaign: "summer" } },
    });
    expect(updated).toMatchObject({ label: null, discountId: null, discount: null, allowDiscountCodes: true, metadata: { campaign: "summer" } });
    expect(updated.products.map((p) => p.id)).toEqual([monthly.id]);
    // unchanged fields stay
    expect(updated.successUrl).toBe("https://shop.example/thanks?c={CHECKOUT_ID}");

    await seller.sdk.checkoutLinks.delete({ id: link.id });
    await expect(seller.sdk.checkoutLinks.get({ id: link.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(seller.sdk.checkoutLinks.delete({ id: link.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await seller.sdk.checkoutLinks.list({})).result.items.map((l) => l.id)).not.toContain(link.id);
  });

  it("creates, gets, lists, updates and deletes with 0.49.0 (seats included)", async () => {
    const sdk = seller.sdk049;
    const link = await sdk.checkoutLinks.create({ paymentProcessor: "stripe", productId: seats.id, seats: 5, label: "Team" });
    expect(link).toMatchObject({ seats: 5, label: "Team", allowDiscountCodes: true, requireBillingAddress: false, discount: null });
    expect(link.products[0]?.id).toBe(seats.id);
    expect((await sdk.checkoutLinks.get({ id: link.id })).seats).toBe(5);
    const page = await sdk.checkoutLinks.list({ sorting: ["-created_at"], limit: 100 });
    expect(page.result.items[0]?.id).toBe(link.id);
    expect((await sdk.checkoutLinks.update({ id: link.id, checkoutLinkUpdate: { seats: 7 } })).seats).toBe(7);
    await sdk.checkoutLinks.delete({ id: link.id });
    await expect(sdk.checkoutLinks.get({ id: link.id })).rejects.toThrow();
  });

  it("takes a price (the older create variant) and names its product", async () => {
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", productPriceId: fixed.prices[0]!.id });
    expect(link.products.map((p) => p.id)).toEqual([fixed.id]);
    const link049 = await seller.sdk049.checkoutLinks.create({ paymentProcessor: "stripe", productPriceId: monthly.prices[0]!.id });
    expect(link049.products.map((p) => p.id)).toEqual([monthly.id]);
  });

  it("refuses what cannot be sold with 422 at the field, and creates nothing", async () => {
    const key = await seller.createKey();
    const before = (await seller.sdk.checkoutLinks.list({ limit: 100 })).result.pagination.totalCount;
    const archived = await createProduct(seller, "fixed");
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const foreign = await createProduct(other, "fixed");
    const foreignDiscount = await other.sdk.discounts.create({ name: "Theirs", type: "percentage", basisPoints: 500, duration: "once" });
    const cases: Array<[unknown, unknown[]]> = [
      [{ payment_processor: "stripe", products: [archived.id] }, ["body", "products", 0]],
      [{ payment_processor: "stripe", products: [foreign.id] }, ["body", "products", 0]],
      [{ payment_processor: "stripe", products: [fixed.id, fixed.id] }, ["body", "products", 1]],
      [{ payment_processor: "stripe", products: [] }, ["body", "products"]],
      [{ payment_processor: "stripe", products: [fixed.id], product_id: fixed.id }, ["body", "products"]],
      [{ payment_processor: "stripe", product_price_id: foreign.prices[0]!.id }, ["body", "product_price_id"]],
      [{ payment_processor: "stripe", products: [fixed.id], discount_id: foreignDiscount.id }, ["body", "discount_id"]],
      [{ payment_processor: "stripe", products: [fixed.id], seats: 3 }, ["body", "seats"]],
      [{ payment_processor: "stripe", products: [fixed.id], success_url: "javascript:alert(1)" }, ["body", "success_url"]],
      [{ payment_processor: "paypal", products: [fixed.id] }, ["body", "payment_processor"]],
      [{ products: [fixed.id] }, ["body", "payment_processor"]],
    ];
    for (const [body, loc] of cases) {
      const res = await raw(key, "POST", "/v1/checkout-links/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body), JSON.stringify(body)).toContainEqual(loc);
    }
    await expect(seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [archived.id] })).rejects.toBeInstanceOf(HTTPValidationError);
    expect((await seller.sdk.checkoutLinks.list({ limit: 100 })).result.pagination.totalCount).toBe(before);
  });
});

describe("following a link", () => {
  it("opens a fresh checkout per visit with the link's success URL, discount, metadata and settings", async () => {
    const link = await seller.sdk.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [fixed.id, monthly.id],
      discountId,
      allowDiscountCodes: false,
      requireBillingAddress: true,
      successUrl: "https://shop.example/thanks?c={CHECKOUT_ID}",
      metadata: { campaign: "spring", reference_id: "seller-set" },
    });
    const first = await visit(link.url);
    const second = await visit(link.url);
    expect(first.status).toBe(307);
    expect(first.cacheControl).toBe("no-store");
    expect(first.location).toMatch(new RegExp(`^${server.url}/checkout/till_c_`));
    expect(second.location).not.toBe(first.location);

    const page = await checkoutAt(first.location!);
    const checkout = await seller.sdk.checkouts.get({ id: page.id });
    expect(checkout).toMatchObject({
      status: "open",
      organizationId: seller.organizationId,
      productId: fixed.id,
      discountId,
      allowDiscountCodes: false,
      requireBillingAddress: true,
      successUrl: `https://shop.example/thanks?c=${checkout.id}`,
      metadata: { campaign: "spring", reference_id: "seller-set" },
    });
    expect(checkout.products.map((p) => p.id)).toEqual([fixed.id, monthly.id]);
    // 10% off $25.00
    expect(checkout.totalAmount).toBe(2250);

    // paying it works like any checkout; the order keeps the link's metadata
    await pay(server, checkout, { customerBillingAddress: { country: "FR", line1: "1 rue", city: "Paris", postalCode: "75001" } });
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    expect(order?.totalAmount).toBe(2250);
    expect(order?.metadata).toMatchObject({ campaign: "spring" });
  });

  it("takes prefill and tracking values from the URL and passes other parameters to the page", async () => {
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [fixed.id, monthly.id], metadata: { reference_id: "mine" } });
    const code = `LINK${Date.now().toString(36).toUpperCase()}`;
    const coded = await seller.sdk.discounts.create({ name: "Coded", type: "percentage", basisPoints: 2000, duration: "once", code });
    const q = new URLSearchParams({
      product_id: monthly.id,
      customer_email: "ada@example.com",
      customer_name: "Ada",
      discount_code: code,
      reference_id: "theirs",
      utm_source: "newsletter",
      theme: "dark",
      embed: "true",
    });
    const res = await visit(`${link.url}?${q}`);
    expect(res.status).toBe(307);
    const location = new URL(res.location!);
    expect(location.searchParams.get("theme")).toBe("dark");
    expect(location.searchParams.get("embed")).toBe("true");
    expect(location.searchParams.get("customer_email")).toBeNull();
    const checkout = await seller.sdk.checkouts.get({ id: (await checkoutAt(res.location!)).id });
    expect(checkout).toMatchObject({
      productId: monthly.id,
      customerEmail: "ada@example.com",
      customerName: "Ada",
      discountId: coded.id,
      // the seller's own key wins over the URL's
      metadata: { reference_id: "mine", utm_source: "newsletter" },
    });

    // prefill the checkout refuses is left out: the link still opens
    const bad = await visit(`${link.url}?customer_email=not-an-email&discount_code=NOPE&amount=abc&product_id=x`);
    expect(bad.status).toBe(307);
    const plain = await seller.sdk.checkouts.get({ id: (await checkoutAt(bad.location!)).id });
    expect(plain).toMatchObject({ customerEmail: null, discountId: null, productId: fixed.id });
  });

  it("opens the checkout whatever the URL adds: repeated keys, bad origins, huge amounts, full metadata", async () => {
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", productId: fixed.id, metadata: full });
    for (const q of [
      "utm_source=a&utm_source=b&reference_id=r",
      "embed_origin=javascript:alert(1)&customer_email[]=x&amount=99999999999",
      `customer_name=${"n".repeat(400)}&utm_term=${"t".repeat(499)}`,
      "customer_email=a@@b&discount_code=%F0%9F%98%80&product_id=..%2F..",
    ]) {
      const res = await visit(`${link.url}?${q}`);
      expect(res.status, q).toBe(307);
      const checkout = await seller.sdk.checkouts.get({ id: (await checkoutAt(res.location!)).id });
      // the seller's 50 keys, and no room for more
      expect(checkout.metadata, q).toEqual(full);
    }
    // a NUL is refused by the input guard before the route, as on every route
    expect((await visit(`${link.url}?customer_email=%00`)).status).toBe(422);
  });

  it("carries seats, and drops a discount that no longer applies", async () => {
    const seatLink = await seller.sdk049.checkoutLinks.create({ paymentProcessor: "stripe", productId: seats.id, seats: 6 });
    const seated = await seller.sdk.checkouts.get({ id: (await checkoutAt((await visit(seatLink.url)).location!)).id });
    expect(seated).toMatchObject({ productId: seats.id, amount: 6 * 800 });

    const gone = await seller.sdk.discounts.create({ name: "Soon gone", type: "percentage", basisPoints: 1000, duration: "once" });
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", productId: fixed.id, discountId: gone.id });
    await seller.sdk.discounts.delete({ id: gone.id });
    const res = await visit(link.url);
    expect(res.status).toBe(307);
    const checkout = await seller.sdk.checkouts.get({ id: (await checkoutAt(res.location!)).id });
    expect(checkout).toMatchObject({ discountId: null, totalAmount: 2500 });
  });

  it("leaves archived products out, and answers 404 once none is on sale, for a deleted link and an unknown secret", async () => {
    const a = await createProduct(seller, "fixed");
    const b = await createProduct(seller, "monthly");
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", products: [a.id, b.id] });
    await seller.sdk.products.update({ id: a.id, productUpdate: { isArchived: true } });
    const res = await visit(link.url);
    const checkout = await seller.sdk.checkouts.get({ id: (await checkoutAt(res.location!)).id });
    expect(checkout.products.map((p) => p.id)).toEqual([b.id]);
    // the link itself still reads, archived product included
    expect((await seller.sdk.checkoutLinks.get({ id: link.id })).products.map((p) => p.id)).toEqual([a.id, b.id]);

    await seller.sdk.products.update({ id: b.id, productUpdate: { isArchived: true } });
    const none = await fetch(link.url, { redirect: "manual" });
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ error: "ResourceNotFound" });

    const live = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", productId: fixed.id });
    await seller.sdk.checkoutLinks.delete({ id: live.id });
    expect((await visit(live.url)).status).toBe(404);
    expect((await visit(`${server.url}/v1/checkout-links/till_cl_unknown/redirect`)).status).toBe(404);
    expect((await visit(`${server.url}/v1/checkout-links/${"x".repeat(90)}/redirect`)).status).toBe(404);
  });

  it("opens sandbox checkouts from a sandbox link, never live ones", async () => {
    const sandboxKey = await seller.createSandboxKey();
    const sandbox = sdkFor(server, sandboxKey);
    const product = await sandbox.products.create({ name: "Sandbox thing", prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }] });
    const link = await sandbox.checkoutLinks.create({ paymentProcessor: "stripe", productId: product.id, metadata: { mode: "test" } });
    expect(link.organizationId).not.toBe(seller.organizationId);
    const checkout = await sandbox.checkouts.get({ id: (await checkoutAt((await visit(link.url)).location!)).id });
    expect(checkout).toMatchObject({ organizationId: link.organizationId, metadata: { mode: "test" } });
    // the live side sees neither the link nor the checkout
    await expect(seller.sdk.checkoutLinks.get({ id: link.id })).rejects.toBeInstanceOf(ResourceNotFound);
    await expect(seller.sdk.checkouts.get({ id: checkout.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await seller.sdk.checkoutLinks.list({ limit: 100 })).result.items.map((l) => l.id)).not.toContain(link.id);
    // nor can a live product go into a sandbox link
    const res = await raw(sandboxKey, "POST", "/v1/checkout-links/", { payment_processor: "stripe", products: [fixed.id] });
    expect(res.status).toBe(422);
  });
});

describe("checkout link access", () => {
  it("answers another organization's key with 404 and changes nothing", async () => {
    const link = await seller.sdk.checkoutLinks.create({ paymentProcessor: "stripe", productId: fixed.id, label: "mine" });
    const theirs = sdk049For(server, await other.createKey());
    await expect(theirs.checkoutLinks.get({ id: link.id })).rejects.toThrow();
    const key = await other.createKey();
    for (const [method, body] of [["GET"], ["PATCH", { label: "stolen" }], ["DELETE"]] as const) {
      const res = await raw(key, method, `/v1/checkout-links/${link.id}`, body);
      expect(res.status, method).toBe(404);
      expect(res.body).toMatchObject({ error: "ResourceNotFound" });
    }
    const list = await raw(key, "GET", "/v1/checkout-links/");
    expect(JSON.stringify(list.body)).not.toContain(link.id);
    expect((await seller.sdk.checkoutLinks.get({ id: link.id })).label).toBe("mine");
  });

  it("needs checkout_links:read to read and checkout_links:write to write", async () => {
    const checkoutsOnly = await seller.createKey({ checkouts: ["write"] });
    expect((await raw(checkoutsOnly, "GET", "/v1/checkout-links/")).status).toBe(403);
    const reader = await seller.createKey({ checkout_links: ["read"], products: ["read"] });
    expect((await raw(reader, "GET", "/v1/checkout-links/")).status).toBe(200);
    const refused = await raw(reader, "POST", "/v1/checkout-links/", { payment_processor: "stripe", products: [fixed.id] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "NotPermitted" });
    const writer = await seller.createKey({ checkout_links: ["write"] });
    expect((await raw(writer, "POST", "/v1/checkout-links/", { payment_processor: "stripe", products: [fixed.id] })).status).toBe(201);
  });

  it("replays a create sent again with the same Idempotency-Key", async () => {
    const key = await seller.createKey();
    const send = () =>
      fetch(`${server.url}/v1/checkout-links/`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `link-other-${Date.now()}` },
        body: JSON.stringify({ payment_processor: "stripe", products: [fixed.id], label: "once" }),
      });
    const idem = `link-${Date.now()}`;
    const post = () =>
      fetch(`${server.url}/v1/checkout-links/`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idem },
        body: JSON.stringify({ payment_processor: "stripe", products: [fixed.id], label: "once" }),
      });
    const first = await post();
    const again = await post();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const [a, b] = [(await first.json()) as { id: string }, (await again.json()) as { id: string }];
    expect(b.id).toBe(a.id);
    const onceLinks = (await seller.sdk.checkoutLinks.list({ limit: 100 })).result.items.filter((l) => l.label === "once");
    expect(onceLinks).toHaveLength(1);
    // a different key is a different create
    expect((await send()).status).toBe(201);
  });

  it("lists the new routes in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths["/v1/checkout-links/"] ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v1/checkout-links/{id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
    expect(Object.keys(doc.paths["/v1/checkout-links/{client_secret}/redirect"] ?? {})).toEqual(["get"]);
  });
});
