// License keys through @polar-sh/sdk 0.47.1 (list, get and validate again through 0.49.0): a purchase of a
// product with a license_keys benefit issues a key in the confirm's transaction (prefix, limits, expiry copied
// from the benefit), the grant and its webhook name it, the seller lists, reads and changes keys, software
// validates / activates / deactivates with the seller's token or publicly (customer portal routes) under the
// limits — also concurrently — and revoking the grant (refund, subscription revoke, customer delete) revokes
// the key. Bad input and other organizations' keys change nothing.
import { eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benefitGrant, licenseKey, licenseKeyActivation, outbox } from "../../server/db/schema/index.js";
import { locs, rawRequest } from "../helpers/api.js";
import { createProduct, pay, publicRequest, publicSdk } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, TEST_SECRET, type TestServer } from "../helpers/server.js";
import { unseal } from "../../server/seal.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
/** One-time product with two benefits: keys with prefix, 2 activations, 10 usages, one year; and a bare key. */
let product: Product;
let monthly: Product;
let keysBenefitId: string;
let bareBenefitId: string;

const db = () => server.database.db;
const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const KEY_RE = /^ACME-[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

/** Buys `p` and answers the customer's keys, the licensed one first. */
async function buy(p: Product = product) {
  const checkout = await seller.sdk.checkouts.create({ products: [p.id] });
  await pay(server, checkout);
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  // the rows hold the keys sealed (docs/security.md): opened as the server opens them
  const stored = await db().select().from(licenseKey).where(eq(licenseKey.customerId, order.customerId));
  const rows = stored.map((r) => ({ ...r, key: unseal(TEST_SECRET, "license-key", r.key) ?? "not sealed" }));
  const licensed = rows.find((r) => r.benefitId === keysBenefitId);
  if (!licensed) throw new Error("no license key issued");
  return { order, key: licensed, rows };
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "lk");
  other = await createSeller(server, "lk-other");
  const keys = await seller.sdk.benefits.create({
    type: "license_keys",
    description: "App license",
    properties: { prefix: "acme", expires: { ttl: 1, timeframe: "year" }, activations: { limit: 2, enableCustomerAdmin: true }, limitUsage: 10 },
  });
  const bare = await seller.sdk.benefits.create({ type: "license_keys", description: "Bare key", properties: {} });
  keysBenefitId = keys.id;
  bareBenefitId = bare.id;
  [product, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
  await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [keysBenefitId, bareBenefitId] } });
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [keysBenefitId] } });
});
afterAll(async () => {
  await server?.close();
});

describe("issuing", () => {
  it("a purchase issues one key per license_keys benefit, with the benefit's prefix, limits and expiry; the grant names it", async () => {
    const before = Date.now();
    const { order, key, rows } = await buy();
    expect(rows).toHaveLength(2);
    expect(key.key).toMatch(KEY_RE);
    expect(key).toMatchObject({ status: "granted", limitActivations: 2, limitUsage: 10, usage: 0, validations: 0, organizationId: seller.organizationId });
    const expires = key.expiresAt?.getTime() ?? 0;
    expect(expires).toBeGreaterThan(before + 364 * 86_400_000);
    expect(expires).toBeLessThan(Date.now() + 367 * 86_400_000);
    const bare = rows.find((r) => r.benefitId === bareBenefitId);
    expect(bare?.key).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(bare).toMatchObject({ limitActivations: null, limitUsage: null, expiresAt: null });

    const grants = await db().select().from(benefitGrant).where(eq(benefitGrant.orderId, order.id));
    const grant = grants.find((g) => g.benefitId === keysBenefitId);
    expect(grant?.properties).toEqual({ license_key_id: key.id, display_key: `****-${key.key.slice(-6)}` });
    expect(key.benefitGrantId).toBe(grant?.id);

    // the benefit_grant.created event carries the same properties, and the customer state shows them
    const events = await db().select().from(outbox).where(eq(outbox.organizationId, seller.organizationId));
    const created = events.find((e) => e.type === "benefit_grant.created" && (e.payload as { id?: string }).id === grant?.id);
    expect((created?.payload as { properties?: unknown }).properties).toEqual(grant?.properties);
    const state = await seller.sdk.customers.getState({ id: order.customerId });
    const granted = state.grantedBenefits.find((g) => g.benefitId === keysBenefitId);
    expect(granted?.properties).toEqual({ licenseKeyId: key.id, displayKey: `****-${key.key.slice(-6)}` });
  });

  it("a subscription issues a key too, revoked with the subscription", async () => {
    const { order, key } = await buy(monthly);
    expect(order.subscriptionId).toBeTruthy();
    await seller.sdk.subscriptions.revoke({ id: order.subscriptionId ?? "" });
    const [after] = await db().select().from(licenseKey).where(eq(licenseKey.id, key.id));
    expect(after?.status).toBe("revoked");
    const res = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: seller.organizationId });
    expect(res).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "License key is no longer active." } });
  });

  it("a refund that revokes benefits revokes the key; deleting the customer does too", async () => {
    const first = await buy();
    await seller.sdk.refunds.create({ orderId: first.order.id, reason: "customer_request", amount: first.order.totalAmount, revokeBenefits: true });
    const second = await buy();
    await seller.sdk.customers.delete({ id: second.order.customerId });
    const statuses = await db().select({ id: licenseKey.id, status: licenseKey.status }).from(licenseKey);
    for (const id of [first.key.id, second.key.id]) expect(statuses.find((s) => s.id === id)?.status).toBe("revoked");
  });
});

