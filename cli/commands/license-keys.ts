// `till license-keys list|get|update|validate|activate|deactivate`: the keys license_keys benefits issued
// (/v1/license-keys). Lists show keys masked (****-last six); `get` shows the whole key. validate, activate
// and deactivate act as the seller's software does, for the active organization; the key is read from stdin
// when given as `-` (an argument is kept in the shell history, so a warning says so).
import { InvalidArgumentError, type Command } from "commander";
import { v1, whoami } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { INT_MAX, collectMetadata, oneOf, parseDateTime, parseCustomer, parseId, parseNonNegative, type MetadataValue } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { changes, day, listOptions, listResource, plural, type ListOptions } from "../resources.js";

const STATUSES = ["granted", "revoked", "disabled"] as const;

interface WireActivation {
  id: string;
  label: string;
  meta: Record<string, MetadataValue>;
  created_at: string;
}

export interface WireLicenseKey {
  id: string;
  key: string;
  display_key: string;
  status: string;
  customer_id: string;
  customer: { email: string | null };
  benefit_id: string;
  limit_activations: number | null;
  usage: number;
  limit_usage: number | null;
  validations: number;
  last_validated_at: string | null;
  expires_at: string | null;
  created_at: string;
  activations?: WireActivation[];
  activation?: WireActivation | null;
}

const ofLimit = (used: number, limit: number | null) => (limit === null ? `${used}` : `${used} of ${limit}`);

function keyFields(k: WireLicenseKey, whole: boolean) {
  return [
    { label: "ID", value: k.id },
    { label: "Key", value: whole ? k.key : k.display_key },
    { label: "Status", value: k.status },
    { label: "Customer", value: `${k.customer.email ?? ""} (${k.customer_id})` },
    { label: "Benefit", value: k.benefit_id },
    { label: "Usage", value: ofLimit(k.usage, k.limit_usage) },
    { label: "Validations", value: `${k.validations}${k.last_validated_at ? `, last ${day(k.last_validated_at)}` : ""}` },
    { label: "Expires", value: k.expires_at ? day(k.expires_at) : "never" },
    ...(k.activations
      ? [{ label: "Activations", value: `${ofLimit(k.activations.length, k.limit_activations)}${k.activations.map((a) => `; ${a.label} (${a.id})`).join("")}` }]
      : []),
  ];
}

async function list(ctx: Context, opts: ListOptions & { benefit?: string; customer?: string; status?: string }) {
  await listResource<WireLicenseKey>(ctx, opts, {
    path: "/license-keys/",
    noun: "license keys",
    query: { benefit_id: opts.benefit, customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer), status: opts.status },
    columns: [
      { header: "ID", value: (k) => k.id },
      { header: "KEY", value: (k) => k.display_key },
      { header: "STATUS", value: (k) => k.status },
      { header: "CUSTOMER", value: (k) => k.customer.email ?? k.customer_id },
      { header: "USAGE", value: (k) => ofLimit(k.usage, k.limit_usage) },
      { header: "EXPIRES", value: (k) => (k.expires_at ? day(k.expires_at) : "never") },
    ],
    empty: "No license keys yet: a purchase of a product with a license_keys benefit issues one (`till benefits create --type license_keys …`).",
  });
}

async function get(ctx: Context, _opts: unknown, [id]: string[]) {
  const k = await ctx.out.loading("Loading license key", v1(ctx).get<WireLicenseKey>(`/license-keys/${id ?? ""}`));
  await ctx.out.record(k, keyFields(k, true));
}

interface UpdateFlags {
  status?: (typeof STATUSES)[number];
  usage?: number;
  limitActivations?: number | "none";
  limitUsage?: number | "none";
  expiresAt?: string;
}

// commander does not keep a null a parser returns: "none" and "never" stay words until the body is made
const orNull = <T>(v: T | "none" | "never" | undefined): T | null | undefined => (v === "none" || v === "never" ? null : v);

