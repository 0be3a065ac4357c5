// `till orgs list|create|switch` (and `till orgs tax …`, orgs-tax.ts): your organizations. Listing reads
// /v1/organizations/ and /api/whoami (the server's fast path, which an API key may use too); creating and switching are
// better-auth's organization routes and need a signed-in user. The active organization lives on the server session (it
// scopes /v1 calls made with the session token) and is mirrored in the profile for display.
import type { Command } from "commander";
import { authClient, v1, whoami, type AuthClient } from "../client.js";
import { examples, withContext } from "../command.js";
import { updateProfile, type StoredOrganization } from "../config.js";
import { requireCredential, requireSession, type Context } from "../context.js";
import { askLines, canAsk } from "../confirm.js";
import { EXIT, ExitStatus, UsageError } from "../errors.js";
import { parseCountry } from "../flags.js";
import { registerTax } from "./orgs-tax.js";
import { registerDunning } from "./orgs-dunning.js";
import { registerLocale } from "./orgs-locale.js";
import { registerStatus } from "./orgs-status.js";
import { missingDetails, registerBilling, type InvoiceDetails } from "./orgs-billing.js";
import { isUuid } from "../../shared/uuid.js";

/** An organization as /v1/organizations/ returns it (Polar's wire; the fields the CLI shows). */
export interface WireOrganization {
  id: string;
  name: string;
  slug: string;
  created_at: string;
}

/** An organization as /api/auth/organization/* returns it. */
export interface Organization {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  createdAt: string;
  metadata?: unknown;
}

interface SessionResponse {
  session: { activeOrganizationId: string | null };
  user: { id: string; email: string; name: string };
}

export const stored = (o: Organization): StoredOrganization => ({ id: o.id, name: o.name, slug: o.slug });

export function getSession(auth: AuthClient): Promise<SessionResponse> {
  return auth.get<SessionResponse>("/get-session");
}

export function listOrganizations(auth: AuthClient): Promise<Organization[]> {
  return auth.get<Organization[]>("/organization/list");
}

/** Makes `idOrSlug` the session's active organization and returns it. */
export function setActiveOrganization(auth: AuthClient, idOrSlug: string): Promise<Organization> {
  const body = isUuid(idOrSlug) ? { organizationId: idOrSlug } : { organizationSlug: idOrSlug };
  return auth.post<Organization>("/organization/set-active", body);
}

/** The organization a command acts on: `--org` (id or slug), else the credential's active one. */
export async function resolveOrganizationId(ctx: Context, org: string | undefined): Promise<string> {
  if (org && isUuid(org)) return org;
  if (org) {
    const [found] = await v1(ctx).listAll<WireOrganization>("/organizations/", { slug: org });
    if (!found) throw new UsageError(`--org: no organization of yours has the id or slug "${org}"`, "see `till orgs list`");
    return found.id;
  }
  const active = (await whoami(ctx, requireCredential(ctx))).organization_id ?? ctx.profile.organization?.id;
  if (!active) {
    throw new UsageError("no active organization", "pass --org <id|slug>, or run `till orgs switch <slug>` (`till orgs create <name>` if you have none)");
  }
  return active;
}

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

async function list(ctx: Context): Promise<void> {
  const [orgs, who] = await ctx.out.loading(
    "Loading organizations",
    Promise.all([v1(ctx).listAll<WireOrganization>("/organizations/"), whoami(ctx, requireCredential(ctx))]),
  );
  const rows = orgs.map((o) => ({ ...o, active: o.id === who.organization_id }));
  await ctx.out.table(
    rows,
    [
      { header: "", value: (o) => (o.active ? "*" : "") },
      { header: "NAME", value: (o) => o.name },
      { header: "SLUG", value: (o) => o.slug },
      { header: "ID", value: (o) => o.id },
    ],
    { empty: "You are not a member of any organization yet: create one with `till orgs create <name>`." },
  );
}

