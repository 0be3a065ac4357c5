// Customer emails: each email that customer_email_settings enables, caused through the API,
// recorded from the outbox, sent by the jobs worker and read from a real SMTP peer on loopback: subject,
// sender (the seller's name and logo), text and HTML parts, the order's own amounts, the portal link. Then:
// a setting turned off sends nothing, a refused message is retried, and a worker that dies after the peer has
// the message sends it again with the same Message-ID (and never once it is recorded as sent).
import { eq } from "drizzle-orm";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerEmail } from "../../server/db/schema/index.js";
import { createWorker } from "../../server/jobs/worker.js";
import { createMailer } from "../../server/mail/mailer.js";
import { formatMoney } from "../../shared/money.js";
import { rawRequest } from "../helpers/api.js";
import { createProduct, pay, uniqueBuyer } from "../helpers/checkout.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import type { ReceivedMail } from "../helpers/mailbox.js";

let server: TestServer;
let seller: Seller;
const LOGO = "https://cdn.example.com/acme-logo.png";
const usd = (minor: number) => formatMoney(minor, "usd", "en-US");

const raw = (token: string, method: string, path: string, body?: unknown) => rawRequest(server.url, token, method, path, body);
const db = () => server.database.db;

async function buy(s: Seller, product: Product, email = uniqueBuyer("mail"), card?: string) {
  const checkout = await s.sdk.checkouts.create({ products: [product.id] });
  await pay(server, checkout, { customerEmail: email }, card);
  const order = (await s.sdk.orders.list({ productId: product.id, limit: 100 })).result.items.find((o) => o.checkoutId === checkout.id);
  if (!order) throw new Error("no order");
  return { email, order };
}

async function subscribe(s: Seller, product: Product, card?: string): Promise<{ email: string; sub: Subscription }> {
  const { email, order } = await buy(s, product, uniqueBuyer("mail"), card);
  const sub = await s.sdk.subscriptions.get({ id: order.subscriptionId ?? "" });
  return { email, sub };
}

/** Renews the current period now (named: a bare renew renews only a period that has ended). */
async function renew(s: Seller, id: string) {
  const { currentPeriodStart } = await s.sdk.subscriptions.get({ id });
  const res = await raw(s.token, "POST", `/v1/subscriptions/${id}/renew`, { current_period_start: currentPeriodStart.toISOString() });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The parts every customer email has: from the seller, both parts, the logo, the portal link. */
function expectBranded(mail: ReceivedMail, s: Seller) {
  expect(mail.html).toBeTruthy();
  expect(mail.html).toContain(`src="${LOGO}"`);
  expect(mail.text.length).toBeGreaterThan(40);
  expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@127\.0\.0\.1>$/);
  expect(mail.links).toContain(`${server.url}/portal?organization=${s.slug}`);
  expect(mail.html).toContain(`${server.url}/portal?organization=${s.slug}`);
}

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "mailer");
  const res = await raw(seller.token, "PATCH", `/v1/organizations/${seller.organizationId}`, { avatar_url: LOGO });
  expect(res.status).toBe(200);
  await server.worker.start();
}, 120_000);
afterAll(async () => server?.close());

