// Customer emails: each email that customer_email_settings enables, caused through the API,
// recorded from the outbox, sent by the jobs worker and read from a real SMTP peer on loopback: subject,
// sender (the seller's name and logo), text and HTML parts, the order's own amounts, the portal link. Then:
// a setting turned off sends nothing, and the preview renders each email. Retries, re-sends and the dev mailbox:
// customer-emails-delivery.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customerEmail } from "../../server/db/schema/index.js";
import { createProduct } from "../helpers/checkout.js";
import { createSeller } from "../helpers/seller.js";
import { customerEmailsFixture, LOGO, usd } from "./customer-emails-fixtures.js";

const fx = customerEmailsFixture();

describe("each customer email", () => {
  it("order confirmation: the receipt with lines, tax, total, invoice number and the portal link", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const { email, order } = await fx.buy(fx.seller, product);
    const mail = await fx.server.mailbox.waitFor(email, /receipt/);
    const org = await fx.seller.sdk.organizations.get({ id: fx.seller.organizationId });
    expect(mail.fromName).toBe(org.name);
    expect(mail.subject).toBe(`Your ${org.name} receipt ${order.invoiceNumber}`);
    fx.expectBranded(mail, fx.seller);
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
    expect(mail.links).toEqual([`${fx.server.url}/portal?organization=${fx.seller.slug}`]);
    const shown = (mail.html ?? "").replace(/<head>[\s\S]*<\/head>/, "").replace(/<[^>]+>/g, " ");
    expect(shown).not.toMatch(/https?:\/\//);
  });

  it("refunded: the buyer is told what came back and where, once per refund", async () => {
    const product = await createProduct(fx.seller, "fixed");
    const { email, order } = await fx.buy(fx.seller, product);
    await fx.server.mailbox.waitFor(email, /receipt/);
    const org = await fx.seller.sdk.organizations.get({ id: fx.seller.organizationId });
    const first = await fx.seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1000 });
    expect(first.status).toBe("succeeded");
    const partial = await fx.server.mailbox.waitFor(email, /Your refund/);
    fx.expectBranded(partial, fx.seller);
    expect(partial.subject).toBe(`Your refund of ${usd(1000)} from ${org.name}`);
    expect(partial.text).toContain(`${org.name} refunded ${usd(1000)} for ${product.name} (invoice ${order.invoiceNumber}).`);
    expect(partial.text).toContain("It goes back to the payment method you paid with.");
    expect(partial.text).toContain(`This was a partial refund: ${usd(1000)} of the order's ${usd(2500)} has been refunded so far.`);
    await fx.seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1500 });
    const rest = await fx.server.mailbox.waitFor(email, /Your refund/);
    expect(rest.subject).toBe(`Your refund of ${usd(1500)} from ${org.name}`);
    expect(rest.text).not.toContain("partial refund");
    const rows = await fx.db().select().from(customerEmail).where(eq(customerEmail.recipient, email));
    expect(rows.map((r) => r.type).sort()).toEqual(["order_confirmation", "order_refunded", "order_refunded"]);
  });

  it("a subscription confirmation says the plan's meter credits in the buyer's words", async () => {
    const meter = await fx.seller.sdk.meters.create({
      name: "renders",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "render" }] },
      aggregation: { func: "count" },
    });
    const credits = await fx.raw(fx.seller.token, "POST", "/v1/benefits/", {
      type: "meter_credit",
      description: "Monthly renders",
      properties: { units: 250, rollover: true, meter_id: meter.id, schedule: "monthly" },
    });
    expect(credits.status).toBe(201);
    const product = await createProduct(fx.seller, "monthly");
    await fx.seller.sdk.products.updateBenefits({ id: product.id, productBenefitsUpdate: { benefits: [credits.body.id as string] } });
    const { email } = await fx.subscribe(fx.seller, product);
    const mail = await fx.server.mailbox.waitFor(email, /subscription to .* is confirmed/);
    expect(mail.text).toContain("250 credits each month. Credits you don't use carry over.");
  });

  it("subscription confirmation, with the receipt and the next charge", async () => {
    const product = await createProduct(fx.seller, "monthly");
    const { email, sub } = await fx.subscribe(fx.seller, product);
    const mail = await fx.server.mailbox.waitFor(email, /subscription to .* is confirmed/);
    fx.expectBranded(mail, fx.seller);
    expect(mail.subject).toBe(`Your subscription to ${product.name} is confirmed`);
    expect(mail.text).toContain(usd(900));
    expect(mail.text).toContain("renews every month");
    expect(mail.text).toContain(new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(sub.currentPeriodEnd ?? new Date()));
    // a subscription's first order is not also sent as an order confirmation
    await new Promise((r) => setTimeout(r, 300));
    expect(fx.server.mailbox.messages.filter((m) => m.to.includes(email))).toEqual([]);
  });

  it("cycled: the renewal receipt; and after a trial, that the trial ended", async () => {
    const monthly = await createProduct(fx.seller, "monthly");
    const { email, sub } = await fx.subscribe(fx.seller, monthly);
    await fx.server.mailbox.waitFor(email, /is confirmed/);
    await fx.renew(fx.seller, sub.id);
    const mail = await fx.server.mailbox.waitFor(email, /renewal receipt/);
    expect(mail.subject).toBe(`Your ${monthly.name} renewal receipt: ${usd(900)}`);
    fx.expectBranded(mail, fx.seller);
    const orders = (await fx.seller.sdk.orders.list({ subscriptionId: sub.id, limit: 10 })).result.items;
    const cycle = orders.find((o) => o.billingReason === "subscription_cycle");
    expect(mail.text).toContain(cycle?.invoiceNumber);

    const trial = await createProduct(fx.seller, "trial");
    const t = await fx.subscribe(fx.seller, trial);
    await fx.server.mailbox.waitFor(t.email, /is confirmed/);
    await fx.renew(fx.seller, t.sub.id);
    const after = await fx.server.mailbox.waitFor(t.email, /trial has ended/);
    expect(after.subject).toBe(`Your ${trial.name} trial has ended: ${usd(1200)}`);
    expect(after.text).toContain(usd(1200));
  });

  it("past due: the failed renewal's amount and a link to update the payment method", async () => {
    const trial = await createProduct(fx.seller, "trial");
    // a card that can be saved but whose charges fail
    const { email, sub } = await fx.subscribe(fx.seller, trial, "4000 0000 0000 0341");
    await fx.server.mailbox.waitFor(email, /is confirmed/);
    await fx.renew(fx.seller, sub.id);
    const mail = await fx.server.mailbox.waitFor(email, /Payment failed/);
    fx.expectBranded(mail, fx.seller);
    expect(mail.text).toContain(`We could not charge ${usd(1200)}`);
    expect(mail.html).toContain("Update payment method");
  });

  it("updated (a plan change), canceled, uncanceled and revoked", async () => {
    const basic = await createProduct(fx.seller, "monthly");
    const premium = await createProduct(fx.seller, "monthly");
    const { email, sub } = await fx.subscribe(fx.seller, basic);
    await fx.server.mailbox.waitFor(email, /is confirmed/);

    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: premium.id } });
    const updated = await fx.server.mailbox.waitFor(email, /has been updated/);
    expect(updated.subject).toBe(`Your subscription has been updated to ${premium.name}`);
    fx.expectBranded(updated, fx.seller);

    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const canceled = await fx.server.mailbox.waitFor(email, /has been canceled/);
    expect(canceled.subject).toBe(`Your ${premium.name} subscription has been canceled`);
    expect(canceled.text).toContain("You keep access until");

    await fx.seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    const uncanceled = await fx.server.mailbox.waitFor(email, /will continue/);
    expect(uncanceled.text).toContain(usd(900));

    await fx.seller.sdk.subscriptions.revoke({ id: sub.id });
    const revoked = await fx.server.mailbox.waitFor(email, /has ended/);
    expect(revoked.subject).toBe(`Your ${premium.name} subscription has ended`);
    // revoking now sends the end of access only, not a cancellation too
    await new Promise((r) => setTimeout(r, 300));
    expect(fx.server.mailbox.messages.filter((m) => m.to.includes(email))).toEqual([]);
  });
});

