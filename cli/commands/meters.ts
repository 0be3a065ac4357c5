// `till meters list|get|create|update|archive|quantities|alerts`: meters count usage events (/v1/meters). A meter
// selects events with a filter (--event-name for the common case, --filter for any /v1 filter JSON) and
// measures them with one aggregation (--count, --sum <property>, --max, --min, --avg, --unique).
// `quantities` draws the usage per bucket as a bar chart on a terminal; --json prints the API's answer.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import {
  collect,
  collectCustomer,
  collectMetadata,
  oneOf,
  onlyWith,
  parseDateTime,
  parseId,
  parsePositive,
  readJsonObjectFlag,
  type MetadataValue,
} from "../flags.js";
import { customerIdOf } from "./customers.js";
import { registerAlerts } from "./meter-alerts.js";
import { changes, day, describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";

const UNITS = ["scalar", "token", "custom"] as const;
const BUCKETS = ["hour", "day", "week", "month", "year"] as const;
type Bucket = (typeof BUCKETS)[number];
/** The aggregations that take a property, in the order their flags are listed. */
const PROPERTY_AGGREGATIONS = ["sum", "max", "min", "avg", "unique"] as const;

interface Clause {
  property: string;
  operator: string;
  value: string | number | boolean;
}
interface Filter {
  conjunction: "and" | "or";
  clauses: Array<Clause | Filter>;
}

export interface WireMeter {
  id: string;
  name: string;
  unit: string;
  custom_label: string | null;
  custom_multiplier: number | null;
  filter: Filter;
  aggregation: { func: string; property?: string };
  metadata: Record<string, MetadataValue>;
  archived_at: string | null;
  created_at: string;
}

export interface WireQuantities {
  quantities: { timestamp: string; quantity: number }[];
  total: number;
}

const OPERATORS: Record<string, string> = { eq: "=", ne: "!=", gt: ">", gte: ">=", lt: "<", lte: "<=", like: "like", not_like: "not like" };

/** `name = "api_call" and (metadata.model = "gpt" or …)` */
export function describeFilter(f: Filter, nested = false): string {
  if (f.clauses.length === 0) return nested ? "()" : "every event";
  const parts = f.clauses.map((c) =>
    "clauses" in c ? describeFilter(c, true) : `${c.property} ${OPERATORS[c.operator] ?? c.operator} ${JSON.stringify(c.value)}`,
  );
  const text = parts.join(` ${f.conjunction} `);
  return nested && parts.length > 1 ? `(${text})` : text;
}

const describeAggregation = (a: WireMeter["aggregation"]) => (a.property ? `${a.func}(${a.property})` : a.func);

interface DefinitionFlags {
  eventName?: string;
  filter?: string;
  count?: boolean;
  sum?: string;
  max?: string;
  min?: string;
  avg?: string;
  unique?: string;
  unit?: (typeof UNITS)[number];
  label?: string;
  multiplier?: number;
  metadata?: Record<string, MetadataValue>;
}

/** --event-name or --filter, checked for the shape the server expects (its rules are the server's). */
function filterFrom(o: DefinitionFlags): Filter | undefined {
  if (o.eventName !== undefined && o.filter !== undefined) throw new UsageError("--event-name and --filter: choose one (put the name in the filter)");
  if (o.eventName !== undefined) {
    if (o.eventName.trim() === "") throw new UsageError("--event-name: expected the name of the events to count");
    return { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: o.eventName }] };
  }
  if (o.filter === undefined) return undefined;
  const f = readJsonObjectFlag("--filter", o.filter);
  if (!["and", "or"].includes(f.conjunction as string) || !Array.isArray(f.clauses)) {
    throw new UsageError('--filter: expected {"conjunction":"and"|"or","clauses":[{"property":…,"operator":"eq",…,"value":…}]}');
  }
  return f as unknown as Filter;
}

