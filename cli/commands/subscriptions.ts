// `till subscriptions list|get|cancel|uncancel|revoke|update|preview|upcoming|cancel-change` (/v1/subscriptions;
// made by paid checkouts). cancel ends a subscription at the end of its period (PATCH cancel_at_period_end),
// uncancel keeps it, revoke ends it now and revokes its benefits (DELETE, or PATCH revoke with a reason; asks first,
// --yes in scripts). update makes one kind of change per request, as the API does: the product and/or the discount
// (and a trial end), or the seats, or the add-ons, or the end of the current billing period; at a terminal it shows
// the change's preview first (subscriptions-preview.ts). A change that waits for the period's end
// (`--proration next_period`, or the organization's plan settings) shows as pending; cancel-change drops it.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { oneOf, parseDateTime, parseCustomer, parseId, parsePositive, type MetadataValue } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { confirmUpdate, previewCommand, upcomingCommand } from "./subscriptions-preview.js";
import { addOnItems, addOnOptions, describeItems, hasAddOnFlags, type AddOnFlags, type WireItem } from "./subscriptions-add-ons.js";
import { day, describeInterval, describeMetadata, listOptions, exportRows, listResource, money, type ListOptions } from "../resources.js";
import { CANCELLATION_REASONS } from "../../shared/cancellation-reasons.js";

export const SUBSCRIPTION_STATUSES = ["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid"] as const;
export const PRORATION_BEHAVIORS = ["invoice", "prorate", "next_period", "reset"] as const;

export interface WireSubscription {
  id: string;
  created_at: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  recurring_interval_count?: number;
  status: string;
  current_period_start: string;
  current_period_end: string;
  trial_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  started_at: string | null;
  ends_at: string | null;
  ended_at: string | null;
  customer_id: string;
  product_id: string;
  discount_id: string | null;
  seats?: number | null;
  customer_cancellation_reason: string | null;
  customer_cancellation_comment: string | null;
  metadata: Record<string, MetadataValue>;
  customer: { id: string; email: string; name: string | null };
  product: { id: string; name: string };
  discount: { id: string; name: string; code: string | null } | null;
  /** till's own: the add-ons billed with the product. */
  items?: WireItem[];
  /** The change waiting for the period's end (next_period); `items`: the add-ons it writes. */
  pending_update?: { id: string; applies_at: string; product_id: string | null; seats: number | null; items?: Array<{ product_id: string; quantity: number }> | null } | null;
}

/** "product <id> on 2025-03-01", "12 seats on 2025-03-01". */
function describePending(p: NonNullable<WireSubscription["pending_update"]>): string {
  const addOns = p.items ? (p.items.length ? `add-ons ${p.items.map((i) => `${i.product_id} × ${i.quantity}`).join(", ")}` : "no add-ons") : "";
  const what = [p.product_id ? `product ${p.product_id}` : "", p.seats !== null ? `${p.seats} seats` : "", addOns].filter(Boolean).join(", ");
  return `${what} on ${day(p.applies_at)}`;
}

/** "$9.00 every month" */
const describeAmount = (s: WireSubscription) => `${money(s.amount, s.currency)} ${describeInterval(s.recurring_interval, s.recurring_interval_count)}`;

/** "active", "active, ends 2025-03-01", "canceled 2025-02-10". */
function describeStatus(s: WireSubscription): string {
  if (s.ended_at) return `${s.status} ${day(s.ended_at)}`;
  if (s.cancel_at_period_end && s.ends_at) return `${s.status}, ends ${day(s.ends_at)}`;
  if (s.status === "trialing" && s.trial_end) return `trialing until ${day(s.trial_end)}`;
  return s.status;
}

