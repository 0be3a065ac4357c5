// How numbers read in messages: money from minor units ("$24.99", not 2499) and counts with their noun in
// the right number ("validated 1 time"). No imports: errors, resources and catalog modules all use it.

/** "1 time", "2 times", "1 change": a count with its noun in the right number (`plural(n, "entry", "entries")`). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const fractionDigits = new Map<string, number>();

/** The currency's exponent as Intl knows it (2 for usd, 0 for jpy); 2 for a code Intl does not know. */
export function exponent(currency: string): number {
  const code = currency.toUpperCase();
  let digits = fractionDigits.get(code);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    fractionDigits.set(code, digits);
  }
  return digits;
}


/**
 * An amount in minor units as money: 1999 usd → "$19.99", 500 jpy → "¥500". `minor` may be a decimal
 * string (a metered unit price: "0.5" usd → "$0.005").
 */
export function money(minor: number | string, currency: string): string {
  const digits = exponent(currency);
  const text = String(minor);
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return `${text} ${currency}`;
  // shift the decimal point as text: floats would turn 0.1 cents into 0.0010000000000000002 dollars
  const int = (m[2] ?? "0").padStart(digits + 1, "0");
  const frac = m[3] ?? "";
  const major = `${m[1]}${int.slice(0, int.length - digits)}.${int.slice(int.length - digits)}${frac}`;
  const shown = Math.max(digits, major.split(".")[1]?.replace(/0+$/, "").length ?? 0);
  try {
    return new Intl.NumberFormat("en", {
      style: "currency",
      currency: currency.toUpperCase(),
      minimumFractionDigits: digits,
      maximumFractionDigits: Math.min(shown, 20),
    }).format(Number(major));
  } catch {
    return `${text} ${currency}`;
  }
}