describe("each customer email", () => {
  it("order confirmation: the receipt with lines, tax, total, invoice number and the portal link", async () => {
    const product = await createProduct(seller, "fixed");
    const { email, order } = await buy(seller, product);
    const mail = await server.mailbox.waitFor(email, /receipt/);
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(mail.fromName).toBe(org.name);
    expect(mail.subject).toBe(`Your ${org.name} receipt ${order.invoiceNumber}`);
    expectBranded(mail, seller);
    for (const part of [mail.text, mail.html ?? ""]) {
      expect(part).toContain(order.invoiceNumber);
      expect(part).toContain(order.items[0]!.label);
      expect(part).toContain(usd(order.totalAmount));
      expect(part).toContain(usd(order.taxAmount));
      expect(part).toContain(product.name);
    }
    expect(order.totalAmount).toBe(2500);
    // the text part: each label beside its amount, each address once; the HTML shows no bare address
    const line = (label: string, amount: number) => new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} +${usd(amount).replace(/[$.]/g, "\\$&")}$`, "m");
    expect(mail.text).toMatch(line(order.items[0]!.label, order.items[0]!.amount));
    expect(mail.text).toMatch(line("Subtotal", order.subtotalAmount));
    expect(mail.text).toMatch(line("Tax", order.taxAmount));
    expect(mail.text).toMatch(line("Total", order.totalAmount));
    expect(mail.links).toEqual([...new Set(mail.links)]);
    expect(mail.links).toEqual([`${server.url}/portal?organization=${seller.slug}`]);
    const shown = (mail.html ?? "").replace(/<head>[\s\S]*<\/head>/, "").replace(/<[^>]+>/g, " ");
    expect(shown).not.toMatch(/https?:\/\//);
  });

  it("refunded: the buyer is told what came back and where, once per refund", async () => {
    const product = await createProduct(seller, "fixed");
    const { email, order } = await buy(seller, product);
    await server.mailbox.waitFor(email, /receipt/);
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    const first = await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1000 });
    expect(first.status).toBe("succeeded");
    const partial = await server.mailbox.waitFor(email, /Your refund/);
    expectBranded(partial, seller);
    expect(partial.subject).toBe(`Your refund of ${usd(1000)} from ${org.name}`);
    expect(partial.text).toContain(`${org.name} refunded ${usd(1000)} for ${product.name} (invoice ${order.invoiceNumber}).`);
    expect(partial.text).toContain("It goes back to the payment method you paid with.");
    expect(partial.text).toContain(`This was a partial refund: ${usd(1000)} of the order's ${usd(2500)} has been refunded so far.`);
    await seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1500 });
    const rest = await server.mailbox.waitFor(email, /Your refund/);
    expect(rest.subject).toBe(`Your refund of ${usd(1500)} from ${org.name}`);
    expect(rest.text).not.toContain("partial refund");
    const rows = await db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(rows.map((r) => r.type).sort()).toEqual(["order_confirmation", "order_refunded", "order_refunded"]);
  });

  it("subscription confirmation, with the receipt and the next charge", async () => {
    const product = await createProduct(seller, "monthly");
    const { email, sub } = await subscribe(seller, product);
    const mail = await server.mailbox.waitFor(email, /subscription to .* is confirmed/);
    expectBranded(mail, seller);
    expect(mail.subject).toBe(`Your subscription to ${product.name} is confirmed`);
    expect(mail.text).toContain(usd(900));
    expect(mail.text).toContain("renews every month");
    expect(mail.text).toContain(new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(sub.currentPeriodEnd ?? new Date()));
    // a subscription's first order is not also sent as an order confirmation
    await new Promise((r) => setTimeout(r, 300));
    expect(server.mailbox.messages.filter((m) => m.to.includes(email))).toEqual([]);
  });

  it("cycled: the renewal receipt; and after a trial, that the trial ended", async () => {
    const monthly = await createProduct(seller, "monthly");
    const { email, sub } = await subscribe(seller, monthly);
    await server.mailbox.waitFor(email, /is confirmed/);
    await renew(seller, sub.id);
    const mail = await server.mailbox.waitFor(email, /renewal receipt/);
    expect(mail.subject).toBe(`Your ${monthly.name} renewal receipt: ${usd(900)}`);
    expectBranded(mail, seller);
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    const cycle = orders.find((o) => o.billingReason === "subscription_cycle");
    expect(mail.text).toContain(cycle?.invoiceNumber);

    const trial = await createProduct(seller, "trial");
    const t = await subscribe(seller, trial);
    await server.mailbox.waitFor(t.email, /is confirmed/);
    await renew(seller, t.sub.id);
    const after = await server.mailbox.waitFor(t.email, /trial has ended/);
    expect(after.subject).toBe(`Your ${trial.name} trial has ended: ${usd(1200)}`);
    expect(after.text).toContain(usd(1200));
  });

  it("past due: the failed renewal's amount and a link to update the payment method", async () => {
    const trial = await createProduct(seller, "trial");
    // a card that can be saved but whose charges fail
    const { email, sub } = await subscribe(seller, trial, "4000 0000 0000 0341");
    await server.mailbox.waitFor(email, /is confirmed/);
    await renew(seller, sub.id);
    const mail = await server.mailbox.waitFor(email, /Payment failed/);
    expectBranded(mail, seller);
    expect(mail.text).toContain(`We could not charge ${usd(1200)}`);
    expect(mail.html).toContain("Update payment method");
  });

  it("updated (a plan change), canceled, uncanceled and revoked", async () => {
    const basic = await createProduct(seller, "monthly");
    const premium = await createProduct(seller, "monthly");
    const { email, sub } = await subscribe(seller, basic);
    await server.mailbox.waitFor(email, /is confirmed/);

    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id } });
    const updated = await server.mailbox.waitFor(email, /has been updated/);
    expect(updated.subject).toBe(`Your subscription has been updated to ${premium.name}`);
    expectBranded(updated, seller);

    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const canceled = await server.mailbox.waitFor(email, /has been canceled/);
    expect(canceled.subject).toBe(`Your ${premium.name} subscription has been canceled`);
    expect(canceled.text).toContain("You keep access until");

    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    const uncanceled = await server.mailbox.waitFor(email, /will continue/);
    expect(uncanceled.text).toContain(usd(900));

    await seller.sdk.subscriptions.revoke({ id: sub.id });
    const revoked = await server.mailbox.waitFor(email, /has ended/);
    expect(revoked.subject).toBe(`Your ${premium.name} subscription has ended`);
    // revoking now sends the end of access only, not a cancellation too
    await new Promise((r) => setTimeout(r, 300));
    expect(server.mailbox.messages.filter((m) => m.to.includes(email))).toEqual([]);
  });
});

