// Customer sessions and the customer portal API through @polar-sh/sdk 0.47.1 (0.49.0 for a few reads): the
// seller makes a session (by customer id or external id), and with its token the customer reads and updates
// their details, lists and reads their orders, subscriptions, benefit grants and license keys, cancels and
// uncancels a subscription — never anyone else's. Missing, unknown and expired tokens are 401s; the seller's
// own token is not a customer session.
import { eq } from "drizzle-orm";
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerSession, outbox } from "../../server/db/schema/index.js";
import { hashToken } from "../../server/billing/customer-sessions/service.js";
import { rawRequest } from "../helpers/api.js";
import { uploadFile } from "../helpers/files.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let oneTime: Product;
let monthly: Product;
let keysBenefitId: string;
let portal: Polar;

/** One customer (by email) who bought both products, and a second customer of the same seller. */
let ada: { customerId: string; orderIds: string[]; subscriptionId: string; token: string };
let bob: { customerId: string; orderId: string; token: string };

async function buy(product: Product, email: string) {
  const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, { customerEmail: email });
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  return order;
}

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "portal");
  other = await createSeller(server, "portal-other");
  portal = new Polar({ serverURL: server.url });
  const keys = await seller.sdk.benefits.create({ type: "license_keys", description: "App key", properties: { prefix: "PRT", activations: { limit: 3, enableCustomerAdmin: true } } });
  const note = await seller.sdk.benefits.create({ type: "custom", description: "Support", properties: { note: "Mail support@acme.test" } });
  keysBenefitId = keys.id;
  [oneTime, monthly] = await Promise.all([createProduct(seller, "fixed"), createProduct(seller, "monthly")]);
  await seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [keys.id] } });
  await seller.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [note.id] } });

  const adaEmail = uniqueBuyer("ada");
  const first = await buy(oneTime, adaEmail);
  const second = await buy(monthly, adaEmail);
  expect(second.customerId).toBe(first.customerId);
  await seller.sdk.customers.update({ id: first.customerId, customerUpdate: { externalId: `ada-${first.customerId}` } });
  const adaSession = await seller.sdk.customerSessions.create({ externalCustomerId: `ada-${first.customerId}` });
  ada = { customerId: first.customerId, orderIds: [first.id, second.id], subscriptionId: second.subscriptionId ?? "", token: adaSession.token };
  const bobOrder = await buy(oneTime, uniqueBuyer("bob"));
  const bobSession = await seller.sdk.customerSessions.create({ customerId: bobOrder.customerId });
  bob = { customerId: bobOrder.customerId, orderId: bobOrder.id, token: bobSession.token };
});
afterAll(async () => server?.close());