function aggregationFrom(o: DefinitionFlags): WireMeter["aggregation"] | undefined {
  const given = [
    ...(o.count ? [{ flag: "--count", func: "count", property: undefined }] : []),
    ...PROPERTY_AGGREGATIONS.flatMap((func) => (o[func] !== undefined ? [{ flag: `--${func}`, func, property: o[func] }] : [])),
  ];
  if (given.length > 1) throw new UsageError(`${given.map((g) => g.flag).join(" and ")}: a meter has one aggregation`);
  const [a] = given;
  if (!a) return undefined;
  return a.property === undefined ? { func: a.func } : { func: a.func, property: a.property };
}

/** --unit, --label, --multiplier; a --label alone means a custom unit. */
function unitFields(o: DefinitionFlags) {
  const unit = o.unit ?? (o.label !== undefined ? "custom" : undefined);
  if (unit !== undefined && unit !== "custom") onlyWith({ "--label": o.label, "--multiplier": o.multiplier }, "--unit custom");
  if (unit === "custom" && o.label === undefined) throw new UsageError("--unit custom: needs --label <name of the unit>");
  return { unit, custom_label: o.label, custom_multiplier: o.multiplier };
}

async function list(ctx: Context, opts: ListOptions & { query?: string; archived?: boolean }) {
  await listResource<WireMeter>(ctx, opts, {
    path: "/meters/",
    noun: "meters",
    query: { query: opts.query, is_archived: opts.archived ? "true" : "false" },
    columns: [
      { header: "ID", value: (m) => m.id },
      { header: "NAME", value: (m) => m.name },
      { header: "AGGREGATION", value: (m) => describeAggregation(m.aggregation) },
      { header: "FILTER", value: (m) => describeFilter(m.filter) },
    ],
    empty: opts.archived ? "No archived meters." : "No meters yet: create one with `till meters create <name> --event-name <event> --count`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const m = await ctx.out.loading("Loading meter", v1(ctx).get<WireMeter>(`/meters/${id}`));
  await ctx.out.record(m, [
    { label: "ID", value: m.id },
    { label: "Name", value: m.name },
    { label: "Filter", value: describeFilter(m.filter) },
    { label: "Aggregation", value: describeAggregation(m.aggregation) },
    { label: "Unit", value: m.unit === "custom" ? `${m.custom_label ?? ""} (×${m.custom_multiplier ?? 1})` : m.unit },
    { label: "Archived", value: m.archived_at ? day(m.archived_at) : "no" },
    { label: "Metadata", value: describeMetadata(m.metadata) },
    { label: "Created", value: day(m.created_at) },
  ]);
}

async function create(ctx: Context, opts: DefinitionFlags, [name = ""]: string[]) {
  const filter = filterFrom(opts);
  if (!filter) throw new UsageError("a meter needs the events it counts: --event-name <name> or --filter <json>");
  const aggregation = aggregationFrom(opts);
  if (!aggregation) throw new UsageError("a meter needs an aggregation: --count, --sum <property>, --max, --min, --avg or --unique <property>");
  const body = { name, filter, aggregation, ...unitFields(opts), metadata: opts.metadata };
  const m = await ctx.out.loading("Creating meter", v1(ctx).send<WireMeter>("POST", "/meters/", body));
  ctx.out.done(m, `Created meter ${m.name} (${m.id}): ${describeAggregation(m.aggregation)} of ${describeFilter(m.filter)}.`);
}

async function update(ctx: Context, opts: DefinitionFlags & { name?: string }, [id = ""]: string[]) {
  const body = changes(
    { name: opts.name, filter: filterFrom(opts), aggregation: aggregationFrom(opts), ...unitFields(opts), metadata: opts.metadata },
    "--name, --event-name, --filter, an aggregation flag, --unit or --metadata",
  );
  const m = await ctx.out.loading("Updating meter", v1(ctx).send<WireMeter>("PATCH", `/meters/${id}`, body));
  ctx.out.done(m, `Updated meter ${m.name} (${m.id}).`);
}

async function archive(ctx: Context, _opts: object, [id = ""]: string[]) {
  const m = await ctx.out.loading("Archiving meter", v1(ctx).send<WireMeter>("PATCH", `/meters/${id}`, { is_archived: true }));
  ctx.out.done(m, `Archived meter ${m.name} (${m.id}).`);
}

// ---- quantities --------------------------------------------------------------------------------------

/** How far back --start goes by default: enough buckets for a useful chart. */
const DEFAULT_SPAN: Record<Bucket, (end: Date) => Date> = {
  hour: (e) => new Date(e.getTime() - 24 * 3_600_000),
  day: (e) => new Date(e.getTime() - 30 * 86_400_000),
  week: (e) => new Date(e.getTime() - 12 * 7 * 86_400_000),
  month: (e) => new Date(Date.UTC(e.getUTCFullYear() - 1, e.getUTCMonth(), 1)),
  year: (e) => new Date(Date.UTC(e.getUTCFullYear() - 4, 0, 1)),
};

/** A bucket's start as read in `timeZone`: "2025-01-31" (day, week), "2025-01-31 13:00" (hour), "2025-01", "2025". */
export function bucketLabel(iso: string, interval: Bucket, timeZone: string): string {
  let parts: Record<string, string>;
  try {
    const fmt = new Intl.DateTimeFormat("en", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", hourCycle: "h23" });
    parts = Object.fromEntries(fmt.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  } catch {
    return iso;
  }
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  switch (interval) {
    case "hour":
      return `${date} ${parts.hour}:00`;
    case "month":
      return `${parts.year}-${parts.month}`;
    case "year":
      return parts.year ?? iso;
    default:
      return date;
  }
}

const number = (n: number) => n.toLocaleString("en", { maximumFractionDigits: 6 });

interface QuantityFlags {
  start?: string;
  end?: string;
  interval: Bucket;
  timezone?: string;
  customer?: string[];
  externalCustomer?: string[];
}

async function quantities(ctx: Context, opts: QuantityFlags, [id = ""]: string[]) {
  const end = opts.end ?? new Date().toISOString();
  const start = opts.start ?? DEFAULT_SPAN[opts.interval](new Date(end)).toISOString();
  if (Date.parse(start) >= Date.parse(end)) throw new UsageError("--start: must be before --end");
  const timezone = opts.timezone ?? "UTC";
  const qs = new URLSearchParams({ start_timestamp: start, end_timestamp: end, interval: opts.interval, timezone });
  for (const c of opts.customer ?? []) qs.append("customer_id", await customerIdOf(ctx, c));
  for (const c of opts.externalCustomer ?? []) qs.append("external_customer_id", c);
  const q = await ctx.out.loading("Loading quantities", v1(ctx).get<WireQuantities>(`/meters/${id}/quantities?${qs}`));
  if (ctx.out.json) return ctx.out.printJson(q);
  if (q.quantities.length === 0) return ctx.out.info("No buckets in that period.");
  const bars = q.quantities.map((b) => ({ label: bucketLabel(b.timestamp, opts.interval, timezone), value: b.quantity, shown: number(b.quantity) }));
  if (!ctx.out.interactive) {
    // a pipe: one "timestamp<TAB>quantity" line per bucket, for sort/awk/gnuplot
    return ctx.out.done(q, q.quantities.map((b) => `${b.timestamp}\t${b.quantity}`).join("\n"));
  }
  await ctx.out.ui();
  const { renderBarChart } = await import("../ui/BarChart.js");
  ctx.out.done(q, renderBarChart(bars, process.stdout.columns || 100, number(q.total)));
}

function definitionOptions(cmd: Command): Command {
  return cmd
    .option("--event-name <name>", "count events with this name")
    .option("--filter <json>", "which events, as /v1 filter JSON (inline, @file or @-) instead of --event-name")
    .option("--count", "aggregation: the number of events")
    .option("--sum <property>", "aggregation: the sum of a property (metadata.<key> or a metadata key)")
    .option("--max <property>", "aggregation: the largest value of a property")
    .option("--min <property>", "aggregation: the smallest value of a property")
    .option("--avg <property>", "aggregation: the average of a property")
    .option("--unique <property>", "aggregation: the number of distinct values of a property")
    .option("--unit <unit>", `${UNITS.join(", ")} (default scalar)`, oneOf(UNITS))
    .option("--label <name>", "--unit custom: the unit's name (\"credits\")")
    .option("--multiplier <n>", "--unit custom: how many units one counted unit is worth", parsePositive)
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const meters = program
    .command("meters")
    .description("list, create, update and archive meters; chart their usage")
    .addHelpText(
      "after",
      examples([
        "till meters list",
        "till meters create \"API calls\" --event-name api_call --count",
        "till meters quantities <id> --interval day",
        "till meters archive <id>",
      ]),
    );

  listOptions(
    meters
      .command("list")
      .alias("ls")
      .description("list meters (active ones unless --archived)")
      .option("--query <text>", "only meters whose name contains the text")
      .option("--archived", "archived meters instead of active ones"),
  )
    .addHelpText("after", examples(["till meters list", "till meters list --all --json"]))
    .action(withContext(list));

  meters
    .command("get")
    .description("show a meter's filter and aggregation")
    .argument("<id>", "the meter's id", parseId)
    .addHelpText("after", examples(["till meters get <id>", "till meters get <id> --json"]))
    .action(withContext(get));

  definitionOptions(meters.command("create").description("create a meter").argument("<name>", "the meter's name"))
    .addHelpText(
      "after",
      examples([
        "till meters create \"API calls\" --event-name api_call --count",
        "till meters create Tokens --event-name llm --sum metadata.tokens --unit token",
        "till meters create Credits --event-name job --sum cost --unit custom --label credits --multiplier 10",
        `till meters create "Big uploads" --filter '{"conjunction":"and","clauses":[{"property":"name","operator":"eq","value":"upload"},` +
          `{"property":"size","operator":"gt","value":1000000}]}' --count`,
      ]),
    )
    .action(withContext(create));

  definitionOptions(
    meters
      .command("update")
      .description("change a meter")
      .argument("<id>", "the meter's id", parseId)
      .option("--name <name>", "a new name"),
  )
    .addHelpText("after", examples(["till meters update <id> --name \"API requests\"", "till meters update <id> --sum metadata.units"]))
    .action(withContext(update));

  meters
    .command("archive")
    .description("archive a meter: it stops counting and leaves the lists")
    .argument("<id>", "the meter's id", parseId)
    .addHelpText("after", examples(["till meters archive <id>"]))
    .action(withContext(archive));

  meters
    .command("quantities")
    .description("usage per hour, day, week, month or year: a bar chart on a terminal, the API's JSON with --json")
    .argument("<id>", "the meter's id", parseId)
    .option("--start <date>", "from this date or datetime (default: 30 days, 24 hours, 12 weeks… before --end)", parseDateTime)
    .option("--end <date>", "until this date or datetime (default now)", parseDateTime)
    .option("--interval <interval>", `bucket size: ${BUCKETS.join(", ")}`, oneOf(BUCKETS), "day")
    .option("--timezone <zone>", "buckets start at midnight in this IANA time zone (default UTC)")
    .option("--customer <id|email>", "only this customer's usage (its id or email), repeatable", collectCustomer)
    .option("--external-customer <id>", "only this customer's usage, by your external id, repeatable", collect)
    .addHelpText(
      "after",
      examples([
        "till meters quantities <id>",
        "till meters quantities <id> --start 2025-01-01 --end 2025-02-01 --interval week",
        "till meters quantities <id> --interval hour --customer <customer-id> --json",
      ]) + "\nOn a pipe: one \"<bucket start>\\t<quantity>\" line per bucket.\n",
    )
    .action(withContext(quantities));

  registerAlerts(meters);
}
