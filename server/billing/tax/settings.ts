// The seller's tax settings (`tax_settings` on the organization, a till extension of Polar's wire): where
// the organization is registered to collect tax and whether its prices include tax. Checked here, stored as
// given on billing_organization.tax_settings.
import { z } from "zod";
import { COUNTRY_CODES } from "../../../shared/countries.js";
import { SUBDIVISIONS } from "./regions.js";

export interface TaxSettings {
  registrations: Array<{ country: string; state?: string }>;
  prices_include_tax: boolean;
}

export const DEFAULT_TAX_SETTINGS: TaxSettings = { registrations: [], prices_include_tax: false };

const Registration = z
  .object({
    country: z.string().trim().toUpperCase().pipe(z.enum(COUNTRY_CODES, { message: "Input should be an ISO 3166-1 alpha-2 country code" })),
    state: z.string().trim().toUpperCase().max(8).nullish(),
  })
  .superRefine((r, ctx) => {
    const known = SUBDIVISIONS[r.country];
    if (!known) {
      if (r.state) ctx.addIssue({ code: "custom", path: ["state"], message: "A state is only named for the US and Canada." });
      return;
    }
    if (!r.state) {
      if (r.country === "US") ctx.addIssue({ code: "custom", path: ["state"], message: "A US registration names its state." });
      return;
    }
    if (!known.includes(r.state)) {
      const what = r.country === "US" ? "a US state (two-letter code)" : "a Canadian province or territory (two-letter code)";
      ctx.addIssue({ code: "custom", path: ["state"], message: `Input should be ${what}.` });
    }
  });

export const TaxSettingsInput = z
  .object({
    registrations: z.array(Registration).max(200),
    prices_include_tax: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.registrations.forEach((r, i) => {
      const key = `${r.country}-${r.state ?? ""}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["registrations", i], message: "This registration is listed twice." });
      seen.add(key);
    });
  });
export type TaxSettingsInput = z.output<typeof TaxSettingsInput>;

/** The settings as stored: registrations without empty states, the flag defaulted. */
export function normalizeTaxSettings(input: TaxSettingsInput, previous: TaxSettings): TaxSettings {
  return {
    registrations: input.registrations.map((r) => (r.state ? { country: r.country, state: r.state } : { country: r.country })),
    prices_include_tax: input.prices_include_tax ?? previous.prices_include_tax,
  };
}

/** The stored settings (jsonb) read back, defaults filling what is missing. */
export function taxSettingsOf(stored: unknown): TaxSettings {
  const s = (stored ?? {}) as Partial<TaxSettings>;
  return {
    registrations: Array.isArray(s.registrations) ? s.registrations : [],
    prices_include_tax: s.prices_include_tax === true,
  };
}
