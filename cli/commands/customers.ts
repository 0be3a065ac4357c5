// `till customers list|get|create|update|delete|state|portal|members`: the people who buy (/v1/customers); `portal`
// makes a customer session (/v1/customer-sessions/) and prints the link to their portal. get, update,
// delete and state address a customer by id or email, or by your own id for them with --external-id (the
// /v1/customers/external/{id} routes); on create, --external-id sets it, and update sets it on a customer
// that has none with --set-external-id (the server never changes one). customerIdOf turns a customer's
// email into its id for every command that names a customer.
import type { Command } from "commander";
import { registerWallet } from "./wallets.js";
import { registerMembers } from "./members.js";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { collectMetadata, isEmail, isUuid, type MetadataValue } from "../flags.js";
import { changes, day, describeMetadata, listOptions, exportRows, listResource, type ListOptions } from "../resources.js";

export interface WireCustomer {
  id: string;
  type?: "individual" | "team";
  email: string;
  name: string | null;
  external_id: string | null;
  metadata: Record<string, MetadataValue>;
  tax_id: unknown;
  locale?: string | null;
  billing_address: { country: string } | null;
  created_at: string;
  deleted_at: string | null;
}

export interface WireCustomerState extends WireCustomer {
  active_subscriptions: { id: string; product_id: string; status: string; amount: number; currency: string; recurring_interval: string }[];
  granted_benefits: { id: string; benefit_id: string; benefit_type: string; granted_at: string }[];
  active_meters: { meter_id: string; consumed_units: number; credited_units: number; balance: number }[];
}

/**
 * The id of the customer `ref` names: an id as it is; an email, the customer with that email (one at most
 * per organization, in the mode this run acts in). No such customer: exit 1, as an unknown id.
 */
export async function customerIdOf(ctx: Context, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const page = await ctx.out.loading("Finding the customer", v1(ctx).get<{ items: { id: string }[] }>("/customers/", { email: ref, limit: 1 }));
  const found = page.items[0];
  if (!found) {
    throw new CliError(`no customer has the email ${ref}`, { code: "ResourceNotFound", hint: "`till customers list --query <text>` searches emails, names and external ids" });
  }
  return found.id;
}

/** `<id>`, checked before any request: the customer's id or email. */
function checkCustomerArgument(id: string): string {
  const v = id.trim();
  if (!isUuid(v) && !isEmail(v)) throw new UsageError(`<id>: expected the customer's id (a UUID) or email, got "${id}"; use --external-id for your own ids`);
  return v;
}

/** The path of one customer: by id or email (a positional argument) or by --external-id. */
async function customerPath(ctx: Context, id: string | undefined, externalId: string | undefined): Promise<string> {
  if (id !== undefined && externalId !== undefined) throw new UsageError("<id> and --external-id: address the customer by one of them");
  if (externalId !== undefined) {
    if (externalId.trim() === "") throw new UsageError("--external-id: expected your id for the customer");
    return `/customers/external/${encodeURIComponent(externalId)}`;
  }
  if (id === undefined) throw new UsageError("missing the customer: pass its <id> (or email) or --external-id <your id>");
  return `/customers/${await customerIdOf(ctx, checkCustomerArgument(id))}`;
}

const label = (c: WireCustomer) => `${c.email}${c.name ? ` (${c.name})` : ""}`;

function customerFields(c: WireCustomer) {
  return [
    { label: "ID", value: c.id },
    { label: "Email", value: c.email },
    { label: "Name", value: c.name ?? "" },
    { label: "External ID", value: c.external_id ?? "none" },
    { label: "Type", value: c.type ?? "individual" },
    ...(c.billing_address ? [{ label: "Country", value: c.billing_address.country }] : []),
    { label: "Metadata", value: describeMetadata(c.metadata) },
    { label: "Created", value: day(c.created_at) },
  ];
}

