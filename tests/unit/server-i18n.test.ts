// The server's catalogs: every locale's email and invoice catalog has exactly English's keys, every message parses
// as ICU and uses no argument English does not give; and every customer email (and the portal code email),
// rendered in the pseudo-locale, shows no untranslated text — all that is not bracketed is data.
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { LOCALES, PSEUDO_LOCALE } from "../../shared/i18n/locales.js";
import { MAIL_CATALOGS, mailSpeaker } from "../../server/mail/i18n/index.js";
import { INVOICE_CATALOGS } from "../../server/billing/invoices/i18n/index.js";
import { LINE_CATALOGS } from "../../server/i18n/lines/index.js";
import { renderCustomerEmail, renderPortalCodeEmail, type MailContext } from "../../server/mail/render.js";
import { previewData } from "../../server/billing/customer-emails/preview.js";
import { CUSTOMER_EMAIL_TYPES } from "../../server/billing/customer-emails/types.js";

function argsOf(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) out.add(el.value);
    else if (el.type === TYPE.tag) {
      out.add(`<${el.value}>`);
      argsOf(el.children, out);
    } else if (el.type === TYPE.plural || el.type === TYPE.select) {
      out.add(el.value);
      for (const o of Object.values(el.options)) argsOf(o.value, out);
    }
  }
  return out;
}

/** The catalogs of every server surface, by name. */
export const SURFACES = { mail: MAIL_CATALOGS, invoices: INVOICE_CATALOGS, lines: LINE_CATALOGS } as const;

describe("server catalogs", () => {
  for (const [surface, catalogs] of Object.entries(SURFACES)) {
    const en = catalogs.en as Record<string, string>;
    for (const locale of LOCALES) {
      it(`${surface}: ${locale} has exactly English's keys, each message parses and uses only English's arguments`, () => {
        const catalog = catalogs[locale] as Record<string, string>;
        expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
        for (const [id, message] of Object.entries(catalog)) {
          const args = argsOf(parse(message));
          const known = argsOf(parse(en[id]!));
          expect([...args].filter((a) => !known.has(a)), `${locale} ${id}`).toEqual([]);
          if (locale !== "en") expect(message.trim().length, `${locale} ${id}`).toBeGreaterThan(0);
        }
      });
    }
  }
});

const ctxIn = (locale: string): MailContext => ({
  sender: { name: "Acme", logo: null },
  portalUrl: "https://till.test/portal?organization=acme",
  baseUrl: "https://till.test",
  i18n: mailSpeaker(locale),
});

/** What is left of a text once every bracketed part is taken out (innermost first: links add their own). */
function unbracketed(text: string): string {
  let s = text;
  for (let prev = ""; prev !== s; ) {
    prev = s;
    s = s.replace(/\[[^[\]]*\]/g, " ");
  }
  return s;
}

const MONTHS = Array.from({ length: 12 }, (_, m) => new Intl.DateTimeFormat("en", { month: "long", timeZone: "UTC" }).format(Date.UTC(2026, m, 1)));

/** The words a rendered email may show outside brackets: its data's, the sender's, and Intl's month names. */
function dataWords(data: unknown): Set<string> {
  return new Set([...`${JSON.stringify(data)} Acme till test portal organization acme seats claim https GitHub Discord ${MONTHS.join(" ")}`.matchAll(/[A-Za-z]{2,}/g)].map((m) => m[0]));
}

describe("emails in the pseudo-locale", () => {
  for (const type of CUSTOMER_EMAIL_TYPES) {
    it(`${type}: subject and body are translated (all but data bracketed)`, async () => {
      const data = previewData(type, "acme");
      const rendered = await renderCustomerEmail(type, data, ctxIn(PSEUDO_LOCALE));
      expect(rendered.subject).toMatch(/^\[.*~\]$/);
      const allowed = dataWords(data);
      const left = [...unbracketed(`${rendered.subject}\n${rendered.text}`).matchAll(/[A-Za-z]{2,}/g)].map((m) => m[0]).filter((w) => !allowed.has(w));
      expect(left, rendered.text).toEqual([]);
      expect(rendered.html).toContain('lang="en"');
    });
  }

  it("the portal sign-in code email", async () => {
    const rendered = await renderPortalCodeEmail("ABCD2345", ctxIn(PSEUDO_LOCALE));
    expect(rendered.subject).toMatch(/^\[.*~\]$/);
    const left = [...unbracketed(rendered.text).matchAll(/[A-Za-z]{2,}/g)].map((m) => m[0]).filter((w) => !dataWords({ code: "ABCD2345" }).has(w));
    expect(left, rendered.text).toEqual([]);
  });

  it("every locale renders every email (German amounts and dates through Intl)", async () => {
    for (const locale of LOCALES) {
      for (const type of CUSTOMER_EMAIL_TYPES) await renderCustomerEmail(type, previewData(type, "acme"), ctxIn(locale));
    }
    const de = await renderCustomerEmail("order_confirmation", previewData("order_confirmation", "acme"), ctxIn("de"));
    expect(de.subject).toBe("Ihr Beleg von Acme: ACME-0001");
    expect(de.html).toContain("Vielen Dank für Ihre Bestellung");
    expect(de.text).toMatch(/21,60\s\$/);
    expect(de.text).toContain("1. Januar 2026");
    expect(de.html).toContain('lang="de"');
  });
});
