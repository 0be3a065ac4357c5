// The places tax registrations and rates are named by: the EU member states, the US states (and DC), the
// Canadian provinces and territories, and which buyer tax id formats count as a VAT/GST registration of the
// buyer's country (for the B2B reverse charge).
import type { TaxIdFormat } from "../../../shared/tax-ids.js";

/** EU member states by ISO 3166-1 code (Greece is GR here; its VAT ids start with EL). */
export const EU_MEMBER_STATES = [
  "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT", "LT", "LU", "LV",
  "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
] as const;

export const isEuMemberState = (country: string): boolean => (EU_MEMBER_STATES as readonly string[]).includes(country);

/** The 50 states and the District of Columbia (USPS codes). */
export const US_STATES = [
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
  "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
  "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
] as const;

/** Provinces and territories (Canada Post codes). */
export const CA_PROVINCES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"] as const;

/** The subdivisions a registration may name, by country (only the US and Canada tax by subdivision here). */
export const SUBDIVISIONS: Record<string, readonly string[]> = { US: US_STATES, CA: CA_PROVINCES };

/**
 * An address's state as a bare code: `CA`, `US-CA` and `ca` all mean California for a US address (Polar
 * sends ISO 3166-2 `US-CA`; people type `CA`).
 */
export function subdivisionCode(country: string, state: string | null | undefined): string | null {
  if (!state) return null;
  const upper = state.trim().toUpperCase();
  const bare = upper.startsWith(`${country}-`) ? upper.slice(country.length + 1) : upper;
  return bare || null;
}

/**
 * The buyer tax id formats that show a VAT/GST registration of the buyer's country, where a business buying
 * from a seller not established there accounts for the tax itself (reverse charge).
 */
export const REVERSE_CHARGE_ID_FORMATS: Record<string, readonly TaxIdFormat[]> = {
  ...Object.fromEntries(EU_MEMBER_STATES.map((c) => [c, ["eu_vat"] as const])),
  GB: ["gb_vat"],
  NO: ["no_vat"],
  CH: ["ch_vat"],
  AU: ["au_abn"],
  NZ: ["nz_gst"],
};

/** The member state an EU VAT id belongs to, from its prefix (EL is Greece; XI, Northern Ireland, is GB). */
export function euVatCountry(compactId: string): string | null {
  const prefix = compactId.slice(0, 2);
  if (prefix === "EL") return "GR";
  if (prefix === "XI") return "GB";
  return isEuMemberState(prefix) ? prefix : null;
}