function validEmail(value: string): string {
  const v = value.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) throw new UsageError(`--email: expected an email address, got "${value}"`);
  return v;
}

async function list(ctx: Context, opts: ListOptions & { email?: string; query?: string }) {
  await listResource<WireCustomer>(ctx, opts, {
    path: "/customers/",
    noun: "customers",
    query: { email: opts.email, query: opts.query },
    columns: [
      { header: "ID", value: (c) => c.id },
      { header: "EMAIL", value: (c) => c.email },
      { header: "NAME", value: (c) => c.name ?? "" },
      { header: "EXTERNAL ID", value: (c) => c.external_id ?? "" },
    ],
    empty: "No customers yet: they appear with their first checkout, or `till customers create --email <email>`.",
  });
}

export type Addressed = { externalId?: string };

async function get(ctx: Context, opts: Addressed, [id]: string[]) {
  const c = await ctx.out.loading("Loading customer", v1(ctx).get<WireCustomer>(await customerPath(ctx, id, opts.externalId)));
  await ctx.out.record(c, customerFields(c));
}

interface CustomerFlags {
  email?: string;
  name?: string;
  externalId?: string;
  setExternalId?: string;
  locale?: string;
  taxId?: string;
  metadata?: Record<string, MetadataValue>;
  team?: boolean;
}

async function create(ctx: Context, opts: CustomerFlags & { email: string; ownerEmail?: string }) {
  if (opts.ownerEmail !== undefined && !opts.team) throw new UsageError("--owner-email: only a team customer (--team) has an owner");
  const body = {
    email: validEmail(opts.email),
    ...(opts.team ? { type: "team", owner: opts.ownerEmail !== undefined ? { email: validEmail(opts.ownerEmail) } : undefined } : {}),
    name: opts.name,
    external_id: opts.externalId,
    locale: opts.locale,
    tax_id: opts.taxId,
    metadata: opts.metadata,
  };
  const c = await ctx.out.loading("Creating customer", v1(ctx).send<WireCustomer>("POST", "/customers/", body));
  ctx.out.done(c, `Created customer ${label(c)} (${c.id}).`);
}

async function update(ctx: Context, opts: CustomerFlags, [id]: string[]) {
  const path = await customerPath(ctx, id, opts.externalId);
  if (opts.setExternalId !== undefined && opts.externalId !== undefined) {
    throw new UsageError("--set-external-id: address the customer by its <id> to set its external id");
  }
  const body = changes(
    {
      email: opts.email !== undefined ? validEmail(opts.email) : undefined,
      name: opts.name,
      external_id: opts.setExternalId,
      locale: opts.locale,
      tax_id: opts.taxId,
      metadata: opts.metadata,
      type: opts.team ? "team" : undefined,
    },
    "--email, --name, --set-external-id, --locale, --tax-id, --metadata or --team",
  );
  const c = await ctx.out.loading("Updating customer", v1(ctx).send<WireCustomer>("PATCH", path, body));
  ctx.out.done(c, `Updated customer ${label(c)} (${c.id}).`);
}

async function remove(ctx: Context, opts: Addressed & { anonymize?: boolean }, [id]: string[]) {
  const path = await customerPath(ctx, id, opts.externalId);
  await ctx.out.loading("Deleting customer", v1(ctx).send("DELETE", `${path}?anonymize=${opts.anonymize ? "true" : "false"}`));
  const customerId = opts.externalId === undefined ? path.slice("/customers/".length) : null;
  const who = id === undefined ? `with external id ${opts.externalId}` : customerId === id.trim().toLowerCase() ? customerId : `${id.trim()} (${customerId})`;
  ctx.out.done({ id: customerId, external_id: opts.externalId ?? null, deleted: true, anonymized: opts.anonymize === true }, `Deleted customer ${who}${opts.anonymize ? " (anonymized)" : ""}.`);
}

/**
 * The names of the products, benefits and meters a customer's state names by id, read once each; one that
 * cannot be read (a key without that scope) shows its id.
 */
