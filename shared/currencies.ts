// Which currencies till accepts: the codes of ISO 4217 (list one, from the maintained `currency-codes`
// package), lower-case, minus the entries that are not money a customer can pay in (precious metals, bond
// market units, the testing and no-currency codes, supranational units of account). One rule for the server
// (products, prices, discounts, checkouts, events' costs, the organization's default) and the CLI (catalog).
import { data as isoData } from "currency-codes";

/** Units of account that ISO 4217 lists but nobody is charged in. */
const NOT_MONEY = new Set(["XDR", "XSU", "XUA"]);
/**
 * Codes ISO 4217 added after the package's data (2024-06-25): the Caribbean guilder (amendment 176, in use
 * from 2025-03-31, and one of Polar's presentment currencies).
 */
const ADDED_SINCE = ["xcg"];

/** Every accepted code, lower-case, sorted. */
export const CURRENCY_CODES: readonly string[] = [
  ...isoData
    // metals, bond units, XTS and XXX carry "Zz…" pseudo-countries in the list
    .filter((e) => !NOT_MONEY.has(e.code) && !e.countries.every((c) => c.startsWith("Zz")))
    .map((e) => e.code.toLowerCase()),
  ...ADDED_SINCE,
]
  .filter((c, i, all) => all.indexOf(c) === i)
  .sort();

const accepted = new Set(CURRENCY_CODES);

/** Is `code` an accepted currency as the wire writes it (lower-case ISO 4217: "usd", "eur")? */
export const isCurrencyCode = (code: string): boolean => accepted.has(code);

/** The message every 422 about a currency carries. */
export const CURRENCY_MESSAGE = "Input should be a lower-case ISO 4217 currency code (usd, eur, …)";
