// Methods of @polar-sh/sdk 0.47.1 and 0.49.0 that till once answered with 404, each through both SDK
// versions (their zod schemas validate every answer): customerMeters.list / get (the seller's view of a
// customer's usage of a meter), customerPortal.customerMeters.get, customerPortal.orders.update,
// customerPortal.benefitGrants.update, customerPortal.customers.requestEmailUpdate / checkEmailUpdate /
// verifyEmailUpdate (the link mailed through the worker's customer email queue), organizations.create,
// orders.create / orders.finalize (0.49.0 only). Another organization's rows, or another
// customer's, answer 404; bad input a 422.
import { Polar } from "@polar-sh/sdk";
import { Polar as Polar049 } from "polar-sdk-049";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { ResourceNotFound as ResourceNotFound049 } from "polar-sdk-049/models/errors/resourcenotfound.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { HTTPValidationError as HTTPValidationError049 } from "polar-sdk-049/models/errors/httpvalidationerror.js";
import { NotPermitted } from "@polar-sh/sdk/models/errors/notpermitted.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, sdk049For, sdkFor, type Seller } from "../helpers/seller.js";
import { CannotCreateOrganizationError } from "polar-sdk-049/models/errors/cannotcreateorganizationerror.js";
import { SDKError } from "@polar-sh/sdk/models/errors/sdkerror.js";
import { PaymentFailed } from "polar-sdk-049/models/errors/paymentfailed.js";
import { OrderNotDraft } from "polar-sdk-049/models/errors/ordernotdraft.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let portal: Polar;
let portal049: Polar049;

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e);

/** A paid order of `product` for a new buyer, with that customer's portal session. */
async function buy(s: Seller, product: Product) {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, { customerEmail: uniqueBuyer("wire") });
  const [order] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  const session = (await s.sdk.customerSessions.create({ customerId: order.customerId })).token;
  return { order, session };
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "wire");
  other = await createSeller(server, "wire-other");
  portal = new Polar({ serverURL: server.url });
  portal049 = new Polar049({ serverURL: server.url });
  await server.worker.start();
}, 120_000);
afterAll(async () => server?.close());