interface CreateFlags {
  slug?: string;
  legalName?: string;
  line1?: string;
  postalCode?: string;
  city?: string;
  country?: string;
  taxId?: string;
  skipDetails?: boolean;
}

/** The legal details `orgs create` was given (none: null, the step skipped). */
function legalDetails(opts: CreateFlags): InvoiceDetails | null {
  const given = [opts.legalName, opts.line1, opts.postalCode, opts.city, opts.country, opts.taxId].some((v) => v !== undefined);
  if (!given) return null;
  if (opts.skipDetails) throw new UsageError("--skip-details: not with the legal details' flags", "give the details as flags, or --skip-details to set them later");
  if (!opts.country && (opts.line1 || opts.postalCode || opts.city)) throw new UsageError("--country: an address needs its country", "add --country <CC> (DE, FR, US)");
  const address = opts.country
    ? { line1: opts.line1 ?? null, line2: null, postal_code: opts.postalCode ?? null, city: opts.city ?? null, state: null, country: opts.country }
    : null;
  return { name: opts.legalName ?? null, address, tax_id: opts.taxId ?? null, email: null };
}

/**
 * At a terminal, without the flags: the legal details asked for before anything is created, each skippable
 * with Enter (all empty: null). Ctrl-C or Ctrl-D cancels: exit 130, no organization.
 */
async function askLegalDetails(ctx: Context, name: string): Promise<InvoiceDetails | null> {
  ctx.out.info("Your legal details, printed on every invoice (Enter skips; Ctrl-C cancels; `till orgs billing set` later):");
  const answers = await askLines(
    [`Legal name [${name}]: `, "Street address: ", "Postal code: ", "City: ", "Country (ISO code: DE, FR, US): ", "Tax ID (VAT number): "],
    (lines) => ctx.out.warn(`ignored ${lines === 1 ? "a line" : `${lines} lines`} typed before the questions (pasted commands do not answer them)`),
  );
  if (!answers) {
    ctx.out.info("Cancelled: no organization was created.");
    throw new ExitStatus(EXIT.interrupted);
  }
  const [legalName = "", line1 = "", postalCode = "", city = "", country = "", taxId = ""] = answers;
  const cc = /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null;
  if (country && !cc) ctx.out.warn(`"${country}" is not a two-letter country code: the address is left out`);
  const address = cc ? { line1: line1 || null, line2: null, postal_code: postalCode || null, city: city || null, state: null, country: cc } : null;
  if (!legalName && !address && !taxId) return null;
  return { name: legalName || null, address, tax_id: taxId || null, email: null };
}

async function create(ctx: Context, opts: CreateFlags, [name = ""]: string[]): Promise<void> {
  const slug = opts.slug ?? slugify(name);
  if (!slug) throw new UsageError(`<name>: "${name}" gives no usable slug`, "pass --slug <slug> (letters, digits and dashes)");
  const flagged = legalDetails(opts);
  const credential = requireSession(ctx);
  // asked before the organization exists: a cancelled question leaves nothing behind
  const details = flagged ?? (opts.skipDetails || !canAsk(ctx) ? null : await askLegalDetails(ctx, name));
  const auth = authClient(ctx, credential);
  const created = await ctx.out.loading("Creating organization", auth.post<Organization>("/organization/create", { name, slug }));
  // better-auth makes a newly created organization the session's active one; the profile follows
  const { activeOrganizationId } = (await getSession(auth)).session;
  if (activeOrganizationId === created.id && ctx.credential?.source === "profile") {
    await updateProfile(ctx.env.configDir, ctx.profileName, { organization: stored(created) });
  }
  const active = activeOrganizationId === created.id;
  // the legal details invoices print: given now (flags, or answered at a terminal), or warned about until set
  const saved = details
    ? (await ctx.out.loading(
        "Saving billing details",
        v1(ctx).send<{ invoice_details?: InvoiceDetails }>("PATCH", `/organizations/${created.id}`, { invoice_details: details }),
      )).invoice_details ?? details
    : null;
  const missing = missingDetails(saved);
  if (missing) ctx.out.warn(`${created.name}: ${missing}`);
  ctx.out.done(
    { ...stored(created), createdAt: created.createdAt, active, invoice_details: saved },
    `Created organization ${created.name} (${created.slug}, ${created.id}).` +
      (active ? ` It is now your active organization: commands act on it.` : ""),
  );
}

