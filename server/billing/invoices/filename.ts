// A document's file name in its reader's language ("Rechnung-INV-0001.pdf", "請求書-INV-0001.pdf"), as the
// Content-Disposition of its download says it (RFC 6266): `filename` in ASCII for every client (the word without
// its accents, or the English word when it has other letters: Japanese), `filename*` in UTF-8 for those that read it.
import { contentDisposition } from "../../http/content-disposition.js";
import { invoiceSpeaker } from "./i18n/index.js";

export type DocumentKind = "invoice" | "credit_note";

/** Characters no file system takes in a name, and spaces (a name in one word reads better in a file list). */
const safe = (s: string) => s.replace(/[\s/\\:*?"<>|\p{Cc}]+/gu, "-");
/** The ASCII spelling of a word, or null when it has letters accents do not explain ("Gutschrift" yes, "請求書" no). */
const ascii = (s: string): string | null => {
  const bare = s.normalize("NFKD").replace(/\p{M}/gu, "");
  return /^[\x20-\x7e]*$/.test(bare) ? bare : null;
};

/** The file names of document `number` of `kind` in `locale`: UTF-8 as the reader writes it, and its ASCII stand-in. */
export function documentFileName(kind: DocumentKind, number: string, locale: string | null | undefined): { utf8: string; ascii: string } {
  const id = kind === "credit_note" ? "title.creditNote" : "title.invoice";
  const tail = `-${number.replace(/[^\w.-]/g, "_")}.pdf`;
  const word = invoiceSpeaker(locale).t(id);
  const plain = ascii(word) ?? invoiceSpeaker("en").t(id);
  return { utf8: safe(word) + tail, ascii: safe(plain).replace(/[^\w.-]/g, "_") + tail };
}

/** `inline; filename="Rechnung-INV-0001.pdf"; filename*=UTF-8''Rechnung-INV-0001.pdf`. */
export function documentDisposition(kind: DocumentKind, number: string, locale: string | null | undefined): string {
  const name = documentFileName(kind, number, locale);
  return contentDisposition("inline", name.utf8, name.ascii);
}