describe("customer meters", () => {
  it("customerMeters.list / get (seller) and customerPortal.customerMeters.get (customer) through both SDKs", async () => {
    const meter = await seller.sdk.meters.create({
      name: "Renders",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "render" }] },
      aggregation: { func: "count" },
    });
    const stamp = Date.now();
    const ada = await seller.sdk.customers.create({ email: `ada-${stamp}@example.com`, name: "Ada", externalId: `ada-${stamp}` });
    const bob = await seller.sdk.customers.create({ email: `bob-${stamp}@example.com`, name: "Bob" });
    const idle = await seller.sdk.customers.create({ email: `idle-${stamp}@example.com` });
    await seller.sdk.events.ingest({
      events: [
        ...Array.from({ length: 3 }, () => ({ name: "render", customerId: ada.id })),
        { name: "render", externalCustomerId: `ada-${stamp}` },
        { name: "render", customerId: bob.id },
      ],
    });

    // the seller's list: one row per customer with usage, the customer and the meter embedded
    const all = (await seller.sdk.customerMeters.list({ meterId: meter.id, sorting: ["-consumed_units"] })).result;
    expect(all.pagination.totalCount).toBe(2);
    expect(all.items.map((m) => [m.customerId, m.consumedUnits, m.creditedUnits, m.balance])).toEqual([
      [ada.id, 4, 0, -4],
      [bob.id, 1, 0, -1],
    ]);
    expect(all.items[0]).toMatchObject({ meterId: meter.id, customer: { id: ada.id, email: ada.email }, meter: { id: meter.id, name: "Renders" } });
    const byExternal = (await seller.sdk049.customerMeters.list({ externalCustomerId: `ada-${stamp}` })).result.items;
    expect(byExternal.map((m) => m.customerId)).toEqual([ada.id]);
    const byName = (await seller.sdk049.customerMeters.list({ meterId: meter.id, sorting: ["customer_name"], limit: 1, page: 2 })).result;
    expect(byName.items.map((m) => m.customerId)).toEqual([bob.id]);
    expect(byName.pagination).toEqual({ totalCount: 2, maxPage: 2 });
    expect((await seller.sdk.customerMeters.list({ customerId: idle.id })).result.items).toEqual([]);

    // get by the id the list (and the customer state) gives
    const adaMeter = all.items[0]!;
    const state = await seller.sdk.customers.getState({ id: ada.id });
    expect(state.activeMeters.map((m) => m.id)).toContain(adaMeter.id);
    expect(await seller.sdk.customerMeters.get({ id: adaMeter.id })).toMatchObject({ id: adaMeter.id, customerId: ada.id, consumedUnits: 4 });
    expect(await seller.sdk049.customerMeters.get({ id: adaMeter.id })).toMatchObject({ id: adaMeter.id, meter: { name: "Renders" } });

    // another organization: its list is empty for these customers, its get a 404
    expect((await other.sdk.customerMeters.list({ customerId: ada.id })).result.items).toEqual([]);
    expect(await failure(other.sdk.customerMeters.get({ id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound);
    expect(await failure(other.sdk049.customerMeters.get({ id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound049);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/nope")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/?customer_id=nope")).status).toBe(422);
    expect((await raw(seller.token, "GET", "/v1/customer-meters/?sorting=shoe_size")).status).toBe(422);

    // the portal: the customer's own meter by id; another customer's is a 404
    const adaSession = (await seller.sdk.customerSessions.create({ customerId: ada.id })).token;
    const bobSession = (await seller.sdk.customerSessions.create({ customerId: bob.id })).token;
    const mine = await portal.customerPortal.customerMeters.get({ customerSession: adaSession }, { id: adaMeter.id });
    expect(mine).toMatchObject({ id: adaMeter.id, customerId: ada.id, consumedUnits: 4, meter: { id: meter.id, name: "Renders" } });
    const mine049 = await portal049.customerPortal.customerMeters.get({ customerSession: adaSession }, { id: adaMeter.id });
    expect(mine049.balance).toBe(-4);
    expect(await failure(portal.customerPortal.customerMeters.get({ customerSession: bobSession }, { id: adaMeter.id }))).toBeInstanceOf(ResourceNotFound);
    expect(await failure(portal049.customerPortal.customerMeters.get({ customerSession: bobSession }, { id: adaMeter.id }))).toBeInstanceOf(
      ResourceNotFound049,
    );
    expect((await raw(adaSession, "GET", "/v1/customer-portal/meters/nope")).status).toBe(422);
    expect((await raw("nope", "GET", `/v1/customer-portal/meters/${adaMeter.id}`)).status).toBe(401);
  });
});

