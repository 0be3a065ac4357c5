// After the sale on Stripe, in Chromium, on a sandbox organization connected to the Stripe stand-in
// (Stripe.js served through page.route: tests/helpers/stripe-js-standin.ts), time driven by the sandbox's test
// clock: a renewal declined off-session (the card that attaches but fails every charge) → the dunning email → its
// portal link, a code by email → a new card in the portal's Payment Element pays the order; an off-session
// renewal needing authentication completed in the portal (handleNextAction, the 3-D Secure challenge); a new card
// authenticated at setup that meets another attempt at the order (the page waits, then it pays); a refund
// from till and one made on Stripe's side (charge.refunded / refund.created, signed); a dispute opened and lost
// on a subscription's order: the order refunded, that subscription's benefits revoked, the customer's other
// purchase keeping its own. Every webhook till sends on the way is validated by both SDKs' validateEvent.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Browser, Locator, Page } from "playwright-core";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lockDunning } from "../../server/billing/dunning/repository.js";
import { rowsOf } from "../../server/db/client.js";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchForPages, PageWatch } from "../helpers/browser.js";
import { createProduct, publicRequest, uniqueBuyer } from "../helpers/checkout.js";
import { usingPostgres } from "../helpers/db.js";
import { Receiver } from "../helpers/receiver.js";
import type { Seller } from "../helpers/seller.js";
import { installStripeJs, type StripeJsStandIn } from "../helpers/stripe-js-standin.js";
import { authenticate, confirmationToken, startStripeSandbox, STRIPE_CARDS, until, type StripeSandbox } from "../helpers/stripe-sandbox.js";

let s: StripeSandbox;
let seller: Seller;
let browser: Browser;
const receiver = new Receiver();
let endpointSecret = "";
const pages = new PageWatch(() => ({ browser, options: { baseURL: s.server.url, locale: "en-US", timezoneId: "UTC" }, timeout: 20_000 }));

const WEBHOOK_EVENTS = [
  "order.created", "order.paid", "order.updated", "order.refunded",
  "subscription.created", "subscription.active", "subscription.updated", "subscription.past_due",
  "refund.created", "refund.updated", "benefit_grant.created", "benefit_grant.revoked", "customer.state_changed",
] as const;