/** A limit flag: a number from 1 to `max`, or `none` for no limit. */
function limitFlag(max: number) {
  return (value: string): number | "none" => {
    const v = value.trim();
    if (v === "none") return "none";
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`expected a number from 1 to ${max}, or none.`);
    return n;
  };
}

const expiryFlag = (value: string): string => (value.trim() === "never" ? "never" : parseDateTime(value));

async function update(ctx: Context, opts: UpdateFlags, [id]: string[]) {
  const path = `/license-keys/${id ?? ""}`;
  const body = changes(
    {
      status: opts.status,
      usage: opts.usage,
      limit_activations: orNull(opts.limitActivations),
      limit_usage: orNull(opts.limitUsage),
      expires_at: orNull(opts.expiresAt),
    },
    "--status, --usage, --limit-activations, --limit-usage or --expires-at",
  );
  const k = await ctx.out.loading("Updating license key", v1(ctx).send<WireLicenseKey>("PATCH", path, body));
  ctx.out.done(k, `Updated license key ${k.display_key} (${k.id}): ${k.status}, usage ${ofLimit(k.usage, k.limit_usage)}.`);
}

// ---- as the seller's software ---------------------------------------------------------------------

async function readKey(ctx: Context, key: string | undefined): Promise<string> {
  if (key !== undefined && key !== "-") {
    ctx.out.warn("the key given as an argument stays in your shell history; pipe it instead: `echo $KEY | till license-keys validate -`.");
    return key.trim();
  }
  if (process.stdin.isTTY) throw new UsageError("<key>: pass the license key, or `-` and the key on stdin");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  const read = Buffer.concat(chunks).toString("utf8").trim();
  if (!read) throw new UsageError("<key>: stdin was empty; expected the license key");
  return read;
}

async function organizationId(ctx: Context): Promise<string> {
  const me = await whoami(ctx, requireCredential(ctx));
  if (!me.organization_id) throw new CliError("no active organization: run `till orgs switch <org>` first");
  return me.organization_id;
}

interface ValidateFlags {
  activation?: string;
  benefit?: string;
  customer?: string;
  incrementUsage?: number;
  condition?: Record<string, MetadataValue>;
}

async function validate(ctx: Context, opts: ValidateFlags, [key]: string[]) {
  const body = {
    key: await readKey(ctx, key),
    organization_id: await organizationId(ctx),
    activation_id: opts.activation,
    benefit_id: opts.benefit,
    customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer),
    increment_usage: opts.incrementUsage,
    conditions: opts.condition,
  };
  const k = await ctx.out.loading("Validating license key", v1(ctx).send<WireLicenseKey>("POST", "/license-keys/validate", body));
  const activation = k.activation ? `, activation ${k.activation.label}` : "";
  ctx.out.done(k, `Valid: ${k.display_key} (${k.status}${activation}), usage ${ofLimit(k.usage, k.limit_usage)}, validated ${plural(k.validations, "time")}.`);
}

async function activate(ctx: Context, opts: { label: string; condition?: Record<string, MetadataValue>; meta?: Record<string, MetadataValue> }, [key]: string[]) {
  const body = { key: await readKey(ctx, key), organization_id: await organizationId(ctx), label: opts.label, conditions: opts.condition, meta: opts.meta };
  const a = await ctx.out.loading("Activating license key", v1(ctx).send<WireActivation & { license_key: WireLicenseKey }>("POST", "/license-keys/activate", body));
  ctx.out.done(a, `Activated ${a.license_key.display_key} as "${a.label}": activation ${a.id}.`);
}

async function deactivate(ctx: Context, opts: { activation: string }, [key]: string[]) {
  const body = { key: await readKey(ctx, key), organization_id: await organizationId(ctx), activation_id: opts.activation };
  await ctx.out.loading("Deactivating license key", v1(ctx).send("POST", "/license-keys/deactivate", body));
  ctx.out.done({ activation_id: opts.activation, deactivated: true }, `Deactivated activation ${opts.activation}.`);
}

