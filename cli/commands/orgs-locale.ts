// `till orgs locale show|set`: the language customers are spoken to in when nothing else names one — the
// `default_locale` till adds to GET/PATCH /v1/organizations/{id} (the SDK drops the field, so this is plain /v1
// JSON). A checkout's `locale`, the customer's stored locale and the buyer's browser come first.
import type { Command } from "commander";
import { LOCALES } from "../../shared/i18n/locales.js";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";

type ResolveOrganization = (ctx: Context, org: string | undefined) => Promise<string>;
let resolveOrganizationId: ResolveOrganization;

interface OrgWithLocale {
  id: string;
  name: string;
  default_locale?: string | null;
}

const describe = (locale: string | null | undefined) => locale ?? "none (English)";

async function show(ctx: Context, opts: { org?: string }): Promise<void> {
  const id = await resolveOrganizationId(ctx, opts.org);
  const found = await ctx.out.loading("Loading the default locale", v1(ctx).get<OrgWithLocale>(`/organizations/${id}`));
  await ctx.out.record({ default_locale: found.default_locale ?? null }, [
    { label: "Organization", value: found.name },
    { label: "Default locale", value: describe(found.default_locale) },
  ]);
}

async function set(ctx: Context, opts: { org?: string; reset?: boolean }, args: string[]): Promise<void> {
  const [locale] = args;
  if (!locale && !opts.reset) throw new UsageError("nothing to set", `give a locale (${LOCALES.join(", ")}) or --reset`);
  if (locale && opts.reset) throw new UsageError("--reset: cannot be used with a locale", "reset, or set a locale");
  const id = await resolveOrganizationId(ctx, opts.org);
  const updated = await ctx.out.loading(
    "Saving the default locale",
    v1(ctx).send<OrgWithLocale>("PATCH", `/organizations/${id}`, { default_locale: opts.reset ? null : locale }),
  );
  ctx.out.done({ default_locale: updated.default_locale ?? null }, `Default locale: ${describe(updated.default_locale)}`);
}

export function registerLocale(orgs: Command, resolve: ResolveOrganization): void {
  resolveOrganizationId = resolve;
  const locale = orgs
    .command("locale")
    .description("the language of the checkout, the portal, emails and invoices when nothing else names one")
    .addHelpText(
      "after",
      examples(["till orgs locale show", "till orgs locale set de", "till orgs locale set --reset"]) +
        `\nLocales: ${LOCALES.join(", ")}. The buyer's language is, first known: the checkout's locale (given at\n` +
        "creation), the customer's stored locale, the browser's languages (pages only), this default, English.\n",
    );
  const org = ["--org <id|slug>", "the organization (default: the active one)"] as const;
  locale
    .command("show")
    .description("show the organization's default locale")
    .option(...org)
    .addHelpText("after", examples(["till orgs locale show", "till orgs locale show --json"]))
    .action(withContext(show));
  locale
    .command("set")
    .description("set the organization's default locale")
    .argument("[locale]", `one of ${LOCALES.join(", ")}`)
    .option("--reset", "no default (English)")
    .option(...org)
    .addHelpText("after", examples(["till orgs locale set fr", "till orgs locale set pt-BR --json", "till orgs locale set --reset"]))
    .action(withContext(set));
}
