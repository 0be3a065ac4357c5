// `till checkouts list|get|create`: checkout sessions (/v1/checkouts). `create` prints the checkout's hosted
// `url` alone on stdout, the link a seller sends a customer (`URL=$(till checkouts create --product <id>)`);
// a note on stderr says what it sells and until when it is open.
import type { Command } from "commander";
import { failFor, request, v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { ApiError, CliError, UsageError } from "../errors.js";
import { collectId, collectMetadata, oneOf, parseAmount, parseEmail, parseHttpUrl, parseCustomer, parseId, type MetadataValue } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { describeMode } from "../mode.js";
import { day, describeMetadata, listOptions, listResource, money, type ListOptions } from "../resources.js";
import { describePrice } from "../kinds.js";
import type { WireProduct } from "./products.js";
import { isUuid } from "../../shared/uuid.js";

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
    query: { status: opts.status, product_id: opts.product, customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer), query: opts.query },
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
    customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer),
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

// ---- paying with a test card (the sandbox) ------------------------------------------------------------------

interface PayFlags {
  card: string;
  expiry?: { month: number; year: number };
  cvc: string;
  email?: string;
  name?: string;
  country: string;
  state?: string;
  city?: string;
  postalCode?: string;
  line1?: string;
  amount?: number;
}

type AddressField = "country" | "state" | "city" | "postal_code" | "line1" | "line2";

/** What the customer's page reads (/v1/checkouts/client/{client_secret}): the fields it asks for. */
interface PublicCheckout {
  id: string;
  status: string;
  is_payment_form_required: boolean;
  billing_address_fields: Record<AddressField, "required" | "optional" | "disabled">;
}

/** A test buyer's address, for the fields the checkout requires and no flag gave. */
const TEST_ADDRESS: Record<Exclude<AddressField, "country" | "line2">, string> = {
  line1: "1 Test Street",
  city: "San Francisco",
  postal_code: "94107",
  state: "CA",
};

/** `12/30` → {month: 12, year: 2030}. */
function parseExpiry(value: string): { month: number; year: number } {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value);
  const month = Number(m?.[1]);
  if (!m || month < 1 || month > 12) throw new UsageError(`--expiry: expected MM/YY such as 12/30, got "${value}"`);
  const year = Number(m[2]);
  return { month, year: year < 100 ? 2000 + year : year };
}