async function namesOf(ctx: Context, s: WireCustomerState): Promise<(id: string) => string> {
  const client = v1(ctx);
  const wanted: [string, string, (o: Record<string, unknown>) => unknown][] = [
    ...new Set(s.active_subscriptions.map((x) => x.product_id)),
  ].map((id) => [id, `/products/${id}`, (o) => o.name]);
  for (const id of new Set(s.granted_benefits.map((b) => b.benefit_id))) wanted.push([id, `/benefits/${id}`, (o) => o.description]);
  for (const id of new Set(s.active_meters.map((m) => m.meter_id))) wanted.push([id, `/meters/${id}`, (o) => o.name]);
  const found = await Promise.all(
    wanted.map(async ([id, path, name]) => {
      const value = await client.get<Record<string, unknown>>(path).then(name, () => undefined);
      return [id, typeof value === "string" && value !== "" ? value : id] as const;
    }),
  );
  const names = new Map(found);
  return (id) => names.get(id) ?? id;
}

async function state(ctx: Context, opts: Addressed, [id]: string[]) {
  const s = await ctx.out.loading("Loading customer state", v1(ctx).get<WireCustomerState>(`${await customerPath(ctx, id, opts.externalId)}/state`));
  // --json is the API's answer as it is; a person reads names (the ids are in --json)
  const name = ctx.json ? (x: string) => x : await ctx.out.loading("Loading names", namesOf(ctx, s));
  const subs = s.active_subscriptions.map((x) => `${name(x.product_id)} (${x.status}, every ${x.recurring_interval})`);
  const benefits = s.granted_benefits.map((b) => `${name(b.benefit_id)} (${b.benefit_type}) since ${day(b.granted_at)}`);
  const meters = s.active_meters.map((m) => `${name(m.meter_id)}: ${m.consumed_units} used, ${m.credited_units} credited, balance ${m.balance}`);
  await ctx.out.record(s, [
    ...customerFields(s).slice(0, 4),
    { label: "Subscriptions", value: subs.join("; ") || "none" },
    { label: "Benefits", value: benefits.join("; ") || "none" },
    { label: "Meters", value: meters.join("; ") || "none" },
  ]);
}

export interface WireCustomerSession {
  id: string;
  token: string;
  expires_at: string;
  customer_portal_url: string;
  customer_id: string;
}

/**
 * A one-hour customer session (POST /v1/customer-sessions/), the customer addressed by id, email or external id; also
 * `till open portal`.
 */
export async function createCustomerSession(ctx: Context, id: string | undefined, opts: Addressed & { returnUrl?: string }): Promise<WireCustomerSession> {
  if (id === undefined && opts.externalId === undefined) throw new UsageError("missing the customer: pass its <id> (or email) or --external-id <your id>");
  if (id !== undefined && opts.externalId !== undefined) throw new UsageError("<id> and --external-id: address the customer by one of them");
  const customerId = id === undefined ? undefined : await customerIdOf(ctx, checkCustomerArgument(id));
  const body = {
    ...(customerId !== undefined ? { customer_id: customerId } : { external_customer_id: opts.externalId }),
    return_url: opts.returnUrl,
  };
  return ctx.out.loading("Opening a customer session", v1(ctx).send<WireCustomerSession>("POST", "/customer-sessions/", body));
}

/** A one-hour customer session: the link that opens the customer's portal (for support, or to send them). */
async function portal(ctx: Context, opts: Addressed & { returnUrl?: string }, [id]: string[]) {
  const s = await createCustomerSession(ctx, id, opts);
  ctx.out.done(s, s.customer_portal_url);
  ctx.out.info(`The link opens the customer's portal until ${s.expires_at.slice(0, 16).replace("T", " ")} UTC; anyone holding it acts as the customer.`);
}

