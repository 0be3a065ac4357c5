// `till checkouts list|get|create`: checkout sessions (/v1/checkouts). `create` prints the checkout's hosted
// `url` alone on stdout, the link a seller sends a customer (`URL=$(till checkouts create --product <id>)`);
// a note on stderr says what it sells and until when it is open.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { ApiError, UsageError } from "../errors.js";
import { collectId, collectMetadata, oneOf, parseEmail, parseHttpUrl, parseId, type MetadataValue } from "../flags.js";
import { day, describeMetadata, listOptions, listResource, money, type ListOptions } from "../resources.js";
import { describePrice, type WireProduct } from "./products.js";

export const CHECKOUT_STATUSES = ["open", "expired", "confirmed", "succeeded", "failed"] as const;

export interface WireCheckout {
  id: string;
  status: string;
  url: string;
  client_secret: string;
  expires_at: string;
  success_url: string;
  amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  total_amount: number;
  currency: string;
  product_id: string | null;
  product_price_id: string | null;
  discount_id: string | null;
  customer_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  external_customer_id?: string | null;
  metadata: Record<string, MetadataValue>;
  created_at: string;
  product: WireProduct | null;
  products: WireProduct[];
}

const productName = (c: WireCheckout) => c.product?.name ?? c.products[0]?.name ?? "";

/** "$25.00", or "$25.00 ($5.00 off)" with a discount. */
function describeTotal(c: WireCheckout): string {
  const total = money(c.total_amount, c.currency);
  return c.discount_amount > 0 ? `${total} (${money(c.discount_amount, c.currency)} off)` : total;
}

function checkoutFields(c: WireCheckout) {
  const price = c.product?.prices.find((p) => p.id === c.product_price_id);
  return [
    { label: "ID", value: c.id },
    { label: "Status", value: c.status },
    { label: "URL", value: c.url },
    { label: "Product", value: c.product ? `${c.product.name} (${c.product.id})` : "none" },
    ...(c.products.length > 1 ? [{ label: "Offers", value: c.products.map((p) => p.name).join(", ") }] : []),
    ...(price ? [{ label: "Price", value: `${describePrice(price)} (${price.id})` }] : []),
    { label: "Total", value: describeTotal(c) },
    ...(c.discount_id ? [{ label: "Discount", value: c.discount_id }] : []),
    { label: "Customer", value: c.customer_email ?? c.customer_id ?? "not yet known" },
    { label: "Expires", value: c.expires_at.slice(0, 16).replace("T", " ") + " UTC" },
    { label: "Success URL", value: c.success_url },
    { label: "Metadata", value: describeMetadata(c.metadata) },
    { label: "Created", value: day(c.created_at) },
  ];
}

interface ListFlags extends ListOptions {
  status?: string;
  product?: string;
  customer?: string;
  query?: string;
}