describe("customer_email_settings", () => {
  it("a setting turned off sends nothing of its kind, and only of its kind", async () => {
    const quiet = await createSeller(server, "quiet");
    const off = await raw(quiet.token, "PATCH", `/v1/organizations/${quiet.organizationId}`, {
      customer_email_settings: { order_confirmation: false },
    });
    expect(off.status).toBe(200);
    const fixed = await createProduct(quiet, "fixed");
    const monthly = await createProduct(quiet, "monthly");
    const a = await buy(quiet, fixed);
    const b = await subscribe(quiet, monthly);
    await server.mailbox.waitFor(b.email, /is confirmed/);
    expect(server.mailbox.all.filter((m) => m.to.includes(a.email))).toEqual([]);
  });

  it("with every setting off, no cause sends any email", async () => {
    const silent = await createSeller(server, "silent");
    const settings = Object.fromEntries(
      [
        "order_confirmation",
        "order_refunded",
        "subscription_cancellation",
        "subscription_confirmation",
        "subscription_cycled",
        "subscription_cycled_after_trial",
        "subscription_past_due",
        "subscription_revoked",
        "subscription_uncanceled",
        "subscription_updated",
      ].map((k) => [k, false]),
    );
    expect((await raw(silent.token, "PATCH", `/v1/organizations/${silent.organizationId}`, { customer_email_settings: settings })).status).toBe(200);
    const fixed = await createProduct(silent, "fixed");
    const monthly = await createProduct(silent, "monthly");
    const other = await createProduct(silent, "monthly");
    const trial = await createProduct(silent, "trial");
    const buyers: string[] = [];
    const bought = await buy(silent, fixed);
    buyers.push(bought.email);
    await silent.sdk.refunds.create({ orderId: bought.order.id, reason: "customer_request", amount: 500 });
    const s = await subscribe(silent, monthly);
    buyers.push(s.email);
    await renew(silent, s.sub.id);
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { productId: other.id } });
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    await silent.sdk.subscriptions.revoke({ id: s.sub.id });
    const t = await subscribe(silent, trial);
    buyers.push(t.email);
    await renew(silent, t.sub.id);
    const pd = await subscribe(silent, trial, "4000 0000 0000 0341");
    buyers.push(pd.email);
    await renew(silent, pd.sub.id);

    // a marker sent after all of them (another organization) proves the worker got past these events
    const marker = await subscribe(seller, await createProduct(seller, "monthly"));
    await server.mailbox.waitFor(marker.email, /is confirmed/);
    const rows = await db().select().from(customerEmail).where(eq(customerEmail.organizationId, silent.organizationId));
    expect(rows).toEqual([]);
    expect(server.mailbox.all.filter((m) => buyers.some((b) => m.to.includes(b)))).toEqual([]);
  });
});