const conditionOption = (cmd: Command) =>
  cmd.option("--condition <key=value>", "a condition the activation is bound to, repeatable (key:=5 for a number)", collectMetadata);

export function register(program: Command): void {
  const keys = program
    .command("license-keys")
    .description("list and change the license keys your benefits issued; validate and activate them")
    .addHelpText(
      "after",
      examples([
        "till license-keys list --status granted",
        "till license-keys get <id>",
        "till license-keys update <id> --status disabled",
        "echo $KEY | till license-keys validate - --increment-usage 1",
      ]),
    );

  listOptions(
    keys
      .command("list")
      .alias("ls")
      .description("list license keys (masked)")
      .option("--benefit <id>", "only keys of this benefit", parseId)
      .option("--customer <id|email>", "only keys of this customer (its id or email)", parseCustomer)
      .option("--status <status>", `only keys with this status: ${STATUSES.join(", ")}`, oneOf(STATUSES)),
  )
    .addHelpText("after", examples(["till license-keys list", "till license-keys list --benefit <id> --json"]))
    .action(withContext(list));

  keys
    .command("get")
    .description("show a license key, whole, with its activations")
    .argument("<id>", "the license key's id", parseId)
    .addHelpText("after", examples(["till license-keys get <id>", "till license-keys get <id> --json"]))
    .action(withContext(get));

  keys
    .command("update")
    .description("change a key's status, usage, limits or expiry")
    .argument("<id>", "the license key's id", parseId)
    .option("--status <status>", `${STATUSES.join(", ")} (disabled and revoked keys fail validation)`, oneOf(STATUSES))
    .option("--usage <n>", "set the usage counter", parseNonNegative)
    .option("--limit-activations <n>", "machines it may be activated on, 1 to 50, or none", limitFlag(50))
    .option("--limit-usage <n>", "usages allowed, or none", limitFlag(INT_MAX))
    .option("--expires-at <date>", "when it stops validating (2027-12-31 or a datetime with an offset), or never", expiryFlag)
    .addHelpText(
      "after",
      examples(["till license-keys update <id> --status disabled", "till license-keys update <id> --usage 0 --limit-usage 1000 --expires-at 2027-12-31T00:00:00Z"]),
    )
    .action(withContext(update));

  conditionOption(
    keys
      .command("validate")
      .description("check a key as your software would (counts a validation)")
      .argument("[key]", "the license key, or - to read it from stdin")
      .option("--activation <id>", "the activation it must have", parseId)
      .option("--benefit <id>", "the benefit it must come from", parseId)
      .option("--customer <id|email>", "the customer it must belong to (its id or email)", parseCustomer)
      .option("--increment-usage <n>", "add n to its usage (refused past its usage limit)", parseNonNegative),
  )
    .addHelpText("after", examples(["echo $KEY | till license-keys validate -", "till license-keys validate - --activation <id> --condition major:=2 < key.txt"]))
    .action(withContext(validate));

  conditionOption(
    keys
      .command("activate")
      .description("activate a key on a machine (up to its activation limit)")
      .argument("[key]", "the license key, or - to read it from stdin")
      .requiredOption("--label <label>", "a name for the machine, such as the host name")
      .option("--meta <key=value>", "data kept with the activation, repeatable", collectMetadata),
  )
    .addHelpText("after", examples(['echo $KEY | till license-keys activate - --label "Ada\'s laptop" --meta os=linux']))
    .action(withContext(activate));

  keys
    .command("deactivate")
    .description("free a key's activation")
    .argument("[key]", "the license key, or - to read it from stdin")
    .requiredOption("--activation <id>", "the activation to free", parseId)
    .addHelpText("after", examples(["echo $KEY | till license-keys deactivate - --activation <id>"]))
    .action(withContext(deactivate));
}
