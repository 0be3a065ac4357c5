// The plain-text part of every customer email, in every locale, as a reader of text mail sees it: a receipt's
// label and its amount on one line (amounts lined up on the right), each address printed once and never run into
// the sentence's full stop; and the HTML part shows no address as bare text beside a link.
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../shared/i18n/locales.js";
import { mailSpeaker } from "../../server/mail/i18n/index.js";
import { renderCustomerEmail, type MailContext } from "../../server/mail/render.js";
import { previewData } from "../../server/billing/customer-emails/preview.js";
import { CUSTOMER_EMAIL_TYPES } from "../../server/billing/customer-emails/types.js";

const ctxIn = (locale: string): MailContext => ({
  sender: { name: "Acme", logo: null },
  portalUrl: "https://till.test/portal?organization=acme",
  baseUrl: "https://till.test",
  i18n: mailSpeaker(locale),
});

const SELLER_NOTICES = new Set<string>(["dispute_opened", "dispute_closed", "refund_failed", "processor_error"]);
const URL_RE = /https?:\/\/[^\s<>"]+/g;

/** The HTML's words as shown: no head, no tags, no link's href (attributes go with the tags). */
const shownText = (html: string) => html.replace(/<head>[\s\S]*<\/head>/, "").replace(/<[^>]+>/g, " ");

describe("the text part", () => {
  it("a receipt: each label and its amount on one line, the amounts lined up", async () => {
    const { text } = await renderCustomerEmail("order_confirmation", previewData("order_confirmation", "acme"), ctxIn("en"));
    const lines = text.split("\n");
    const receipt = ["Pro plan", "Subtotal", "Discount", "Tax", "Total"].map((label) => lines.find((l) => l.startsWith(`${label} `)) ?? `missing: ${label}`);
    expect(receipt).toEqual(["Pro plan  $20.00", "Subtotal  $20.00", "Discount  -$2.00", "Tax        $3.60", "Total     $21.60"]);
    // no amount stands on a line of its own
    expect(lines.filter((l) => /^-?\$[\d.,]+$/.test(l.trim()))).toEqual([]);
  });

  for (const locale of LOCALES) {
    it(`${locale}: every email prints each address once, in angle brackets or alone; the HTML shows none bare`, async () => {
      for (const type of CUSTOMER_EMAIL_TYPES) {
        const { text, html } = await renderCustomerEmail(type, previewData(type, "acme"), ctxIn(locale));
        const urls = [...text.matchAll(URL_RE)].map((m) => m[0]);
        expect(urls, `${type}\n${text}`).toEqual([...new Set(urls)]);
        for (const u of urls) expect(text, type).toMatch(new RegExp(
          `(<${u.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}>|^${u.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$| ${u.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} )`,
          "m",
        ));
        // a customer email carries the portal (or its own link) in its text part; the seller's notices link nowhere
        if (!SELLER_NOTICES.has(type)) expect(urls.length, `${type}\n${text}`).toBeGreaterThan(0);
        // an address shown in the HTML is a link's own words (a seat's or an email update's link), never beside a link
        const bare = [...shownText(html).matchAll(URL_RE)].map((m) => m[0].replace(/&amp;/g, "&"));
        for (const u of bare) expect(html, `${type}: ${u}`).toContain(`>${u.replace(/&/g, "&amp;")}<`);
      }
    });
  }
});