beforeAll(async () => {
  s = await startStripeSandbox();
  seller = { ...s.seller, sdk: s.sdk, token: s.key };
  await receiver.start();
  const endpoint = await s.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/stripe-portal`, format: "raw", events: [...WEBHOOK_EVENTS] });
  endpointSecret = endpoint.secret;
  await s.server.worker.start();
  browser = await launchForPages();
}, 120_000);

afterEach(async () => {
  expect(await pages.done()).toEqual([]);
});

afterAll(async () => {
  await closePages(browser);
  await s?.server.worker.stop();
  await receiver.stop();
  await s?.close();
});

const raw = (method: string, path: string, body?: unknown) => rawRequest(s.server.url, s.key, method, path, body);

/**
 * A checkout of `product` paid through the API with a Stripe confirmation token (the 3-D Secure challenge passed when
 * asked).
 */
async function buy(product: Product, card: string, email: string, customerId?: string) {
  const checkout = await s.sdk.checkouts.create({ products: [product.id], ...(customerId ? { customerId } : {}) });
  const recurring = product.isRecurring;
  const res = await publicRequest(s.server, "POST", `/v1/checkouts/client/${checkout.clientSecret}/confirm`, {
    customer_email: email,
    customer_name: "Ada Buyer",
    customer_billing_address: { country: "FR" },
    confirmation_token_id: await confirmationToken(s.peer, card, recurring ? "off_session" : undefined),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const metadata = res.body.payment_processor_metadata as Record<string, string>;
  if (metadata.intent_status === "requires_action") await authenticate(s.peer, String(metadata.intent_id), String(metadata.intent_client_secret));
  await until(async () => ((await s.sdk.checkouts.get({ id: checkout.id })).status === "succeeded" ? true : undefined), "the checkout to succeed");
  const [order] = (await s.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  return order;
}

/** The sandbox's clock moved on: the renewals due on the way are charged before it answers. */
async function advance(by: string) {
  const res = await raw("POST", "/v1/test-clock/advance", { by });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function pendingOrderOf(subscriptionId: string) {
  const pending = (await s.sdk.orders.list({ subscriptionId, limit: 100 })).result.items.find((o) => o.status === "pending");
  if (!pending) throw new Error("no pending order");
  return pending;
}

/** What each page called on till's API and on Stripe's (through the stand-in), for a failure's message. */
const traffic = new WeakMap<Page, { till: string[]; stripeJs: StripeJsStandIn }>();

/** A page with the Stripe.js stand-in (nothing leaves the machine), its calls recorded (traffic). */
async function openPage(): Promise<{ page: Page; stripeJs: StripeJsStandIn }> {
  const page = await pages.open({ viewport: { width: 1280, height: 900 } });
  const stripeJs = await installStripeJs(page, s.peer);
  const till: string[] = [];
  page.on("response", (res) => {
    const url = new URL(res.url());
    if (url.origin !== new URL(s.server.url).origin || !url.pathname.startsWith("/v1/")) return;
    const line = `${res.request().method()} ${url.pathname} ${res.status()}`;
    // an answer's body too when it says how a payment went
    if (/\/(confirm-payment|payment-status)$/.test(url.pathname)) void res.text().then((body) => till.push(`${line} ${body.slice(0, 300)}`), () => till.push(line));
    else till.push(line);
  });
  traffic.set(page, { till, stripeJs });
  return { page, stripeJs };
}

/** The portal of a customer through a session made by the seller (its URL on this server, not till's public one). */
async function openPortal(customerId: string) {
  const opened = await openPage();
  const session = await s.sdk.customerSessions.create({ customerId });
  await opened.page.goto(`/portal?customer_session_token=${encodeURIComponent(session.token)}`);
  return opened;
}

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

/** A card typed into a form's Payment Element (the stand-in's fields; two forms on the page have the same labels). */
async function typeCard(form: Locator, card: string) {
  await form.locator('input[autocomplete="cc-number"]').fill(card);
  await form.locator('input[autocomplete="cc-exp"]').fill("12 / 34");
  await form.locator('input[autocomplete="cc-csc"]').fill("123");
}

/** A wait on the page that, when it fails, says what the page showed and what it called. */
async function bodyOnFailure<T>(page: Page, wait: Promise<T>): Promise<T> {
  return wait.catch(async (err: unknown) => {
    const seen = traffic.get(page);
    const calls = seen ? `\ntill: ${seen.till.join("\n  ")}\nStripe.js: ${seen.stripeJs.calls.join("\n  ")}` : "";
    throw new Error(`${String(err)}\n${await page.locator("body").innerText()}${calls}`);
  });
}

const grantsOf = async (customerId: string) => (await s.sdk.benefitGrants.list({ customerId, limit: 100 })).result.items;

describe("the portal and the money after the sale on Stripe", () => {
  it("a renewal declined → the dunning email → its portal link → a new card in the Payment Element pays the order", async () => {
    const product = await createProduct(seller, "trial");
    const email = uniqueBuyer("stripe-portal-dunning");
    const first = await buy(product, STRIPE_CARDS.chargesFail, email);
    const subscriptionId = first.subscriptionId ?? "";
    await advance("15d");
    expect((await s.sdk.subscriptions.get({ id: subscriptionId })).status).toBe("past_due");
    const order = await pendingOrderOf(subscriptionId);
    const declined = [...s.peer.payments.intents.values()].find((i) => i.metadata.subscription_id === subscriptionId && i.object === "payment_intent");
    expect(declined).toMatchObject({ object: "payment_intent", status: "requires_payment_method", last_payment_error: { decline_code: "generic_decline" } });

    // the dunning email names the portal of the seller; the customer signs in there with a code by email
    const mail = await s.server.mailbox.waitFor(email, /Payment failed/, 15_000);
    const link = mail.links.find((l) => l.includes("/portal?organization="));
    expect(link).toMatch(/^https:\/\/till\.example\.com\/portal\?organization=[^&]+$/);
    const { page, stripeJs } = await openPage();
    await page.goto(new URL(link ?? "").pathname + new URL(link ?? "").search);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Email me a code" }).click();
    const codeMail = await s.server.mailbox.waitFor(email, /^Access your .+ purchases$/, 15_000);
    await page.getByLabel("Code", { exact: true }).fill(/^ *([A-Z2-9]{8})$/m.exec(codeMail.text)?.[1] ?? "");
    await page.getByRole("button", { name: "Open my purchases" }).click();

    const form = region(page, "Orders").getByRole("form", { name: `Pay ${order.invoiceNumber}` });
    await bodyOnFailure(page, form.locator('input[autocomplete="cc-number"]').waitFor());
    await region(page, "Payment methods").getByText("Visa ending in 0341").waitFor();
    await typeCard(form, STRIPE_CARDS.visa);
    await form.getByRole("button", { name: /^Pay \$/ }).click();
    await bodyOnFailure(page, form.waitFor({ state: "detached" }));
    await region(page, "Payment methods").getByText(/Visa ending in 4242.*\(default\)/).waitFor();

    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect((await s.sdk.subscriptions.get({ id: subscriptionId })).status).toBe("active");
    // the new card was saved through a SetupIntent made from the Payment Element's confirmation token, then charged
    const intents = [...s.peer.payments.intents.values()].filter((i) => i.customer === declined?.customer);
    expect(intents.some((i) => i.object === "setup_intent" && i.status === "succeeded")).toBe(true);
    expect(intents.filter((i) => i.metadata.order_id === order.id).map((i) => i.status)).toContain("succeeded");
    expect(stripeJs.calls).toContain("POST /v1/confirmation_tokens 200");
    expect(stripeJs.escaped).toEqual([]);

    // the failing card is removed from the portal: detached in Stripe too
    const methods = region(page, "Payment methods");
    await methods.getByRole("listitem").filter({ hasText: "0341" }).getByRole("button", { name: "Remove" }).click();
    await methods.getByText("The card is removed.").waitFor();
    const failing = s.peer.payments.paymentMethods.get(String(declined?.payment_method));
    expect(failing?.customer).toBeNull();
  }, 120_000);

  it("an off-session renewal needing authentication is completed in the portal (3-D Secure) and the order is paid", async () => {
    const product = await createProduct(seller, "trial");
    const email = uniqueBuyer("stripe-portal-sca");
    const first = await buy(product, STRIPE_CARDS.authAlways, email);
    const subscriptionId = first.subscriptionId ?? "";
    await advance("15d");
    expect((await s.sdk.subscriptions.get({ id: subscriptionId })).status).toBe("past_due");
    const order = await pendingOrderOf(subscriptionId);
    const payments = (await s.sdk.payments.list({ orderId: order.id })).result.items;
    expect(payments.map((p) => p.declineReason)).toContain("authentication_required");
    await s.server.mailbox.waitFor(email, /Payment failed/, 15_000);

    const { page, stripeJs } = await openPortal(first.customerId);
    const orders = region(page, "Orders");
    await bodyOnFailure(page, orders.getByText("Your bank asks you to confirm this payment.").waitFor());
    await orders.getByRole("button", { name: /^Confirm the payment of \$/ }).click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await challenge.getByRole("button", { name: "Complete" }).click();
    // paid: the order's payment form goes away and the order shows Paid
    await bodyOnFailure(page, orders.getByText("Your bank asks you to confirm this payment.").waitFor({ state: "detached" }));
    await expect.poll(() => orders.getByText("Pending", { exact: true }).count()).toBe(0);

    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect((await s.sdk.subscriptions.get({ id: subscriptionId })).status).toBe("active");
    const paid = [...s.peer.payments.intents.values()].filter((i) => i.metadata.order_id === order.id && i.status === "succeeded");
    expect(paid).toHaveLength(1);
    expect(stripeJs.calls).toContain("POST /v1/3ds2/authenticate 200");
    expect(stripeJs.escaped).toEqual([]);
  }, 120_000);

  // PostgreSQL only: PGlite has one connection, which the held transaction would keep from every request
  it.runIf(usingPostgres)("a new card authenticated at setup meets another attempt at the order: the page waits for it, then the card pays", async () => {
    const product = await createProduct(seller, "trial");
    const email = uniqueBuyer("stripe-portal-setup-wait");
    const first = await buy(product, STRIPE_CARDS.chargesFail, email);
    const subscriptionId = first.subscriptionId ?? "";
    await advance("15d");
    const order = await pendingOrderOf(subscriptionId);
    const [{ organization_id: organizationId } = { organization_id: "" }] = await rowsOf<{ organization_id: string }>(
      s.server.database.db,
      sql`SELECT organization_id FROM "order" WHERE id = ${order.id}`,
    );

    const { page, stripeJs } = await openPortal(first.customerId);
    const form = region(page, "Orders").getByRole("form", { name: `Pay ${order.invoiceNumber}` });
    await bodyOnFailure(page, form.locator('input[autocomplete="cc-number"]').waitFor());
    // 4000 0025 0000 3155: its bank asks for 3-D Secure when it is saved, not for the charges made with it after
    await typeCard(form, STRIPE_CARDS.authOnSetup);
    await form.getByRole("button", { name: /^Pay \$/ }).click();
    const challenge = page.getByRole("dialog", { name: "3D Secure authentication" });
    await bodyOnFailure(page, challenge.waitFor());
    // while the customer authenticates, another attempt takes the order for 7 s (longer than till's own 5 s wait)
    let locked = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = s.server.database.db.transaction(async (tx) => {
      expect(await lockDunning(tx, organizationId, order.id)).toBeDefined();
      locked();
      await new Promise((r) => setTimeout(r, 7_000));
    });
    await isLocked;
    await challenge.getByRole("button", { name: "Complete" }).click();
    await bodyOnFailure(page, region(page, "Orders").getByText("Another payment of this order is under way; waiting for it to finish…").waitFor());
    await holder;
    await bodyOnFailure(page, form.waitFor({ state: "detached", timeout: 30_000 }));
    await region(page, "Payment methods").getByText(/Visa ending in 3155.*\(default\)/).waitFor();

    expect((await s.sdk.orders.get({ id: order.id })).status).toBe("paid");
    expect((await s.sdk.subscriptions.get({ id: subscriptionId })).status).toBe("active");
    const intents = [...s.peer.payments.intents.values()];
    expect(intents.some((i) => i.object === "setup_intent" && i.status === "succeeded" && String(i.payment_method).length > 0)).toBe(true);
    expect(intents.filter((i) => i.metadata.order_id === order.id && i.status === "succeeded")).toHaveLength(1);
    expect(stripeJs.calls).toContain("POST /v1/3ds2/authenticate 200");
  }, 120_000);

  it("a refund from till and one made on Stripe's side are both refunds of the order, each once", async () => {
    const product = await createProduct(seller, "fixed");
    const order = await buy(product, STRIPE_CARDS.visa, uniqueBuyer("stripe-portal-refund"));
    const charge = [...s.charges.charges.values()].find((c) => c.metadata.checkout_id === order.checkoutId);
    if (!charge) throw new Error("no charge");
    expect(charge.amount).toBe(order.totalAmount);

    // from till: Stripe's refunds.create keyed by till's refund id (its charge.refunded and refund.created change
    // nothing more)
    const fromTill = await s.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1000 });
    expect(fromTill.status).toBe("succeeded");
    const stripeRefunds = [...s.charges.refunds.values()].filter((r) => r.charge === charge.id);
    expect(stripeRefunds).toHaveLength(1);
    expect(s.peer.requests.find((r) => r.path === "/v1/refunds")?.idempotencyKey).toBe(`till-refund-${fromTill.id}`);
    // on Stripe's side: what is left, refunded in the dashboard (signed charge.refunded and refund.created)
    const { refund } = await s.charges.refundInDashboard(charge.id);
    const refunded = await until(async () => {
      const o = await s.sdk.orders.get({ id: order.id });
      return o.status === "refunded" ? o : undefined;
    }, "the order to be refunded");
    expect(refunded.refundedAmount + refunded.refundedTaxAmount).toBe(order.totalAmount);
    const refunds = (await s.sdk.refunds.list({ orderId: order.id })).result.items;
    expect(refunds.map((r) => r.amount + r.taxAmount).sort((a, b) => a - b)).toEqual([1000, refund.amount].sort((a, b) => a - b));

    const { page } = await openPortal(order.customerId);
    await bodyOnFailure(page, region(page, "Orders").getByText("Refunded", { exact: true }).waitFor());
  }, 120_000);

  it("a dispute opened and lost on a subscription's order: the order refunded, that subscription's benefits revoked, the other purchase's kept", async () => {
    const [subBenefit, oneTimeBenefit] = [
      await s.sdk.benefits.create({ type: "custom", description: "Monthly support", properties: { note: "monthly" } }),
      await s.sdk.benefits.create({ type: "custom", description: "Lifetime extras", properties: { note: "one-time" } }),
    ];
    const monthly = await createProduct(seller, "monthly");
    const oneTime = await createProduct(seller, "fixed");
    await s.sdk.products.updateBenefits({ id: monthly.id, productBenefitsUpdate: { benefits: [subBenefit.id] } });
    await s.sdk.products.updateBenefits({ id: oneTime.id, productBenefitsUpdate: { benefits: [oneTimeBenefit.id] } });
    const email = uniqueBuyer("stripe-portal-dispute");
    const subOrder = await buy(monthly, STRIPE_CARDS.visa, email);
    const other = await buy(oneTime, STRIPE_CARDS.visa, email, subOrder.customerId);
    await until(async () => ((await grantsOf(subOrder.customerId)).filter((g) => g.isGranted).length === 2 ? true : undefined), "both grants");
    const charge = [...s.charges.charges.values()].find((c) => c.metadata.checkout_id === subOrder.checkoutId);
    if (!charge) throw new Error("no charge");

    const opened = await s.charges.openDispute(charge.id, { reason: "fraudulent" });
    const dispute = await until(async () => (await s.sdk.disputes.list({ orderId: [subOrder.id] })).result.items[0], "the dispute");
    expect(dispute).toMatchObject({ status: "needs_response", orderId: subOrder.id, amount: expect.any(Number) });
    await s.charges.setDisputeStatus(opened.dispute.id, "lost");
    const closed = await until(async () => {
      const o = await s.sdk.orders.get({ id: subOrder.id });
      return o.status === "refunded" ? o : undefined;
    }, "the order refunded by the lost dispute");
    expect(closed.refundedAmount + closed.refundedTaxAmount).toBe(subOrder.totalAmount);
    expect((await s.sdk.disputes.get({ id: dispute.id })).status).toBe("lost");

    const grants = await until(async () => {
      const all = await grantsOf(subOrder.customerId);
      return all.some((g) => g.benefitId === subBenefit.id && g.isRevoked) ? all : undefined;
    }, "the subscription's grant revoked");
    expect(grants.find((g) => g.benefitId === subBenefit.id)).toMatchObject({ subscriptionId: subOrder.subscriptionId, isRevoked: true, isGranted: false });
    expect(grants.find((g) => g.benefitId === oneTimeBenefit.id)).toMatchObject({ orderId: other.id, isGranted: true, isRevoked: false });
    expect((await s.sdk.orders.get({ id: other.id })).status).toBe("paid");

    const { page } = await openPortal(subOrder.customerId);
    await bodyOnFailure(page, region(page, "Orders").getByText("Refunded", { exact: true }).waitFor());
  }, 120_000);

  it("sends webhooks on the way that both SDKs validate", async () => {
    const hits = await receiver.until((all) => (all.some((h) => JSON.parse(h.body).type === "benefit_grant.revoked") ? all : undefined), 15_000);
    const types = new Set<string>();
    for (const h of hits) {
      const a = validateEvent(h.body, h.headers, endpointSecret);
      const b = validateEvent049(h.body, h.headers, endpointSecret);
      expect(b.type).toBe(a.type);
      types.add(a.type);
    }
    for (const type of ["order.paid", "subscription.past_due", "order.refunded", "refund.created", "benefit_grant.revoked"]) expect(types).toContain(type);
  });
});
