// A checkout paid end to end in each of the buyer's locales — `locale` given at creation through both
// SDKs (0.47.1 for half the locales, 0.49.0 for the rest), stored on the customer, the receipt email and the invoice
// PDF read back as text in that language: the title, the total, the date and country by Intl, the EU reverse-charge
// note in the language's legal wording. A few phrases are spelled out here too, so a catalog cannot drift unseen.
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCALES, PSEUDO_LOCALE, type AnyLocale, type Locale } from "../../shared/i18n/locales.js";
import { INVOICE_CATALOGS } from "../../server/billing/invoices/i18n/index.js";
import { invoice, subscription } from "../../server/db/schema/index.js";
import { rawRequest } from "../helpers/api.js";
import { pay, uniqueBuyer } from "../helpers/checkout.js";
import { pdfTextOf, untilWorked } from "../helpers/pdf.js";
import { createSeller, makeGermanInvoicer, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let product: Product;

const flat = (s: string) => s.replace(/\s+/g, " ").trim();
const raw = (method: string, path: string, body?: unknown) => rawRequest(server.url, seller.token, method, path, body);

const until = <T>(what: string, probe: () => Promise<T | null | undefined>, ms?: number) => untilWorked(server, what, probe, ms);

/** The invoice PDF once the worker made it: its text, and the file name its download gives. */
async function invoiceDownload(orderId: string): Promise<{ text: string; disposition: string }> {
  const ready = await until(`the invoice of ${orderId}`, async () => {
    const res = await raw("GET", `/v1/orders/${orderId}/invoice`);
    return res.status === 200 ? (res.body as { url: string }) : null;
  });
  const res = await fetch(ready.url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { text: await pdfTextOf(bytes), disposition: res.headers.get("content-disposition") ?? "" };
}

/** The document's download name in each language: ASCII for every client, UTF-8 (RFC 6266 filename*) for the rest. */
const FILE_WORD: Record<Locale, { ascii: string; utf8: string }> = {
  en: { ascii: "Invoice", utf8: "Invoice" },
  de: { ascii: "Rechnung", utf8: "Rechnung" },
  fr: { ascii: "Facture", utf8: "Facture" },
  es: { ascii: "Factura", utf8: "Factura" },
  it: { ascii: "Fattura", utf8: "Fattura" },
  nl: { ascii: "Factuur", utf8: "Factuur" },
  "pt-BR": { ascii: "Fatura", utf8: "Fatura" },
  pl: { ascii: "Faktura", utf8: "Faktura" },
  sv: { ascii: "Faktura", utf8: "Faktura" },
  ja: { ascii: "Invoice", utf8: "請求書" },
};

/** An EU business in France buying from a German seller: reverse charge, so every invoice carries the legal note. */
async function buyIn(locale: AnyLocale, sdk: "0.47.1" | "0.49.0") {
  const email = uniqueBuyer(`locale-${locale}`);
  const checkout =
    sdk === "0.47.1"
      ? await seller.sdk.checkouts.create({ products: [product.id], locale })
      : await seller.sdk049.checkouts.create({ products: [product.id], locale });
  expect(checkout.locale).toBe(locale);
  await pay(server, checkout, {
    customerEmail: email,
    isBusinessCustomer: true,
    customerBillingName: "Acme SARL",
    customerTaxId: "FR40303265045",
    customerBillingAddress: { country: "FR", line1: "5 avenue Foch", city: "Paris", postalCode: "75016" },
  });
  const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
  if (!order) throw new Error("no order");
  return { email, order };
}

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  seller = await createSeller(server, "locales-inv");
  product = await seller.sdk.products.create({ name: "Pro plan", prices: [{ amountType: "fixed", priceAmount: 2500, priceCurrency: "eur" }] });
  await makeGermanInvoicer(server, seller);
}, 60_000);
afterAll(async () => server?.close());

/** Phrases of the legal wording and titles, as the tax authorities and a native reader write them. */
const SPELLED: Partial<Record<AnyLocale, string[]>> = {
  de: ["Rechnung", "Steuerschuldnerschaft des Leistungsempfängers", "Frankreich"],
  fr: ["Facture", "Autoliquidation", "France"],
  es: ["Factura", "Inversión del sujeto pasivo", "Francia"],
  it: ["Fattura", "Inversione contabile", "Francia"],
  nl: ["Factuur", "Btw verlegd", "Frankrijk"],
  "pt-BR": ["Fatura", "Autoliquidação", "França"],
  pl: ["Faktura", "Odwrotne obciążenie", "Francja"],
  sv: ["Faktura", "Omvänd betalningsskyldighet", "Frankrike"],
  ja: ["請求書", "リバースチャージ", "フランス"],
};

