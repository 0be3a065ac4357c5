// `till products list|get|create|update|archive`: products and their prices on /v1/products. The price flags
// (one per price kind, or --prices as JSON) are price-flags.ts's; how a price reads, ../kinds.ts's.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { ApiError, UsageError } from "../errors.js";
import { collectId, collectMetadata, INTERVALS, oneOf, onlyWith, parseId, parsePositive, parseTrial, type Interval, type MetadataValue } from "../flags.js";
import { describePrice, type WirePrice } from "../kinds.js";
import { changes, day, describeInterval, describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";
import { repeatable } from "../repeated-flags.js";
import { priceOptions, pricesFromFlags, type PriceFlags } from "./price-flags.js";

export interface WireProduct {
  id: string;
  name: string;
  description: string | null;
  visibility: string;
  recurring_interval: string | null;
  recurring_interval_count: number | null;
  trial_interval: string | null;
  trial_interval_count: number | null;
  is_recurring: boolean;
  is_archived: boolean;
  metadata: Record<string, MetadataValue>;
  created_at: string;
  prices: WirePrice[];
  benefits: { id: string; type: string; description: string }[];
  /** till's own: the products offered as add-ons of this one. */
  add_on_ids?: string[];
}

const VISIBILITIES = ["public", "private", "draft"] as const;

// ---- describing ------------------------------------------------------------------------------------

const activePrices = (p: WireProduct) => p.prices.filter((x) => !x.is_archived);

function trialOf(p: WireProduct): string {
  if (!p.trial_interval || !p.trial_interval_count) return "none";
  return `${p.trial_interval_count} ${p.trial_interval}${p.trial_interval_count > 1 ? "s" : ""}`;
}

function productRecord(p: WireProduct) {
  return [
    { label: "ID", value: p.id },
    { label: "Name", value: p.name },
    ...(p.description ? [{ label: "Description", value: p.description }] : []),
    { label: "Prices", value: activePrices(p).map(describePrice).join("; ") || "none" },
    { label: "Billing", value: describeInterval(p.recurring_interval, p.recurring_interval_count) },
    ...(p.is_recurring ? [{ label: "Trial", value: trialOf(p) }] : []),
    { label: "Visibility", value: p.visibility },
    { label: "Archived", value: p.is_archived ? "yes" : "no" },
    ...(p.add_on_ids?.length ? [{ label: "Add-ons", value: p.add_on_ids.join(", ") }] : []),
    { label: "Benefits", value: p.benefits.map((b) => `${b.description} (${b.type}, ${b.id})`).join("; ") || "none" },
    { label: "Metadata", value: describeMetadata(p.metadata) },
    { label: "Created", value: day(p.created_at) },
  ];
}

// ---- commands ----------------------------------------------------------------------------------------

interface ProductFlags extends PriceFlags {
  description?: string;
  visibility?: string;
  recurring?: Interval;
  intervalCount?: number;
  trial?: { interval: Interval; count: number } | null;
  metadata?: Record<string, MetadataValue>;
  benefit?: string[];
}

function trialFields(trial: ProductFlags["trial"]) {
  if (trial === undefined) return {};
  return { trial_interval: trial?.interval ?? null, trial_interval_count: trial?.count ?? null };
}

async function list(ctx: Context, opts: ListOptions & { query?: string; archived?: boolean; recurring?: boolean; oneTime?: boolean }) {
  if (opts.recurring && opts.oneTime) throw new UsageError("--recurring and --one-time: choose one");
  await listResource<WireProduct>(ctx, opts, {
    path: "/products/",
    noun: "products",
    query: {
      query: opts.query,
      is_archived: opts.archived ? "true" : "false",
      is_recurring: opts.recurring ? "true" : opts.oneTime ? "false" : undefined,
    },
    columns: [
      { header: "ID", value: (p) => p.id },
      { header: "NAME", value: (p) => p.name },
      { header: "BILLING", value: (p) => describeInterval(p.recurring_interval, p.recurring_interval_count) },
      { header: "PRICES", value: (p) => activePrices(p).map(describePrice).join("; ") },
    ],
    empty: opts.archived ? "No archived products." : "No products yet: create one with `till products create <name> --price <amount>`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const product = await ctx.out.loading("Loading product", v1(ctx).get<WireProduct>(`/products/${id}`));
  await ctx.out.record(product, productRecord(product));
}

async function create(ctx: Context, opts: ProductFlags, [name = ""]: string[]) {
  const prices = pricesFromFlags(opts);
  if (!prices) {
    throw new UsageError("a product needs a price: --price <amount>, --custom-price, --free, --seat-tier <tier>, --metered or --prices <json>");
  }
  if (!opts.recurring) {
    onlyWith({ "--interval-count": opts.intervalCount, "--trial": opts.trial }, "--recurring <interval> (one-time products have neither)");
    if (opts.metered || prices.some((p) => p.amount_type === "metered_unit")) {
      throw new UsageError("--metered: usage-based prices need a recurring product: add --recurring <interval>");
    }
  }
  const body = {
    name,
    description: opts.description,
    visibility: opts.visibility,
    recurring_interval: opts.recurring ?? null,
    recurring_interval_count: opts.recurring ? (opts.intervalCount ?? 1) : undefined,
    ...trialFields(opts.trial),
    metadata: opts.metadata,
    prices,
  };
  const client = v1(ctx);
  let product = await ctx.out.loading("Creating product", client.send<WireProduct>("POST", "/products/", body));
  if (opts.benefit) {
    const { id } = product;
    const benefits = opts.benefit;
    product = await ctx.out
      .loading("Adding benefits", client.send<WireProduct>("POST", `/products/${id}/benefits`, { benefits }))
      .catch((err: unknown) => {
        // the product exists by now: say so, and how to finish
        if (!(err instanceof ApiError)) throw err;
        const retry = `till products update ${id} ${benefits.map((b) => `--benefit ${b}`).join(" ")}`;
        throw err.withHint(`product ${id} was created without its benefits; once they are fixed: ${retry}`);
      });
  }
  ctx.out.done(
    product,
    `Created product ${product.name} (${product.id}): ${activePrices(product).map(describePrice).join("; ")}, ` +
      `${describeInterval(product.recurring_interval, product.recurring_interval_count)}.`,
  );
}

async function update(ctx: Context, opts: ProductFlags & { name?: string; addOn?: string[] }, [id = ""]: string[]) {
  if (opts.intervalCount !== undefined && !opts.recurring) throw new UsageError("--interval-count: only with --recurring <interval>");
  const body = changes(
    {
      name: opts.name,
      description: opts.description,
      visibility: opts.visibility,
      recurring_interval: opts.recurring,
      recurring_interval_count: opts.recurring ? (opts.intervalCount ?? 1) : undefined,
      ...trialFields(opts.trial),
      metadata: opts.metadata,
      prices: pricesFromFlags(opts),
      add_on_ids: opts.addOn ? opts.addOn.filter((x) => x !== "none") : undefined,
    },
    "--name, --description, a price flag, --recurring, --trial, --visibility, --metadata, --add-on or --benefit",
    opts.benefit !== undefined,
  );
  const client = v1(ctx);
  let product: WireProduct | undefined;
  if (Object.keys(body).length > 0) product = await ctx.out.loading("Updating product", client.send<WireProduct>("PATCH", `/products/${id}`, body));
  if (opts.benefit) {
    const benefits = opts.benefit.includes("none") ? [] : opts.benefit;
    product = await ctx.out.loading("Updating benefits", client.send<WireProduct>("POST", `/products/${id}/benefits`, { benefits }));
  }
  if (!product) return;
  ctx.out.done(product, `Updated product ${product.name} (${product.id}).`);
}

async function archive(ctx: Context, _opts: object, [id = ""]: string[]) {
  const product = await ctx.out.loading("Archiving product", v1(ctx).send<WireProduct>("PATCH", `/products/${id}`, { is_archived: true }));
  ctx.out.done(product, `Archived product ${product.name} (${product.id}): it can no longer be bought; existing customers keep it.`);
}

/** `--benefit none` (and `--add-on none`) empties the list on update, so the parser lets "none" through. */
const idOrNone = repeatable((value: string, previous: string[] = []) => (value.trim() === "none" ? [...previous, "none"] : collectId(value, previous)));

function productOptions(cmd: Command): Command {
  return cmd
    .option("--description <text>", "a description shown at checkout (markdown)")
    .option("--visibility <visibility>", `${VISIBILITIES.join(", ")} (default public)`, oneOf(VISIBILITIES))
    .option("--recurring <interval>", `a subscription billed every ${INTERVALS.join(", ")} (default: one-time purchase)`, oneOf(INTERVALS))
    .option("--interval-count <n>", "with --recurring: bill every n intervals (default 1)", parsePositive)
    .option("--trial <length>", "a free trial such as 14d, 2w, 1m or 1y (recurring products; none removes it)", parseTrial)
    .option("--metadata <key=value>", "metadata, repeatable; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const products = program
    .command("products")
    .description("list, create, update and archive products and their prices")
    .addHelpText(
      "after",
      examples([
        "till products list",
        "till products create Pro --price 1999 --recurring month --trial 14d",
        "till products update <id> --price 2499",
        "till products archive <id>",
      ]) + "\nAmounts are whole numbers in the currency's smallest unit: 1999 is $19.99, 500 jpy is ¥500.\n",
    );

  listOptions(
    products
      .command("list")
      .alias("ls")
      .description("list products (active ones unless --archived)")
      .option("--query <text>", "only products whose name contains the text")
      .option("--archived", "archived products instead of active ones")
      .option("--recurring", "only subscriptions")
      .option("--one-time", "only one-time purchases"),
  )
    .addHelpText("after", examples(["till products list", "till products list --recurring --all", "till products list --query pro --json"]))
    .action(withContext(list));

  products
    .command("get")
    .description("show a product with its prices and benefits")
    .argument("<id>", "the product's id", parseId)
    .addHelpText("after", examples(["till products get <id>", "till products get <id> --json"]))
    .action(withContext(get));

  priceOptions(productOptions(products.command("create").description("create a product with its price(s)").argument("<name>", "the product's name")), "with")
    .option("--benefit <id>", "grant a benefit with the product, repeatable", collectId)
    .addHelpText(
      "after",
      examples([
        "till products create \"E-book\" --price 1999",
        "till products create Pro --price 999 --recurring month --trial 14d --benefit <id>",
        "till products create Tip --custom-price --min 500 --max 10000 --preset 1500",
        "till products create Starter --free --recurring month",
        "till products create API --recurring month --metered --meter <id> --unit-amount 0.5 --cap 10000",
        "till products create API --recurring month --metered --meter <id> --tier 1000:0 --tier 10000:0.2 --tier inf:0.15+500",
        "till products create API --recurring month --price 1000 --metered --meter <id> --unit-amount 0.5",
        "till products create Team --recurring month --seat-tier 1-10:1000 --seat-tier 11+:800",
        "till products create Pro --price 1999 --currency eur --metadata plan=pro --metadata seats:=5",
        "till products create Pro --prices '[{\"amount_type\":\"fixed\",\"price_amount\":1999}]'",
      ]) +
        "\nOne static price (--price, --custom-price, --free or --seat-tier) per product and currency, plus any\n" +
        "--metered price on recurring products. Amounts are whole minor units: 1999 is $19.99.\n",
    )
    .action(withContext(create));

  priceOptions(
    productOptions(
      products
        .command("update")
        .description("change a product; price flags replace its prices, --benefit its benefits")
        .argument("<id>", "the product's id", parseId)
        .option("--name <name>", "a new name"),
    ),
    "replace the prices with",
  )
    .option("--benefit <id>", "the product's benefits, repeatable; replaces the current ones (none removes all)", idOrNone)
    .option("--add-on <id>", "a product offered as an add-on of this one (same interval), repeatable; replaces the current ones (none removes all)", idOrNone)
    .addHelpText(
      "after",
      examples([
        "till products update <id> --name \"Pro plan\" --description \"Everything in Pro\"",
        "till products update <id> --price 2499",
        "till products update <id> --trial none",
        "till products update <id> --benefit <benefit-id> --benefit <benefit-id>",
        "till products update <id> --add-on <product-id> --add-on <product-id>",
      ]) + "\nPrices given replace the current ones (those are archived: existing subscriptions keep them).\n" +
        "Add-ons are bought with the product at checkout and added to its subscriptions later (`till subscriptions update --add-on`).\n",
    )
    .action(withContext(update));

  products
    .command("archive")
    .description("archive a product: no new purchases; existing customers keep it")
    .argument("<id>", "the product's id", parseId)
    .addHelpText("after", examples(["till products archive <id>"]))
    .action(withContext(archive));
}