describe("the seller's API", () => {
  it("lists (filters, pagination, both SDKs), gets with activations, and 404s other organizations' keys", async () => {
    const { key, order } = await buy();
    const page = await seller.sdk.licenseKeys.list({ benefitId: keysBenefitId, limit: 100 });
    const listed = page.result.items.find((k) => k.id === key.id);
    expect(listed).toMatchObject({
      key: key.key,
      displayKey: `****-${key.key.slice(-6)}`,
      status: "granted",
      customerId: order.customerId,
      benefitId: keysBenefitId,
      limitActivations: 2,
      usage: 0,
      limitUsage: 10,
      validations: 0,
      lastValidatedAt: null,
    });
    expect(listed?.customer.id).toBe(order.customerId);
    expect(page.result.items.every((k) => k.benefitId === keysBenefitId)).toBe(true);
    const bare = await seller.sdk.licenseKeys.list({ benefitId: bareBenefitId, limit: 100 });
    expect(bare.result.items.every((k) => k.benefitId === bareBenefitId && k.limitActivations === null)).toBe(true);
    const paged = await seller.sdk.licenseKeys.list({ limit: 1, page: 2 });
    expect(paged.result.items).toHaveLength(1);
    expect(paged.result.pagination.totalCount).toBeGreaterThanOrEqual(2);
    expect((await seller.sdk049.licenseKeys.list({ limit: 100 })).result.items.some((k) => k.id === key.id)).toBe(true);

    const got = await seller.sdk.licenseKeys.get({ id: key.id });
    expect(got).toMatchObject({ id: key.id, key: key.key, activations: [] });
    expect((await seller.sdk049.licenseKeys.get({ id: key.id })).id).toBe(key.id);

    expect((await other.sdk.licenseKeys.list({ limit: 100 })).result.items).toEqual([]);
    const foreign = await raw(await other.createKey(), "GET", `/v1/license-keys/${key.id}`);
    expect(foreign).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } });
    const missing = await raw(await seller.createKey(), "GET", "/v1/license-keys/not-a-uuid");
    expect(missing.status).toBe(422);
    const unauth = await raw("till_nope", "GET", "/v1/license-keys/");
    expect(unauth).toMatchObject({ status: 401, body: { error: "Unauthorized" } });
  });

  it("updates status, usage, limits and expiry; refuses bad values with 422 and changes nothing", async () => {
    const { key } = await buy();
    const updated = await seller.sdk.licenseKeys.update({
      id: key.id,
      licenseKeyUpdate: { status: "disabled", usage: 3, limitActivations: 5, limitUsage: 50, expiresAt: new Date("2030-01-01T00:00:00Z") },
    });
    expect(updated).toMatchObject({ status: "disabled", usage: 3, limitActivations: 5, limitUsage: 50 });
    expect(updated.expiresAt?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    // the SDK always sends usage (its default is 0); a body without it keeps the usage
    const token = await seller.createKey();
    const cleared = await raw(token, "PATCH", `/v1/license-keys/${key.id}`, { status: "granted", limit_usage: null, expires_at: null });
    expect(cleared.body).toMatchObject({ status: "granted", usage: 3, limit_activations: 5, limit_usage: null, expires_at: null });
    const reset = await seller.sdk.licenseKeys.update({ id: key.id, licenseKeyUpdate: {} });
    expect(reset.usage).toBe(0);
    await raw(token, "PATCH", `/v1/license-keys/${key.id}`, { usage: 3 });

    for (const body of [{ status: "lost" }, { usage: -1 }, { limit_activations: 0 }, { limit_activations: 51 }, { limit_usage: 0 }, { expires_at: "soon" }, { usage: 1.5 }]) {
      const res = await raw(token, "PATCH", `/v1/license-keys/${key.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body)[0]?.[0]).toBe("body");
    }
    const [row] = await db().select().from(licenseKey).where(eq(licenseKey.id, key.id));
    expect(row).toMatchObject({ status: "granted", usage: 3, limitActivations: 5, limitUsage: null, expiresAt: null });
    expect((await raw(await other.createKey(), "PATCH", `/v1/license-keys/${key.id}`, { status: "revoked" })).status).toBe(404);
  });

  it("needs license_keys:read to read and license_keys:write to change or validate", async () => {
    const { key } = await buy();
    const readOnly = await seller.createKey({ license_keys: ["read"] });
    expect((await raw(readOnly, "GET", `/v1/license-keys/${key.id}`)).status).toBe(200);
    expect((await raw(readOnly, "PATCH", `/v1/license-keys/${key.id}`, { usage: 1 })).status).toBe(403);
    const validate = await raw(readOnly, "POST", "/v1/license-keys/validate", { key: key.key, organization_id: seller.organizationId });
    expect(validate.status).toBe(403);
    const none = await seller.createKey({ products: ["read"] });
    expect((await raw(none, "GET", "/v1/license-keys/")).status).toBe(403);
  });
});

describe("validate, activate, deactivate", () => {
  it("validates with the seller's token: counts validations and usage, refuses usage beyond the limit", async () => {
    const { key, order } = await buy();
    const v = await seller.sdk.licenseKeys.validate({ key: key.key, organizationId: seller.organizationId, incrementUsage: 4 });
    expect(v).toMatchObject({ id: key.id, validations: 1, usage: 4, status: "granted", customerId: order.customerId });
    expect(v.lastValidatedAt).toBeInstanceOf(Date);
    const v2 = await seller.sdk049.licenseKeys.validate({ key: key.key, organizationId: seller.organizationId, benefitId: keysBenefitId, customerId: order.customerId });
    expect(v2).toMatchObject({ validations: 2, usage: 4 });
    const token = await seller.createKey();
    const over = await raw(token, "POST", "/v1/license-keys/validate", { key: key.key, organization_id: seller.organizationId, increment_usage: 7 });
    expect(over).toEqual({ status: 400, body: { error: "BadRequest", detail: "License key only has 6 more usages." } });
    const [row] = await db().select().from(licenseKey).where(eq(licenseKey.id, key.id));
    expect(row).toMatchObject({ usage: 4, validations: 2 });

    // the reasons a key is refused, each a 404 that names it
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ key: "ACME-NOT-A-KEY" }, "License key not found."],
      [{ key: key.key, benefit_id: bareBenefitId }, "License key does not match given benefit."],
      [{ key: key.key, customer_id: other.organizationId }, "License key does not match given user."],
      [{ key: key.key, activation_id: "00000000-0000-4000-8000-000000000000" }, "License key activation not found."],
    ];
    for (const [body, detail] of cases) {
      const res = await raw(token, "POST", "/v1/license-keys/validate", { organization_id: seller.organizationId, ...body });
      expect(res, detail).toEqual({ status: 404, body: { error: "ResourceNotFound", detail } });
    }
    await seller.sdk.licenseKeys.update({ id: key.id, licenseKeyUpdate: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await raw(token, "POST", "/v1/license-keys/validate", { key: key.key, organization_id: seller.organizationId });
    expect(expired.body).toEqual({ error: "ResourceNotFound", detail: "License key has expired." });
    // another organization's token, or naming the key with another organization: not found
    const foreign = await raw(await other.createKey(), "POST", "/v1/license-keys/validate", { key: key.key, organization_id: seller.organizationId });
    expect(foreign.status).toBe(404);
    const elsewhere = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: other.organizationId });
    expect(elsewhere.body).toEqual({ error: "ResourceNotFound", detail: "License key not found." });
  });

  it("activates up to the limit (publicly, as software on a customer's machine does), validates an activation's conditions, deactivates", async () => {
    const { key } = await buy();
    const portal = publicSdk(server);
    const org = seller.organizationId;
    const a1 = await portal.customerPortal.licenseKeys.activate({ key: key.key, organizationId: org, label: "laptop", conditions: { major: 2 }, meta: { os: "linux" } });
    expect(a1).toMatchObject({ licenseKeyId: key.id, label: "laptop", meta: { os: "linux" }, licenseKey: { id: key.id, key: key.key } });
    const a2 = await seller.sdk.licenseKeys.activate({ key: key.key, organizationId: org, label: "desktop" });
    const full = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/activate", { key: key.key, organization_id: org, label: "third" });
    expect(full).toEqual({ status: 403, body: { error: "NotPermitted", detail: "License key activation limit already reached" } });

    const ok = await portal.customerPortal.licenseKeys.validate({ key: key.key, organizationId: org, activationId: a1.id, conditions: { major: 2 } });
    expect(ok.activation).toMatchObject({ id: a1.id, label: "laptop" });
    const wrong = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", {
      key: key.key,
      organization_id: org,
      activation_id: a1.id,
      conditions: { major: 3 },
    });
    expect(wrong.body).toEqual({ error: "ResourceNotFound", detail: "License key does not match required conditions" });

    const got = await seller.sdk.licenseKeys.get({ id: key.id });
    expect(got.activations.map((a) => a.label)).toEqual(["laptop", "desktop"]);
    const activation = await seller.sdk.licenseKeys.getActivation({ id: key.id, activationId: a2.id });
    expect(activation).toMatchObject({ id: a2.id, label: "desktop", licenseKey: { id: key.id } });

    await portal.customerPortal.licenseKeys.deactivate({ key: key.key, organizationId: org, activationId: a1.id });
    const again = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/deactivate", { key: key.key, organization_id: org, activation_id: a1.id });
    expect(again).toEqual({ status: 404, body: { error: "ResourceNotFound", detail: "License key activation not found." } });
    expect((await raw(await seller.createKey(), "GET", `/v1/license-keys/${key.id}/activations/${a1.id}`)).status).toBe(404);
    // the freed place can be taken again
    await seller.sdk.licenseKeys.activate({ key: key.key, organizationId: org, label: "new laptop" });
    expect((await seller.sdk.licenseKeys.get({ id: key.id })).activations.map((a) => a.label)).toEqual(["desktop", "new laptop"]);
    await seller.sdk.licenseKeys.deactivate({ key: key.key, organizationId: org, activationId: a2.id });
  });

  it("never lets concurrent activations pass the limit, nor concurrent validations the usage limit", async () => {
    const { key } = await buy();
    const org = seller.organizationId;
    const tries = await Promise.all(
      Array.from({ length: 8 }, (_, i) => publicRequest(server, "POST", "/v1/customer-portal/license-keys/activate", { key: key.key, organization_id: org, label: `m${i}` })),
    );
    expect(tries.filter((r) => r.status === 200)).toHaveLength(2);
    expect(tries.filter((r) => r.status === 403)).toHaveLength(6);
    const live = await db().select().from(licenseKeyActivation).where(eq(licenseKeyActivation.licenseKeyId, key.id));
    expect(live).toHaveLength(2);

    const uses = await Promise.all(
      Array.from({ length: 8 }, () => publicRequest(server, "POST", "/v1/customer-portal/license-keys/validate", { key: key.key, organization_id: org, increment_usage: 3 })),
    );
    expect(uses.filter((r) => r.status === 200)).toHaveLength(3);
    const [row] = await db().select().from(licenseKey).where(eq(licenseKey.id, key.id));
    expect(row).toMatchObject({ usage: 9, validations: 3 });
  });

  it("refuses activation of keys without activations, disabled and expired keys (403), and bad bodies (422) without changing anything", async () => {
    const { rows } = await buy();
    const bare = rows.find((r) => r.benefitId === bareBenefitId);
    const licensed = rows.find((r) => r.benefitId === keysBenefitId);
    if (!bare || !licensed) throw new Error("keys missing");
    const org = seller.organizationId;
    const activate = (key: string, extra: Record<string, unknown> = {}) =>
      publicRequest(server, "POST", "/v1/customer-portal/license-keys/activate", { key, organization_id: org, label: "x", ...extra });
    expect((await activate(bare.key)).body).toEqual({
      error: "NotPermitted",
      detail: "This license key does not support activations. Use the /validate endpoint instead to check license validity.",
    });
    await seller.sdk.licenseKeys.update({ id: licensed.id, licenseKeyUpdate: { status: "disabled" } });
    expect((await activate(licensed.key)).body).toEqual({
      error: "NotPermitted",
      detail: "License key is no longer active. This license key can not be activated.",
    });
    await seller.sdk.licenseKeys.update({ id: licensed.id, licenseKeyUpdate: { status: "granted", expiresAt: new Date(Date.now() - 1000) } });
    expect((await activate(licensed.key)).body).toEqual({ error: "NotPermitted", detail: "License key has expired." });

    const bad: Array<Record<string, unknown>> = [
      { key: licensed.key, organization_id: "nope", label: "x" },
      { key: "", organization_id: org, label: "x" },
      { key: licensed.key, organization_id: org, label: "" },
      { key: licensed.key, organization_id: org, label: "x", meta: { nested: { a: 1 } } },
      { key: licensed.key, organization_id: org, label: "x", conditions: [1, 2] },
      { key: 42, organization_id: org, label: "x" },
    ];
    for (const body of bad) {
      const res = await publicRequest(server, "POST", "/v1/customer-portal/license-keys/activate", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    for (const path of ["validate", "deactivate"]) {
      const res = await publicRequest(server, "POST", `/v1/customer-portal/license-keys/${path}`, { key: licensed.key, organization_id: org, activation_id: "x", increment_usage: -1 });
      expect(res.status).toBe(422);
    }
    expect(await db().select().from(licenseKeyActivation).where(eq(licenseKeyActivation.licenseKeyId, licensed.id))).toEqual([]);
  });
});
