// `till checkout-links list|get|create|update|delete`: shareable links (/v1/checkout-links) that open a fresh
// checkout of their products each time someone follows them. `create` prints the link's `url` alone on stdout
// (`LINK=$(till checkout-links create --product <id>)`), the URL a seller puts on a page or in a mail.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { collectId, collectMetadata, parseHttpUrl, parseId, parsePositive, parseTrial, type Interval, type MetadataValue } from "../flags.js";
import { changes, day, describeMetadata, listOptions, listResource, type ListOptions } from "../resources.js";

export interface WireCheckoutLink {
  id: string;
  url: string;
  label: string | null;
  client_secret: string;
  success_url: string | null;
  return_url: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount_id: string | null;
  discount: { id: string; name: string } | null;
  trial_interval: string | null;
  trial_interval_count: number | null;
  seats?: number | null;
  metadata: Record<string, MetadataValue>;
  products: { id: string; name: string; is_archived: boolean }[];
  created_at: string;
}

const productNames = (l: WireCheckoutLink) => l.products.map((p) => (p.is_archived ? `${p.name} (archived)` : p.name)).join(", ");

function linkFields(l: WireCheckoutLink) {
  return [
    { label: "ID", value: l.id },
    { label: "URL", value: l.url },
    { label: "Label", value: l.label ?? "none" },
    { label: "Products", value: l.products.map((p) => `${p.name}${p.is_archived ? " (archived)" : ""} (${p.id})`).join("; ") },
    { label: "Discount", value: l.discount ? `${l.discount.name} (${l.discount.id})` : "none" },
    { label: "Discount codes", value: l.allow_discount_codes ? "accepted" : "not accepted" },
    { label: "Billing address", value: l.require_billing_address ? "required" : "as needed" },
    ...(l.trial_interval && l.trial_interval_count ? [{ label: "Trial", value: `${l.trial_interval_count} ${l.trial_interval}${l.trial_interval_count > 1 ? "s" : ""}` }] : []),
    ...(l.seats ? [{ label: "Seats", value: String(l.seats) }] : []),
    { label: "Success URL", value: l.success_url ?? "the checkout's confirmation page" },
    ...(l.return_url ? [{ label: "Return URL", value: l.return_url }] : []),
    { label: "Metadata", value: describeMetadata(l.metadata) },
    { label: "Created", value: day(l.created_at) },
  ];
}