function subscriptionFields(s: WireSubscription) {
  const renews = !s.ended_at && !s.cancel_at_period_end && (s.status === "active" || s.status === "trialing");
  return [
    { label: "ID", value: s.id },
    { label: "Status", value: describeStatus(s) },
    { label: "Customer", value: `${s.customer.email} (${s.customer_id})` },
    { label: "Product", value: `${s.product.name} (${s.product_id})` },
    { label: "Amount", value: describeAmount(s) },
    ...(s.seats != null ? [{ label: "Seats", value: String(s.seats) }] : []),
    ...(s.items?.length ? [{ label: "Add-ons", value: describeItems(s.items, s.currency) }] : []),
    ...(s.discount ? [{ label: "Discount", value: `${s.discount.name}${s.discount.code ? ` (${s.discount.code})` : ""}, ${s.discount.id}` }] : []),
    { label: "Current period", value: `${day(s.current_period_start)} to ${day(s.current_period_end)}` },
    ...(renews ? [{ label: "Renews", value: day(s.current_period_end) }] : []),
    ...(s.pending_update ? [{ label: "Pending change", value: describePending(s.pending_update) }] : []),
    ...(s.customer_cancellation_reason || s.customer_cancellation_comment
      ? [{ label: "Cancellation", value: [s.customer_cancellation_reason, s.customer_cancellation_comment].filter(Boolean).join(": ") }]
      : []),
    { label: "Started", value: day(s.started_at) },
    { label: "Metadata", value: describeMetadata(s.metadata) },
  ];
}

interface ListFlags extends ListOptions {
  status?: string;
  active?: boolean;
  canceling?: boolean;
  product?: string;
  customer?: string;
  externalCustomerId?: string;
  discount?: string;
}

async function list(ctx: Context, opts: ListFlags) {
  if (opts.customer && opts.externalCustomerId) throw new UsageError("--customer and --external-customer-id: name the customer by one of them");
  await listResource<WireSubscription>(ctx, opts, {
    path: "/subscriptions/",
    noun: "subscriptions",
    query: {
      status: opts.status,
      active: opts.active ? "true" : undefined,
      cancel_at_period_end: opts.canceling ? "true" : undefined,
      product_id: opts.product,
      customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer),
      external_customer_id: opts.externalCustomerId,
      discount_id: opts.discount,
    },
    columns: [
      { header: "ID", value: (s) => s.id },
      { header: "STATUS", value: describeStatus },
      { header: "CUSTOMER", value: (s) => s.customer.email },
      { header: "PRODUCT", value: (s) => s.product.name },
      { header: "AMOUNT", value: describeAmount },
      { header: "PERIOD END", value: (s) => day(s.current_period_end) },
    ],
    empty: "No subscriptions: they come with paid checkouts of recurring products.",
  });
}

const path = (id: string) => `/subscriptions/${id}`;

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const s = await ctx.out.loading("Loading subscription", v1(ctx).get<WireSubscription>(path(id)));
  await ctx.out.record(s, subscriptionFields(s));
}

interface Reasoned {
  reason?: string;
  comment?: string;
}

const cancellation = (o: Reasoned) => ({ customer_cancellation_reason: o.reason, customer_cancellation_comment: o.comment });

async function cancel(ctx: Context, opts: Reasoned, [id = ""]: string[]) {
  const body = { cancel_at_period_end: true, ...cancellation(opts) };
  const s = await ctx.out.loading("Canceling subscription", v1(ctx).send<WireSubscription>("PATCH", path(id), body));
  ctx.out.done(
    s,
    `Subscription ${s.id} (${s.customer.email}, ${s.product.name}) ends on ${day(s.ends_at ?? s.current_period_end)}; ` +
      `it stays active until then. \`till subscriptions uncancel ${s.id}\` keeps it.`,
  );
}

async function uncancel(ctx: Context, _opts: object, [id = ""]: string[]) {
  const s = await ctx.out.loading("Keeping subscription", v1(ctx).send<WireSubscription>("PATCH", path(id), { cancel_at_period_end: false }));
  ctx.out.done(s, `Subscription ${s.id} (${s.customer.email}, ${s.product.name}) no longer ends: it renews on ${day(s.current_period_end)}.`);
}

