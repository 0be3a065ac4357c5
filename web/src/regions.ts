// The countries a billing address can name, for the checkout's and the portal's country selects: the codes
// the server accepts in an address (shared/countries.ts), named in the page's language (web/src/i18n).
import { ADDRESS_INPUT_COUNTRY_CODES } from "../../shared/countries.js";
import { countryName, formatLocale } from "./i18n/intl.js";

/** The accepted countries by name, sorted (Intl has the names, so the page ships none). */
export function countryOptions(): { code: string; name: string }[] {
  const collator = new Intl.Collator(formatLocale());
  return ADDRESS_INPUT_COUNTRY_CODES.map((code) => ({ code, name: countryName(code) })).sort((x, y) => collator.compare(x.name, y.name));
}

type AddressLike = Partial<Record<"country" | "state" | "city" | "postal_code" | "line1" | "line2", string | null>>;

/** An address's fields as a form edits them (the checkout's and the portal's): "" for what it lacks. */
export function addressFields(a: AddressLike | null | undefined) {
  return {
    country: a?.country ?? "",
    state: a?.state ?? "",
    city: a?.city ?? "",
    postal_code: a?.postal_code ?? "",
    line1: a?.line1 ?? "",
    line2: a?.line2 ?? "",
  };
}
