// The buyer's language on the customer pages: one react-intl `IntlShape` per page load, made for the
// locale the page resolved (shared/i18n/locales.ts) with its surface's catalog (web/src/i18n/<surface>/<locale>.json,
// English bundled, the others loaded on demand). Components read it through react-intl (`RawIntlProvider`,
// `useIntl`); the pages' pure modules (checkout/model.ts) through `t()`, the same object. Money, dates, numbers and
// country names are `Intl`'s, in the resolved locale — never formatted by hand. Seller pages stay English.
import { createElement, Fragment, type ReactNode } from "react";
import { createIntl, createIntlCache, type IntlShape } from "react-intl";
import { DEFAULT_LOCALE, intlLocale, PSEUDO_LOCALE, resolveLocale, type AnyLocale } from "../../../shared/i18n/locales.js";
import { formatMoney, formatUnitAmount } from "../../../shared/money.js";

export type Messages = Record<string, string>;
/** Every message id a customer page uses (the English catalogs are the source of truth). */
export type MessageId = keyof typeof import("./checkout/en.json") | keyof typeof import("./portal/en.json");
export type Values = Record<string, string | number | boolean | null | undefined | Date>;
/** A surface's catalogs by locale: English at hand, the others (and the pseudo-locale) loaded when asked. */
export type Catalogs = { en: Messages } & Record<Exclude<AnyLocale, "en">, () => Promise<Messages>>;

const cache = createIntlCache();
/** The shared fields' words (web/src/ui.tsx), English on the seller's pages, which import no surface. */
let current: IntlShape = make(DEFAULT_LOCALE, { "ui.optional": "(optional)", "ui.choose": "Choose…" });
let currentLocale: AnyLocale = DEFAULT_LOCALE;

function make(locale: AnyLocale, messages: Messages): IntlShape {
  // the pseudo-locale formats as English; its messages are what show it
  return createIntl({ locale: intlLocale(locale), defaultLocale: "en", messages, onError: () => undefined }, cache);
}

/** A surface's English catalog, the page's messages until (and unless) another locale is applied. */
export function englishDefault(messages: Messages): void {
  if (currentLocale === DEFAULT_LOCALE) current = make(DEFAULT_LOCALE, { ...current.messages, ...messages } as Messages);
}

/** The page's react-intl object (for `RawIntlProvider`). */
export const intl = (): IntlShape => current;
export const locale = (): AnyLocale => currentLocale;
export const formatLocale = (): string => intlLocale(currentLocale);

/** Loads a surface's catalog for `wanted` (English when it has none) and makes it the page's; sets `<html lang>`. */
export async function applyLocale(catalogs: Catalogs, wanted: AnyLocale): Promise<IntlShape> {
  let messages: Messages = catalogs.en;
  let chosen: AnyLocale = wanted;
  if (wanted !== "en") {
    try {
      messages = { ...catalogs.en, ...(await catalogs[wanted]()) };
    } catch {
      // the chunk did not load (offline, a deploy meanwhile): English rather than nothing
      chosen = DEFAULT_LOCALE;
    }
  }
  current = make(chosen, messages);
  currentLocale = chosen;
  document.documentElement.lang = chosen === PSEUDO_LOCALE ? "en" : chosen;
  return current;
}

/** The browser's languages as an Accept-Language value (best first). */
export const browserLanguages = (): string => (typeof navigator === "undefined" ? "" : (navigator.languages ?? [navigator.language]).join(","));

/** The page's locale from what is known (the checkout's, the customer's, the browser's, the organization's). */
export const pageLocale = (known: { checkout?: string | null; customer?: string | null; organization?: string | null }): AnyLocale =>
  resolveLocale({ ...known, acceptLanguage: browserLanguages() });

/** One message of the page's catalog. */
export const t = (id: MessageId, values?: Values): string => current.formatMessage({ id }, values as Record<string, string | number>) as string;

/** A message with markup: its tags (`<b>…</b>`, `<a>…</a>`) rendered by the functions of the same name in `values`. */
export function rich(id: MessageId, values: Record<string, ReactNode | ((chunks: ReactNode[]) => ReactNode)>): ReactNode {
  const parts = current.formatMessage({ id }, values) as ReactNode;
  // the parts as a fragment's children (not an array), so React asks no keys of them
  return Array.isArray(parts) ? createElement(Fragment, null, ...(parts as ReactNode[])) : parts;
}

/** 2500, "usd" → "$25.00" / "25,00 $" in the page's locale. */
export const money = (minor: number, currency: string): string => formatMoney(minor, currency, formatLocale());
/** A fractional unit price in minor units ("0.5" cents) in the page's locale. */
export const unitMoney = (minor: string, currency: string): string => formatUnitAmount(minor, currency, formatLocale());
/** "12 March 2027" as the locale writes a date. */
export const longDate = (iso: string | Date): string => current.formatDate(iso, { year: "numeric", month: "long", day: "numeric" });
/** A date with its time, as the locale writes them. */
export const dateTime = (iso: string | Date): string => current.formatDate(iso, { dateStyle: "medium", timeStyle: "short" });
export const shortDate = (iso: string | Date): string => current.formatDate(iso, { dateStyle: "medium" });
/** "3:45 PM" / "15:45" as the locale writes a time. */
export const timeText = (iso: string | Date): string => current.formatTime(iso, { timeStyle: "short" });
/** A number as the locale writes it (at most two decimals). */
export const numberText = (n: number): string => current.formatNumber(n, { maximumFractionDigits: 2 });
/** "A, B and C" in the locale's words. */
export const list = (items: string[]): string => current.formatList(items, { type: "conjunction" }) as string;
/** A country's name in the page's locale ("DE" → "Allemagne"). */
export function countryName(code: string): string {
  try {
    return new Intl.DisplayNames([formatLocale()], { type: "region", fallback: "code" }).of(code) ?? code;
  } catch {
    return code;
  }
}
