// Invoices and credit notes through both SDKs: a paid order's invoice made by the jobs worker and
// served by a signed URL (orders.invoice / generateInvoice / receipt, the portal's same three), the PDF's text
// read back (seller and buyer details, number and date, lines, tax per rate, totals, a reverse-charge note, paid
// status), 404 for another customer's order in the portal, a refund's credit note, the sandbox kept apart from
// live, and a signed URL that was altered or expired. Polar's errors (409 OrderNotEligibleForInvoice, 422
// MissingInvoiceBillingDetails, 404 for another organization's order): invoices-errors.test.ts.
import type { Order } from "@polar-sh/sdk/models/components/order.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { EU_REVERSE_CHARGE_NOTE } from "../../server/billing/tax/compute.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { sdk049For, sdkFor } from "../helpers/seller.js";
import { invoicesFixture } from "./invoices-fixtures.js";

const fx = invoicesFixture();

describe("a paid order's invoice", () => {
  let order: Order;

  beforeAll(async () => {
    order = await fx.buy(fx.fixed, {
      customerBillingName: "Jean Dupont",
      customerBillingAddress: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postalCode: "75001" },
    });
  });

  it("is made by the worker once the order is paid and read through both SDKs as a signed PDF URL", async () => {
    const ready = await fx.invoiceReady(order.id);
    expect(ready.number).toBe(order.invoiceNumber);
    expect((await fx.seller.sdk.orders.get({ id: order.id })).isInvoiceGenerated).toBe(true);
    const viaSdk = await fx.seller.sdk.orders.invoice({ id: order.id });
    const via049 = await fx.seller.sdk049.orders.invoice({ id: order.id });
    for (const { url } of [viaSdk, via049]) expect(url).toMatch(new RegExp(`^${fx.server.url}/v1/invoices/[0-9a-f-]{36}/pdf\\?expires=\\d+&signature=`));
    expect(await fx.seller.sdk049.orders.receipt({ id: order.id })).toMatchObject({ url: expect.stringContaining("/pdf?") });

    const text = await fx.pdfText(viaSdk.url);
    // an OSS sale to a French consumer: France's 20% on $25.00
    expect(order).toMatchObject({ subtotalAmount: 2500, taxAmount: 500, totalAmount: 3000, currency: "usd" });
    for (const part of [
      "Invoice",
      `Invoice number: ${order.invoiceNumber}`,
      `Invoice date: ${new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(order.createdAt)}`,
      "Currency: USD",
      // country names, not codes
      "From Acme Software GmbH Hauptstraße 1 10115 Berlin Germany billing@acme.example Tax ID: DE123456789",
      "Bill to Jean Dupont 1 rue de Rivoli 75001 Paris France",
      `${fx.fixed.name} 1 $25.00 $25.00`,
      "Subtotal $25.00",
      "Total excluding tax $25.00",
      "VAT France 20% $5.00",
      "Total $30.00",
      "Status: Paid",
      "Payment method: Visa ending in 4242",
    ]) {
      expect(text).toContain(part);
    }
    expect(text).not.toContain("Reverse charge");
    // a one-time purchase has no service period: the invoice date is the date of supply
    expect(text).not.toContain("Service period");
  });

  it("is linked from the order confirmation email (the customer portal, which lists it)", async () => {
    const email = uniqueBuyer("invoice-mail");
    const o = await fx.buy(fx.fixed, { customerEmail: email, customerBillingName: "Mail Reader", customerBillingAddress: { country: "DE" } });
    const mail = await fx.server.mailbox.waitFor(email, /receipt/, 15_000);
    const portalUrl = `${fx.server.url}/portal?organization=${fx.seller.slug}`;
    expect(mail.text.replace(/\s+/g, " ")).toContain(`Your invoice ${o.invoiceNumber} (PDF) is ready to download in your customer portal`);
    expect(mail.html).toContain(`href="${portalUrl}"`);
  });

  it("is made again by generateInvoice (202, both SDKs) with the billing details corrected since", async () => {
    await fx.seller.sdk.orders.update({ id: order.id, orderUpdate: { billingName: "Jeanne Dupont", billingAddress: { country: "FR", line1: "2 rue de Rivoli", city: "Paris", postalCode: "75001" } } });
    const before = await fx.invoiceReady(order.id);
    await fx.seller.sdk.orders.generateInvoice({ id: order.id });
    await fx.seller.sdk049.orders.generateInvoice({ id: order.id });
    const text = await fx.until("the regenerated invoice", async () => {
      const t = await fx.pdfText((await fx.seller.sdk.orders.invoice({ id: order.id })).url);
      return t.includes("Jeanne Dupont") ? t : null;
    });
    expect(text).toContain("Bill to Jeanne Dupont 2 rue de Rivoli 75001 Paris France");
    // the same number: an invoice is corrected, not renumbered
    expect((await fx.invoiceReady(order.id)).number).toBe(before.number);
  });

  it("announces an invoice asked for with order.updated (is_invoice_generated true), not one made unasked", async () => {
    const fresh = await fx.buy(fx.fixed, {
      customerBillingName: "Ada Lovelace",
      customerBillingAddress: { country: "GB", line1: "12 St James's Square", city: "London", postalCode: "SW1Y 4JH" },
    });
    const announced = () =>
      fx.server.database.db
        .select({ payload: outbox.payload })
        .from(outbox)
        .where(and(eq(outbox.type, "order.updated"), eq(outbox.organizationId, fx.seller.organizationId), sql`${outbox.payload}->>'id' = ${fresh.id}`));
    // made by the worker once paid, unasked (Polar makes none): no event
    await fx.invoiceReady(fresh.id);
    expect(await announced()).toEqual([]);
    // asked for: made again, then announced, in the transaction that records it
    await fx.seller.sdk.orders.generateInvoice({ id: fresh.id });
    const [row] = await fx.until("the asked invoice's order.updated", async () => {
      const found = await announced();
      return found.length > 0 ? found : null;
    });
    expect(row!.payload).toMatchObject({ id: fresh.id, is_invoice_generated: true, invoice_number: fresh.invoiceNumber, status: "paid" });
  });

  it("prints the reverse-charge note for an EU business with another member state's VAT id", async () => {
    const email = uniqueBuyer("reverse-charge");
    const b2b = await fx.buy(fx.fixed, {
      customerEmail: email,
      isBusinessCustomer: true,
      customerBillingName: "Acme SARL",
      customerTaxId: "FR40303265045",
      customerBillingAddress: { country: "FR", line1: "5 avenue Foch", city: "Paris", postalCode: "75016" },
    });
    expect(b2b).toMatchObject({ taxAmount: 0, totalAmount: 2500 });
    const text = await fx.pdfText((await fx.invoiceReady(b2b.id)).url);
    expect(text).toContain("Bill to Acme SARL 5 avenue Foch 75016 Paris France");
    expect(text).toContain("Tax ID: FR40303265045");
    expect(text).toContain("Tax France (reverse charge) 0% $0.00");
    expect(text).toContain("Total $25.00");
    expect(text).toContain(EU_REVERSE_CHARGE_NOTE.replace(/\s+/g, " "));
    // the receipt email names it too
    const mail = await fx.server.mailbox.waitFor(email, /receipt/, 15_000);
    expect(mail.text.replace(/\s+/g, " ")).toContain("VAT reverse charged $0.00");
  });

  it("keeps a business buyer's billing name on the customer: renewals are billed to it and the portal shows it", async () => {
    const meter = await fx.seller.sdk.meters.create({ name: "Calls", filter: { conjunction: "and", clauses: [] }, aggregation: { func: "count" } });
    const monthly = await fx.seller.sdk.products.create({
      name: "Consulting plan",
      recurringInterval: "month",
      prices: [
        { amountType: "fixed", priceAmount: 1900, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId: meter.id, unitAmount: "1", priceCurrency: "usd" },
      ],
    });
    const first = await fx.buy(monthly, {
      isBusinessCustomer: true,
      customerName: "Claire Martin",
      customerBillingName: "Martin Conseil SARL",
      customerTaxId: "FR40303265045",
      customerBillingAddress: { country: "FR", line1: "5 avenue Foch", city: "Paris", postalCode: "75016" },
    });
    expect(first.billingName).toBe("Martin Conseil SARL");
    // Polar's Customer.billing_name (0.49.0 reads it; 0.47.1 parses the customer without it)
    expect(await fx.seller.sdk049.customers.get({ id: first.customerId })).toMatchObject({ name: "Claire Martin", billingName: "Martin Conseil SARL" });
    expect(await fx.seller.sdk.customers.get({ id: first.customerId })).toMatchObject({ name: "Claire Martin" });

    const sub = first.subscriptionId ?? "";
    const current = await fx.raw("GET", `/v1/subscriptions/${sub}`);
    const renewed = await fx.raw("POST", `/v1/subscriptions/${sub}/renew`, { current_period_start: current.body.current_period_start });
    expect(renewed.status).toBe(200);
    const orders = (await fx.seller.sdk.orders.list({ subscriptionId: sub, sorting: ["created_at"] })).result.items;
    expect(orders.map((o) => [o.billingReason, o.billingName])).toEqual([
      ["subscription_create", "Martin Conseil SARL"],
      ["subscription_cycle", "Martin Conseil SARL"],
    ]);
    const text = await fx.pdfText((await fx.invoiceReady(orders[1]?.id ?? "")).url);
    expect(text).toContain("Bill to Martin Conseil SARL 5 avenue Foch 75016 Paris");
    expect(text).toContain("Tax ID: FR40303265045");
    // each line's service period (the date of supply): the plan for the new period, the usage for the one ended
    const day = (iso: unknown) => new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(String(iso)));
    const after = await fx.raw("GET", `/v1/subscriptions/${sub}`);
    const planPeriod = `Service period: ${day(after.body.current_period_start)} – ${day(after.body.current_period_end)}`;
    const usagePeriod = `Service period: ${day(current.body.current_period_start)} – ${day(after.body.current_period_start)}`;
    expect(text).toContain(`Consulting plan ${planPeriod}`);
    expect(text).toContain(`Consulting plan — Calls ${usagePeriod}`);
    // the first invoice's line: the first period
    const firstText = await fx.pdfText((await fx.invoiceReady(first.id)).url);
    expect(firstText).toContain(`Consulting plan Service period: ${day(current.body.current_period_start)} – ${day(current.body.current_period_end)}`);

    // the portal's billing details start from the company's name; the person keeps theirs
    const token = await fx.sessionFor(first.customerId);
    const me = await fx.raw("GET", "/v1/customer-portal/customers/me", undefined, token);
    expect(me.body).toMatchObject({ name: "Claire Martin", billing_name: "Martin Conseil SARL" });
    const moved = await fx.portal049.customerPortal.customers.update({ customerSession: token }, { billingName: "Martin Conseil SAS" });
    expect(moved).toMatchObject({ name: "Claire Martin", billingName: "Martin Conseil SAS" });
    expect(await fx.seller.sdk049.customers.get({ id: first.customerId })).toMatchObject({ name: "Claire Martin", billingName: "Martin Conseil SAS" });
  });

  it("shows a discount, and the totals are exactly the order's", async () => {
    const discount = await fx.seller.sdk.discounts.create({ name: "Launch", type: "fixed", amount: 700, currency: "usd", duration: "once" });
    const checkout = await fx.seller.sdk.checkouts.create({ products: [fx.fixed.id], discountId: discount.id });
    await pay(fx.server, checkout, { customerEmail: uniqueBuyer("invoice"), customerBillingAddress: { country: "DE" } });
    const [o] = (await fx.seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    if (!o) throw new Error("no order");
    // 2500 − 700 = 1800, Germany's 19%: 342
    expect(o).toMatchObject({ subtotalAmount: 2500, discountAmount: 700, netAmount: 1800, taxAmount: 342, totalAmount: 2142 });
    const text = await fx.pdfText((await fx.invoiceReady(o.id)).url);
    for (const part of ["Subtotal $25.00", "Discount (Launch) -$7.00", "Total excluding tax $18.00", "VAT Germany 19% $3.42", "Total $21.42"]) expect(text).toContain(part);
  });
});

