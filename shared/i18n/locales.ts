// The buyer's languages: which locales till speaks to customers in, and how one is chosen from what is known
// (checkout's `locale`, the customer's stored locale, the browser's Accept-Language, the organization's default).
// The server (emails, invoices) and the pages share it; messages live in each surface's catalog.

/** Locales with a full catalog on every customer-facing surface; the first is the fallback. */
export const LOCALES = ["en", "de", "fr", "es", "it", "nl", "pt-BR", "pl", "sv", "ja"] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * A test-only pseudo-locale: every message bracketed and lengthened, so an untranslated string or a layout that
 * clips longer text shows. Accepted wherever a locale is, formatted by `Intl` as English.
 */
export const PSEUDO_LOCALE = "en-XA";
export type AnyLocale = Locale | typeof PSEUDO_LOCALE;

export const DEFAULT_LOCALE: Locale = "en";

const ALL: readonly AnyLocale[] = [...LOCALES, PSEUDO_LOCALE];
const byLowerCase = new Map<string, AnyLocale>(ALL.map((l): [string, AnyLocale] => [l.toLowerCase(), l]));

/**
 * The supported locale a BCP 47 tag asks for, or null: an exact match first (`pt-BR`), then the language alone
 * (`de-AT` → `de`, `pt-PT` → `pt-BR` as the only Portuguese), case-insensitive.
 */
export function matchLocale(tag: string | null | undefined): AnyLocale | null {
  if (!tag) return null;
  const lower = tag.trim().replace(/_/g, "-").toLowerCase();
  if (lower === "" || lower.length > 35) return null;
  const exact = byLowerCase.get(lower);
  if (exact) return exact;
  const language = lower.split("-")[0];
  return LOCALES.find((l) => l.split("-")[0]?.toLowerCase() === language) ?? null;
}

/** The locales an Accept-Language header lists, best first (q-values honoured, `*` and malformed parts skipped). */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  const ranges: Array<{ tag: string; q: number; i: number }> = [];
  header
    .slice(0, 1024)
    .split(",")
    .slice(0, 32)
    .forEach((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      if (!tag || tag === "*" || !/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return;
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      if (!Number.isFinite(q) || q <= 0 || q > 1) return;
      ranges.push({ tag, q, i });
    });
  return ranges.sort((a, b) => b.q - a.q || a.i - b.i).map((r) => r.tag);
}

/**
 * The locale to speak, first known wins: the checkout's `locale`, the customer's stored locale, the browser's
 * Accept-Language (pages only), the organization's default, English.
 */
export function resolveLocale(candidates: {
  checkout?: string | null;
  customer?: string | null;
  acceptLanguage?: string | null;
  organization?: string | null;
}): AnyLocale {
  for (const tag of [candidates.checkout, candidates.customer]) {
    const match = matchLocale(tag);
    if (match) return match;
  }
  for (const tag of parseAcceptLanguage(candidates.acceptLanguage)) {
    const match = matchLocale(tag);
    if (match) return match;
  }
  return matchLocale(candidates.organization) ?? DEFAULT_LOCALE;
}

/** The locale `Intl` formats with: the pseudo-locale formats as English. */
export function intlLocale(locale: AnyLocale): string {
  return locale === PSEUDO_LOCALE ? "en" : locale;
}