async function switchTo(ctx: Context, _opts: object, [idOrSlug = ""]: string[]): Promise<void> {
  const auth = authClient(ctx, requireSession(ctx));
  const orgs = await listOrganizations(auth);
  const wanted = idOrSlug.toLowerCase();
  // by id, slug or (case-insensitive) name: the name is what `orgs list` shows first
  const found =
    orgs.find((o) => o.id === idOrSlug || o.slug === idOrSlug) ?? orgs.filter((o) => o.name.toLowerCase() === wanted).at(0);
  if (!found) {
    const known = orgs.map((o) => `${o.slug} (${o.name})`).join(", ");
    throw new UsageError(
      `<org>: you have no organization "${idOrSlug}"`,
      orgs.length > 0 ? `yours: ${known}` : "you have none yet: create one with `till orgs create <name>`",
    );
  }
  const org = await setActiveOrganization(auth, found.id);
  if (ctx.credential?.source === "profile") {
    await updateProfile(ctx.env.configDir, ctx.profileName, { organization: stored(org) });
  }
  ctx.out.done({ ...stored(org), active: true }, `Switched to ${org.name} (${org.slug}).`);
}

export function register(program: Command): void {
  const orgs = program
    .command("orgs")
    .description("list, create and switch organizations")
    .addHelpText("after", examples(["till orgs list", "till orgs create \"Acme Inc\"", "till orgs switch acme-inc"]));

  orgs
    .command("list")
    .alias("ls")
    .description("list your organizations (* marks the active one)")
    .addHelpText("after", examples(["till orgs list", "till orgs list --json"]))
    .action(withContext(list));

  orgs
    .command("create")
    .description("create an organization and make it the active one")
    .argument("<name>", "display name")
    .option("--slug <slug>", "URL slug (default: from the name)")
    .option("--legal-name <name>", "the legal name invoices print (default: the display name)")
    .option("--line1 <street>", "the legal address: street")
    .option("--postal-code <code>", "the legal address: postal code")
    .option("--city <city>", "the legal address: city")
    .option("--country <CC>", "the legal address: country, ISO code (DE, FR, US)", parseCountry)
    .option("--tax-id <id>", "your VAT or other tax id")
    .option("--skip-details", "don't ask for the legal details at a terminal: set them later with `till orgs billing set`")
    .addHelpText(
      "after",
      examples([
        "till orgs create \"Acme Inc\"",
        "till orgs create \"Acme GmbH\" --legal-name \"Acme Software GmbH\" --line1 \"Hauptstraße 1\" --postal-code 10115 --city Berlin --country DE --tax-id DE123456789",
        "till orgs create Acme --slug acme-eu --skip-details --json",
      ]) +
        "\nThe legal details invoices print: given as flags, or, at a terminal without them, asked for before the\n" +
        "organization is created (Enter skips one; Ctrl-C cancels and creates nothing, exit 130; lines pasted before\n" +
        "the questions are ignored). Scripts, pipes, CI and --json are never asked. The details can wait: till warns\n" +
        "while invoices lack them; set them later with `till orgs billing set`.\n",
    )
    .action(withContext(create));

  orgs
    .command("switch")
    .description("make an organization the active one (the one /v1 calls act on)")
    .argument("<org>", "organization id, slug or name")
    .addHelpText("after", examples(["till orgs switch acme-inc"]))
    .action(withContext(switchTo));

  registerTax(orgs, resolveOrganizationId);
  registerDunning(orgs, resolveOrganizationId);
  registerLocale(orgs, resolveOrganizationId);
  registerBilling(orgs, resolveOrganizationId);
  registerStatus(orgs, resolveOrganizationId);
}
