// `till orders list|get|update|pay-link|mark-paid`:
// what customers bought (/v1/orders; made by paid checkouts and renewals).
// `update` changes what the invoice shows: the billing name and address (the server keeps the country and
// state of an address once set). Refunds are `till refunds create --order <id>`. `invoice` shows (or makes, or
// saves) the order's PDF invoice and its credit notes.
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { oneOf, parseCountry, parseCustomer, parseId, type MetadataValue } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { missingDetails, type InvoiceDetails } from "./orgs-billing.js";
import { resolveOrganizationId } from "./orgs.js";
import { changes, day, describeMetadata, listOptions, exportRows, listResource, money, type ListOptions } from "../resources.js";

export interface WireAddress {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

export interface WireOrder {
  id: string;
  created_at: string;
  status: string;
  paid: boolean;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  refunded_amount: number;
  refunded_tax_amount: number;
  refundable_amount: number;
  refundable_tax_amount: number;
  currency: string;
  billing_reason: string;
  billing_name: string | null;
  billing_address: WireAddress | null;
  invoice_number: string;
  seats: number | null;
  customer_id: string;
  product_id: string | null;
  discount_id: string | null;
  subscription_id: string | null;
  checkout_id: string | null;
  metadata: Record<string, MetadataValue>;
  description: string;
  customer: { id: string; email: string; name: string | null };
  product: { id: string; name: string } | null;
  items: { label: string; amount: number; proration: boolean }[];
  /** till's own: the hosted page that pays the order while it is owed, else null. */
  pay_url?: string | null;
}

const BILLING_TYPES = ["one_time", "recurring"] as const;

/** "12 rue X, 75001 Paris, FR" */
export function describeAddress(a: WireAddress | null): string {
  if (!a) return "none";
  const town = [a.postal_code, a.city].filter(Boolean).join(" ");
  return [a.line1, a.line2, town, a.state, a.country].filter(Boolean).join(", ");
}

/** "$5.95 ($5.00 + $0.95 tax)", or "$5.00" without tax: what goes back to the card. */
export function describeRefunded(amount: number, tax: number, currency: string): string {
  const m = (n: number) => money(n, currency);
  return tax > 0 ? `${m(amount + tax)} (${m(amount)} + ${m(tax)} tax)` : m(amount);
}

/** "$25.00", "$29.75 ($11.90 refunded)": what went back to the card, tax included, as the total includes it. */
function describeTotal(o: WireOrder): string {
  const total = money(o.total_amount, o.currency);
  const refunded = o.refunded_amount + o.refunded_tax_amount;
  return refunded > 0 ? `${total} (${money(refunded, o.currency)} refunded)` : total;
}

function orderFields(o: WireOrder) {
  const m = (n: number) => money(n, o.currency);
  return [
    { label: "ID", value: o.id },
    { label: "Invoice", value: o.invoice_number },
    { label: "Status", value: o.status },
    { label: "Customer", value: `${o.customer.email} (${o.customer_id})` },
    { label: "Product", value: o.product ? `${o.product.name} (${o.product.id})` : o.description },
    { label: "Billing reason", value: o.billing_reason },
    { label: "Items", value: o.items.map((i) => `${i.label} ${m(i.amount)}${i.proration ? " (proration)" : ""}`).join("; ") || "none" },
    { label: "Subtotal", value: m(o.subtotal_amount) },
    ...(o.discount_amount > 0 ? [{ label: "Discount", value: `-${m(o.discount_amount)} (${o.discount_id ?? ""})` }] : []),
    { label: "Tax", value: m(o.tax_amount) },
    { label: "Total", value: m(o.total_amount) },
    { label: "Refunded", value: describeRefunded(o.refunded_amount, o.refunded_tax_amount, o.currency) },
    { label: "Refundable", value: describeRefunded(o.refundable_amount, o.refundable_tax_amount, o.currency) },
    ...(o.seats !== null ? [{ label: "Seats", value: String(o.seats) }] : []),
    { label: "Billing name", value: o.billing_name ?? "none" },
    { label: "Billing address", value: describeAddress(o.billing_address) },
    ...(o.subscription_id ? [{ label: "Subscription", value: o.subscription_id }] : []),
    ...(o.checkout_id ? [{ label: "Checkout", value: o.checkout_id }] : []),
    { label: "Metadata", value: describeMetadata(o.metadata) },
    { label: "Created", value: day(o.created_at) },
  ];
}

interface ListFlags extends ListOptions {
  customer?: string;
  externalCustomerId?: string;
  product?: string;
  billingType?: string;
  discount?: string;
  subscription?: string;
  checkout?: string;
}

async function list(ctx: Context, opts: ListFlags) {
  if (opts.customer && opts.externalCustomerId) throw new UsageError("--customer and --external-customer-id: name the customer by one of them");
  await listResource<WireOrder>(ctx, opts, {
    path: "/orders/",
    noun: "orders",
    query: {
      customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer),
      external_customer_id: opts.externalCustomerId,
      product_id: opts.product,
      product_billing_type: opts.billingType,
      discount_id: opts.discount,
      subscription_id: opts.subscription,
      checkout_id: opts.checkout,
    },
    columns: [
      { header: "ID", value: (o) => o.id },
      { header: "INVOICE", value: (o) => o.invoice_number },
      { header: "CUSTOMER", value: (o) => o.customer.email },
      { header: "PRODUCT", value: (o) => o.product?.name ?? o.description },
      { header: "TOTAL", value: describeTotal },
      { header: "STATUS", value: (o) => o.status },
      { header: "CREATED", value: (o) => day(o.created_at) },
    ],
    empty: "No orders: they come with paid checkouts (`till checkouts create --product <id>`).",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const o = await ctx.out.loading("Loading order", v1(ctx).get<WireOrder>(`/orders/${id}`));
  await ctx.out.record(o, orderFields(o));
}

/** The order's pay link: prints the URL (a link made now, valid 30 days); an order with nothing owed has none. */
async function payLink(ctx: Context, _opts: object, [id = ""]: string[]) {
  const o = await ctx.out.loading("Loading order", v1(ctx).get<WireOrder>(`/orders/${id}`));
  const data = { order_id: o.id, status: o.status, pay_url: o.pay_url ?? null };
  // --json answers the data as is (pay_url null when nothing is owed); a person is told why there is no link
  if (!data.pay_url && !ctx.out.json) {
    throw new CliError(`Order ${o.invoice_number} (${o.id}) is ${o.status}: nothing is owed, so it has no pay link.`, { code: "nothing_owed" });
  }
  ctx.out.done(data, data.pay_url ?? "");
}

/** Records money received outside the processor; the server answers an order marked already as it is. */
async function markPaid(ctx: Context, opts: { note?: string }, [id = ""]: string[]) {
  const o = await ctx.out.loading("Marking order paid", v1(ctx).send<WireOrder & { marked_paid_at?: string | null }>("POST", `/orders/${id}/mark-paid`, { note: opts.note ?? null }));
  ctx.out.done(o, `Order ${o.invoice_number} (${o.id}) is ${o.status}${o.marked_paid_at ? `, marked paid at ${o.marked_paid_at}` : ""}.`);
}

interface UpdateFlags {
  billingName?: string;
  line1?: string;
  line2?: string;
  postalCode?: string;
  city?: string;
  state?: string;
  country?: string;
}

async function update(ctx: Context, opts: UpdateFlags, [id = ""]: string[]) {
  const parts = { line1: opts.line1, line2: opts.line2, postal_code: opts.postalCode, city: opts.city, state: opts.state, country: opts.country };
  const addressGiven = Object.values(parts).some((v) => v !== undefined);
  changes({ billing_name: opts.billingName, ...parts }, "--billing-name or an address flag (--line1, --line2, --postal-code, --city, --state, --country)");
  const client = v1(ctx);
  let billingAddress: WireAddress | undefined;
  if (addressGiven) {
    // the API replaces the whole address: the flags not given keep their current values
    const current = (await ctx.out.loading("Loading order", client.get<WireOrder>(`/orders/${id}`))).billing_address;
    const country = opts.country ?? current?.country;
    if (!country) throw new UsageError("--country: the order has no billing address yet, so it needs a country (two letters, such as FR)");
    const keep = (flag: string | undefined, now: string | null | undefined) => (flag === undefined ? (now ?? null) : flag === "" ? null : flag);
    billingAddress = {
      line1: keep(opts.line1, current?.line1),
      line2: keep(opts.line2, current?.line2),
      postal_code: keep(opts.postalCode, current?.postal_code),
      city: keep(opts.city, current?.city),
      state: keep(opts.state, current?.state),
      country,
    };
  }
  const body = { billing_name: opts.billingName === undefined ? undefined : opts.billingName === "" ? null : opts.billingName, billing_address: billingAddress };
  const o = await ctx.out.loading("Updating order", client.send<WireOrder>("PATCH", `/orders/${id}`, body));
  ctx.out.done(o, `Updated order ${o.invoice_number} (${o.id}): billed to ${o.billing_name ?? o.customer.email}, ${describeAddress(o.billing_address)}.`);
}

interface WireInvoice {
  url: string;
  number: string;
  credit_notes: { number: string; url: string }[];
}

interface InvoiceFlags {
  generate?: boolean;
  output?: string;
}

/** The seller's legal details are missing from invoices: a warning naming the command that sets them. */
async function warnMissingDetails(ctx: Context): Promise<void> {
  const orgId = await resolveOrganizationId(ctx, undefined);
  const org = await v1(ctx).get<{ invoice_details?: InvoiceDetails }>(`/organizations/${orgId}`);
  const missing = missingDetails(org.invoice_details);
  if (missing) ctx.out.warn(missing);
}

async function invoice(ctx: Context, opts: InvoiceFlags, [id = ""]: string[]) {
  const client = v1(ctx);
  // while the legal details are missing, every invoice looked at says so (the first one a seller opens)
  const warned = warnMissingDetails(ctx).catch(() => undefined);
  if (opts.generate) {
    await ctx.out.loading("Asking for the invoice", client.send<unknown>("POST", `/orders/${id}/invoice`));
    await warned;
    ctx.out.done({ order_id: id, status: "generating" }, `The invoice of order ${id} is being generated: \`till orders invoice ${id}\` shows it in a moment.`);
    return;
  }
  const inv = await ctx.out.loading("Loading invoice", client.get<WireInvoice>(`/orders/${id}/invoice`));
  await warned;
  if (opts.output) {
    const res = await fetch(inv.url);
    if (!res.ok) throw new Error(`Could not download the invoice: HTTP ${res.status}`);
    await writeFile(opts.output, Buffer.from(await res.arrayBuffer()));
    ctx.out.done({ ...inv, output: opts.output }, `Saved invoice ${inv.number} to ${opts.output}.`);
    return;
  }
  await ctx.out.record(inv, [
    { label: "Invoice", value: inv.number },
    { label: "PDF (1 hour)", value: inv.url },
    ...inv.credit_notes.map((n) => ({ label: `Credit note ${n.number}`, value: n.url })),
  ]);
}

export function register(program: Command): void {
  const orders = program
    .command("orders")
    .description("list orders (purchases and renewals), show one, correct its billing details, get its invoice")
    .addHelpText(
      "after",
      examples([
        "till orders list --customer <id>",
        "till orders get <id>",
        "till orders update <id> --billing-name \"Acme Inc\" --line1 \"1 Main St\" --city Paris --postal-code 75001",
      ]) + "\nRefunds: `till refunds create --order <id> --amount <minor units> --reason <reason>`.\n",
    );

  listOptions(
    orders
      .command("list")
      .alias("ls")
      .description("list orders, newest first")
      .option("--customer <id|email>", "only this customer's orders (its id or email)", parseCustomer)
      .option("--external-customer-id <id>", "only the orders of the customer with your own id")
      .option("--product <id>", "only orders of this product", parseId)
      .option("--billing-type <type>", `only ${BILLING_TYPES.join(" or ")} products' orders`, oneOf(BILLING_TYPES))
      .option("--discount <id>", "only orders with this discount", parseId)
      .option("--subscription <id>", "only this subscription's orders", parseId)
      .option("--checkout <id>", "only the order of this checkout", parseId),
  )
    .addHelpText(
      "after",
      examples(["till orders list", "till orders list --customer <id> --all", "till orders list --product <id> --billing-type recurring --json"]),
    )
    .action(withContext(list));

  orders
    .command("export")
    .description("write every order as CSV, oldest first: to stdout, or to a file with --output")
    .option("-o, --output <file>", "write the CSV to this file (a progress line shows on a terminal)")
    .option("--product <id>", "only orders of this product", parseId)
    .addHelpText("after", examples(["till orders export > orders.csv", "till orders export --product <id> --output orders.csv"]))
    .action(withContext((ctx: Context, opts: { output?: string; product?: string }) => exportRows(ctx, "orders", { product_id: opts.product }, opts.output)));

  orders
    .command("get")
    .description("show an order: items, amounts, refunds, billing details")
    .argument("<id>", "the order's id", parseId)
    .addHelpText("after", examples(["till orders get <id>", "till orders get <id> --json"]))
    .action(withContext(get));

  orders
    .command("pay-link")
    .description("print the link where the customer pays an unpaid order (a failed renewal too) by card, without signing in")
    .argument("<id>", "the order's id", parseId)
    .addHelpText("after", examples(["till orders pay-link <id>", "till orders pay-link <id> --json"]) + "\nA link is valid for 30 days; paying an order already paid charges nothing.\n")
    .action(withContext(payLink));

  orders
    .command("mark-paid")
    .description("record that an unpaid order's money arrived another way (a bank transfer, a cheque): paid, nothing charged")
    .argument("<id>", "the order's id", parseId)
    .option("--note <text>", "what was received (kept with who marked it and when)")
    .addHelpText(
      "after",
      examples(["till orders mark-paid <id>", "till orders mark-paid <id> --note \"wire ref 4711\" --json"]) +
        "\nMarking an order marked already changes nothing; a paid or refunded order is refused, and so is one whose bank\n" +
        "debit is still processing (until the bank answers: the debit may still pay it).\n",
    )
    .action(withContext(markPaid));

  orders
    .command("update")
    .description("change an order's billing name or address (as on its invoice)")
    .argument("<id>", "the order's id", parseId)
    .option("--billing-name <name>", "the name billed (\"\" removes it)")
    .option("--line1 <text>", "address: first line")
    .option("--line2 <text>", "address: second line (\"\" removes it)")
    .option("--postal-code <code>", "address: postal code")
    .option("--city <city>", "address: city")
    .option("--state <state>", "address: state or region (only on an order without an address yet)")
    .option("--country <code>", "address: country, two letters (only on an order without an address yet)", parseCountry)
    .addHelpText(
      "after",
      examples([
        "till orders update <id> --billing-name \"Acme Inc\"",
        "till orders update <id> --line1 \"1 Main St\" --postal-code 75001 --city Paris",
        "till orders update <id> --country FR --city Lyon --json",
      ]) + "\nAddress flags not given keep their current values. An address's country and state cannot change once set.\n",
    )
    .action(withContext(update));

  orders
    .command("invoice")
    .description("show the order's PDF invoice (a link valid for an hour) and credit notes, save it, or make it again")
    .argument("<id>", "the order's id", parseId)
    .option("--generate", "make the invoice (again, e.g. after `till orders update`); paid orders (an invoice with terms while owed too) with a billing name and address")
    .option("-o, --output <file>", "save the invoice's PDF to this file")
    .addHelpText(
      "after",
      examples(["till orders invoice <id>", "till orders invoice <id> --output invoice.pdf", "till orders invoice <id> --generate"]) +
        "\nA paid order with a billing name and address gets its invoice a moment after the payment; a refund adds a credit note.\n",
    )
    .action(withContext(invoice));
}
