// `till refunds list|create` (/v1/refunds). A refund gives part or all of a paid order back through the payment
// processor (what the customer's wallet paid goes back to the wallet; --to-wallet sends it all there); it cannot be
// undone, so `create` asks first on a terminal and needs --yes anywhere else.
// --revoke-benefits also revokes what the order granted (one-time purchases: a subscription's benefits end
// with the subscription, `till subscriptions revoke`). --amount is before tax (Polar's wire); the tax on it goes
// back in proportion (shared/refund-tax.ts), so the prompt and the answer say what the card gets, tax included.
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { oneOf, parseAmount, parseCustomer, parseId, type MetadataValue } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { day, listOptions, listResource, money, type ListOptions } from "../resources.js";
import { refundTax } from "../../shared/refund-tax.js";
import { describeRefunded, type WireOrder } from "./orders.js";

export const REFUND_REASONS = ["duplicate", "fraudulent", "customer_request", "service_disruption", "satisfaction_guarantee", "other"] as const;

export interface WireRefund {
  id: string;
  created_at: string;
  status: string;
  reason: string;
  amount: number;
  tax_amount: number;
  currency: string;
  order_id: string;
  subscription_id: string | null;
  customer_id: string;
  revoke_benefits: boolean;
  metadata: Record<string, MetadataValue>;
  /** till's own: why the processor failed or canceled the refund. */
  failure_reason?: string | null;
}

/** "succeeded", "pending", "failed (expired_or_canceled_card)": a refund's status, and why it failed when it did. */
const statusOf = (r: WireRefund) => (r.failure_reason ? `${r.status} (${r.failure_reason})` : r.status);

/** The tax the server will refund with `amount` of order `o` (the same rule, shared). */
function taxOfRefund(o: WireOrder, amount: number): number {
  const order = { netAmount: o.net_amount, taxAmount: o.tax_amount, refundedAmount: o.refunded_amount, refundedTaxAmount: o.refunded_tax_amount };
  return refundTax(order, amount, o.refundable_amount);
}

interface ListFlags extends ListOptions {
  order?: string;
  subscription?: string;
  customer?: string;
}

async function list(ctx: Context, opts: ListFlags) {
  await listResource<WireRefund>(ctx, opts, {
    path: "/refunds/",
    noun: "refunds",
    query: { order_id: opts.order, subscription_id: opts.subscription, customer_id: opts.customer === undefined ? undefined : await customerIdOf(ctx, opts.customer) },
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "ORDER", value: (r) => r.order_id },
      { header: "AMOUNT", value: (r) => money(r.amount + r.tax_amount, r.currency) },
      { header: "REASON", value: (r) => r.reason },
      { header: "STATUS", value: statusOf },
      { header: "CREATED", value: (r) => day(r.created_at) },
    ],
    empty: "No refunds.",
  });
}

interface CreateFlags {
  order: string;
  amount: number;
  reason: string;
  comment?: string;
  revokeBenefits?: boolean;
  toWallet?: boolean;
  yes?: boolean;
}