async function list(ctx: Context, opts: ListOptions & { product?: string }) {
  await listResource<WireCheckoutLink>(ctx, opts, {
    path: "/checkout-links/",
    noun: "checkout links",
    query: { product_id: opts.product, sorting: "-created_at" },
    columns: [
      { header: "ID", value: (l) => l.id },
      { header: "LABEL", value: (l) => l.label ?? "" },
      { header: "PRODUCTS", value: productNames },
      { header: "URL", value: (l) => l.url },
      { header: "CREATED", value: (l) => day(l.created_at) },
    ],
    empty: "No checkout links: make one with `till checkout-links create --product <id>`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const l = await ctx.out.loading("Loading checkout link", v1(ctx).get<WireCheckoutLink>(`/checkout-links/${id}`));
  await ctx.out.record(l, linkFields(l));
}

interface LinkFlags {
  product?: string[];
  label?: string;
  discount?: string | false;
  discountCodes?: boolean;
  requireBillingAddress?: boolean;
  successUrl?: string;
  returnUrl?: string;
  trial?: { interval: Interval; count: number } | null;
  seats?: number;
  metadata?: Record<string, MetadataValue>;
}

/** The body the flags give (create and update share them); undefined leaves a field as it is. */
function linkBody(o: LinkFlags) {
  const dup = o.product?.find((id, i, all) => all.indexOf(id) !== i);
  if (dup) throw new UsageError(`--product: ${dup} is given twice`);
  return {
    products: o.product,
    label: o.label,
    discount_id: o.discount === false ? null : o.discount,
    allow_discount_codes: o.discountCodes,
    require_billing_address: o.requireBillingAddress,
    success_url: o.successUrl,
    return_url: o.returnUrl,
    ...(o.trial === undefined ? {} : { trial_interval: o.trial?.interval ?? null, trial_interval_count: o.trial?.count ?? null }),
    seats: o.seats,
    metadata: o.metadata,
  };
}

async function create(ctx: Context, opts: LinkFlags) {
  if (opts.discount === false) throw new UsageError("--no-discount: only with update (a new link has no discount unless --discount is given)");
  const body = { payment_processor: "stripe", ...linkBody(opts) };
  const l = await ctx.out.loading("Creating checkout link", v1(ctx).send<WireCheckoutLink>("POST", "/checkout-links/", body));
  ctx.out.done(l, l.url);
  ctx.out.info(`Checkout link ${l.id}: ${productNames(l)}; each visit opens a new checkout.`);
}

async function update(ctx: Context, opts: LinkFlags, [id = ""]: string[]) {
  const body = changes(
    linkBody(opts),
    "--product, --label, --discount, --no-discount, --discount-codes, --no-discount-codes, --require-billing-address, --success-url, --return-url, --trial, --seats or --metadata",
  );
  const l = await ctx.out.loading("Updating checkout link", v1(ctx).send<WireCheckoutLink>("PATCH", `/checkout-links/${id}`, body));
  ctx.out.done(l, `Updated checkout link ${l.id} (${l.url}).`);
}

async function remove(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Deleting checkout link", v1(ctx).send("DELETE", `/checkout-links/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted checkout link ${id}: its URL now answers 404; checkouts it opened are kept.`);
}

function linkOptions(cmd: Command, productHelp: string): Command {
  return cmd
    .option("--product <id>", productHelp, collectId)
    .option("--label <text>", "a name for the link, for you (customers do not see it)")
    .option("--discount <id>", "apply this discount to every checkout the link opens", parseId)
    .option("--discount-codes", "let customers enter a discount code (the default)")
    .option("--no-discount-codes", "do not let customers enter a discount code")
    .option("--require-billing-address", "ask for a full billing address")
    .option("--success-url <url>", "where the customer lands after paying ({CHECKOUT_ID} is replaced)", parseHttpUrl)
    .option("--return-url <url>", "where the page's back link leads", parseHttpUrl)
    .option("--trial <length>", "a trial on recurring products: 14d, 2w, 1m, 1y (none: the product's own)", parseTrial)
    .option("--seats <n>", "seats to buy, for seat-based prices", parsePositive)
    .option("--metadata <key=value>", "metadata, repeatable, copied to each checkout; key:=5 or key:=true for a number or boolean", collectMetadata);
}

export function register(program: Command): void {
  const links = program
    .command("checkout-links")
    .description("shareable links that open a new checkout for each visitor")
    .addHelpText(
      "after",
      examples([
        "till checkout-links create --product <id> --label \"Pricing page\"",
        "till checkout-links list",
        "till checkout-links update <id> --discount <discount-id>",
        "till checkout-links delete <id>",
      ]) +
        "\nVisitors may add ?customer_email=, customer_name=, discount_code=, amount= (pay what you want) and\n" +
        "reference_id= or utm_source=… (kept in the checkout's metadata) to a link's URL.\n",
    );

  listOptions(
    links
      .command("list")
      .alias("ls")
      .description("list checkout links, newest first")
      .option("--product <id>", "only links offering this product", parseId),
  )
    .addHelpText("after", examples(["till checkout-links list", "till checkout-links list --product <id> --json"]))
    .action(withContext(list));

  links
    .command("get")
    .description("show a checkout link: its URL, products and settings")
    .argument("<id>", "the checkout link's id", parseId)
    .addHelpText("after", examples(["till checkout-links get <id>", "till checkout-links get <id> --json"]))
    .action(withContext(get));

  linkOptions(
    links.command("create").description("create a checkout link and print its URL"),
    "a product to sell, repeatable (the customer picks one; the first is selected)",
  )
    .addHelpText(
      "after",
      examples([
        "till checkout-links create --product <id>",
        "till checkout-links create --product <monthly-id> --product <yearly-id> --label \"Pricing page\" --success-url https://example.com/thanks",
        "till checkout-links create --product <id> --discount <id> --no-discount-codes --metadata campaign=spring",
        "LINK=$(till checkout-links create --product <id>)",
      ]) + "\nThe URL is printed alone on stdout; --json prints the whole link.\n",
    )
    .action(
      withContext(async (ctx: Context, opts: LinkFlags) => {
        if (!opts.product?.length) throw new UsageError("create: needs --product <id> (repeatable)");
        await create(ctx, opts);
      }),
    );

  linkOptions(
    links.command("update").description("change a checkout link (its URL stays the same)").argument("<id>", "the checkout link's id", parseId),
    "the products to offer, repeatable (replaces the link's products)",
  )
    .option("--no-discount", "remove the link's discount")
    .addHelpText("after", examples(["till checkout-links update <id> --label \"Launch\"", "till checkout-links update <id> --product <id> --no-discount"]))
    .action(withContext(update));

  links
    .command("delete")
    .description("delete a checkout link: its URL stops working")
    .argument("<id>", "the checkout link's id", parseId)
    .addHelpText("after", examples(["till checkout-links delete <id>"]))
    .action(withContext(remove));
}
