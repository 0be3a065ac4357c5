// `till custom-fields list|get|create|update|delete`: extra questions a checkout asks (/v1/custom-fields).
// Types text, number, date, checkbox and select, with their properties as flags (--label, --help-text,
// --placeholder; text --textarea/--min-length/--max-length; number and date --ge/--le; select --option)
// or --properties JSON. An update keeps the properties no flag names.
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import {
  collectMetadata,
  oneOf,
  onlyWith,
  parseId,
  parseInteger,
  parseNonNegative,
  readJsonObjectFlag,
  type MetadataValue,
} from "../flags.js";
import { changes, day, describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";
import { slugify } from "./orgs.js";
import { markRepeatable } from "../repeated-flags.js";

export const FIELD_TYPES = ["text", "number", "date", "checkbox", "select"] as const;
type FieldType = (typeof FIELD_TYPES)[number];

export interface WireCustomField {
  id: string;
  type: string;
  slug: string;
  name: string;
  metadata: Record<string, MetadataValue>;
  properties: Record<string, unknown>;
  created_at: string;
}

interface FieldFlags {
  slug?: string;
  label?: string;
  helpText?: string;
  placeholder?: string;
  textarea?: boolean;
  minLength?: number;
  maxLength?: number;
  ge?: number;
  le?: number;
  option?: { value: string; label: string }[];
  properties?: string;
  metadata?: Record<string, MetadataValue>;
}

/** Repeated `--option value=Label` (or just `value`, its own label). */
function collectOption(value: string, previous: { value: string; label: string }[] = []) {
  const i = value.indexOf("=");
  const v = (i < 0 ? value : value.slice(0, i)).trim();
  const label = (i < 0 ? value : value.slice(i + 1)).trim();
  if (!v || !label) throw new InvalidArgumentError("expected value=Label (or just value), such as eu=Europe.");
  return [...previous, { value: v, label }];
}

/** The properties of `type`: `current` (update) or --properties, then the flags. */
function buildProperties(type: FieldType, o: FieldFlags, current: Record<string, unknown>): Record<string, unknown> | undefined {
  if (type !== "text") onlyWith({ "--textarea": o.textarea, "--min-length": o.minLength, "--max-length": o.maxLength }, "text fields");
  if (type !== "number" && type !== "date") onlyWith({ "--ge": o.ge, "--le": o.le }, "number and date fields");
  if (type !== "select") onlyWith({ "--option": o.option }, "select fields");
  const flags: Record<string, unknown> = {
    form_label: o.label,
    form_help_text: o.helpText,
    form_placeholder: o.placeholder,
    textarea: o.textarea,
    min_length: o.minLength,
    max_length: o.maxLength,
    ge: o.ge,
    le: o.le,
    options: o.option,
  };
  const fromJson = o.properties !== undefined ? readJsonObjectFlag("--properties", o.properties) : undefined;
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  if (!fromJson && Object.keys(given).length === 0) return undefined;
  return { ...current, ...fromJson, ...given };
}

function describeProperties(f: WireCustomField): string {
  const p = f.properties;
  const parts: string[] = [];
  if (Array.isArray(p.options)) parts.push(`options: ${(p.options as { value: string; label: string }[]).map((o) => `${o.value}=${o.label}`).join(", ")}`);
  for (const [k, v] of Object.entries(p)) if (k !== "options") parts.push(`${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  return parts.join("; ") || "none";
}

async function list(ctx: Context, opts: ListOptions & { type?: string; query?: string }) {
  await listResource<WireCustomField>(ctx, opts, {
    path: "/custom-fields/",
    noun: "custom fields",
    query: { type: opts.type, query: opts.query },
    columns: [
      { header: "ID", value: (f) => f.id },
      { header: "SLUG", value: (f) => f.slug },
      { header: "NAME", value: (f) => f.name },
      { header: "TYPE", value: (f) => f.type },
    ],
    empty: "No custom fields yet: create one with `till custom-fields create <type> --name <name>`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const f = await ctx.out.loading("Loading custom field", v1(ctx).get<WireCustomField>(`/custom-fields/${id}`));
  await ctx.out.record(f, [
    { label: "ID", value: f.id },
    { label: "Slug", value: f.slug },
    { label: "Name", value: f.name },
    { label: "Type", value: f.type },
    { label: "Properties", value: describeProperties(f) },
    { label: "Metadata", value: describeMetadata(f.metadata) },
    { label: "Created", value: day(f.created_at) },
  ]);
}

async function create(ctx: Context, opts: FieldFlags & { name: string }, [type = ""]: string[]) {
  const t = type as FieldType;
  const properties = buildProperties(t, opts, {}) ?? {};
  if (t === "select" && !Array.isArray(properties.options)) throw new UsageError("select fields need --option <value=Label> (repeatable)");
  const slug = opts.slug ?? slugify(opts.name).replace(/-/g, "_");
  if (!slug) throw new UsageError(`--name: "${opts.name}" gives no usable slug; pass --slug <slug>`);
  const body = { type: t, slug, name: opts.name, properties, metadata: opts.metadata };
  const f = await ctx.out.loading("Creating custom field", v1(ctx).send<WireCustomField>("POST", "/custom-fields/", body));
  ctx.out.done(f, `Created ${f.type} field ${f.name} (${f.slug}, ${f.id}).`);
}

async function update(ctx: Context, opts: FieldFlags & { name?: string }, [id = ""]: string[]) {
  const client = v1(ctx);
  // the server needs the type with every update; properties not named by a flag stay as they are
  const current = await ctx.out.loading("Loading custom field", client.get<WireCustomField>(`/custom-fields/${id}`));
  const type = current.type as FieldType;
  const body = changes(
    { slug: opts.slug, name: opts.name, properties: buildProperties(type, opts, current.properties), metadata: opts.metadata },
    "--name, --slug, --metadata, --properties or a property flag (see --help)",
  );
  const f = await ctx.out.loading("Updating custom field", client.send<WireCustomField>("PATCH", `/custom-fields/${id}`, { type, ...body }));
  ctx.out.done(f, `Updated ${f.type} field ${f.name} (${f.slug}, ${f.id}).`);
}

async function remove(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Deleting custom field", v1(ctx).send("DELETE", `/custom-fields/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted custom field ${id}.`);
}

function fieldOptions(cmd: Command): Command {
  return cmd
    .option("--slug <slug>", "the key its answers are stored under (letters, digits, - and _; default: from the name)")
    .option("--label <text>", "the label shown at checkout (default: the name)")
    .option("--help-text <text>", "a hint shown under the field")
    .option("--placeholder <text>", "placeholder text")
    .option("--textarea", "text: several lines")
    .option("--min-length <n>", "text: the shortest answer", parseNonNegative)
    .option("--max-length <n>", "text: the longest answer", parseNonNegative)
    .option("--ge <n>", "number and date: the smallest value (dates as Unix timestamps)", parseInteger)
    .option("--le <n>", "number and date: the largest value", parseInteger)
    .option("--option <value=Label>", "select: a choice, repeatable", collectOption)
    .option("--properties <json>", "the type's properties as JSON (inline, @file or @-); flags win over its keys")
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const fields = program
    .command("custom-fields")
    .description("list, create, update and delete custom checkout fields")
    .addHelpText(
      "after",
      examples([
        "till custom-fields list",
        "till custom-fields create text --name Company --max-length 100",
        "till custom-fields update <id> --help-text \"As on your invoices\"",
        "till custom-fields delete <id>",
      ]),
    );

  listOptions(
    fields
      .command("list")
      .alias("ls")
      .description("list custom fields")
      .option("--type <type>", `only fields of this type: ${FIELD_TYPES.join(", ")}`, oneOf(FIELD_TYPES))
      .option("--query <text>", "only fields whose name or slug contains the text"),
  )
    .addHelpText("after", examples(["till custom-fields list", "till custom-fields list --type select --json"]))
    .action(withContext(list));

  fields
    .command("get")
    .description("show a custom field")
    .argument("<id>", "the field's id", parseId)
    .addHelpText("after", examples(["till custom-fields get <id>", "till custom-fields get <id> --json"]))
    .action(withContext(get));

  fieldOptions(
    fields
      .command("create")
      .description("create a custom field")
      .argument("<type>", FIELD_TYPES.join(", "), oneOf(FIELD_TYPES))
      .requiredOption("--name <name>", "the field's name"),
  )
    .addHelpText(
      "after",
      examples([
        "till custom-fields create text --name Company --placeholder \"Acme Inc\" --max-length 100",
        "till custom-fields create number --name Seats --ge 1 --le 500",
        "till custom-fields create checkbox --name \"Accept terms\" --slug terms",
        "till custom-fields create select --name Region --option eu=Europe --option us=\"United States\"",
      ]),
    )
    .action(withContext(create));

  fieldOptions(
    fields
      .command("update")
      .description("change a custom field (its type stays)")
      .argument("<id>", "the field's id", parseId)
      .option("--name <name>", "a new name"),
  )
    .addHelpText("after", examples(["till custom-fields update <id> --name \"Company name\"", "till custom-fields update <id> --option a=A --option b=B"]))
    .action(withContext(update));

  fields
    .command("delete")
    .description("delete a custom field")
    .argument("<id>", "the field's id", parseId)
    .addHelpText("after", examples(["till custom-fields delete <id>"]))
    .action(withContext(remove));
}

markRepeatable(collectOption);