async function revoke(ctx: Context, opts: Reasoned & { yes?: boolean }, [id = ""]: string[]) {
  const client = v1(ctx);
  await confirm(ctx, {
    yes: opts.yes,
    action: "revoke",
    reason: `subscription ${id} would end now, its benefits revoked,`,
    hint: `check it with \`till subscriptions get ${id}\`, then run \`till subscriptions revoke ${id} --yes\``,
    question: async () => {
      const s = await ctx.out.loading("Loading subscription", client.get<WireSubscription>(path(id)));
      return `Revoke ${s.product.name} (${describeAmount(s)}) of ${s.customer.email} now, and its benefits? [y/N] `;
    },
  });
  // DELETE takes no body: a reason or comment goes with PATCH {revoke: true}, which does the same
  const s =
    opts.reason !== undefined || opts.comment !== undefined
      ? await ctx.out.loading("Revoking subscription", client.send<WireSubscription>("PATCH", path(id), { revoke: true, ...cancellation(opts) }))
      : await ctx.out.loading("Revoking subscription", client.send<WireSubscription>("DELETE", path(id)));
  ctx.out.done(s, `Revoked subscription ${s.id} (${s.customer.email}, ${s.product.name}): ended now, benefits revoked.`);
}

interface UpdateFlags extends AddOnFlags {
  product?: string;
  discount?: string;
  trialEnd?: string;
  seats?: number;
  billingPeriodEnd?: string;
  proration?: string;
}

/** The one PATCH body the flags make; several kinds of change at once are refused before anything is sent. */
function updateBody(o: UpdateFlags): Record<string, unknown> {
  const kinds = [
    o.product !== undefined || o.discount !== undefined || o.trialEnd !== undefined
      ? ["--product", "--discount", "--trial-end"].filter((_, i) => [o.product, o.discount, o.trialEnd][i] !== undefined).join(", ")
      : "",
    o.seats !== undefined ? "--seats" : "",
    hasAddOnFlags(o) ? "--add-on, --remove-add-on" : "",
    o.billingPeriodEnd !== undefined ? "--billing-period-end" : "",
  ].filter(Boolean);
  if (kinds.length === 0) throw new UsageError("nothing to update: pass --product, --discount, --trial-end, --seats, --add-on, --remove-add-on or --billing-period-end");
  if (kinds.length > 1) {
    throw new UsageError(`${kinds.join(" and ")}: one kind of change per update (the API applies one at a time); run update once for each`);
  }
  if (o.proration !== undefined && o.product === undefined && o.seats === undefined && !hasAddOnFlags(o)) throw new UsageError("--proration: only with --product, --seats or add-ons");
  if (o.seats !== undefined) return { seats: o.seats, proration_behavior: o.proration };
  if (hasAddOnFlags(o)) return { proration_behavior: o.proration };
  if (o.billingPeriodEnd !== undefined) return { current_billing_period_end: o.billingPeriodEnd };
  return {
    product_id: o.product,
    proration_behavior: o.product !== undefined ? o.proration : undefined,
    discount_id: o.discount === "none" ? null : o.discount,
    trial_end: o.trialEnd,
  };
}

/** The PATCH body of the flags; add-on flags are applied to the set the subscription holds (the API takes it whole). */
async function changeBody(ctx: Context, id: string, o: UpdateFlags): Promise<Record<string, unknown>> {
  const body = updateBody(o);
  return hasAddOnFlags(o) ? { items: await addOnItems(ctx, id, o), ...body } : body;
}

