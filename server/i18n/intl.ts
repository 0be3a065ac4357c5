// The server's messages in the buyer's language: FormatJS's createIntl over one surface's catalogs
// (the emails', the invoices'), one IntlShape per locale made once, and the Intl formatting every surface shares —
// money, dates and country names in that locale, never hand-formatted.
import { createIntl, createIntlCache, type IntlShape } from "@formatjs/intl";
import { DEFAULT_LOCALE, PSEUDO_LOCALE, intlLocale, matchLocale, type AnyLocale, type Locale } from "../../shared/i18n/locales.js";
import { pseudoCatalog } from "../../shared/i18n/pseudo.js";
import { formatMoney, formatUnitAmount } from "../../shared/money.js";

export type Catalog = Record<string, string>;

/**
 * A surface's catalogs: English is the source, every other locale has exactly its keys
 * (tests/unit/server-i18n.test.ts).
 */
export type Catalogs<C extends Catalog> = Record<Locale, C>;

/** The values a message takes. */
export type Values = Record<string, string | number | Date | null | undefined>;

/** One surface's messages and formats in one locale. */
export interface Speaker<K extends string> {
  locale: AnyLocale;
  /** The BCP 47 tag `Intl` formats with (the pseudo-locale's is English). */
  intlLocale: string;
  t(id: K, values?: Values): string;
  /** A message with tags (`<link>…</link>`): each tag's chunks go through its function. */
  rich<T>(id: K, values: Record<string, string | number | ((chunks: Array<string | T>) => T)>): Array<string | T>;
  money(minor: number, currency: string): string;
  /** A metered price's unit amount in minor units, fractional ("1.5" cents), with all its digits. */
  unitAmount(minor: string, currency: string): string;
  /** A date (an ISO string or a Date) in the long style, in UTC; "" for none. */
  date(value: string | Date | null | undefined): string;
  number(n: number, maximumFractionDigits?: number): string;
  /** "FR" → "France" / "Frankreich"; a code Intl does not know is printed as is. */
  country(code: string): string;
}

/**
 * The speakers of one surface, by locale (made at first use, then kept). An unknown or missing message is an
 * error: the catalogs are complete (a unit test checks), so a missing one is a bug to see, not to paper over.
 */
export function speakers<C extends Catalog>(catalogs: Catalogs<C>): (locale: string | null | undefined) => Speaker<keyof C & string> {
  const cache = createIntlCache();
  const made = new Map<AnyLocale, Speaker<keyof C & string>>();
  const onError = (err: Error) => {
    throw err;
  };
  return (tag) => {
    const locale = matchLocale(tag) ?? DEFAULT_LOCALE;
    let s = made.get(locale);
    if (!s) {
      const messages = locale === PSEUDO_LOCALE ? pseudoCatalog(catalogs.en) : catalogs[locale];
      const intl = createIntl({ locale: intlLocale(locale), defaultLocale: "en", messages, onError }, cache);
      s = speaker(locale, intl);
      made.set(locale, s);
    }
    return s;
  };
}

function speaker<K extends string>(locale: AnyLocale, intl: IntlShape): Speaker<K> {
  const tag = intlLocale(locale);
  const regions = new Intl.DisplayNames([tag], { type: "region", fallback: "code" });
  const dates = new Intl.DateTimeFormat(tag, { dateStyle: "long", timeZone: "UTC" });
  return {
    locale,
    intlLocale: tag,
    t: (id, values) => intl.formatMessage({ id }, values as Record<string, string | number | Date>),
    rich: <T,>(id: K, values: Record<string, string | number | ((chunks: Array<string | T>) => T)>) => {
      const format = intl.formatMessage as unknown as (d: { id: string }, v: unknown) => string | T | Array<string | T>;
      const out = format({ id }, values);
      return Array.isArray(out) ? (out as Array<string | T>) : [out as string | T];
    },
    money: (minor, currency) => formatMoney(minor, currency, tag),
    unitAmount: (minor, currency) => formatUnitAmount(minor, currency, tag),
    date: (value) => (value ? dates.format(typeof value === "string" ? new Date(value) : value) : ""),
    number: (n, maximumFractionDigits = 6) => new Intl.NumberFormat(tag, { maximumFractionDigits }).format(n),
    country: (code) => {
      try {
        return regions.of(code.trim().toUpperCase()) ?? code;
      } catch {
        return code;
      }
    },
  };
}