describe("delivery", () => {
  it("a message the peer refuses is tried again later and delivered once", async () => {
    const product = await createProduct(seller, "fixed");
    server.mailbox.refuseNext(1);
    const { email } = await buy(seller, product);
    await expect
      .poll(async () => (await db().select().from(customerEmail).where(eq(customerEmail.recipient, email)))[0], { timeout: 5000 })
      .toMatchObject({ attempts: 1, sentAt: null });
    const [failed] = await db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(failed?.lastError).toMatch(/451/);
    expect(failed!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(server.mailbox.all.filter((m) => m.to.includes(email))).toEqual([]);

    await db().update(customerEmail).set({ nextAttemptAt: new Date() }).where(eq(customerEmail.id, failed!.id));
    server.worker.wake();
    const mail = await server.mailbox.waitFor(email, /receipt/);
    expect(mail.messageId).toBe(`<${failed!.id}@127.0.0.1>`);
    await expect
      .poll(async () => (await db().select().from(customerEmail).where(eq(customerEmail.id, failed!.id)))[0])
      .toMatchObject({ attempts: 2, lastError: null, sentAt: expect.any(Date) });
  });

  it("a worker that dies after the peer took the message: sent again with the same Message-ID, then never again", async () => {
    const product = await createProduct(seller, "fixed");
    const held = server.mailbox.holdNext();
    const { email } = await buy(seller, product);
    await held.arrived;
    // the crash: the peer has the message, the worker never learns it was delivered
    await server.worker.kill();
    held.release();
    const [row] = await db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(row?.sentAt).toBeNull();
    expect(row?.lockedUntil).toBeInstanceOf(Date);

    // its lease runs out; another worker sends it again
    await db().update(customerEmail).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(customerEmail.id, row!.id));
    const mailer = createMailer({ smtpUrl: server.config.mail.smtpUrl, from: server.config.mail.from, mailDir: "", log: () => {} });
    const next = createWorker({ database: server.database, mailer, config: { webhooks: { allowPrivate: true }, baseURL: server.url }, options: { pollIntervalMs: 50 } });
    await next.start();
    try {
      await expect.poll(async () => (await db().select().from(customerEmail).where(eq(customerEmail.id, row!.id)))[0]?.sentAt, { timeout: 5000 }).toBeInstanceOf(Date);
      const copies = server.mailbox.all.filter((m) => m.to.includes(email));
      expect(copies).toHaveLength(2);
      expect(copies[0]?.messageId).toBe(`<${row!.id}@127.0.0.1>`);
      expect(copies[1]?.messageId).toBe(copies[0]?.messageId);
      expect(copies[1]?.text).toBe(copies[0]?.text);

      // recorded as sent: however long workers run, it is not sent a third time
      next.wake();
      await new Promise((r) => setTimeout(r, 300));
      expect(server.mailbox.all.filter((m) => m.to.includes(email))).toHaveLength(2);
    } finally {
      await next.stop();
      await server.worker.start();
    }
  });

  it("a stop does not wait for a send the SMTP server holds: left unrecorded, sent again later with the same Message-ID", async () => {
    const product = await createProduct(seller, "fixed");
    const held = server.mailbox.holdNext();
    const { email } = await buy(seller, product);
    await held.arrived;
    // the peer still holds its answer when the stop returns
    await server.worker.stop();
    held.release();
    await new Promise((r) => setTimeout(r, 300));
    const [row] = await db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(row?.sentAt).toBeNull();

    await db().update(customerEmail).set({ lockedUntil: new Date(Date.now() - 1000) }).where(eq(customerEmail.id, row!.id));
    await server.worker.start();
    await expect.poll(async () => (await db().select().from(customerEmail).where(eq(customerEmail.id, row!.id)))[0]?.sentAt, { timeout: 5000 }).toBeInstanceOf(Date);
    const copies = server.mailbox.all.filter((m) => m.to.includes(email));
    expect(copies.map((m) => m.messageId)).toEqual([`<${row!.id}@127.0.0.1>`, `<${row!.id}@127.0.0.1>`]);
  });

  it("an outbox event yields its email once, however often it is looked at", async () => {
    const { requestFromOutbox } = await import("../../server/billing/customer-emails/service.js");
    const product = await createProduct(seller, "fixed");
    const { email } = await buy(seller, product);
    await server.mailbox.waitFor(email, /receipt/);
    const [row] = await db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    const again = await requestFromOutbox(db(), [
      { id: row!.outboxId, organizationId: seller.organizationId, type: "order.paid", payload: row!.data, mail: null },
    ]);
    expect(again).toBe(0);
    expect(await db().select().from(customerEmail).where(eq(customerEmail.recipient, email))).toHaveLength(1);
  });
});