async function list(ctx: Context, opts: ListFlags) {
  await listResource<WireCheckout>(ctx, opts, {
    path: "/checkouts/",
    noun: "checkouts",
    query: { status: opts.status, product_id: opts.product, customer_id: opts.customer, query: opts.query },
    columns: [
      { header: "ID", value: (c) => c.id },
      { header: "STATUS", value: (c) => c.status },
      { header: "PRODUCT", value: productName },
      { header: "TOTAL", value: (c) => money(c.total_amount, c.currency) },
      { header: "CUSTOMER", value: (c) => c.customer_email ?? "" },
      { header: "CREATED", value: (c) => day(c.created_at) },
    ],
    empty: "No checkouts: open one with `till checkouts create --product <id>`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const c = await ctx.out.loading("Loading checkout", v1(ctx).get<WireCheckout>(`/checkouts/${id}`));
  await ctx.out.record(c, checkoutFields(c));
}

interface CreateFlags {
  product: string[];
  price?: string;
  email?: string;
  name?: string;
  customer?: string;
  externalCustomerId?: string;
  discount?: string;
  successUrl?: string;
  returnUrl?: string;
  metadata?: Record<string, MetadataValue>;
}

/**
 * A checkout offers its products' prices and selects the first product's price in the chosen currency; the
 * API's create takes no price. `--price` is the price of one of the --product products: its product goes first
 * and its currency is asked for, which selects it (unless several prices of that product share the currency,
 * when the create is followed by a PATCH choosing it).
 */
async function priceChoice(ctx: Context, products: string[], priceId: string): Promise<{ products: string[]; currency: string }> {
  const client = v1(ctx);
  const loaded = await ctx.out.loading("Loading products", Promise.all(products.map((id) => client.get<WireProduct>(`/products/${id}`))));
  const owner = loaded.find((p) => p.prices.some((x) => x.id === priceId));
  const price = owner?.prices.find((x) => x.id === priceId);
  if (!owner || !price) throw new UsageError(`--price: ${priceId} is not a price of ${products.length > 1 ? "the products given" : `product ${products[0]}`}`);
  if (price.is_archived) throw new UsageError(`--price: ${priceId} is archived (product ${owner.name} has other prices: \`till products get ${owner.id}\`)`);
  return { products: [owner.id, ...products.filter((id) => id !== owner.id)], currency: price.price_currency ?? "usd" };
}

async function create(ctx: Context, opts: CreateFlags) {
  const products = opts.product;
  const dup = products.find((id, i) => products.indexOf(id) !== i);
  if (dup) throw new UsageError(`--product: ${dup} is given twice`);
  if (opts.customer && opts.externalCustomerId) throw new UsageError("--customer and --external-customer-id: name the customer by one of them");
  const choice = opts.price ? await priceChoice(ctx, products, opts.price) : { products, currency: undefined };
  const body = {
    products: choice.products,
    currency: choice.currency,
    customer_email: opts.email,
    customer_name: opts.name,
    customer_id: opts.customer,
    external_customer_id: opts.externalCustomerId,
    discount_id: opts.discount,
    success_url: opts.successUrl,
    return_url: opts.returnUrl,
    metadata: opts.metadata,
  };
  const client = v1(ctx);
  let c = await ctx.out.loading("Opening checkout", client.send<WireCheckout>("POST", "/checkouts/", body));
  if (opts.price && c.product_price_id !== opts.price) {
    const { id } = c;
    c = await ctx.out
      .loading("Choosing the price", client.send<WireCheckout>("PATCH", `/checkouts/${id}`, { product_id: choice.products[0], product_price_id: opts.price }))
      .catch((err: unknown) => {
        if (!(err instanceof ApiError)) throw err;
        throw err.withHint(`checkout ${id} was opened with another price; it expires unused, or open one without --price`);
      });
  }
  ctx.out.done(c, c.url);
  ctx.out.info(`Checkout ${c.id}: ${productName(c)}, ${describeTotal(c)}; open until ${c.expires_at.slice(0, 16).replace("T", " ")} UTC.`);
}

export function register(program: Command): void {
  const checkouts = program
    .command("checkouts")
    .description("open checkouts (a payment link for a customer) and follow them")
    .addHelpText(
      "after",
      examples([
        "till checkouts create --product <id> --email ada@example.com",
        "till checkouts list --status open",
        "till checkouts get <id>",
      ]),
    );

  listOptions(
    checkouts
      .command("list")
      .alias("ls")
      .description("list checkouts, newest first")
      .option("--status <status>", `only checkouts in this status: ${CHECKOUT_STATUSES.join(", ")}`, oneOf(CHECKOUT_STATUSES))
      .option("--product <id>", "only checkouts offering this product", parseId)
      .option("--customer <id>", "only checkouts of this customer", parseId)
      .option("--query <text>", "only checkouts whose customer email or name contains the text"),
  )
    .addHelpText("after", examples(["till checkouts list", "till checkouts list --status succeeded --product <id> --all", "till checkouts list --customer <id> --json"]))
    .action(withContext(list));

  checkouts
    .command("get")
    .description("show a checkout: its status, link, price and customer")
    .argument("<id>", "the checkout's id", parseId)
    .addHelpText("after", examples(["till checkouts get <id>", "till checkouts get <id> --json"]))
    .action(withContext(get));

  checkouts
    .command("create")
    .description("open a checkout and print its link (the hosted payment page) for the customer")
    .requiredOption("--product <id>", "a product to sell, repeatable (the customer picks one; the first is selected)", collectId)
    .option("--price <id>", "select this price of one of the products (default: the first product's price)", parseId)
    .option("--email <email>", "the customer's email, filled in on the page", parseEmail)
    .option("--name <name>", "the customer's name, filled in on the page")
    .option("--customer <id>", "an existing customer the checkout is for", parseId)
    .option("--external-customer-id <id>", "your own id for the customer (a new customer gets it)")
    .option("--discount <id>", "apply this discount", parseId)
    .option("--success-url <url>", "where the customer lands after paying ({CHECKOUT_ID} is replaced)", parseHttpUrl)
    .option("--return-url <url>", "where the page's back link leads", parseHttpUrl)
    .option("--metadata <key=value>", "metadata, repeatable, copied to the order; key:=5 or key:=true for a number or boolean", collectMetadata)
    .addHelpText(
      "after",
      examples([
        "till checkouts create --product <id>",
        "till checkouts create --product <id> --email ada@example.com --discount <id> --success-url https://example.com/thanks",
        "till checkouts create --product <monthly-id> --product <yearly-id> --price <price-id> --metadata campaign=spring",
        "URL=$(till checkouts create --product <id> --external-customer-id user_42)",
      ]) + "\nThe link is printed alone on stdout; --json prints the whole checkout.\n",
    )
    .action(withContext(create));
}
