// Tax rates from the `sales-tax` package's offline dataset (res/sales_tax_rates.json: a standard rate per
// country, per US state and Canadian province, with dated changes under `before`), read once from disk. Only
// the data file is loaded, never the package's code: its VAT number check calls the EU's VIES over the
// network, and nothing here may (docs/decisions.md, "Tax rates and rounding").
import { createRequire } from "node:module";
import { z } from "zod";

const Entry = z.object({ type: z.string(), rate: z.number() });
const Dated = Entry.extend({ before: z.record(z.string(), Entry).optional() });
const Country = Dated.extend({ states: z.record(z.string(), Dated).optional() });
const Dataset = z.record(z.string(), Country);
type Dated = z.infer<typeof Dated>;

let dataset: z.infer<typeof Dataset> | null = null;

function data(): z.infer<typeof Dataset> {
  dataset ??= Dataset.parse(createRequire(import.meta.url)("sales-tax/res/sales_tax_rates.json"));
  return dataset;
}

/**
 * Corrections to the dataset, keyed `COUNTRY` or `COUNTRY-STATE`, each with the published source. Keep this
 * short: a wrong rate belongs upstream first.
 */
const CORRECTIONS: Record<string, number> = {
  // CDTFA: the statewide base sales tax rate is 7.25% (the dataset carries an old 8.25%)
  "US-CA": 0.0725,
};

/** The entry in force at `at`: the earliest `before` date still ahead of it, else the current one. */
function inForce(entry: Dated, at: Date): { type: string; rate: number } {
  let chosen: { date: number; entry: { type: string; rate: number } } | null = null;
  for (const [when, older] of Object.entries(entry.before ?? {})) {
    const date = Date.parse(when);
    if (Number.isNaN(date) || at.getTime() >= date) continue;
    if (!chosen || date < chosen.date) chosen = { date, entry: older };
  }
  return chosen?.entry ?? entry;
}

/** One tax a place levies: a national VAT/GST, a provincial PST/QST, an HST, a US state's sales tax. */
export interface RateComponent {
  /** `DE`, `CA`, `CA-BC`, `US-TX`: where the tax is owed. */
  jurisdiction: string;
  /** vat | gst | hst | pst | qst | sales_tax */
  type: string;
  /** A fraction: 0.19 is 19%. */
  rate: number;
  /** Whether a registration naming the subdivision (not only the country) is needed to collect it. */
  bySubdivision: boolean;
}

/** The taxes of a place at a date (none for a place the dataset does not know or that levies none). */
export function ratesAt(country: string, subdivision: string | null, at: Date): RateComponent[] {
  const entry = data()[country];
  if (!entry) return [];
  const national = inForce(entry, at);
  const sub = subdivision ? entry.states?.[subdivision] : undefined;
  const regional = sub ? inForce(sub, at) : null;
  const jurisdiction = subdivision ? `${country}-${subdivision}` : country;
  const corrected = CORRECTIONS[jurisdiction];
  if (country === "US") {
    const rate = corrected ?? regional?.rate ?? 0;
    return rate > 0 && subdivision ? [{ jurisdiction, type: "sales_tax", rate, bySubdivision: true }] : [];
  }
  if (country === "CA") {
    const gst = { jurisdiction: "CA", type: "gst", rate: national.rate, bySubdivision: false };
    if (!regional || !subdivision) return [gst];
    // HST is one tax replacing GST: the dataset gives its provincial part on top of the GST
    if (regional.type === "hst") return [{ jurisdiction, type: "hst", rate: round6(national.rate + regional.rate), bySubdivision: false }];
    return [gst, { jurisdiction, type: regional.type, rate: regional.rate, bySubdivision: true }];
  }
  // elsewhere a subdivision adjusts the national rate (Spain's Canary Islands, Ceuta and Melilla: to none)
  const rate = corrected ?? round6(national.rate + (regional?.rate ?? 0));
  return rate > 0 ? [{ jurisdiction: country, type: national.type, rate, bySubdivision: false }] : [];
}

const round6 = (n: number) => Math.round(n * 1_000_000) / 1_000_000;

/** Whether the dataset gives the subdivision a regime of its own (Spain's Canary Islands, Ceuta, Melilla). */
export function hasRegionalRate(country: string, subdivision: string | null): boolean {
  return subdivision !== null && data()[country]?.states?.[subdivision] !== undefined;
}
