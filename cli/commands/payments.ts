// `till payments reconcile` (POST /v1/stripe/reconcile, till's own): till's payments against the connected Stripe
// account's PaymentIntents and charges over a window; every difference printed, exit 1 when there is any.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { EXIT, ExitStatus } from "../errors.js";
import type { ReconcileDifference, Reconciliation } from "../../shared/stripe.js";
import { parseSince } from "./events.js";

const KIND: Record<ReconcileDifference["kind"], string> = {
  missing_in_stripe: "missing in Stripe",
  missing_in_till: "missing in till",
  amount_mismatch: "amount differs",
  status_mismatch: "status differs",
};

const side = (s: { amount: number; currency: string; status: string } | null) => (s ? `${s.amount} ${s.currency} ${s.status}` : "—");

async function reconcileCommand(ctx: Context, o: { since?: string }) {
  const since = o.since ?? parseSince("30d");
  const result = await ctx.out.loading("Comparing till's payments with Stripe's", v1(ctx).send<Reconciliation>("POST", "/stripe/reconcile", { since }));
  if (ctx.out.json) ctx.out.printJson(result);
  else {
    await ctx.out.table(result.differences, [
      { header: "Difference", value: (d) => KIND[d.kind] },
      { header: "Stripe", value: (d) => d.stripe_id },
      { header: "Payment", value: (d) => d.payment_id ?? "—" },
      { header: "Order", value: (d) => d.order_id ?? "—" },
      { header: "till", value: (d) => side(d.till) },
      { header: "Stripe side", value: (d) => side(d.stripe) },
    ]);
    const { till_payments, stripe_payment_intents, stripe_charges, stripe_billing } = result.compared;
    const billing = stripe_billing > 0 ? `, ${stripe_billing} of them Stripe Billing's own from customers imported into till` : "";
    const summary = `${till_payments} payments in till, ${stripe_payment_intents} PaymentIntents and ${stripe_charges} charges in Stripe${billing} since ${result.since}`;
    ctx.out.info(result.differences.length === 0 ? `No differences: ${summary}.` : `${result.differences.length} difference(s): ${summary}.`);
    if (result.truncated) ctx.out.warn("Only part of the window was compared (a list reached its bound): reconcile a shorter window with --since.");
  }
  if (result.differences.length > 0) throw new ExitStatus(EXIT.error);
}

export function register(program: Command): void {
  const payments = program.command("payments").description("payments taken through the organization's Stripe account");
  payments
    .command("reconcile")
    .description("compare till's payments with the Stripe account's PaymentIntents and charges; exit 1 on any difference")
    .option("--since <when>", "the window's start: 30m, 2h, 7d, 1w back from now, or a date or datetime (default: 30d)", (v: string) => parseSince(v))
    .addHelpText(
      "after",
      "\nLists payments till recorded that Stripe does not have, payments Stripe took that till has no record of, and\n" +
        "payments whose amount or status differ. Changes nothing.\n" +
        examples(["till payments reconcile", "till payments reconcile --since 7d --json"]),
    )
    .action(withContext(reconcileCommand));
}