describe("customer_email_settings", () => {
  it("a setting turned off sends nothing of its kind, and only of its kind", async () => {
    const quiet = await createSeller(fx.server, "quiet");
    const off = await fx.raw(quiet.token, "PATCH", `/v1/organizations/${quiet.organizationId}`, {
      customer_email_settings: { order_confirmation: false },
    });
    expect(off.status).toBe(200);
    const fixed = await createProduct(quiet, "fixed");
    const monthly = await createProduct(quiet, "monthly");
    const a = await fx.buy(quiet, fixed);
    const b = await fx.subscribe(quiet, monthly);
    await fx.server.mailbox.waitFor(b.email, /is confirmed/);
    expect(fx.server.mailbox.all.filter((m) => m.to.includes(a.email))).toEqual([]);
  });

  it("with every setting off, no cause sends any email", async () => {
    const silent = await createSeller(fx.server, "silent");
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
    expect((await fx.raw(silent.token, "PATCH", `/v1/organizations/${silent.organizationId}`, { customer_email_settings: settings })).status).toBe(200);
    const fixed = await createProduct(silent, "fixed");
    const monthly = await createProduct(silent, "monthly");
    const other = await createProduct(silent, "monthly");
    const trial = await createProduct(silent, "trial");
    const buyers: string[] = [];
    const bought = await fx.buy(silent, fixed);
    buyers.push(bought.email);
    await silent.sdk.refunds.create({ orderId: bought.order.id, reason: "customer_request", amount: 500 });
    const s = await fx.subscribe(silent, monthly);
    buyers.push(s.email);
    await fx.renew(silent, s.sub.id);
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { productId: other.id } });
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await silent.sdk.subscriptions.update({ id: s.sub.id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    await silent.sdk.subscriptions.revoke({ id: s.sub.id });
    const t = await fx.subscribe(silent, trial);
    buyers.push(t.email);
    await fx.renew(silent, t.sub.id);
    const pd = await fx.subscribe(silent, trial, "4000 0000 0000 0341");
    buyers.push(pd.email);
    await fx.renew(silent, pd.sub.id);

    // a marker sent after all of them (another organization) proves the worker got past these events
    const marker = await fx.subscribe(fx.seller, await createProduct(fx.seller, "monthly"));
    await fx.server.mailbox.waitFor(marker.email, /is confirmed/);
    const rows = await fx.db().select().from(customerEmail).where(eq(customerEmail.organizationId, silent.organizationId));
    expect(rows).toEqual([]);
    expect(fx.server.mailbox.all.filter((m) => buyers.some((b) => m.to.includes(b)))).toEqual([]);
  });
});

