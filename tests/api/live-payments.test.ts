// Real money only through a real processor: the built-in test processor serves sandbox organizations, and a
// live organization cannot open a checkout that may charge unless the server runs with TILL_TEST_PAYMENTS=live
// (which the rest of the suite does, and which NODE_ENV=production refuses).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startupBanner } from "../../server/banner.js";
import { loadConfig } from "../../server/config.js";
import { refuseUnsafeProduction } from "../../server/production-checks.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { rawOn } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let liveKey: string;
let sandboxKey: string;

beforeAll(async () => {
  server = await startServer({ TILL_TEST_PAYMENTS: undefined });
  seller = await createSeller(server, "live-pay");
  [liveKey, sandboxKey] = await Promise.all([seller.createKey(), seller.createSandboxKey()]);
});
afterAll(async () => server?.close());

const raw = rawOn(() => server);

describe("a live organization without a processor for real money", () => {
  it("says so in its Stripe connection's status: no test processor on live, the sandbox's on the sandbox", async () => {
    const live = await raw(liveKey, "GET", "/v1/stripe/connection");
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ connected: false, test_processor: false });
    expect((await raw(sandboxKey, "GET", "/v1/stripe/connection")).body).toEqual({ connected: false, test_processor: true });
    // with TILL_TEST_PAYMENTS=live (the rest of the suite) live says true: tests/e2e/home.test.ts reads it in the
    // settings
  });

  it("cannot open a checkout for a paid product: 403 PaymentNotReady naming what to do, nothing created", async () => {
    const live = sdkFor(server, liveKey);
    const product = await createProduct({ ...seller, sdk: live }, "fixed");
    const res = await raw(liveKey, "POST", "/v1/checkouts/", { products: [product.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error).toBe("PaymentNotReady");
    expect(res.body.detail).toContain("till sandbox on");
    expect(res.body.detail).toContain("TILL_TEST_PAYMENTS=live");
    // the SDK reports it as Polar's error for this case (a 403 on create is not modelled: an APIError with the body)
    await expect(live.checkouts.create({ products: [product.id] })).rejects.toThrow(/PaymentNotReady/);
    expect((await live.checkouts.list({})).result.items).toHaveLength(0);
  });

  it("refuses subscriptions and pay-what-you-want products too, and a checkout link's redirect", async () => {
    const live = { ...seller, sdk: sdkFor(server, liveKey) };
    for (const kind of ["monthly", "custom", "seats"] as const) {
      const product = await createProduct(live, kind);
      const res = await raw(liveKey, "POST", "/v1/checkouts/", { products: [product.id] });
      expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBe(403);
    }
    const product = await createProduct(live, "fixed");
    const link = await raw(liveKey, "POST", "/v1/checkout-links/", { payment_processor: "stripe", products: [product.id] });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const visit = await fetch(String(link.body.url), { redirect: "manual" });
    expect(visit.status).toBe(403);
    expect(visit.headers.get("location")).toBeNull();
  });

  it("opens and confirms a free product's checkout (no money moves)", async () => {
    const live = sdkFor(server, liveKey);
    const product = await createProduct({ ...seller, sdk: live }, "free");
    const checkout = await live.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout, {}, null);
    expect(confirmed.status).toBe("confirmed");
  });

  it("its sandbox pays with the test card as before", async () => {
    const sandbox = sdkFor(server, sandboxKey);
    const product = await createProduct({ ...seller, sdk: sandbox }, "fixed");
    const checkout = await sandbox.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server, checkout);
    expect(confirmed.status).toBe("confirmed");
  });
});

describe("TILL_TEST_PAYMENTS=live", () => {
  it("is refused with NODE_ENV=production, and the start-up banner warns while it is on", () => {
    expect(() => refuseUnsafeProduction(loadConfig({ TILL_TEST_PAYMENTS: "live", NODE_ENV: "production", SMTP_URL: "smtp://127.0.0.1:25" }))).toThrow(
      /NODE_ENV=production and this unsafe setting:\n {2}- TILL_TEST_PAYMENTS=live: anyone could pay a live organization with a test card/,
    );
    expect(() => loadConfig({ TILL_TEST_PAYMENTS: "yes" })).toThrow(/TILL_TEST_PAYMENTS/);
    const on = loadConfig({ TILL_TEST_PAYMENTS: "live" });
    expect(startupBanner(on, "dev-mailbox", "0.1.0")).toContain("TILL_TEST_PAYMENTS=live: live organizations take the test card");
    expect(startupBanner(loadConfig({}), "dev-mailbox", "0.1.0")).not.toContain("TILL_TEST_PAYMENTS");
  });
});