describe("GET /v1/organizations/{id}/email-preview/{type}", () => {
  it("renders each email with the seller's name and logo on sample data", async () => {
    const org = await seller.sdk.organizations.get({ id: seller.organizationId });
    for (const type of ["order_confirmation", "subscription_confirmation", "subscription_cycled", "subscription_past_due", "subscription_updated", "subscription_cancellation", "subscription_uncanceled", "subscription_revoked", "seat_invitation", "usage_alert", "trial_ending"]) {
      const res = await raw(seller.token, "GET", `/v1/organizations/${seller.organizationId}/email-preview/${type}`);
      expect(res.status, type).toBe(200);
      const body = res.body as { type: string; subject: string; html: string; text: string };
      expect(body.type).toBe(type);
      expect(body.html).toContain(`src="${LOGO}"`);
      expect(body.html).toContain(org.name);
      expect(body.text).toContain(`${server.url}/portal?organization=${seller.slug}`);
      expect(body.subject.length).toBeGreaterThan(5);
    }
  });

  it("refuses an unknown type (422) and another organization (404)", async () => {
    const bad = await raw(seller.token, "GET", `/v1/organizations/${seller.organizationId}/email-preview/newsletter`);
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: Array<{ loc: unknown[] }> }).detail[0]?.loc).toEqual(["path", "type"]);
    const stranger = await createSeller(server, "stranger");
    const other = await raw(stranger.token, "GET", `/v1/organizations/${seller.organizationId}/email-preview/order_confirmation`);
    expect(other.status).toBe(404);
  });
});

describe("dev mailbox", () => {
  // a second server on a fresh database: slow on a busy machine
  it("stores the same message an SMTP peer gets: both parts, the Message-ID, the seller as sender", { timeout: 120_000 }, async () => {
    const dev = await startServer({}, { devMailbox: true });
    try {
      const { readdirSync, readFileSync } = await import("node:fs");
      const { simpleParser } = await import("mailparser");
      const path = await import("node:path");
      const s = await createSeller(dev, "devmail");
      await dev.worker.start();
      const product = await createProduct(s, "fixed");
      const checkout = await s.sdk.checkouts.create({ products: [product.id] });
      const email = uniqueBuyer("dev");
      await pay(dev, checkout, { customerEmail: email });
      const find = () => {
        try {
          return readdirSync(dev.mailDir).find((f) => readFileSync(path.join(dev.mailDir, f), "utf8").includes(email)) ?? null;
        } catch {
          return null;
        }
      };
      await expect.poll(find, { timeout: 5000 }).not.toBeNull();
      const name = find()!;
      const parsed = await simpleParser(readFileSync(path.join(dev.mailDir, name)));
      const [row] = await dev.database.db.select().from(customerEmail).where(eq(customerEmail.recipient, email));
      expect(parsed.messageId).toBe(`<${row!.id}@127.0.0.1>`);
      expect(parsed.subject).toMatch(/receipt/);
      expect(parsed.text).toContain(usd(2500));
      expect(typeof parsed.html === "string" && parsed.html.includes(usd(2500))).toBe(true);
      expect(parsed.from?.value[0]?.name).toBe((await s.sdk.organizations.get({ id: s.organizationId })).name);
      expect(dev.mailbox.all).toEqual([]);
    } finally {
      await dev.close();
    }
  });
});
