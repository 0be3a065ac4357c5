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

/**
 * A unit price in minor units that may be fractional, as a metered price's `unit_amount` is ("1.5" cents):
 * "1.5", "usd" → "$0.015". Printed with every digit it has, never rounded to the minor unit.
 */
export function formatUnitAmount(minor: string, currency: string, locale?: string): string {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(minor.trim());
  if (!m) return `${minor} ${currency.toUpperCase()}`;
  const [, sign = "", int = "0", frac = ""] = m;
  const digits = minorDigits(currency);
  // the decimal point moved left by the minor unit's digits, in the string (exact)
  const padded = int.padStart(digits + 1, "0");
  const major = `${sign}${padded.slice(0, padded.length - digits)}.${padded.slice(padded.length - digits)}${frac}`;
  const shown = Math.min(20, Math.max(digits, digits + frac.replace(/0+$/, "").length));
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency",
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: shown,
    }).format(Number(major));
  } catch {
    return `${major} ${currency.toUpperCase()}`;
  }
}
