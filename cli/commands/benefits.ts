// `till benefits list|get|create|update|delete`: what customers get with a product (/v1/benefits). Each
// type's properties have flags (custom --note, license_keys --prefix/--expires/--activations/…,
// meter_credit --meter/--units/--rollover, downloadables --file, github_repository --repository/
// --permission, discord --guild-token/--role/--kick-member); --properties takes them as JSON, and flags
// win over its keys. An update keeps the properties no flag names.
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import {
  collectId,
  collectMetadata,
  oneOf,
  parseId,
  parseNonNegative,
  parsePositive,
  readJsonObjectFlag,
  type MetadataValue,
} from "../flags.js";
import { changes, day, describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";
import { registerDelivery } from "./benefit-delivery.js";
import { assertNever } from "../../shared/kinds.js";
import { CLI_BENEFIT_TYPES } from "../kinds.js";
import { CREDIT_POOLS, CREDIT_SCHEDULES } from "../../shared/meter-credit-terms.js";

/** The types the flags set (the rest are the API's: ../kinds.ts). */
type BenefitType = (typeof CLI_BENEFIT_TYPES)[number];
const PERMISSIONS = ["pull", "triage", "push", "maintain", "admin"] as const;

export interface WireBenefit {
  id: string;
  type: string;
  description: string;
  selectable: boolean;
  deletable: boolean;
  metadata: Record<string, MetadataValue>;
  properties: Record<string, unknown>;
  created_at: string;
}

interface PropertyFlags {
  note?: string;
  prefix?: string;
  expires?: { ttl: number; timeframe: string };
  activations?: number;
  customerAdmin?: boolean;
  limitUsage?: number;
  meter?: string;
  units?: number;
  rollover?: boolean;
  schedule?: string;
  pool?: string;
  perAmount?: number;
  minUnits?: number;
  maxUnits?: number;
  file?: string[];
  repository?: { owner: string; name: string };
  permission?: string;
  guildToken?: string;
  guildId?: string;
  role?: string;
  kickMember?: boolean;
  properties?: string;
}

/** Which flags belong to which type, as (flag, property name, value) triples. */
function propertyFlags(o: PropertyFlags): Record<BenefitType, [string, string, unknown][]> {
  return {
    custom: [["--note", "note", o.note]],
    license_keys: [
      ["--prefix", "prefix", o.prefix],
      ["--expires", "expires", o.expires],
      ["--activations", "activations", o.activations],
      ["--customer-admin", "activations", o.customerAdmin],
      ["--limit-usage", "limit_usage", o.limitUsage],
    ],
    meter_credit: [
      ["--meter", "meter_id", o.meter],
      ["--units", "units", o.units],
      ["--rollover", "rollover", o.rollover],
      ["--schedule", "schedule", o.schedule],
      ["--pool", "pool", o.pool],
      ["--per-amount", "per_amount", o.perAmount],
      ["--min-units", "min_units", o.minUnits],
      ["--max-units", "max_units", o.maxUnits],
    ],
    downloadables: [["--file", "files", o.file]],
    github_repository: [
      ["--repository", "repository_owner", o.repository],
      ["--permission", "permission", o.permission],
    ],
    discord: [
      ["--guild-token", "guild_token", o.guildToken],
      ["--guild-id", "guild_id", o.guildId],
      ["--role", "role_id", o.role],
      ["--kick-member", "kick_member", o.kickMember],
    ],
  };
}

/** The properties for `type`: `current` (update) or --properties, then the flags; a flag of another type is refused. */
function buildProperties(type: BenefitType, o: PropertyFlags, current: Record<string, unknown>): Record<string, unknown> | undefined {
  const all = propertyFlags(o);
  for (const [other, flags] of Object.entries(all)) {
    if (other === type) continue;
    const given = flags.find(([, , v]) => v !== undefined);
    if (given) throw new UsageError(`${given[0]}: only for ${other} benefits (this one is ${type})`);
  }
  const fromJson = o.properties !== undefined ? readJsonObjectFlag("--properties", o.properties) : undefined;
  const flagsGiven = all[type].some(([, , v]) => v !== undefined);
  if (!fromJson && !flagsGiven) return undefined;
  const p: Record<string, unknown> = { ...current, ...fromJson };
  switch (type) {
    case "custom":
      if (o.note !== undefined) p.note = o.note;
      break;
    case "license_keys": {
      if (o.prefix !== undefined) p.prefix = o.prefix;
      if (o.expires !== undefined) p.expires = o.expires;
      if (o.limitUsage !== undefined) p.limit_usage = o.limitUsage;
      if (o.activations !== undefined || o.customerAdmin !== undefined) {
        const before = (p.activations ?? null) as { limit?: number; enable_customer_admin?: boolean } | null;
        const limit = o.activations ?? before?.limit;
        if (limit === undefined) throw new UsageError("--customer-admin: only with --activations <n> (customers manage their activations)");
        p.activations = { limit, enable_customer_admin: o.customerAdmin ?? before?.enable_customer_admin ?? false };
      }
      break;
    }
    case "meter_credit":
      if (o.meter !== undefined) p.meter_id = o.meter;
      if (o.units !== undefined) p.units = o.units;
      if (o.rollover !== undefined) p.rollover = o.rollover;
      p.rollover ??= false;
      // till's extensions (docs/credits.md), sent only when given: a benefit without them reads as Polar's
      for (const [flag, key, value] of propertyFlags(o).meter_credit.slice(3)) {
        if (value === undefined) continue;
        if ((key === "min_units" || key === "max_units") && p.per_amount === undefined) throw new UsageError(`${flag}: only with --per-amount (bounds of credits in proportion to the amount paid)`);
        p[key] = value;
      }
      break;
    case "downloadables":
      if (o.file !== undefined) p.files = o.file;
      break;
    case "github_repository":
      if (o.repository !== undefined) {
        p.repository_owner = o.repository.owner;
        p.repository_name = o.repository.name;
      }
      if (o.permission !== undefined) p.permission = o.permission;
      break;
    case "discord":
      if (o.guildToken !== undefined) p.guild_token = o.guildToken;
      if (o.guildId !== undefined) p.guild_id = o.guildId;
      if (o.role !== undefined) p.role_id = o.role;
      if (o.kickMember !== undefined) p.kick_member = o.kickMember;
      p.kick_member ??= false;
      break;
    default:
      return assertNever(type, "benefit type");
  }
  return p;
}

/** The properties a type cannot do without, named by their flags (before anything is sent). */
const REQUIRED: Partial<Record<BenefitType, [string, string][]>> = {
  meter_credit: [["meter_id", "--meter <id>"], ["units", "--units <n>"]],
  downloadables: [["files", "--file <id>"]],
  github_repository: [["repository_owner", "--repository <owner/name>"], ["permission", "--permission <level>"]],
  discord: [["guild_token", "--guild-token <token>"], ["role_id", "--role <id>"]],
};

const LICENSE_EXPIRY = { d: "day", m: "month", y: "year" } as const;

/** `--expires 1y` → {ttl: 1, timeframe: "year"} (days, months or years). */
function parseExpiry(value: string): { ttl: number; timeframe: string } {
  const m = /^(\d+)\s*([dmy])$/.exec(value.trim().toLowerCase());
  const ttl = Number(m?.[1]);
  if (!m || ttl < 1 || !Number.isSafeInteger(ttl)) throw new InvalidArgumentError("expected a lifetime such as 30d, 6m or 1y (days, months, years).");
  return { ttl, timeframe: LICENSE_EXPIRY[m[2] as keyof typeof LICENSE_EXPIRY] };
}

function parseRepository(value: string): { owner: string; name: string } {
  const m = /^([A-Za-z0-9][A-Za-z0-9-]{0,38})\/([A-Za-z0-9._-]{1,100})$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError("expected <owner>/<repository>, such as acme/sdk.");
  return { owner: m[1] ?? "", name: m[2] ?? "" };
}

function describeProperties(b: WireBenefit): string {
  const entries = Object.entries(b.properties).filter(([k]) => k !== "guild_token");
  return entries.map(([k, v]) => `${k}=${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`).join(", ") || "none";
}

async function list(ctx: Context, opts: ListOptions & { type?: string; query?: string }) {
  await listResource<WireBenefit>(ctx, opts, {
    path: "/benefits/",
    noun: "benefits",
    query: { type: opts.type, query: opts.query },
    columns: [
      { header: "ID", value: (b) => b.id },
      { header: "TYPE", value: (b) => b.type },
      { header: "DESCRIPTION", value: (b) => b.description },
    ],
    empty: "No benefits yet: create one with `till benefits create <type> --description <text>`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const b = await ctx.out.loading("Loading benefit", v1(ctx).get<WireBenefit>(`/benefits/${id}`));
  await ctx.out.record(b, [
    { label: "ID", value: b.id },
    { label: "Type", value: b.type },
    { label: "Description", value: b.description },
    { label: "Properties", value: describeProperties(b) },
    { label: "Metadata", value: describeMetadata(b.metadata) },
    { label: "Deletable", value: b.deletable ? "yes" : "no" },
    { label: "Created", value: day(b.created_at) },
  ]);
}

type BenefitFlags = PropertyFlags & { description?: string; metadata?: Record<string, MetadataValue> };

async function create(ctx: Context, opts: BenefitFlags, [type = ""]: string[]) {
  const t = type as BenefitType;
  const properties = buildProperties(t, opts, {}) ?? (t === "meter_credit" ? { rollover: false } : t === "discord" ? { kick_member: false } : {});
  const missing = (REQUIRED[t] ?? []).find(([key]) => properties[key] === undefined);
  if (missing) throw new UsageError(`${t} benefits need ${missing[1]}`);
  const body = { type: t, description: opts.description, metadata: opts.metadata, properties };
  const b = await ctx.out.loading("Creating benefit", v1(ctx).send<WireBenefit & { warnings?: string[] }>("POST", "/benefits/", body));
  ctx.out.done(b, `Created ${b.type} benefit "${b.description}" (${b.id}).`);
  // the server's till-only warnings (e.g. GitHub not connected yet: the grants will wait)
  for (const w of b.warnings ?? []) ctx.out.warn(w);
}

async function update(ctx: Context, opts: BenefitFlags, [id = ""]: string[]) {
  const client = v1(ctx);
  // the server needs the type with every update; properties not named by a flag stay as they are
  const current = await ctx.out.loading("Loading benefit", client.get<WireBenefit>(`/benefits/${id}`));
  const type = current.type as BenefitType;
  if (!CLI_BENEFIT_TYPES.includes(type)) throw new UsageError(`benefits of type ${current.type} cannot be changed from the CLI; use \`till api PATCH /v1/benefits/${id}\``);
  const body = changes(
    { description: opts.description, metadata: opts.metadata, properties: buildProperties(type, opts, current.properties) },
    "--description, --metadata, --properties or a property flag of this type (see --help)",
  );
  const b = await ctx.out.loading("Updating benefit", client.send<WireBenefit>("PATCH", `/benefits/${id}`, { type, ...body }));
  ctx.out.done(b, `Updated ${b.type} benefit "${b.description}" (${b.id}).`);
}

async function remove(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Deleting benefit", v1(ctx).send("DELETE", `/benefits/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted benefit ${id}.`);
}

function propertyOptions(cmd: Command): Command {
  return cmd
    .option("--properties <json>", "the type's properties as JSON (inline, @file or @-); flags win over its keys")
    .option("--note <text>", "custom: a private note shown to customers who have the benefit")
    .option("--prefix <prefix>", "license_keys: a prefix for the keys")
    .option("--expires <lifetime>", "license_keys: keys expire after 30d, 6m, 1y… (default never)", parseExpiry)
    .option("--activations <n>", "license_keys: how many devices a key may be activated on", parsePositive)
    .option("--customer-admin", "license_keys: customers may deactivate their devices (with --activations)")
    .option("--limit-usage <n>", "license_keys: how many times a key may be used", parsePositive)
    .option("--meter <id>", "meter_credit: the meter credited", parseId)
    .option("--units <n>", "meter_credit: units credited each period", parsePositive)
    .option("--rollover", "meter_credit: unused units carry over to the next period")
    .option("--schedule <when>", `meter_credit: when the units are credited: ${CREDIT_SCHEDULES.join(", ")} (once: at purchase only; monthly: each month of a longer period)`, oneOf(CREDIT_SCHEDULES))
    .option("--pool <whose>", `meter_credit: ${CREDIT_POOLS.join(", ")} (subscription: each subscription's credits cover the events tagged with its id)`, oneOf(CREDIT_POOLS))
    .option("--per-amount <amount>", "meter_credit: --units credits for every <amount> paid, in minor units (pay what you want)", parsePositive)
    .option("--min-units <n>", "meter_credit: with --per-amount, the fewest units a purchase credits", parseNonNegative)
    .option("--max-units <n>", "meter_credit: with --per-amount, the most units a purchase credits", parsePositive)
    .option("--file <id>", "downloadables: a file to download, repeatable (uploaded with /v1/files)", collectId)
    .option("--repository <owner/name>", "github_repository: the repository to invite customers to", parseRepository)
    .option("--permission <level>", `github_repository: ${PERMISSIONS.join(", ")}`, oneOf(PERMISSIONS))
    .option("--guild-token <token>", "discord: the server's token from the Discord integration")
    .option("--guild-id <id>", "discord: the server's id")
    .option("--role <id>", "discord: the role granted")
    .option("--kick-member", "discord: remove customers from the server when the benefit is revoked")
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const benefits = program
    .command("benefits")
    .description("list, create, update and delete benefits (what customers get with a product)")
    .addHelpText(
      "after",
      examples([
        "till benefits list",
        "till benefits create license_keys --description \"License key\" --prefix ACME --activations 3",
        "till benefits update <id> --description \"Priority support\"",
        "till benefits delete <id>",
      ]),
    );

  listOptions(
    benefits
      .command("list")
      .alias("ls")
      .description("list benefits")
      .option("--type <type>", `only benefits of this type: ${CLI_BENEFIT_TYPES.join(", ")}`, oneOf(CLI_BENEFIT_TYPES))
      .option("--query <text>", "only benefits whose description contains the text"),
  )
    .addHelpText("after", examples(["till benefits list", "till benefits list --type license_keys --json"]))
    .action(withContext(list));

  benefits
    .command("get")
    .description("show a benefit and its properties")
    .argument("<id>", "the benefit's id", parseId)
    .addHelpText("after", examples(["till benefits get <id>", "till benefits get <id> --json"]))
    .action(withContext(get));

  propertyOptions(
    benefits
      .command("create")
      .description("create a benefit of a type with its properties")
      .argument("<type>", CLI_BENEFIT_TYPES.join(", "), oneOf(CLI_BENEFIT_TYPES))
      .requiredOption("--description <text>", "what the customer gets, 3 to 42 characters"),
  )
    .addHelpText(
      "after",
      examples([
        "till benefits create custom --description \"Priority support\" --note \"Write to vip@acme.test\"",
        "till benefits create license_keys --description \"License key\" --prefix ACME --expires 1y --activations 3 --customer-admin",
        "till benefits create meter_credit --description \"1000 API calls\" --meter <id> --units 1000 --rollover",
        "till benefits create meter_credit --description \"100 credits a month\" --meter <id> --units 100 --schedule monthly",
        "till benefits create meter_credit --description \"Credits per $1\" --meter <id> --units 10 --per-amount 100 --min-units 20",
        "till benefits create downloadables --description \"E-book files\" --file <file-id> --file <file-id>",
        "till benefits create github_repository --description \"Source access\" --repository acme/sdk --permission pull",
        "till benefits create discord --description \"Community\" --guild-token <token> --role <role-id>",
        "till benefits create custom --description \"Support\" --properties '{\"note\":\"Email us\"}'",
      ]),
    )
    .action(withContext(create));

  propertyOptions(
    benefits
      .command("update")
      .description("change a benefit's description, metadata or properties (its type stays)")
      .argument("<id>", "the benefit's id", parseId)
      .option("--description <text>", "what the customer gets, 3 to 42 characters"),
  )
    .addHelpText("after", examples(["till benefits update <id> --description \"Premium support\"", "till benefits update <id> --activations 5"]))
    .action(withContext(update));

  benefits
    .command("delete")
    .description("delete a benefit; customers who have it lose it")
    .argument("<id>", "the benefit's id", parseId)
    .addHelpText("after", examples(["till benefits delete <id>"]))
    .action(withContext(remove));

  registerDelivery(benefits);
}