describe("customerPortal.orders.update", () => {
  it("sets the billing name and address of the customer's own order through both SDKs; refuses others' and bad input", async () => {
    const product = await createProduct(seller, "fixed");
    const mine = await buy(seller, product);
    const theirs = await buy(seller, product);
    const foreign = await buy(other, await createProduct(other, "fixed"));

    const updated = await portal.customerPortal.orders.update(
      { customerSession: mine.session },
      { id: mine.order.id, customerOrderUpdate: { billingName: "Ada Lovelace Ltd", billingAddress: { country: "FR", line1: "1 rue de la Paix", city: "Paris", postalCode: "75002" } } },
    );
    expect(updated).toMatchObject({ id: mine.order.id, billingName: "Ada Lovelace Ltd", billingAddress: { country: "FR", line1: "1 rue de la Paix", city: "Paris" } });
    const updated049 = await portal049.customerPortal.orders.update({ customerSession: mine.session }, { id: mine.order.id, customerOrderUpdate: { billingName: "Ada L." } });
    expect(updated049).toMatchObject({ billingName: "Ada L.", billingAddress: { line1: "1 rue de la Paix" } });
    // the seller sees it
    expect(await seller.sdk.orders.get({ id: mine.order.id })).toMatchObject({ billingName: "Ada L.", billingAddress: { city: "Paris" } });

    // another customer's order, another organization's: 404, unchanged
    for (const id of [theirs.order.id, foreign.order.id]) {
      expect(await failure(portal.customerPortal.orders.update({ customerSession: mine.session }, { id, customerOrderUpdate: { billingName: "Mallory" } }))).toBeInstanceOf(
        ResourceNotFound,
      );
    }
    expect((await seller.sdk.orders.get({ id: theirs.order.id })).billingName).not.toBe("Mallory");
    expect((await other.sdk.orders.get({ id: foreign.order.id })).billingName).not.toBe("Mallory");
    // the country cannot change; bad input is a 422 and changes nothing
    const moved = await failure(
      portal.customerPortal.orders.update({ customerSession: mine.session }, { id: mine.order.id, customerOrderUpdate: { billingAddress: { country: "DE" } } }),
    );
    expect(moved).toBeInstanceOf(HTTPValidationError);
    const bad = await raw(mine.session, "PATCH", `/v1/customer-portal/orders/${mine.order.id}`, { billing_name: 42 });
    expect(bad.status).toBe(422);
    expect((await raw(mine.session, "PATCH", "/v1/customer-portal/orders/nope", {})).status).toBe(422);
    expect((await raw("nope", "PATCH", `/v1/customer-portal/orders/${mine.order.id}`, {})).status).toBe(401);
    expect(await seller.sdk.orders.get({ id: mine.order.id })).toMatchObject({ billingName: "Ada L.", billingAddress: { country: "FR" } });
  });
});

describe("customerPortal.benefitGrants.update", () => {
  it("answers the customer's own grant through both SDKs; a wrong type is a 422, a revoked grant a 403, another's a 404", async () => {
    const perk = await seller.sdk.benefits.create({ type: "custom", description: "Wire perk", properties: { note: "Thanks" } });
    const repo = await seller.sdk.benefits.create({
      type: "github_repository",
      description: "Source access",
      properties: { repositoryOwner: "acme", repositoryName: "engine", permission: "pull" },
    });
    const product = await createProduct(seller, "monthly");
    await seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [perk.id, repo.id] } });
    const mine = await buy(seller, product);
    const theirs = await buy(seller, product);
    const grantOf = async (session: string, benefitId: string) => {
      const items = (await portal.customerPortal.benefitGrants.list({ customerSession: session }, { benefitId })).result.items;
      if (!items[0]) throw new Error("no grant");
      return items[0];
    };
    const custom = await grantOf(mine.session, perk.id);
    const github = await grantOf(mine.session, repo.id);

    const same = await portal.customerPortal.benefitGrants.update({ customerSession: mine.session }, { id: custom.id, customerBenefitGrantUpdate: { benefitType: "custom" } });
    expect(same).toMatchObject({ id: custom.id, customerId: mine.order.customerId, benefitId: perk.id, isRevoked: false });
    const same049 = await portal049.customerPortal.benefitGrants.update({ customerSession: mine.session }, { id: custom.id, customerBenefitGrantUpdate: { benefitType: "custom" } });
    expect(same049.id).toBe(custom.id);

    // the type must be the grant's
    const wrong = await failure(
      portal049.customerPortal.benefitGrants.update({ customerSession: mine.session }, { id: custom.id, customerBenefitGrantUpdate: { benefitType: "license_keys" } }),
    );
    expect(wrong).toBeInstanceOf(HTTPValidationError049);
    expect((wrong as HTTPValidationError049).detail?.[0]?.loc).toEqual(["body", "benefit_type"]);
    // a GitHub grant names a connected account of the customer's: none is connected
    const unlinked = await failure(
      portal.customerPortal.benefitGrants.update(
        { customerSession: mine.session },
        { id: github.id, customerBenefitGrantUpdate: { benefitType: "github_repository", properties: { accountId: "12345" } } },
      ),
    );
    expect(unlinked).toBeInstanceOf(HTTPValidationError);
    expect((unlinked as HTTPValidationError).detail).toEqual([
      { loc: ["body", "properties", "account_id"], msg: "This GitHub account is not connected: connect it in the customer portal first.", type: "value_error" },
    ]);
    // another customer's grant, and another organization's customer: 404
    const theirsGrant = await grantOf(theirs.session, perk.id);
    expect(
      await failure(portal.customerPortal.benefitGrants.update({ customerSession: mine.session }, { id: theirsGrant.id, customerBenefitGrantUpdate: { benefitType: "custom" } })),
    ).toBeInstanceOf(ResourceNotFound);
    expect((await raw(mine.session, "PATCH", `/v1/customer-portal/benefit-grants/${custom.id}`, { benefit_type: "nope" })).status).toBe(422);
    expect((await raw(mine.session, "PATCH", `/v1/customer-portal/benefit-grants/${custom.id}`, {})).status).toBe(422);
    expect((await raw(mine.session, "PATCH", "/v1/customer-portal/benefit-grants/nope", { benefit_type: "custom" })).status).toBe(422);

    // revoked with the subscription: 403
    const [subscription] = (await seller.sdk.subscriptions.list({ customerId: mine.order.customerId })).result.items;
    await seller.sdk.subscriptions.revoke({ id: subscription!.id });
    const end = Date.now() + 15_000;
    while (!(await grantOf(mine.session, perk.id)).isRevoked) {
      if (Date.now() > end) throw new Error("the grant was not revoked");
      server.worker.wake();
      await new Promise((r) => setTimeout(r, 100));
    }
    const revoked = await failure(portal.customerPortal.benefitGrants.update({ customerSession: mine.session }, { id: custom.id, customerBenefitGrantUpdate: { benefitType: "custom" } }));
    expect(revoked).toBeInstanceOf(NotPermitted);
  });
});

