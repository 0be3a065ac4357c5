// Money as people read it: one formatter for the checkout page, the portal and the customer emails, so an
// amount reads the same wherever the customer sees it.

/** The digits after the decimal point of a currency's minor unit (2 for usd, 0 for jpy, 3 for kwd). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** 2500, "usd" → "$25.00"; 500, "jpy" → "¥500". `locale` undefined means the reader's (the browser's). */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  const digits = minorDigits(currency);
  const major = minor / 10 ** digits;
  try {
    return new Intl.NumberFormat(locale, { style: "currency", currency: currency.toUpperCase() }).format(major);
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()}`;
  }
}
