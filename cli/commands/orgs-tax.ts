// `till orgs tax show|set|add|remove`: where the organization collects tax and whether its prices include
// it — the `tax_settings` till adds to GET/PATCH /v1/organizations/{id} (the SDK drops the field, so this
// is plain /v1 JSON). The server checks the places (ISO countries, US states, Canadian provinces); its 422
// is shown as it is.
import type { Command } from "commander";
import { organizationLabel, v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";

/** orgs.ts's `resolveOrganizationId`, handed in (this file is registered by orgs.ts: no import back). */
type ResolveOrganization = (ctx: Context, org: string | undefined) => Promise<string>;
let resolveOrganizationId: ResolveOrganization;

interface Registration {
  country: string;
  state?: string;
}

interface TaxSettings {
  registrations: Registration[];
  prices_include_tax: boolean;
}

interface OrgWithTax {
  id: string;
  name: string;
  slug: string;
  tax_settings?: TaxSettings;
}

/** `DE`, `US-CA`: a country, or a country and its state or province. */
export function parsePlace(place: string): Registration {
  const [country = "", state, ...rest] = place.trim().toUpperCase().split(/[-:/]/);
  if (!country || rest.length > 0 || state === "") {
    throw new UsageError(`<place>: "${place}" is not a place`, "write a country (DE) or a country and state (US-CA, CA-BC)");
  }
  return state ? { country, state } : { country };
}

const placeName = (r: Registration) => (r.state ? `${r.country}-${r.state}` : r.country);
const samePlace = (a: Registration, b: Registration) => a.country === b.country && (a.state ?? "") === (b.state ?? "");

interface Loaded {
  id: string;
  /** "Acme (acme), live": whose settings, in which mode (the sandbox has settings of its own). */
  label: string;
  settings: TaxSettings;
}

async function load(ctx: Context, org: string | undefined): Promise<Loaded> {
  const id = await resolveOrganizationId(ctx, org);
  const found = await ctx.out.loading("Loading tax settings", v1(ctx).get<OrgWithTax>(`/organizations/${id}`));
  return { id, label: organizationLabel(found, ctx.sandbox), settings: found.tax_settings ?? { registrations: [], prices_include_tax: false } };
}

async function save(ctx: Context, id: string, settings: TaxSettings): Promise<TaxSettings> {
  const updated = await ctx.out.loading("Saving tax settings", v1(ctx).send<OrgWithTax>("PATCH", `/organizations/${id}`, { tax_settings: settings }));
  return updated.tax_settings ?? settings;
}

/** What a change left, and whose settings it changed. */
function describe(label: string, settings: TaxSettings): string {
  const places = settings.registrations.map(placeName).join(", ") || "none (no tax is collected)";
  return `Saved the tax settings of ${label}.\nRegistered in: ${places}\nPrices: ${settings.prices_include_tax ? "include tax" : "exclude tax (tax is added)"}`;
}

async function show(ctx: Context, opts: { org?: string }): Promise<void> {
  const { label, settings } = await load(ctx, opts.org);
  await ctx.out.record(settings, [
    { label: "Organization", value: label },
    { label: "Registered in", value: settings.registrations.map(placeName).join(", ") || "none (no tax is collected)" },
    { label: "Prices", value: settings.prices_include_tax ? "include tax" : "exclude tax (tax is added)" },
  ]);
}

async function set(ctx: Context, opts: { org?: string; pricesIncludeTax?: boolean; clear?: boolean }, places: string[]): Promise<void> {
  if (places.length === 0 && opts.pricesIncludeTax === undefined && !opts.clear) {
    throw new UsageError("nothing to set", "name the places (till orgs tax set DE US-CA), --clear, or --prices-include-tax / --no-prices-include-tax");
  }
  if (places.length > 0 && opts.clear) throw new UsageError("--clear: cannot be used with places", "set the places, or clear them");
  const { id, label, settings } = await load(ctx, opts.org);
  const next: TaxSettings = {
    registrations: opts.clear ? [] : places.length > 0 ? places.map(parsePlace) : settings.registrations,
    prices_include_tax: opts.pricesIncludeTax ?? settings.prices_include_tax,
  };
  const saved = await save(ctx, id, next);
  ctx.out.done(saved, describe(label, saved));
}

async function add(ctx: Context, opts: { org?: string }, places: string[]): Promise<void> {
  const wanted = places.map(parsePlace);
  const { id, label, settings } = await load(ctx, opts.org);
  const fresh = wanted.filter((w, i) => !settings.registrations.some((r) => samePlace(r, w)) && wanted.findIndex((x) => samePlace(x, w)) === i);
  const saved = await save(ctx, id, { ...settings, registrations: [...settings.registrations, ...fresh] });
  ctx.out.done(saved, describe(label, saved));
}

async function remove(ctx: Context, opts: { org?: string }, places: string[]): Promise<void> {
  const unwanted = places.map(parsePlace);
  const { id, label, settings } = await load(ctx, opts.org);
  const unknown = unwanted.filter((u) => !settings.registrations.some((r) => samePlace(r, u)));
  if (unknown.length > 0) {
    const known = settings.registrations.map(placeName).join(", ") || "none";
    throw new UsageError(`<place>: not registered in ${unknown.map(placeName).join(", ")}`, `registered in: ${known}`);
  }
  const saved = await save(ctx, id, { ...settings, registrations: settings.registrations.filter((r) => !unwanted.some((u) => samePlace(r, u))) });
  ctx.out.done(saved, describe(label, saved));
}

export function registerTax(orgs: Command, resolve: ResolveOrganization): void {
  resolveOrganizationId = resolve;
  const tax = orgs
    .command("tax")
    .description("where the organization collects tax, and whether its prices include it")
    .addHelpText(
      "after",
      examples(["till orgs tax show", "till orgs tax set DE US-CA --no-prices-include-tax", "till orgs tax add CA-BC", "till orgs tax remove US-CA"]) +
        "\nA place is a country (ISO code: DE, GB, AU) or a US state / Canadian province (US-CA, CA-BC). One EU\n" +
        "registration collects VAT for buyers in every member state (OSS); an EU business with another member\n" +
        "state's VAT id is reverse charged. Elsewhere tax is collected only in the places listed.\n",
    );

  const org = ["--org <id|slug>", "the organization (default: the active one)"] as const;

  tax
    .command("show")
    .description("show the tax registrations and whether prices include tax")
    .option(...org)
    .addHelpText("after", examples(["till orgs tax show", "till orgs tax show --json"]))
    .action(withContext(show));

  tax
    .command("set")
    .description("replace the registrations with these places, and/or say whether prices include tax")
    .argument("[places...]", "countries or country-states (DE, US-CA)")
    .option("--prices-include-tax", "prices include tax: tax is taken out of them")
    .option("--no-prices-include-tax", "prices exclude tax: tax is added to them")
    .option("--clear", "no registrations: no tax is collected")
    .option(...org)
    .addHelpText("after", examples(["till orgs tax set DE US-CA", "till orgs tax set --prices-include-tax", "till orgs tax set --clear --json"]))
    .action(withContext(set));

  tax
    .command("add")
    .description("add registrations")
    .argument("<places...>", "countries or country-states (GB, CA-BC)")
    .option(...org)
    .addHelpText("after", examples(["till orgs tax add GB NO", "till orgs tax add US-NY --json"]))
    .action(withContext(add));

  tax
    .command("remove")
    .alias("rm")
    .description("remove registrations")
    .argument("<places...>", "places to remove (as `show` lists them)")
    .option(...org)
    .addHelpText("after", examples(["till orgs tax remove US-CA"]))
    .action(withContext(remove));
}
