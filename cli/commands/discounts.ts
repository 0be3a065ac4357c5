// `till discounts list|get|create|update|delete`: discount codes and automatic discounts (/v1/discounts).
// A discount takes a fixed amount off (--amount in minor units, --currency) or a percentage (--percent 25
// → 2500 basis points), once, forever, or for --months N months.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import {
  collectId,
  collectMetadata,
  oneOf,
  parseAmount,
  parseCurrency,
  parseDateTime,
  parseId,
  parsePercent,
  parsePositive,
  type MetadataValue,
} from "../flags.js";
import { changes, day, describeMetadata, listOptions, listResource, money, type ListOptions } from "../resources.js";

const DURATIONS = ["once", "forever", "repeating"] as const;

export interface WireDiscount {
  id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  amount?: number;
  currency?: string;
  basis_points?: number;
  duration: string;
  duration_in_months?: number;
  starts_at: string | null;
  ends_at: string | null;
  max_redemptions: number | null;
  redemptions_count: number;
  metadata: Record<string, MetadataValue>;
  products: { id: string; name: string }[];
  created_at: string;
}

const describeAmount = (d: WireDiscount) =>
  d.type === "percentage" ? `${(d.basis_points ?? 0) / 100}%` : money(d.amount ?? 0, d.currency ?? "usd");

const describeDuration = (d: WireDiscount) =>
  d.duration === "repeating" ? `${d.duration_in_months ?? 1} month${d.duration_in_months === 1 ? "" : "s"}` : d.duration;

interface DiscountFlags {
  amount?: number;
  currency?: string;
  percent?: number;
  duration?: (typeof DURATIONS)[number];
  months?: number;
  code?: string;
  startsAt?: string;
  endsAt?: string;
  maxRedemptions?: number;
  product?: string[];
  metadata?: Record<string, MetadataValue>;
}

/** The amount, duration and limits the flags give (create and update share them). */
function discountFields(o: DiscountFlags) {
  if (o.amount !== undefined && o.percent !== undefined) throw new UsageError("--amount and --percent: a discount is either fixed or a percentage");
  if (o.currency !== undefined && o.percent !== undefined) throw new UsageError("--currency: only with --amount");
  if (o.months !== undefined && o.duration !== undefined && o.duration !== "repeating") {
    throw new UsageError(`--months: only with --duration repeating (not ${o.duration})`);
  }
  // --months alone means repeating
  const duration = o.months !== undefined ? "repeating" : o.duration;
  if (duration === "repeating" && o.months === undefined) throw new UsageError("--duration repeating: needs --months <n>");
  if (o.startsAt && o.endsAt && Date.parse(o.endsAt) <= Date.parse(o.startsAt)) throw new UsageError("--ends-at: must be after --starts-at");
  if (o.code !== undefined && !/^[A-Za-z0-9]{3,256}$/.test(o.code)) {
    throw new UsageError(`--code: expected 3 to 256 letters or digits, got "${o.code}"`);
  }
  return {
    amount: o.amount,
    currency: o.currency,
    basis_points: o.percent,
    duration,
    duration_in_months: o.months,
    code: o.code,
    starts_at: o.startsAt,
    ends_at: o.endsAt,
    max_redemptions: o.maxRedemptions,
    products: o.product,
    metadata: o.metadata,
  };
}