describe("GET /v1/organizations/{id}/email-preview/{type}", () => {
  it("renders each email with the seller's name and logo on sample data", async () => {
    const org = await fx.seller.sdk.organizations.get({ id: fx.seller.organizationId });
    for (const type of [
      "order_confirmation", "subscription_confirmation", "subscription_cycled", "subscription_past_due",
      "subscription_updated", "subscription_cancellation", "subscription_uncanceled", "subscription_revoked",
      "seat_invitation", "usage_alert", "trial_ending",
    ]) {
      const res = await fx.raw(fx.seller.token, "GET", `/v1/organizations/${fx.seller.organizationId}/email-preview/${type}`);
      expect(res.status, type).toBe(200);
      const body = res.body as { type: string; subject: string; html: string; text: string };
      expect(body.type).toBe(type);
      expect(body.html).toContain(`src="${LOGO}"`);
      expect(body.html).toContain(org.name);
      expect(body.text).toContain(`${fx.server.url}/portal?organization=${fx.seller.slug}`);
      expect(body.subject.length).toBeGreaterThan(5);
    }
  });

  it("refuses an unknown type (422) and another organization (404)", async () => {
    const bad = await fx.raw(fx.seller.token, "GET", `/v1/organizations/${fx.seller.organizationId}/email-preview/newsletter`);
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: Array<{ loc: unknown[] }> }).detail[0]?.loc).toEqual(["path", "type"]);
    const stranger = await createSeller(fx.server, "stranger");
    const other = await fx.raw(stranger.token, "GET", `/v1/organizations/${fx.seller.organizationId}/email-preview/order_confirmation`);
    expect(other.status).toBe(404);
  });
});
