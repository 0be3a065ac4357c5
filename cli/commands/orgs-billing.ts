// `till orgs billing show|set`: the seller's legal details printed as "From" on every invoice — the
// `invoice_details` till adds to GET/PATCH /v1/organizations/{id} (plain /v1 JSON, like tax_settings). Without
// an address and a tax id an invoice names only the organization, which an EU invoice may not: the CLI warns
// while they are missing (here and after `till orgs create`). The sandbox, a twin organization, keeps its own.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { parseCountry } from "../flags.js";
import { changes } from "../resources.js";
import type { WireAddress } from "./orders.js";

/** orgs.ts's `resolveOrganizationId`, handed in (this file is registered by orgs.ts: no import back). */
type ResolveOrganization = (ctx: Context, org: string | undefined) => Promise<string>;
let resolveOrganizationId: ResolveOrganization;

/** An address as the API writes it (the order's billing address has the same shape). */
type Address = WireAddress;

export interface InvoiceDetails {
  name: string | null;
  address: Address | null;
  tax_id: string | null;
  email: string | null;
}

interface OrgWithDetails {
  id: string;
  name: string;
  invoice_details?: InvoiceDetails;
}

const EMPTY: InvoiceDetails = { name: null, address: null, tax_id: null, email: null };

/** What an invoice lacks while the details are missing, or null when it has the address and tax id. */
export function missingDetails(d: InvoiceDetails | null | undefined): string | null {
  const missing = [!d?.address ? "address" : null, !d?.tax_id ? "tax id" : null].filter(Boolean);
  if (missing.length === 0) return null;
  return (
    `invoices carry no seller ${missing.join(" or ")}: set your legal details with ` +
    "`till orgs billing set --name <legal name> --line1 <street> --postal-code <code> --city <city> --country <CC> --tax-id <id>`"
  );
}

const describeAddress = (a: Address | null) =>
  a ? [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(" "), a.state, a.country].filter(Boolean).join(", ") : "none";

async function load(ctx: Context, org: string | undefined): Promise<{ id: string; name: string; details: InvoiceDetails }> {
  const id = await resolveOrganizationId(ctx, org);
  const found = await ctx.out.loading("Loading billing details", v1(ctx).get<OrgWithDetails>(`/organizations/${id}`));
  return { id, name: found.name, details: found.invoice_details ?? EMPTY };
}

function fields(orgName: string, d: InvoiceDetails) {
  return [
    { label: "Legal name", value: d.name ?? `${orgName} (the organization's name)` },
    { label: "Address", value: describeAddress(d.address) },
    { label: "Tax ID", value: d.tax_id ?? "none" },
    { label: "Email", value: d.email ?? "none" },
  ];
}

async function show(ctx: Context, opts: { org?: string }): Promise<void> {
  const { name, details } = await load(ctx, opts.org);
  await ctx.out.record(details, fields(name, details));
  const missing = missingDetails(details);
  if (missing) ctx.out.warn(missing);
}

interface SetFlags {
  org?: string;
  name?: string;
  line1?: string;
  line2?: string;
  postalCode?: string;
  city?: string;
  state?: string;
  country?: string;
  taxId?: string;
  email?: string;
}

async function set(ctx: Context, opts: SetFlags): Promise<void> {
  const parts = { line1: opts.line1, line2: opts.line2, postal_code: opts.postalCode, city: opts.city, state: opts.state, country: opts.country };
  changes({ name: opts.name, tax_id: opts.taxId, email: opts.email, ...parts }, "--name, --tax-id, --email or an address flag (--line1, --line2, --postal-code, --city, --state, --country)");
  const { id, name, details } = await load(ctx, opts.org);
  const addressGiven = Object.values(parts).some((v) => v !== undefined);
  const current = details.address;
  const address = addressGiven
    ? {
        line1: opts.line1 ?? current?.line1 ?? null,
        line2: opts.line2 ?? current?.line2 ?? null,
        postal_code: opts.postalCode ?? current?.postal_code ?? null,
        city: opts.city ?? current?.city ?? null,
        state: opts.state ?? current?.state ?? null,
        country: opts.country ?? current?.country ?? "",
      }
    : current;
  const next = { name: opts.name ?? details.name, address, tax_id: opts.taxId ?? details.tax_id, email: opts.email ?? details.email };
  const saved = await ctx.out.loading("Saving billing details", v1(ctx).send<OrgWithDetails>("PATCH", `/organizations/${id}`, { invoice_details: next }));
  const result = saved.invoice_details ?? next;
  await ctx.out.record(result, fields(name, result));
  const missing = missingDetails(result);
  if (missing) ctx.out.warn(missing);
}

export function registerBilling(orgs: Command, resolve: ResolveOrganization): void {
  resolveOrganizationId = resolve;
  const billing = orgs
    .command("billing")
    .description("your legal details on invoices: name, address, tax id, email")
    .addHelpText(
      "after",
      examples([
        "till orgs billing show",
        'till orgs billing set --name "Acme Software GmbH" --line1 "Hauptstraße 1" --postal-code 10115 --city Berlin --country DE --tax-id DE123456789',
      ]) + "\nThe sandbox (a twin organization) keeps its own details: set them there too, in sandbox mode\n(`till orgs billing set … --sandbox`, or after `till sandbox on`).\n",
    );
  const org = ["--org <id|slug>", "the organization (default: the active one)"] as const;

  billing
    .command("show")
    .description("show the legal details invoices print (warns while the address or tax id is missing)")
    .option(...org)
    .addHelpText("after", examples(["till orgs billing show", "till orgs billing show --json"]))
    .action(withContext(show));

  billing
    .command("set")
    .description("set the legal details invoices print (flags not given keep their values)")
    .option("--name <legal name>", "the legal name (default: the organization's name)")
    .option("--line1 <street>", "address line 1")
    .option("--line2 <text>", "address line 2")
    .option("--postal-code <code>", "postal code")
    .option("--city <city>", "city")
    .option("--state <state>", "state or region")
    .option("--country <CC>", "country, ISO code (DE, FR, US): an address needs one", parseCountry)
    .option("--tax-id <id>", "your VAT or other tax id, printed as is")
    .option("--email <email>", "where customers write about an invoice")
    .option(...org)
    .addHelpText(
      "after",
      examples([
        'till orgs billing set --name "Acme Software GmbH" --line1 "Hauptstraße 1" --postal-code 10115 --city Berlin --country DE',
        "till orgs billing set --tax-id DE123456789 --json",
      ]),
    )
    .action(withContext(set));
}