async function create(ctx: Context, opts: CreateFlags) {
  const client = v1(ctx);
  const again =
    `till refunds create --order ${opts.order} --amount ${opts.amount} --reason ${opts.reason}` +
    `${opts.revokeBenefits ? " --revoke-benefits" : ""}${opts.toWallet ? " --to-wallet" : ""} --yes`;
  await confirm(ctx, {
    yes: opts.yes,
    action: "refund",
    reason: `order ${opts.order} would be refunded ${opts.amount} (minor units, plus its tax)${opts.revokeBenefits ? " and its benefits revoked" : ""},`,
    hint: `check the order with \`till orders get ${opts.order}\`, then run \`${again}\``,
    question: async () => {
      const o = await ctx.out.loading("Loading order", client.get<WireOrder>(`/orders/${opts.order}`));
      const m = (n: number) => money(n, o.currency);
      const refunded = describeRefunded(opts.amount, taxOfRefund(o, opts.amount), o.currency);
      const refundable = m(o.refundable_amount + o.refundable_tax_amount);
      return (
        `Refund ${refunded} of ${o.invoice_number} (${o.product?.name ?? o.description}, ${m(o.total_amount)}; ${refundable} refundable) ` +
        `to ${opts.toWallet ? `the wallet of ${o.customer.email}` : o.customer.email}${opts.revokeBenefits ? ", and revoke its benefits" : ""}? [y/N] `
      );
    },
  });
  const body = {
    order_id: opts.order, amount: opts.amount, reason: opts.reason, comment: opts.comment, revoke_benefits: opts.revokeBenefits === true,
    ...(opts.toWallet ? { refund_to: "wallet" } : {}),
  };
  const r = await ctx.out.loading("Refunding", client.send<WireRefund>("POST", "/refunds/", body));
  // a pending refund counts at once but may still fail at the processor (the seller is emailed if it does)
  const pending = r.status === "pending" ? "; the processor has not finished it yet: `till refunds list` shows how it ends" : "";
  ctx.out.done(
    r,
    `Refunded ${describeRefunded(r.amount, r.tax_amount, r.currency)} of order ${r.order_id} (${r.status})` +
      `${r.revoke_benefits ? "; its benefits are revoked" : ""}${pending}: refund ${r.id}.`,
  );
}

/** A refund's amount: whole minor units, at least 1. */
function parseRefundAmount(value: string): number {
  const n = parseAmount(value);
  if (n < 1) throw new InvalidArgumentError("expected an amount of at least 1, in the currency's smallest unit (1000 for 10.00 usd).");
  return n;
}

export function register(program: Command): void {
  const refunds = program
    .command("refunds")
    .description("refund orders, list refunds")
    .addHelpText(
      "after",
      examples(["till refunds create --order <id> --amount 1000 --reason customer_request", "till refunds list --order <id>"]) +
        "\nAmounts are whole numbers in the currency's smallest unit: 1000 is $10.00. --amount is before tax: the tax on it\n" +
        "is refunded in proportion, and what the card gets back (tax included) is shown before and after.\n",
    );

  listOptions(
    refunds
      .command("list")
      .alias("ls")
      .description("list refunds, newest first")
      .option("--order <id>", "only this order's refunds", parseId)
      .option("--subscription <id>", "only refunds of this subscription's orders", parseId)
      .option("--customer <id|email>", "only this customer's refunds (its id or email)", parseCustomer),
  )
    .addHelpText("after", examples(["till refunds list", "till refunds list --order <id> --json"]))
    .action(withContext(list));

  refunds
    .command("create")
    .description("refund part or all of a paid order (asks first; --yes in scripts)")
    .requiredOption("--order <id>", "the order to refund", parseId)
    .requiredOption(
      "--amount <amount>",
      "how much to give back before tax, in minor units (1000 = $10.00), at most the order's refundable amount; " +
        "its tax goes back with it, in proportion",
      parseRefundAmount,
    )
    // the wire requires a reason; Polar's dashboard preselects customer_request, and so does the CLI
    .option("--reason <reason>", `why: ${REFUND_REASONS.join(", ")}`, oneOf(REFUND_REASONS), "customer_request")
    .option("--comment <text>", "a note kept with the refund")
    .option("--revoke-benefits", "also revoke the benefits the order granted (one-time purchases)")
    .option("--to-wallet", "give it all back to the customer's wallet instead of the card (without it, what the wallet paid goes back to the wallet, the rest to the card)")
    .option("-y, --yes", "refund without asking")
    .addHelpText(
      "after",
      examples([
        "till refunds create --order <id> --amount 2500 --reason customer_request",
        "till refunds create --order <id> --amount 1000 --reason service_disruption --comment \"outage on 2025-03-02\" --yes",
        "till refunds create --order <id> --amount 2500 --reason fraudulent --revoke-benefits --yes --json",
        "till refunds create --order <id> --amount 1000 --reason customer_request --to-wallet --yes",
      ]) + "\n`till orders get <id>` shows how much of an order is still refundable.\n",
    )
    .action(withContext(create));
}
