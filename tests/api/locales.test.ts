// The buyer's language on the wire: the organization's `default_locale` (till's own field, checked
// against shared/i18n/locales.ts), a checkout's `locale` given through both SDKs kept and returned, and what the
// checkout page resolves from — the customer's stored locale and the organization's default on its public read;
// the page's confirm records the locale it spoke when the checkout had none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, publicRequest } from "../helpers/checkout.js";
import { sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { startWithSellers, type SellerSetup } from "../helpers/seller.js";
import type { TestServer } from "../helpers/server.js";

let setup: SellerSetup;
let server: TestServer;
let seller: Seller;

beforeAll(async () => {
  setup = await startWithSellers("locales");
  server = setup.server;
  seller = setup.seller;
});
afterAll(async () => setup?.server.close());

const org = (body?: unknown) =>
  rawRequest(server.url, seller.token, body === undefined ? "GET" : "PATCH", `/v1/organizations/${seller.organizationId}`, body);

describe("the organization's default locale", () => {
  it("is none until set, takes a supported locale (matched: de-AT → de), refuses others with a 422, null clears it", async () => {
    expect((await org()).body.default_locale).toBeNull();
    const set = await org({ default_locale: "de-AT" });
    expect(set.status).toBe(200);
    expect(set.body.default_locale).toBe("de");
    expect((await org({ default_locale: "pt-br" })).body.default_locale).toBe("pt-BR");

    const bad = await org({ default_locale: "tlh" });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("default_locale");
    expect((await org()).body.default_locale).toBe("pt-BR");

    expect((await org({ default_locale: null })).body.default_locale).toBeNull();
  });

  it("reaches the checkout page's public read (organization.default_locale)", async () => {
    await org({ default_locale: "sv" });
    const product = await createProduct(seller, "fixed");
    const checkout = await sdkFor(server, seller.token).checkouts.create({ products: [product.id] });
    const page = await publicRequest(server, "GET", `/v1/checkouts/client/${checkout.clientSecret}`);
    expect((page.body.organization as Record<string, unknown>).default_locale).toBe("sv");
    await org({ default_locale: null });
  });
});

describe("a checkout's locale", () => {
  it("given through both SDKs is kept and returned, and the page reads it", async () => {
    const product = await createProduct(seller, "fixed");
    const made = await sdkFor(server, seller.token).checkouts.create({ products: [product.id], locale: "fr" });
    expect(made.locale).toBe("fr");
    expect((await sdkFor(server, seller.token).checkouts.get({ id: made.id })).locale).toBe("fr");
    const made049 = await sdk049For(server, seller.token).checkouts.create({ products: [product.id], locale: "ja" });
    expect(made049.locale).toBe("ja");
    expect((await sdk049For(server, seller.token).checkouts.get({ id: made049.id })).locale).toBe("ja");
    const page = await publicRequest(server, "GET", `/v1/checkouts/client/${made049.clientSecret}`);
    expect(page.body.locale).toBe("ja");
  });

  it("of a known customer: the page reads the customer's stored locale when the checkout names none", async () => {
    const product = await createProduct(seller, "fixed");
    const api = sdkFor(server, seller.token);
    const customer = await api.customers.create({ email: `locale-${Date.now()}@example.com`, name: "Ana", locale: "es" });
    const checkout = await api.checkouts.create({ products: [product.id], customerId: customer.id });
    const page = await publicRequest(server, "GET", `/v1/checkouts/client/${checkout.clientSecret}`);
    expect(page.body.locale).toBeNull();
    expect(page.body.customer_locale).toBe("es");
  });

  it("is recorded by the page's confirm when the checkout had none, and kept when it had one", async () => {
    const product = await createProduct(seller, "fixed");
    const api = sdkFor(server, seller.token);
    const open = await api.checkouts.create({ products: [product.id] });
    await pay(server, open, { locale: "nl" });
    expect((await api.checkouts.get({ id: open.id })).locale).toBe("nl");
  });
});