describe("the customer portal", () => {
  it("reads, generates and receipts the customer's own invoice through both SDKs; another customer's order is 404", async () => {
    const mine = await fx.buy(fx.fixed, { customerBillingName: "Ada Lovelace", customerBillingAddress: { country: "GB", line1: "12 St James's Square", city: "London", postalCode: "SW1Y 4LB" } });
    const theirs = await fx.buy(fx.fixed, { customerBillingAddress: { country: "DE" } });
    const token = await fx.sessionFor(mine.customerId);
    await fx.invoiceReady(mine.id);
    const a = await fx.portal.customerPortal.orders.invoice({ customerSession: token }, { id: mine.id });
    const b = await fx.portal049.customerPortal.orders.invoice({ customerSession: token }, { id: mine.id });
    expect(await fx.pdfText(a.url)).toContain("Bill to Ada Lovelace 12 St James's Square SW1Y 4LB London United Kingdom");
    expect(b.url).toContain("/pdf?");
    await fx.portal.customerPortal.orders.generateInvoice({ customerSession: token }, { id: mine.id });
    await fx.portal049.customerPortal.orders.generateInvoice({ customerSession: token }, { id: mine.id });
    expect(await fx.portal049.customerPortal.orders.receipt({ customerSession: token }, { id: mine.id })).toMatchObject({ url: expect.stringContaining("/pdf?") });

    await expect(fx.portal.customerPortal.orders.invoice({ customerSession: token }, { id: theirs.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(fx.portal049.customerPortal.orders.generateInvoice({ customerSession: token }, { id: theirs.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(fx.portal049.customerPortal.orders.receipt({ customerSession: token }, { id: theirs.id })).rejects.toMatchObject({ statusCode: 404 });
    expect((await rawRequest(fx.server.url, "", "GET", `/v1/customer-portal/orders/${mine.id}/invoice`)).status).toBe(401);
  });
});

describe("a refund", () => {
  it("issues a credit note referencing the invoice, with the amounts refunded including tax", async () => {
    const order = await fx.buy(fx.fixed, { customerBillingName: "Jean Dupont", customerBillingAddress: { country: "FR" } });
    const invoice = await fx.invoiceReady(order.id);
    expect(invoice.credit_notes).toEqual([]);
    await fx.seller.sdk.refunds.create({ orderId: order.id, reason: "customer_request", amount: 1000 });
    const withNote = await fx.until("the credit note", async () => {
      const r = await fx.invoiceReady(order.id);
      return r.credit_notes.length === 1 ? r : null;
    });
    const note = withNote.credit_notes[0]!;
    expect(note.number).toBe(`${order.invoiceNumber}-CN1`);
    const text = await fx.pdfText(note.url);
    const invoiceDate = new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(order.createdAt);
    for (const part of [
      "Credit note",
      `Credit note number: ${order.invoiceNumber}-CN1`,
      `Credits invoice ${order.invoiceNumber} of ${invoiceDate}`,
      "Bill to Jean Dupont France",
      "Total excluding tax $10.00",
      "VAT France 20% refunded $2.00",
      "Total credited $12.00",
      "Refunded: $12.00 (reason: customer request)",
      "Refunded to: Visa ending in 4242",
    ]) {
      expect(text).toContain(part);
    }
    // the refunded order's invoice itself is unchanged; a second refund gets the next number
    await fx.seller.sdk.refunds.create({ orderId: order.id, reason: "other", amount: 1500 });
    const two = await fx.until("the second credit note", async () => {
      const r = await fx.invoiceReady(order.id);
      return r.credit_notes.length === 2 ? r : null;
    });
    expect(two.credit_notes.map((n) => n.number)).toEqual([`${order.invoiceNumber}-CN1`, `${order.invoiceNumber}-CN2`]);
    expect(await fx.pdfText(two.credit_notes[1]!.url)).toContain("Total credited $18.00");
  });
});

describe("the sandbox and the signed URL", () => {
  it("keeps sandbox invoices apart from live ones", async () => {
    const testKey = await fx.seller.createSandboxKey();
    const sandbox = sdkFor(fx.server, testKey);
    const product = await sandbox.products.create({ name: "sandbox plan", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    const order = await fx.buy(
      product as unknown as Product,
      { customerBillingAddress: { country: "US", state: "TX", line1: "1 Congress Ave", city: "Austin", postalCode: "78701" } },
      fx.seller, sandbox,
    );
    expect(order.invoiceNumber).toMatch(/^TEST/);
    const inv = await fx.invoiceReady(order.id, testKey);
    expect(await fx.pdfText(inv.url)).toContain(`Invoice number: ${order.invoiceNumber}`);
    expect((await sdk049For(fx.server, testKey).orders.invoice({ id: order.id })).url.split("?")[0]).toBe(inv.url.split("?")[0]);
    // the live side does not see it, and the sandbox does not see live orders
    await expect(fx.seller.sdk.orders.invoice({ id: order.id })).rejects.toMatchObject({ statusCode: 404 });
    const live = await fx.buy(fx.fixed, { customerBillingAddress: { country: "DE" } });
    await expect(sandbox.orders.generateInvoice({ id: live.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  it("refuses an altered or expired signature (403) and serves nothing else", async () => {
    const order = await fx.buy(fx.fixed, { customerBillingAddress: { country: "DE" } });
    const { url } = await fx.invoiceReady(order.id);
    const u = new URL(url);
    const sig = u.searchParams.get("signature")!;
    u.searchParams.set("signature", `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
    expect((await fetch(u)).status).toBe(403);
    const expired = new URL(url);
    expired.searchParams.set("expires", String(Math.floor(Date.now() / 1000) - 10));
    expect((await fetch(expired)).status).toBe(403);
    const other = new URL(url.replace(/invoices\/[0-9a-f-]{36}/, "invoices/00000000-0000-4000-8000-000000000000"));
    expect((await fetch(other)).status).toBe(403);
  });
});