async function update(ctx: Context, opts: UpdateFlags & { yes?: boolean }, [id = ""]: string[]) {
  const body = await confirmUpdate(ctx, id, await changeBody(ctx, id, opts), opts.yes);
  const s = await ctx.out.loading("Updating subscription", v1(ctx).send<WireSubscription>("PATCH", path(id), body));
  const what = [
    opts.product !== undefined ? `product ${s.product.name}` : "",
    opts.discount !== undefined ? (s.discount ? `discount ${s.discount.name}` : "no discount") : "",
    opts.trialEnd !== undefined ? `trialing until ${day(s.trial_end)}` : "",
    opts.seats !== undefined ? `${s.seats ?? opts.seats} seats` : "",
    hasAddOnFlags(opts) ? `add-ons ${describeItems(s.items, s.currency)}` : "",
    opts.billingPeriodEnd !== undefined ? `period ends ${day(s.current_period_end)}` : "",
  ].filter(Boolean);
  const pending = s.pending_update ? ` Waits for the period's end: ${describePending(s.pending_update)} (\`till subscriptions cancel-change ${s.id}\` drops it).` : "";
  ctx.out.done(s, `Updated subscription ${s.id} (${s.customer.email}): ${what.join(", ")}; ${describeAmount(s)}.${pending}`);
}

async function cancelChange(ctx: Context, _opts: object, [id = ""]: string[]) {
  const s = await ctx.out.loading("Dropping the pending change", v1(ctx).send<WireSubscription>("PATCH", path(id), { pending_update: null }));
  ctx.out.done(s, `Subscription ${s.id} (${s.customer.email}) keeps ${s.product.name}, ${describeAmount(s)}: no change is pending.`);
}

/** The flags of a change, shared by update and preview. */
function updateOptions(cmd: Command): Command {
  return addOnOptions(cmd)
    .option("--product <id>", "move to this product (its price replaces the current one)", parseId)
    .option("--discount <id>", "apply this discount (none removes the current one)", discountOrNone)
    .option("--trial-end <date>", "trialing until this date (an active or trialing subscription)", parseDateTime)
    .option("--seats <n>", "the number of seats (seat-based prices)", parsePositive)
    .option("--billing-period-end <date>", "move the end of the current period", parseDateTime)
    .option("--proration <behavior>", `with --product, --seats or add-ons: ${PRORATION_BEHAVIORS.join(", ")} (default: the organization's setting)`, oneOf(PRORATION_BEHAVIORS));
}

const discountOrNone = (value: string) => (value.trim().toLowerCase() === "none" ? "none" : parseId(value));

function reasonOptions(cmd: Command, verb: string): Command {
  return cmd
    .option("--reason <reason>", `why it ${verb}: ${CANCELLATION_REASONS.join(", ")}`, oneOf(CANCELLATION_REASONS))
    .option("--comment <text>", "a note kept with the cancellation");
}