async function list(ctx: Context, opts: ListOptions & { query?: string }) {
  await listResource<WireDiscount>(ctx, opts, {
    path: "/discounts/",
    noun: "discounts",
    query: { query: opts.query },
    columns: [
      { header: "ID", value: (d) => d.id },
      { header: "NAME", value: (d) => d.name },
      { header: "CODE", value: (d) => d.code ?? "" },
      { header: "DISCOUNT", value: describeAmount },
      { header: "DURATION", value: describeDuration },
      { header: "REDEEMED", value: (d) => `${d.redemptions_count}${d.max_redemptions !== null ? `/${d.max_redemptions}` : ""}` },
    ],
    empty: "No discounts yet: create one with `till discounts create <name> --percent 25`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const d = await ctx.out.loading("Loading discount", v1(ctx).get<WireDiscount>(`/discounts/${id}`));
  await ctx.out.record(d, [
    { label: "ID", value: d.id },
    { label: "Name", value: d.name },
    { label: "Code", value: d.code ?? "none (applied by link or API)" },
    { label: "Discount", value: describeAmount(d) },
    { label: "Duration", value: describeDuration(d) },
    { label: "Valid", value: d.starts_at || d.ends_at ? `${day(d.starts_at) || "now"} to ${day(d.ends_at) || "no end"}` : "always" },
    { label: "Redeemed", value: `${d.redemptions_count}${d.max_redemptions !== null ? ` of ${d.max_redemptions}` : ""}` },
    { label: "Products", value: d.products.length > 0 ? d.products.map((p) => `${p.name} (${p.id})`).join("; ") : "all" },
    { label: "Metadata", value: describeMetadata(d.metadata) },
  ]);
}

async function create(ctx: Context, opts: DiscountFlags, [name = ""]: string[]) {
  if (opts.amount === undefined && opts.percent === undefined) {
    throw new UsageError("a discount needs --amount <minor units> (fixed, with --currency) or --percent <n>");
  }
  const fields = discountFields(opts);
  const body = {
    name,
    type: opts.percent !== undefined ? "percentage" : "fixed",
    ...fields,
    currency: opts.percent === undefined ? (opts.currency ?? "usd") : undefined,
    duration: fields.duration ?? "once",
  };
  const d = await ctx.out.loading("Creating discount", v1(ctx).send<WireDiscount>("POST", "/discounts/", body));
  ctx.out.done(d, `Created discount ${d.name} (${d.id}): ${describeAmount(d)} off, ${describeDuration(d)}${d.code ? `, code ${d.code}` : ""}.`);
}

async function update(ctx: Context, opts: DiscountFlags & { name?: string }, [id = ""]: string[]) {
  const body = changes(
    { name: opts.name, ...discountFields(opts) },
    "--name, --amount, --percent, --duration, --months, --code, --starts-at, --ends-at, --max-redemptions, --product or --metadata",
  );
  const d = await ctx.out.loading("Updating discount", v1(ctx).send<WireDiscount>("PATCH", `/discounts/${id}`, body));
  ctx.out.done(d, `Updated discount ${d.name} (${d.id}).`);
}

async function remove(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Deleting discount", v1(ctx).send("DELETE", `/discounts/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted discount ${id}.`);
}

function discountOptions(cmd: Command): Command {
  return cmd
    .option("--amount <amount>", "a fixed amount off, in minor units (500 = $5.00)", parseAmount)
    .option("--currency <code>", "with --amount: its currency (default usd)", parseCurrency)
    .option("--percent <n>", "a percentage off, such as 25 or 12.5", parsePercent)
    .option("--duration <duration>", "on subscriptions: once, forever or repeating (default once)", oneOf(DURATIONS))
    .option("--months <n>", "repeating: for how many months (implies --duration repeating)", parsePositive)
    .option("--code <code>", "the code customers enter at checkout (3 to 256 letters or digits)")
    .option("--starts-at <date>", "valid from this date or datetime (2025-01-31 or 2025-01-31T09:00:00Z)", parseDateTime)
    .option("--ends-at <date>", "valid until this date or datetime", parseDateTime)
    .option("--max-redemptions <n>", "how many times it can be used in all", parsePositive)
    .option("--product <id>", "only for this product, repeatable (default: every product)", collectId)
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const discounts = program
    .command("discounts")
    .description("list, create, update and delete discounts")
    .addHelpText(
      "after",
      examples([
        "till discounts list",
        "till discounts create \"Launch\" --percent 25 --code LAUNCH25 --max-redemptions 100",
        "till discounts update <id> --ends-at 2025-12-31",
        "till discounts delete <id>",
      ]),
    );

  listOptions(
    discounts
      .command("list")
      .alias("ls")
      .description("list discounts")
      .option("--query <text>", "only discounts whose name or code contains the text"),
  )
    .addHelpText("after", examples(["till discounts list", "till discounts list --query launch --json"]))
    .action(withContext(list));

  discounts
    .command("get")
    .description("show a discount")
    .argument("<id>", "the discount's id", parseId)
    .addHelpText("after", examples(["till discounts get <id>", "till discounts get <id> --json"]))
    .action(withContext(get));

  discountOptions(discounts.command("create").description("create a discount").argument("<name>", "the discount's name (customers see it)"))
    .addHelpText(
      "after",
      examples([
        "till discounts create \"Launch\" --percent 25 --code LAUNCH25",
        "till discounts create \"Five off\" --amount 500 --currency usd --duration forever",
        "till discounts create \"Winter\" --percent 10 --months 3 --starts-at 2025-12-01 --ends-at 2026-02-28",
        "till discounts create \"Pro only\" --percent 50 --product <id> --max-redemptions 10",
      ]),
    )
    .action(withContext(create));

  discountOptions(
    discounts
      .command("update")
      .description("change a discount")
      .argument("<id>", "the discount's id", parseId)
      .option("--name <name>", "a new name"),
  )
    .addHelpText("after", examples(["till discounts update <id> --max-redemptions 200", "till discounts update <id> --code SPRING --ends-at 2026-04-30"]))
    .action(withContext(update));

  discounts
    .command("delete")
    .description("delete a discount; checkouts can no longer use it")
    .argument("<id>", "the discount's id", parseId)
    .addHelpText("after", examples(["till discounts delete <id>"]))
    .action(withContext(remove));
}