describe("POST /v1/customer-sessions/", () => {
  it("makes a session by customer id or external id: a token shown once, an absolute portal URL, an hour to live", async () => {
    const before = Date.now();
    const s = await seller.sdk.customerSessions.create({ customerId: ada.customerId, returnUrl: "https://acme.test/account" });
    expect(s).toMatchObject({ customerId: ada.customerId, returnUrl: "https://acme.test/account", customer: { id: ada.customerId } });
    expect(s.token).toMatch(/^till_cst_[A-Za-z0-9_-]{43}$/);
    expect(s.customerPortalUrl).toBe(`${server.url}/portal?customer_session_token=${s.token}`);
    expect(s.expiresAt.getTime() - before).toBeGreaterThan(59 * 60_000);
    expect(s.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    // only the token's hash is stored
    const [row] = await server.database.db.select().from(customerSession).where(eq(customerSession.id, s.id));
    expect(row?.tokenHash).toBe(hashToken(s.token));
    expect(JSON.stringify(row)).not.toContain(s.token);
    const via049 = await seller.sdk049.customerSessions.create({ customerId: ada.customerId });
    expect(via049.customerId).toBe(ada.customerId);
  });

  it("refuses unknown, deleted and other organizations' customers, and malformed bodies, with 422", async () => {
    const token = await seller.createKey();
    const bodies = [
      { customer_id: "00000000-0000-4000-8000-000000000000" },
      { external_customer_id: "nobody" },
      {},
      { customer_id: ada.customerId, external_customer_id: "both" },
      { customer_id: "not-a-uuid" },
      { customer_id: ada.customerId, return_url: "javascript:alert(1)" },
    ];
    for (const body of bodies) expect((await raw(token, "POST", "/v1/customer-sessions/", body)).status, JSON.stringify(body)).toBe(422);
    expect((await raw(await other.createKey(), "POST", "/v1/customer-sessions/", { customer_id: ada.customerId })).status).toBe(422);
    const readOnly = await seller.createKey({ customers: ["read"] });
    expect((await raw(readOnly, "POST", "/v1/customer-sessions/", { customer_id: ada.customerId })).status).toBe(403);
  });
});

describe("sign-in to the portal by email", () => {
  const request = (body: unknown) => rawRequest(server.url, "", "POST", "/v1/customer-portal/customer-session/request", body);
  const authenticate = (code: string) => rawRequest(server.url, "", "POST", "/v1/customer-portal/customer-session/authenticate", { code });

  it("mails a one-time code that becomes a customer session; the email counts as verified", async () => {
    const email = (await seller.sdk.customers.get({ id: bob.customerId })).email ?? "";
    const res = await request({ email: email.toUpperCase(), organization_id: seller.organizationId });
    expect(res.status).toBe(202);
    const mail = await server.mailbox.waitFor(email, /^Access your .+ purchases$/);
    const code = /^ *([A-Z2-9]{8})$/m.exec(mail.text)?.[1] ?? "";
    expect(code).toHaveLength(8);
    expect(mail.links[0]).toBe(`${server.url}/portal?organization=${seller.slug}`);
    // from the seller, as the receipts are: their name on the From line and in the message, not till's
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(mail.fromName).toBe(org.name);
    expect(mail.fromAddress).toBe("no-reply@till.localhost");
    expect(mail.text).not.toMatch(/— till/);
    expect(mail.text).toContain(`Sent by ${org.name}.`);
    expect(mail.html).toContain(code);

    // typed in lower case with a space, as people do
    const ok = await authenticate(`${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`);
    expect(ok.status).toBe(200);
    const token = (ok.body as { token: string }).token;
    expect((await portal.customerPortal.customers.get({ customerSession: token })).emailVerified).toBe(true);
    // spent
    expect(await authenticate(code)).toEqual({ status: 401, body: { error: "Unauthorized", detail: "This customer session code is invalid or has expired.", code: "session_code_invalid" } });
  });

  it("answers the same for unknown emails and other organizations, mails nobody then, and stops mailing after five live codes", async () => {
    const email = (await seller.sdk.customers.get({ id: ada.customerId })).email ?? "";
    for (const body of [{ email: "nobody@example.com", organization_id: seller.organizationId }, { email, organization_id: other.organizationId }]) {
      expect((await request(body)).status).toBe(202);
    }
    await expect(server.mailbox.waitFor("nobody@example.com", /purchases/, 500)).rejects.toThrow(/no mail/);
    for (let i = 0; i < 5; i++) {
      expect((await request({ email, organization_id: seller.organizationId })).status).toBe(202);
      await server.mailbox.waitFor(email, /purchases/);
    }
    expect((await request({ email, organization_id: seller.organizationId })).status).toBe(202);
    await expect(server.mailbox.waitFor(email, /purchases/, 500)).rejects.toThrow(/no mail/);

    for (const body of [{ email: "not-an-email", organization_id: seller.organizationId }, { email, organization_id: "x" }, {}]) {
      expect((await request(body)).status, JSON.stringify(body)).toBe(422);
    }
    for (const code of ["", "ABCDEFGH", "x".repeat(65)]) expect((await authenticate(code)).status, code).not.toBe(200);
  });
});

describe("the confirm's customer session", () => {
  it("comes with the confirm answer (only there) and opens the buyer's portal", async () => {
    const checkout = await seller.sdk.checkouts.create({ products: [oneTime.id] });
    const confirmed = await pay(server, checkout);
    const token = confirmed.customerSessionToken ?? "";
    expect(token).toMatch(/^till_cst_/);
    const me = await portal.customerPortal.customers.get({ customerSession: token });
    expect(me.id).toBe(confirmed.customerId);
    const orders = await portal.customerPortal.orders.list({ customerSession: token }, {});
    expect(orders.result.items.map((o) => o.checkoutId)).toEqual([checkout.id]);
    // reading the checkout again does not hand the token out
    const again = await portal.checkouts.clientGet({ clientSecret: checkout.clientSecret });
    expect(JSON.stringify(again)).not.toContain(token);
  });
});

describe("the customer portal", () => {
  it("answers 401 without a token, with an unknown or expired one, and with the seller's token", async () => {
    expect(await raw("", "GET", "/v1/customer-portal/customers/me")).toMatchObject({ status: 401, body: { error: "Unauthorized" } });
    expect((await raw("till_cst_nope", "GET", "/v1/customer-portal/orders/")).status).toBe(401);
    expect((await raw(await seller.createKey(), "GET", "/v1/customer-portal/orders/")).status).toBe(401);
    const s = await seller.sdk.customerSessions.create({ customerId: bob.customerId });
    await server.database.db.update(customerSession).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(customerSession.id, s.id));
    expect((await raw(s.token, "GET", "/v1/customer-portal/customers/me")).status).toBe(401);
  });

  it("shows and updates the customer's own details; introspects the session", async () => {
    const me = await portal.customerPortal.customers.get({ customerSession: ada.token });
    expect(me).toMatchObject({ id: ada.customerId, emailVerified: false, oauthAccounts: {} });
    const updated = await portal.customerPortal.customers.update(
      { customerSession: ada.token },
      { billingName: "Ada Lovelace Ltd", billingAddress: { country: "GB", city: "London", line1: "1 Analytical St" }, taxId: "GB123456789" },
    );
    expect(updated).toMatchObject({ billingName: "Ada Lovelace Ltd", billingAddress: { country: "GB", city: "London" } });
    expect((await seller.sdk.customers.get({ id: ada.customerId })).billingAddress?.city).toBe("London");
    const bad = await raw(ada.token, "PATCH", "/v1/customer-portal/customers/me", { billing_address: { country: "XX" } });
    expect(bad.status).toBe(422);

    const intro = await portal.customerPortal.customerSession.introspect({ customerSession: ada.token });
    expect(intro.expiresAt).toBeInstanceOf(Date);
    const user = await portal.customerPortal.customerSession.getAuthenticatedUser({ customerSession: ada.token });
    expect(user).toMatchObject({ type: "customer", customerId: ada.customerId });
  });

  it("lists and reads only the customer's own orders (with product and seller), filtered by billing type", async () => {
    const list = await portal.customerPortal.orders.list({ customerSession: ada.token }, { limit: 10 });
    expect(list.result.items.map((o) => o.id).sort()).toEqual([...ada.orderIds].sort());
    const oneTimeOrder = list.result.items.find((o) => o.subscriptionId === null);
    expect(oneTimeOrder?.product).toMatchObject({ id: oneTime.id, organization: { id: seller.organizationId, slug: seller.slug } });
    expect(oneTimeOrder?.product?.benefits.map((b) => b.id)).toEqual([keysBenefitId]);
    const recurring = await portal.customerPortal.orders.list({ customerSession: ada.token }, { productBillingType: "recurring" });
    expect(recurring.result.items.map((o) => o.subscriptionId)).toEqual([ada.subscriptionId]);
    const got = await portal.customerPortal.orders.get({ customerSession: ada.token }, { id: ada.orderIds[0] ?? "" });
    expect(got.id).toBe(ada.orderIds[0]);
    // nothing of the seller's own: metadata, custom field data, the customer object
    const wire = await raw(ada.token, "GET", `/v1/customer-portal/orders/${ada.orderIds[0]}`);
    for (const key of ["metadata", "custom_field_data", "customer", "platform_fee_amount"]) expect(wire.body).not.toHaveProperty(key);

    expect((await raw(ada.token, "GET", `/v1/customer-portal/orders/${bob.orderId}`)).status).toBe(404);
    expect((await portal.customerPortal.orders.list({ customerSession: bob.token }, {})).result.items.map((o) => o.id)).toEqual([bob.orderId]);
    const p049 = new Polar049({ serverURL: server.url });
    expect((await p049.customerPortal.orders.list({ customerSession: ada.token }, {})).result.items).toHaveLength(2);
    expect((await p049.customerPortal.subscriptions.list({ customerSession: ada.token }, {})).result.items).toHaveLength(1);
    expect((await p049.customerPortal.benefitGrants.list({ customerSession: ada.token }, {})).result.items).toHaveLength(2);
    expect((await p049.customerPortal.customers.get({ customerSession: ada.token })).id).toBe(ada.customerId);
  });

  it("lists, reads, cancels at period end and uncancels the customer's subscription; others' are 404", async () => {
    const subs = await portal.customerPortal.subscriptions.list({ customerSession: ada.token }, { active: true });
    expect(subs.result.items.map((s) => s.id)).toEqual([ada.subscriptionId]);
    expect(subs.result.items[0]?.product).toMatchObject({ id: monthly.id, organization: { id: seller.organizationId } });
    expect((await portal.customerPortal.subscriptions.list({ customerSession: bob.token }, {})).result.items).toEqual([]);

    const canceled = await portal.customerPortal.subscriptions.cancel({ customerSession: ada.token }, { id: ada.subscriptionId });
    expect(canceled).toMatchObject({ cancelAtPeriodEnd: true, status: "active" });
    const again = await raw(ada.token, "DELETE", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`);
    expect(again).toMatchObject({ status: 403, body: { error: "AlreadyCanceledSubscription" } });
    const back = await portal.customerPortal.subscriptions.update(
      { customerSession: ada.token },
      { id: ada.subscriptionId, customerSubscriptionUpdate: { cancelAtPeriodEnd: false } },
    );
    expect(back.cancelAtPeriodEnd).toBe(false);
    const reasoned = await raw(ada.token, "PATCH", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`, {
      cancel_at_period_end: true,
      cancellation_reason: "too_expensive",
      cancellation_comment: "Cheaper elsewhere",
    });
    expect(reasoned.body).toMatchObject({ cancel_at_period_end: true, customer_cancellation_reason: "too_expensive", customer_cancellation_comment: "Cheaper elsewhere" });
    // the seller hears of it as of any cancellation
    const types = (await server.database.db.select({ type: outbox.type }).from(outbox).where(eq(outbox.organizationId, seller.organizationId))).map((r) => r.type);
    expect(types).toContain("subscription.canceled");
    expect(types).toContain("subscription.uncanceled");

    expect((await raw(bob.token, "DELETE", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`)).status).toBe(404);
    expect((await raw(bob.token, "GET", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`)).status).toBe(404);
    const bad = await raw(ada.token, "PATCH", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`, { cancellation_reason: "bored" });
    expect(bad.status).toBe(422);
    expect((await seller.sdk.subscriptions.get({ id: ada.subscriptionId })).customerCancellationReason).toBe("too_expensive");
  });

  it("lists the customer's benefit grants and license keys (the whole key), and nobody else's", async () => {
    const grants = await portal.customerPortal.benefitGrants.list({ customerSession: ada.token }, {});
    expect(grants.result.items).toHaveLength(2);
    const keyGrant = grants.result.items.find((g) => g.benefitId === keysBenefitId);
    expect(keyGrant?.benefit).toMatchObject({ type: "license_keys", organization: { id: seller.organizationId } });
    const got = await portal.customerPortal.benefitGrants.get({ customerSession: ada.token }, { id: keyGrant?.id ?? "" });
    expect(got.id).toBe(keyGrant?.id);
    expect((await raw(bob.token, "GET", `/v1/customer-portal/benefit-grants/${keyGrant?.id}`)).status).toBe(404);
    const wire = await raw(ada.token, "GET", `/v1/customer-portal/benefit-grants/${keyGrant?.id}`);
    const props = (wire.body as { properties: { license_key_id: string; display_key: string } }).properties;

    const keys = await portal.customerPortal.licenseKeys.list({ customerSession: ada.token }, {});
    expect(keys.result.items.map((k) => k.id)).toEqual([props.license_key_id]);
    const key = await portal.customerPortal.licenseKeys.get({ customerSession: ada.token }, { id: props.license_key_id });
    expect(key.key).toMatch(/^PRT-/);
    expect(key.displayKey).toBe(props.display_key);
    expect((await raw(bob.token, "GET", `/v1/customer-portal/license-keys/${props.license_key_id}`)).status).toBe(404);
    expect((await portal.customerPortal.licenseKeys.list({ customerSession: bob.token }, {})).result.items.map((k) => k.id)).not.toContain(props.license_key_id);
  });

  it("refuses bad ids and queries with 422 and changes nothing", async () => {
    for (const path of ["/v1/customer-portal/orders/nope", "/v1/customer-portal/subscriptions/nope", "/v1/customer-portal/orders/?limit=0", "/v1/customer-portal/subscriptions/?active=maybe"]) {
      expect((await raw(ada.token, "GET", path)).status, path).toBe(422);
    }
    expect((await raw(ada.token, "PATCH", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`, { seats: 0 })).status).toBe(422);
    expect((await raw(ada.token, "PATCH", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`, { product_id: "x" })).status).toBe(422);
  });

  it("lists the files of downloadables benefits with signed URLs that serve the bytes for an hour, and nothing else", async () => {
    const bytes = Buffer.from("%PDF-1.4 the handbook, chapter one");
    const book = await uploadFile(seller.sdk, "Handbook — 2nd ed.pdf", bytes, "downloadable");
    const old = await uploadFile(seller.sdk, "old.pdf", Buffer.from("%PDF-1.4 old"), "downloadable");
    const benefit = await seller.sdk.benefits.create({ type: "downloadables", description: "The handbook", properties: { files: [book.id, old.id], archived: { [old.id]: true } } });
    const product = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [benefit.id] } });
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    const token = (await pay(server, checkout)).customerSessionToken ?? "";

    const list = await portal.customerPortal.downloadables.list({ customerSession: token }, {});
    expect(list.result.items).toHaveLength(1);
    const [d] = list.result.items;
    expect(d).toMatchObject({ benefitId: benefit.id, file: { id: book.id, name: "Handbook — 2nd ed.pdf", mimeType: "application/pdf", size: bytes.length } });
    expect(d?.file.download.expiresAt.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);
    const again = await portal.customerPortal.downloadables.list({ customerSession: token }, {});
    expect(again.result.items[0]?.id).toBe(d?.id);

    const url = d?.file.download.url ?? "";
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="Handbook _ 2nd ed.pdf"; filename*=UTF-8''${encodeURIComponent("Handbook — 2nd ed.pdf")}`);
    expect(res.headers.get("cache-control")).toBe("private, no-store");

    // altered, expired or moved to another file: refused
    const u = new URL(url);
    const sig = u.searchParams.get("signature") ?? "";
    const tampered = new URL(url);
    tampered.searchParams.set("signature", `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
    expect((await fetch(tampered)).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const otherFile = new URL(url.replace(book.id, old.id));
    expect((await fetch(otherFile)).status).toBe(403);
    expect((await fetch(`${server.url}/v1/files/${book.id}/download`)).status).toBe(403);
    expect((await fetch(`${server.url}/v1/files/not-a-file/download?expires=1&signature=x`)).status).toBe(403);
    // customers without the benefit see no downloadables
    expect((await portal.customerPortal.downloadables.list({ customerSession: bob.token }, {})).result.items).toEqual([]);
  });

  it("shows a seller by slug, with its public live products, to anyone", async () => {
    const archived = await createProduct(seller, "fixed");
    await seller.sdk.products.update({ id: archived.id, productUpdate: { isArchived: true } });
    const data = await portal.customerPortal.organizations.get({ slug: seller.slug });
    expect(data.organization).toMatchObject({ id: seller.organizationId, slug: seller.slug, customerPortalSettings: { subscription: { updatePlan: true } } });
    const ids = data.products.map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining([oneTime.id, monthly.id]));
    expect(ids).not.toContain(archived.id);
    const wire = await rawRequest(server.url, "", "GET", `/v1/customer-portal/organizations/${seller.slug}`);
    expect(wire.body).not.toHaveProperty("organization.email");
    expect(JSON.stringify(wire.body)).not.toContain('"metadata"');
    for (const slug of ["no-such-seller", "x".repeat(90)]) {
      expect((await rawRequest(server.url, "", "GET", `/v1/customer-portal/organizations/${slug}`)).status, slug).toBe(404);
    }
    // the input guard refuses a NUL in any path parameter (server/http/input-guard.ts)
    expect((await rawRequest(server.url, "", "GET", "/v1/customer-portal/organizations/%00")).status).toBe(422);
    // (the router answers an over-long path segment itself)
    expect((await rawRequest(server.url, "", "GET", `/v1/customer-portal/organizations/${"x".repeat(300)}`)).status).toBe(414);
  });

  it("shows the customer's usage of each meter, with its name", async () => {
    const meter = await seller.sdk.meters.create({
      name: "Exports",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "export" }] },
      aggregation: { func: "count" },
    });
    const ingest = await rawRequest(server.url, await seller.createKey(), "POST", "/v1/events/ingest", {
      events: [...Array.from({ length: 3 }, () => ({ name: "export", customer_id: ada.customerId })), { name: "export", customer_id: bob.customerId }],
    });
    expect(ingest.status).toBe(200);
    const list = await portal.customerPortal.customerMeters.list({ customerSession: ada.token }, { meterId: meter.id });
    expect(list.result.items).toHaveLength(1);
    expect(list.result.items[0]).toMatchObject({ customerId: ada.customerId, meterId: meter.id, consumedUnits: 3, creditedUnits: 0, balance: -3, meter: { id: meter.id, name: "Exports" } });
    const bobs = await portal.customerPortal.customerMeters.list({ customerSession: bob.token }, {});
    expect(bobs.result.items.find((m) => m.meterId === meter.id)?.consumedUnits).toBe(1);
  });
});