export function register(program: Command): void {
  const subscriptions = program
    .command("subscriptions")
    .description("list subscriptions; cancel, keep, revoke or change one")
    .addHelpText(
      "after",
      examples([
        "till subscriptions list --active",
        "till subscriptions cancel <id> --reason too_expensive",
        "till subscriptions update <id> --product <id>",
        "till subscriptions revoke <id> --yes",
      ]),
    );

  listOptions(
    subscriptions
      .command("list")
      .alias("ls")
      .description("list subscriptions, newest first")
      .option("--status <status>", `only this status: ${SUBSCRIPTION_STATUSES.join(", ")}`, oneOf(SUBSCRIPTION_STATUSES))
      .option("--active", "only active and trialing ones")
      .option("--canceling", "only those set to end at their period end")
      .option("--product <id>", "only subscriptions to this product", parseId)
      .option("--customer <id|email>", "only this customer's (its id or email)", parseCustomer)
      .option("--external-customer-id <id>", "only those of the customer with your own id")
      .option("--discount <id>", "only those with this discount", parseId),
  )
    .addHelpText("after", examples(["till subscriptions list --active", "till subscriptions list --customer <id> --json", "till subscriptions list --canceling --all"]))
    .action(withContext(list));

  subscriptions
    .command("export")
    .description("write every subscription as CSV, oldest first: to stdout, or to a file with --output")
    .option("-o, --output <file>", "write the CSV to this file (a progress line shows on a terminal)")
    .addHelpText("after", examples(["till subscriptions export > subscriptions.csv", "till subscriptions export --output subscriptions.csv"]))
    .action(withContext((ctx: Context, opts: { output?: string }) => exportRows(ctx, "subscriptions", {}, opts.output)));

  subscriptions
    .command("get")
    .description("show a subscription: customer, product, amount, period, cancellation")
    .argument("<id>", "the subscription's id", parseId)
    .addHelpText("after", examples(["till subscriptions get <id>", "till subscriptions get <id> --json"]))
    .action(withContext(get));

  reasonOptions(
    subscriptions
      .command("cancel")
      .description("cancel at the end of the current period (the customer keeps access until then)")
      .argument("<id>", "the subscription's id", parseId),
    "ends",
  )
    .addHelpText("after", examples(["till subscriptions cancel <id>", "till subscriptions cancel <id> --reason too_expensive --comment \"asked by email\""]))
    .action(withContext(cancel));

  subscriptions
    .command("uncancel")
    .description("undo a cancel: the subscription renews again")
    .argument("<id>", "the subscription's id", parseId)
    .addHelpText("after", examples(["till subscriptions uncancel <id>"]))
    .action(withContext(uncancel));

  reasonOptions(
    subscriptions
      .command("revoke")
      .description("end a subscription now and revoke its benefits (asks first; --yes in scripts)")
      .argument("<id>", "the subscription's id", parseId),
    "ends",
  )
    .option("-y, --yes", "revoke without asking")
    .addHelpText("after", examples(["till subscriptions revoke <id>", "till subscriptions revoke <id> --reason unused --yes"]))
    .action(withContext(revoke));

  updateOptions(
    subscriptions
      .command("update")
      .description("change the product, discount, trial, seats, add-ons or billing period (one kind of change at a time)")
      .argument("<id>", "the subscription's id", parseId),
  )
    .option("-y, --yes", "at a terminal, make the change without showing its preview and asking")
    .addHelpText(
      "after",
      examples([
        "till subscriptions update <id> --product <id> --proration invoice",
        "till subscriptions update <id> --product <id> --proration next_period",
        "till subscriptions update <id> --discount <id>",
        "till subscriptions update <id> --discount none",
        "till subscriptions update <id> --seats 12",
        "till subscriptions update <id> --add-on <product id>=3 --remove-add-on <product id> --proration invoice",
        "till subscriptions update <id> --trial-end 2030-01-31",
      ]) + "\n--product, --discount and --trial-end may go together; --seats, the add-on flags and --billing-period-end each go alone.\n" +
        "--add-on <product>=<qty> adds an add-on of the subscription's product or sets its quantity (1 without =qty).\n" +
        "--proration next_period waits for the period's end (shown as the pending change; cancel-change drops it).\n" +
        "At a terminal it prints what the change bills (now and at the next renewal) and asks first; --yes does not ask.\n",
    )
    .action(withContext(update));

  updateOptions(
    subscriptions
      .command("preview")
      .description("what an update would bill now and at the next renewal, changing nothing (update's flags)")
      .argument("<id>", "the subscription's id", parseId),
  )
    .addHelpText("after", examples(["till subscriptions preview <id> --product <id> --proration invoice", "till subscriptions preview <id> --seats 12 --json"]))
    .action(withContext(async (ctx: Context, opts: UpdateFlags, [id = ""]: string[]) => previewCommand(ctx, id, await changeBody(ctx, id, opts))));

  subscriptions
    .command("upcoming")
    .description("the next renewal as it stands: its lines, usage so far, discount, tax, balance and total")
    .argument("<id>", "the subscription's id", parseId)
    .addHelpText("after", examples(["till subscriptions upcoming <id>", "till subscriptions upcoming <id> --json"]))
    .action(withContext((ctx: Context, _opts: object, [id = ""]: string[]) => upcomingCommand(ctx, id)));

  subscriptions
    .command("cancel-change")
    .description("drop the plan change waiting for the period's end (next_period)")
    .argument("<id>", "the subscription's id", parseId)
    .addHelpText("after", examples(["till subscriptions cancel-change <id>"]))
    .action(withContext(cancelChange));
}