describe("a checkout paid in the buyer's locale", () => {
  LOCALES.forEach((locale, i) => {
    it(`${locale}: the customer keeps the locale; the receipt and the invoice speak it, amounts and dates by Intl`, async () => {
      const { email, order } = await buyIn(locale, i % 2 === 0 ? "0.47.1" : "0.49.0");
      const total = flat(new Intl.NumberFormat(locale, { style: "currency", currency: "EUR" }).format(25));
      expect(order).toMatchObject({ taxAmount: 0, totalAmount: 2500, currency: "eur" });

      const customer = await seller.sdk.customers.get({ id: order.customerId });
      expect(customer.locale).toBe(locale);

      const mail = await server.mailbox.waitFor(email, /./, 20_000);
      expect(flat(mail.text)).toContain(total);

      const { text, disposition } = await invoiceDownload(order.id);
      const file = `-${order.invoiceNumber ?? ""}.pdf`;
      expect(disposition).toBe(`inline; filename="${FILE_WORD[locale].ascii}${file}"; filename*=UTF-8''${encodeURIComponent(FILE_WORD[locale].utf8 + file)}`);
      const t = INVOICE_CATALOGS[locale];
      const date = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(order.createdAt);
      expect(text).toContain(flat(t["title.invoice"]));
      expect(text).toContain(flat(t["head.invoiceNumber"].replace("{number}", order.invoiceNumber ?? "")));
      expect(text).toContain(flat(t["head.invoiceDate"].replace("{date}", date)));
      expect(text).toContain(`${flat(t["total.total"])} ${total}`);
      expect(text).toContain(flat(t["note.euReverseCharge"]));
      const france = new Intl.DisplayNames([locale], { type: "region" }).of("FR")!;
      expect(text).toContain(flat(france));
      // the tax line names its place in the reader's language, not by its code
      // (the PDF may hyphenate the long reverse-charge words that follow)
      expect(text).toContain(flat(`${t["tax.tax"]} ${france} ${t["tax.reverseCharge"].charAt(0)}`));
      for (const phrase of SPELLED[locale] ?? []) expect(text).toContain(phrase);
      if (locale !== "en") expect(text).not.toContain("Invoice number");
    }, 60_000);
  });

  it("falls back to the organization's default locale for a customer who named none, and the pseudo-locale leaves nothing untranslated", async () => {
    const set = await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { default_locale: "sv" });
    expect(set.status).toBe(200);
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout, { customerBillingName: "Kund AB", customerBillingAddress: { country: "SE" } });
    const [order] = (await seller.sdk.orders.list({ checkoutId: checkout.id })).result.items;
    const text = (await invoiceDownload(order!.id)).text;
    expect(text).toContain("Fakturanummer");
    expect(text).toContain("Sverige");
    // the invoice keeps the locale it was first made in: re-made (POST …/invoice) after the customer named
    // another language and the organization's default changed, it is still Swedish
    expect((await raw("PATCH", `/v1/customers/${order!.customerId}`, { locale: "fr" })).status).toBe(200);
    expect((await raw("PATCH", `/v1/organizations/${seller.organizationId}`, { default_locale: "de" })).status).toBe(200);
    expect((await raw("POST", `/v1/orders/${order!.id}/invoice`)).status).toBe(202);
    const row = () => server.database.db.select().from(invoice).where(and(eq(invoice.orderId, order!.id), eq(invoice.kind, "invoice")));
    await until("the re-made invoice", async () => (await row()).find((r) => r.version === 2 && r.status === "generated"));
    expect((await row())[0]!.locale).toBe("sv");
    const again = (await invoiceDownload(order!.id)).text;
    expect(again).toContain("Fakturanummer");
    expect(again).not.toContain("Facture");

    const pseudo = await seller.sdk.checkouts.create({ products: [product.id], locale: PSEUDO_LOCALE });
    await pay(server, pseudo, { customerBillingName: "Pseudo Buyer", customerBillingAddress: { country: "FR" } });
    const [po] = (await seller.sdk.orders.list({ checkoutId: pseudo.id })).result.items;
    const ptext = (await invoiceDownload(po!.id)).text;
    // every catalog word is bracketed: what remains outside brackets is data (names, numbers, amounts, dates)
    const outside = ptext.replace(/\[[^\]]*\]/g, " ");
    for (const word of ["Invoice", "Subtotal", "Total", "Status", "Bill to", "Description", "Amount"]) expect(outside).not.toContain(word);
    expect(ptext).toContain("[Íñvóíçé ñúmbér");
  }, 90_000);

  it("the pseudo-locale says a metered line and a proration line from their facts: no English word outside brackets", async () => {
    const meter = await seller.sdk.meters.create({
      name: "Tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens-xa" }] },
      aggregation: { func: "sum", property: "units" },
    });
    // a plan with a capped metered price (the line then says its cap), and a plan to change to
    const created = await raw("POST", "/v1/products/", {
      name: "Metered Plan",
      recurring_interval: "month",
      prices: [
        { amount_type: "fixed", price_amount: 1000, price_currency: "eur" },
        { amount_type: "metered_unit", meter_id: meter.id, price_currency: "eur", unit_amount: "10", cap_amount: 500 },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const bigger = await seller.sdk.products.create({ name: "Bigger Plan", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 4000, priceCurrency: "eur" }] });
    const checkout = await seller.sdk.checkouts.create({ products: [String(created.body.id)], locale: PSEUDO_LOCALE });
    const { customerId } = await pay(server, checkout, { customerBillingName: "Pseudo Buyer", customerBillingAddress: { country: "FR" } });
    const [sub] = (await seller.sdk.subscriptions.list({ customerId: customerId ?? "", limit: 10 })).result.items;
    if (!sub) throw new Error("no subscription");
    // 10 days into a 30-day period, 80 tokens (€8.00, capped at €5.00), renewed: the renewal bills the metered line
    const start = new Date(Date.now() - 10 * 86_400_000);
    await server.database.db.update(subscription).set({
      currentPeriodStart: start, currentPeriodEnd: new Date(start.getTime() + 30 * 86_400_000), startedAt: start,
    }).where(eq(subscription.id, sub.id));
    expect((await raw("POST", "/v1/events/ingest", { events: [{ name: "tokens-xa", customer_id: customerId, metadata: { units: 80 } }] })).status).toBe(200);
    expect((await raw("POST", `/v1/subscriptions/${sub.id}/renew`, { current_period_start: start.toISOString() })).status).toBe(200);
    // then an upgrade billed now: its order's two proration lines
    await seller.sdk.subscriptions.update({ id: sub.id, subscriptionUpdate: { productId: bigger.id, prorationBehavior: "invoice" } });
    const orders = (await seller.sdk.orders.list({ subscriptionId: sub.id, sorting: ["created_at"], limit: 10 })).result.items;
    const cycle = orders.find((o) => o.billingReason === "subscription_cycle");
    const update = orders.find((o) => o.billingReason === "subscription_update");
    if (!cycle || !update) throw new Error("no renewal or plan change order");
    expect(cycle.items.map((i) => i.label)).toContain("Metered Plan — Tokens: capped at €5.00; €3.00 of usage not billed");
    expect(update.items.map((i) => i.label)).toEqual(["Unused time on Metered Plan", "Remaining time on Bigger Plan"]);

    /** The words outside every bracket, innermost first (a line's messages nest). */
    const outside = (text: string) => {
      let t = text;
      for (let prev = ""; prev !== t; ) [prev, t] = [t, t.replace(/\[[^[\]]*\]/g, " ")];
      return t;
    };
    // (the product's and meter's names are data, said inside the line's brackets)
    const metered = (await invoiceDownload(cycle.id)).text;
    for (const word of ["capped", "usage", "billed"]) expect(outside(metered)).not.toContain(word);
    expect(flat(metered)).toMatch(/\[Metered Plan — Tokens\]: \[çáppéd/);
    const prorated = (await invoiceDownload(update.id)).text;
    for (const word of ["Unused", "Remaining", "time"]) expect(outside(prorated)).not.toContain(word);
    expect(flat(prorated)).toContain("[Úñúséd tímé óñ Metered Plan~");
    expect(flat(prorated)).toContain("[Rémáíñíñg tímé óñ Bigger Plan~");
  }, 90_000);
});