describe("customerPortal.customers email update", () => {
  it("mails a link to the new address; check and verify (public) change the email, verified, once; both SDKs", async () => {
    const stamp = Date.now();
    const customer = await seller.sdk.customers.create({ email: `eve-${stamp}@example.com`, name: "Eve" });
    const takenEmail = `taken-${stamp}@example.com`;
    await seller.sdk.customers.create({ email: takenEmail });
    const session = (await seller.sdk.customerSessions.create({ customerId: customer.id })).token;
    const newEmail = `eve.new-${stamp}@example.com`;

    await portal.customerPortal.customers.requestEmailUpdate({ customerSession: session }, { email: newEmail });
    const mail = await server.mailbox.waitFor(newEmail, /Confirm your new email address/, 15_000);
    const link = /https?:\/\/\S+email_update_token=([^\s"&<>]+)/.exec(mail.text ?? "");
    expect(link?.[0]).toContain(`${server.url}/portal?organization=${encodeURIComponent(seller.slug)}&email_update_token=`);
    const token = decodeURIComponent(link![1]!);
    // nothing changed yet
    expect((await seller.sdk.customers.get({ id: customer.id })).email).toBe(customer.email);
    // the token left the stored email once sent (no usable credential at rest)
    const storedRows = async () => {
      const stored = await server.database.db.execute(sql`SELECT data, sent_at FROM customer_email WHERE type = 'email_update' AND recipient = ${newEmail}`);
      return (Array.isArray(stored) ? stored : (stored as { rows: unknown[] }).rows) as Array<{ data: Record<string, unknown>; sent_at: unknown }>;
    };
    for (const end = Date.now() + 10_000; (await storedRows())[0]?.sent_at == null; ) {
      if (Date.now() > end) throw new Error("the email was not recorded as sent");
      await new Promise((r) => setTimeout(r, 50));
    }
    const rows = await storedRows();
    expect(rows).toHaveLength(1);
    // the locale the email is written in, resolved when it was asked for (server/billing/customer-emails)
    expect(rows[0]!.data).toEqual({ email: newEmail, expires_at: expect.any(String), mail_locale: "en" });

    await portal049.customerPortal.customers.checkEmailUpdate({ token });
    await portal.customerPortal.customers.checkEmailUpdate({ token });
    const verified = await portal049.customerPortal.customers.verifyEmailUpdate({ token });
    const changed = await seller.sdk.customers.get({ id: customer.id });
    expect(changed).toMatchObject({ email: newEmail, emailVerified: true });
    // the answer is a session of the customer's
    expect(await portal.customerPortal.customers.get({ customerSession: verified.token })).toMatchObject({ id: customer.id, email: newEmail });
    // the link works once
    expect(await failure(portal.customerPortal.customers.checkEmailUpdate({ token }))).toBeInstanceOf(HTTPValidationError);
    const again = await raw("", "POST", "/v1/customer-portal/customers/me/email-update/verify", { token });
    expect(again.status).toBe(422);
    expect(again.body.detail).toEqual([{ loc: ["body", "token"], msg: "This email update link is invalid, was used already or has expired.", type: "value_error", code: "email_link_invalid" }]);

    // an address another customer has: the link is mailed, its verification refused, nothing changes
    const session2 = (await seller.sdk.customerSessions.create({ customerId: customer.id })).token;
    await portal049.customerPortal.customers.requestEmailUpdate({ customerSession: session2 }, { email: takenEmail });
    const clash = await server.mailbox.waitFor(takenEmail, /Confirm your new email address/, 15_000);
    const clashToken = decodeURIComponent(/email_update_token=([^\s"&<>]+)/.exec(clash.text ?? "")![1]!);
    const refused = await raw("", "POST", "/v1/customer-portal/customers/me/email-update/verify", { token: clashToken });
    expect(refused.status).toBe(422);
    expect((await seller.sdk.customers.get({ id: customer.id })).email).toBe(newEmail);

    // a forged or altered token, bad input, no session: refused, nothing changes
    const [payload, signature] = clashToken.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), t: `mallory-${stamp}@example.com` })).toString("base64url");
    for (const bad of [`${forgedPayload}.${signature}`, "nope", `${payload}.`]) {
      expect((await raw("", "POST", "/v1/customer-portal/customers/me/email-update/verify", { token: bad })).status, bad).toBe(422);
      expect((await raw("", "GET", `/v1/customer-portal/customers/me/email-update/check?token=${encodeURIComponent(bad)}`)).status, bad).toBe(422);
    }
    expect((await raw(session2, "POST", "/v1/customer-portal/customers/me/email-update/request", { email: "not-an-email" })).status).toBe(422);
    expect((await raw(session2, "POST", "/v1/customer-portal/customers/me/email-update/request", { email: newEmail })).status).toBe(422);
    expect((await raw("nope", "POST", "/v1/customer-portal/customers/me/email-update/request", { email: `x-${stamp}@example.com` })).status).toBe(401);
    expect((await raw("", "GET", "/v1/customer-portal/customers/me/email-update/check")).status).toBe(422);
    expect((await seller.sdk.customers.get({ id: customer.id })).email).toBe(newEmail);
    // a token of this organization's customer does nothing for another organization's: it names its own
    expect((await other.sdk.customers.list({ email: newEmail })).result.items).toEqual([]);
  });
});

describe("organizations.create", () => {
  it("creates an organization the signed-in user owns, with its settings, through both SDKs; a key cannot; a taken slug is a 422", async () => {
    const slug = `wire-made-${Date.now()}`;
    const made = await seller.sdk.organizations.create({
      name: "Wire Made",
      slug,
      email: "billing@wire-made.example",
      subscriptionSettings: { allowMultipleSubscriptions: true, allowCustomerUpdates: true, prorationBehavior: "prorate", benefitRevocationGracePeriod: 0, preventTrialAbuse: false },
    });
    expect(made).toMatchObject({ name: "Wire Made", slug, email: "billing@wire-made.example", subscriptionSettings: { allowMultipleSubscriptions: true } });
    // the user belongs to it: listed, readable, and acting in it
    expect((await seller.sdk.organizations.list({ slug })).result.items.map((o) => o.id)).toEqual([made.id]);
    expect((await seller.sdk049.organizations.get({ id: made.id })).slug).toBe(slug);
    const inIt = await seller.sdk.products.create({ name: "Made there", prices: [{ amountType: "fixed", priceAmount: 900 }], organizationId: made.id });
    expect(inIt.organizationId).toBe(made.id);
    // the user's active organization is unchanged
    expect((await seller.sdk.products.create({ name: "Still here", prices: [{ amountType: "fixed", priceAmount: 900 }] })).organizationId).toBe(seller.organizationId);

    const slug049 = `wire-made-49-${Date.now()}`;
    expect(await seller.sdk049.organizations.create({ name: "Wire 49", slug: slug049 })).toMatchObject({ name: "Wire 49", slug: slug049 });

    // the slug is taken, or malformed; a name too short: 422, nothing made
    const taken = await failure(seller.sdk.organizations.create({ name: "Another", slug }));
    expect(taken).toBeInstanceOf(HTTPValidationError);
    expect((taken as HTTPValidationError).detail?.[0]?.loc).toEqual(["body", "slug"]);
    for (const body of [{ name: "Bad slug", slug: "Not A Slug" }, { name: "x", slug: `wire-x-${Date.now()}` }, { slug: `wire-y-${Date.now()}` }]) {
      expect((await raw(seller.token, "POST", "/v1/organizations/", body)).status, JSON.stringify(body)).toBe(422);
    }
    // an organization's API key cannot create organizations (0.49.0 models the 403)
    const key = await seller.createKey();
    const byKey049 = await failure(sdk049For(server, key).organizations.create({ name: "By key", slug: `wire-key-${Date.now()}` }));
    expect(byKey049).toBeInstanceOf(CannotCreateOrganizationError);
    const byKey = await failure(sdkFor(server, key).organizations.create({ name: "By key", slug: `wire-key2-${Date.now()}` }));
    expect(byKey).toBeInstanceOf(SDKError);
    expect((byKey as SDKError).statusCode).toBe(403);
    expect((await raw("nope", "POST", "/v1/organizations/", { name: "Nobody", slug: `wire-nobody-${Date.now()}` })).status).toBe(401);
    expect((await seller.sdk.organizations.list({})).result.items.filter((o) => o.name === "By key" || o.name === "Nobody")).toEqual([]);
  });
});

describe("orders.create / orders.finalize (0.49.0)", () => {
  it("makes a draft order, charges the customer's saved card on finalize (paid, numbered, benefits granted); no card is a 402 and stays a draft", async () => {
    const perk = await seller.sdk.benefits.create({ type: "custom", description: "Manual order perk", properties: { note: "Thanks" } });
    const oneTime = await createProduct(seller, "fixed");
    await seller.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [perk.id] } });
    const monthly = await createProduct(seller, "monthly");
    // a subscriber: their checkout saved the card
    const subscriber = await buy(seller, monthly);
    const customerId = subscriber.order.customerId;

    const draft = await seller.sdk049.orders.create({ customerId, productId: oneTime.id, metadata: { source: "api" } });
    expect(draft).toMatchObject({
      status: "draft", customerId, productId: oneTime.id, subtotalAmount: 2500, totalAmount: 2500, currency: "usd",
      billingReason: "purchase", metadata: { source: "api" },
    });
    // readable by both versions while a draft
    expect((await seller.sdk.orders.get({ id: draft.id })).status).toBe("draft");
    const custom = await seller.sdk049.orders.create({ customerId, productId: oneTime.id, amount: 1234, description: "Consulting, one hour" });
    expect(custom).toMatchObject({ status: "draft", subtotalAmount: 1234, items: [{ label: "Consulting, one hour", amount: 1234 }] });

    const paid = await seller.sdk049.orders.finalize({ id: draft.id });
    expect(paid).toMatchObject({ id: draft.id, status: "paid", totalAmount: 2500 });
    expect(paid.invoiceNumber).not.toMatch(/^pending-/);
    const grants = (await seller.sdk.benefitGrants.list({ customerId })).result.items;
    expect(grants.map((g) => [g.benefitId, g.orderId])).toContainEqual([perk.id, draft.id]);
    const payments = (await seller.sdk049.payments.list({ orderId: draft.id })).result.items;
    expect(payments.map((p) => [p.status, p.amount])).toEqual([["succeeded", 2500]]);
    // a second finalize: 412 OrderNotDraft, nothing charged again
    expect(await failure(seller.sdk049.orders.finalize({ id: draft.id }))).toBeInstanceOf(OrderNotDraft);
    expect((await seller.sdk049.payments.list({ orderId: draft.id })).result.items).toHaveLength(1);

    // a customer without a saved card: 402 PaymentFailed, the order still a draft
    const cardless = await seller.sdk.customers.create({ email: `cardless-${Date.now()}@example.com` });
    const unpaid = await seller.sdk049.orders.create({ customerId: cardless.id, productId: oneTime.id });
    const declined = await failure(seller.sdk049.orders.finalize({ id: unpaid.id }));
    expect(declined).toBeInstanceOf(PaymentFailed);
    expect((await seller.sdk049.orders.get({ id: unpaid.id })).status).toBe("draft");
    // another customer's card cannot pay it
    const [theirCard] = (await seller.sdk049.customers.listPaymentMethods({ id: customerId })).result.items;
    const notTheirs = await failure(seller.sdk049.orders.finalize({ id: unpaid.id, orderFinalize: { paymentMethodId: theirCard!.id } }));
    expect(notTheirs).toBeInstanceOf(HTTPValidationError049);
    expect((await seller.sdk049.orders.get({ id: unpaid.id })).status).toBe("draft");
    expect((await seller.sdk.benefitGrants.list({ customerId: cardless.id })).result.items).toEqual([]);

    // another organization's order, customer or product; a subscription product; bad input: refused, nothing made
    expect(await failure(other.sdk049.orders.finalize({ id: custom.id }))).toBeInstanceOf(ResourceNotFound049);
    const before = (await seller.sdk.orders.list({ customerId })).result.pagination.totalCount;
    for (const [body, loc] of [
      [{ customer_id: customerId, product_id: monthly.id }, ["body", "product_id"]],
      [{ customer_id: customerId, product_id: (await createProduct(other, "fixed")).id }, ["body", "product_id"]],
      [{ customer_id: (await other.sdk.customers.create({ email: `o-${Date.now()}@example.com` })).id, product_id: oneTime.id }, ["body", "customer_id"]],
      [{ customer_id: customerId, product_id: oneTime.id, currency: "eur" }, ["body", "currency"]],
      [{ customer_id: customerId, product_id: oneTime.id, amount: -1 }, ["body", "amount"]],
      [{ customer_id: "nope", product_id: oneTime.id }, ["body", "customer_id"]],
    ] as const) {
      const res = await raw(seller.token, "POST", "/v1/orders/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown }>)[0]?.loc).toEqual(loc);
    }
    expect((await seller.sdk.orders.list({ customerId })).result.pagination.totalCount).toBe(before);
    expect((await raw(seller.token, "POST", "/v1/orders/nope/finalize")).status).toBe(422);
    const readOnly = await seller.createKey({ orders: ["read"] });
    expect((await raw(readOnly, "POST", "/v1/orders/", { customer_id: customerId, product_id: oneTime.id })).status).toBe(403);
  });
});