/** The checkout's id, whether given as its id, its link (`…/checkout/till_c_…`) or its client secret. */
async function checkoutIdOf(ctx: Context, target: string): Promise<string> {
  if (isUuid(target)) return target;
  let secret = target;
  if (/^https?:\/\//.test(target)) {
    const m = /\/checkout\/([^/?#]+)/.exec(new URL(target).pathname);
    if (!m?.[1]) throw new UsageError(`<checkout>: ${target} is not a checkout link (…/checkout/<client secret>)`);
    secret = decodeURIComponent(m[1]);
  }
  const res = await request(ctx, "GET", `/v1/checkouts/client/${encodeURIComponent(secret)}`);
  if (res.status === 404) throw new UsageError(`<checkout>: no checkout has the link or client secret ${target}`, "pass the checkout's id: `till checkouts list`");
  if (res.status !== 200) failFor(res, null, "GET /v1/checkouts/client/{client_secret}");
  return (res.body as PublicCheckout).id;
}

/** A call of the customer's page: the client secret is the credential. */
async function asCustomer<T>(ctx: Context, method: "GET" | "PATCH" | "POST", secret: string, suffix: string, body?: unknown): Promise<T> {
  const path = `/v1/checkouts/client/${encodeURIComponent(secret)}${suffix}`;
  const res = await request(ctx, method, path, { body });
  if (res.status < 200 || res.status >= 300) failFor(res, null, `${method} /v1/checkouts/client/{client_secret}${suffix}`);
  return res.body as T;
}

/** A checkout's status after its id in a sentence ("checkout … has expired"). */
const STATUS_WORDS: Record<string, string> = {
  expired: "has expired",
  confirmed: "is being paid (confirmed)",
  succeeded: "is paid already",
  failed: "failed to be paid",
};

/**
 * Pays a sandbox checkout the way its hosted page does: fills in the buyer, tokenizes the test card with the
 * test processor (POST …/test-card) and confirms with the token (POST …/confirm). Live checkouts are refused
 * before any request: a test card pays nothing real.
 */
async function pay(ctx: Context, opts: PayFlags, [target = ""]: string[]) {
  if (!ctx.sandbox) {
    throw new UsageError(
      `till checkouts pay pays sandbox checkouts only, with a test card, and this run acts ${describeMode(ctx.mode, ctx.profileName)}`,
      "open and pay the checkout in the sandbox: add --sandbox to both commands, or run `till sandbox on` first",
    );
  }
  const client = v1(ctx);
  const id = await checkoutIdOf(ctx, target);
  // the seller's lookup, in the sandbox: a live checkout (or another organization's) is not found here
  const checkout = await ctx.out.loading("Loading checkout", client.get<WireCheckout>(`/checkouts/${id}`));
  if (checkout.status !== "open") {
    throw new CliError(`checkout ${checkout.id} ${STATUS_WORDS[checkout.status] ?? `is ${checkout.status}`}: only an open checkout can be paid`, {
      hint: checkout.status === "succeeded" ? `its order: \`till orders list --checkout ${checkout.id}\`` : "open another: `till checkouts create --product <id>`",
    });
  }
  const secret = checkout.client_secret;
  const buyer = {
    customer_email: opts.email ?? checkout.customer_email ?? "buyer@example.com",
    customer_name: opts.name ?? checkout.customer_name ?? "Test Buyer",
    customer_billing_address: { country: opts.country },
    ...(opts.amount !== undefined ? { amount: opts.amount } : {}),
  };
  // the country decides which address fields the checkout requires (the page asks the server the same way)
  const page = await ctx.out.loading("Filling in the buyer", asCustomer<PublicCheckout>(ctx, "PATCH", secret, "", buyer));
  const given: Partial<Record<AddressField, string>> = { state: opts.state, city: opts.city, postal_code: opts.postalCode, line1: opts.line1 };
  const address: Partial<Record<AddressField, string>> = { country: opts.country };
  for (const field of ["line1", "city", "postal_code", "state"] as const) {
    const mode = page.billing_address_fields[field];
    const value = given[field] ?? (mode === "required" ? TEST_ADDRESS[field] : undefined);
    if (value !== undefined && mode !== "disabled") address[field] = value;
  }
  const confirm: Record<string, unknown> = { ...buyer, customer_billing_address: address };
  const expiry = opts.expiry ?? { month: 12, year: new Date().getUTCFullYear() + 2 };
  if (page.is_payment_form_required) {
    const card = { number: opts.card, exp_month: expiry.month, exp_year: expiry.year, cvc: opts.cvc };
    const token = await ctx.out.loading("Tokenizing the test card", asCustomer<{ confirmation_token_id: string }>(ctx, "POST", secret, "/test-card", card));
    confirm.confirmation_token_id = token.confirmation_token_id;
  }
  const paid = await ctx.out.loading("Paying", asCustomer<WireCheckout>(ctx, "POST", secret, "/confirm", confirm));
  const [order] = (await client.get<{ items: { id: string; invoice_number?: string }[] }>("/orders/", { checkout_id: paid.id, limit: 1 })).items;
  const last4 = opts.card.replace(/[\s-]/g, "").slice(-4);
  const result = { checkout: paid, order_id: order?.id ?? null, sandbox: true };
  ctx.out.done(
    result,
    `Paid checkout ${paid.id} in the sandbox: ${describeTotal(paid)} for ${productName(paid) || "the product"}` +
      `${page.is_payment_form_required ? ` with the test card ending ${last4}` : " (nothing to pay by card)"}` +
      `${order ? `; order ${order.id}` : ""}.`,
  );
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
      .option("--customer <id|email>", "only checkouts of this customer (its id or email)", parseCustomer)
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
    .option("--customer <id|email>", "an existing customer the checkout is for (its id or email)", parseCustomer)
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

  checkouts
    .command("pay")
    .description("pay a sandbox checkout with a test card, as a customer would on its page (sandbox only)")
    .argument("<checkout>", "the checkout's id, or the link `till checkouts create` printed")
    .option("--card <number>", "a test card number: 4242424242424242 pays, 4000000000000002 is declined, 4000000000009995 lacks funds", "4242424242424242")
    .option("--expiry <MM/YY>", "the card's expiry (default: December, two years ahead)", parseExpiry)
    .option("--cvc <cvc>", "the card's security code", "123")
    .option("--email <email>", "the buyer's email (default: the checkout's, else buyer@example.com)", parseEmail)
    .option("--name <name>", "the buyer's name (default: the checkout's, else Test Buyer)")
    .option("--country <code>", "the billing country, two letters", (v: string) => v.trim().toUpperCase(), "US")
    .option("--state <state>", "billing state or province (default for a required one: CA)")
    .option("--city <city>", "billing city (default for a required one: San Francisco)")
    .option("--postal-code <code>", "billing postal code (default for a required one: 94107)")
    .option("--line1 <address>", "billing street address (default for a required one: 1 Test Street)")
    .option("--amount <amount>", "pay what you want: the amount, in minor units", parseAmount)
    .addHelpText(
      "after",
      examples([
        "till checkouts pay <id>",
        "URL=$(till checkouts create --product <id> --sandbox) && till checkouts pay \"$URL\" --sandbox",
        "till checkouts pay <id> --card 4000000000000002",
        "till checkouts pay <id> --email ada@example.com --country FR",
      ]) +
        "\nThis drives the built-in test processor exactly as the hosted page does (tokenize the card, then confirm the\n" +
        "checkout with the token), so orders, webhooks and emails follow as after a real purchase. It works only in\n" +
        "the sandbox (`--sandbox`, `till sandbox on`, a till_test_ key): a live checkout is refused before any request.\n",
    )
    .action(withContext(pay));
}