function customerOptions(cmd: Command): Command {
  return cmd
    .option("--name <name>", "the customer's name")
    .option("--locale <locale>", "language for their emails and pages, such as en or fr-CA")
    .option("--tax-id <id>", "their tax id (VAT number…)")
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

const byExternalId = (cmd: Command) => cmd.option("--external-id <id>", "address the customer by your own id for them instead of <id>");

export function register(program: Command): void {
  const customers = program
    .command("customers")
    .description("list, create, update and delete customers; show what they have")
    .addHelpText(
      "after",
      examples([
        "till customers list",
        "till customers create --email ada@example.com --name Ada --external-id user_42",
        "till customers get --external-id user_42",
        "till customers state <id>",
      ]),
    );

  listOptions(
    customers
      .command("list")
      .alias("ls")
      .description("list customers")
      .option("--email <email>", "only the customer with this email")
      .option("--query <text>", "only customers whose email, name or external id contains the text"),
  )
    .addHelpText("after", examples(["till customers list", "till customers list --query ada --json"]))
    .action(withContext(list));

  customers
    .command("export")
    .description("write every customer as CSV, oldest first: to stdout, or to a file with --output")
    .option("-o, --output <file>", "write the CSV to this file (a progress line shows on a terminal)")
    .addHelpText("after", examples(["till customers export > customers.csv", "till customers export --output customers.csv"]))
    .action(withContext((ctx: Context, opts: { output?: string }) => exportRows(ctx, "customers", {}, opts.output)));

  byExternalId(customers.command("get").description("show a customer").argument("[id]", "the customer's id or email"))
    .addHelpText("after", examples(["till customers get <id>", "till customers get --external-id user_42 --json"]))
    .action(withContext(get));

  customerOptions(
    customers
      .command("create")
      .description("create a customer")
      .requiredOption("--email <email>", "their email address")
      .option("--external-id <id>", "your own id for the customer (your user id)")
      .option("--team", "a team customer, whose members share what it buys (`till customers members`)")
      .option("--owner-email <email>", "with --team: the owner's email (default: the customer's)"),
  )
    .addHelpText(
      "after",
      examples([
        "till customers create --email ada@example.com",
        "till customers create --email ada@example.com --name Ada --external-id user_42 --metadata plan=pro",
        "till customers create --email billing@acme.example --name Acme --team --owner-email olga@acme.example",
      ]),
    )
    .action(withContext(create));

  customerOptions(
    byExternalId(customers.command("update").description("change a customer").argument("[id]", "the customer's id or email"))
      .option("--email <email>", "a new email address")
      .option("--set-external-id <id>", "set the external id of a customer that has none (address it by <id>)")
      .option("--team", "make an individual customer a team (its email becomes the owner's; never undone)"),
  )
    .addHelpText(
      "after",
      examples(["till customers update <id> --name \"Ada Lovelace\"", "till customers update --external-id user_42 --metadata plan=team", "till customers update <id> --set-external-id user_43"]),
    )
    .action(withContext(update));

  byExternalId(customers.command("delete").description("delete a customer").argument("[id]", "the customer's id or email"))
    .option("--anonymize", "also erase their personal data (email, name, address)")
    .addHelpText("after", examples(["till customers delete <id>", "till customers delete --external-id user_42 --anonymize"]))
    .action(withContext(remove));

  byExternalId(customers.command("state").description("what a customer has now: subscriptions, benefits, meter balances").argument("[id]", "the customer's id or email"))
    .addHelpText("after", examples(["till customers state <id>", "till customers state --external-id user_42 --json"]))
    .action(withContext(state));

  byExternalId(customers.command("portal").description("a link to the customer's portal (valid one hour)").argument("[id]", "the customer's id or email"))
    .option("--return-url <url>", "where the portal's back link leads")
    .addHelpText("after", examples(["till customers portal <id>", "till customers portal --external-id user_42 --return-url https://example.com/account"]))
    .action(withContext(portal));

  registerWallet(customers, customerIdOf);
  registerMembers(customers, customerIdOf);
}
