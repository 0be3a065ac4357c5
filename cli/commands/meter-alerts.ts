// `till meters alerts list|create|delete`: usage alerts on a meter (/v1/usage-alerts, till's own API). A
// threshold is units, an amount (minor units), a percentage of the period's credits or of the price's cap, or the
// balance left of the credits (0: exhausted); for every customer or one (--customer). Crossing one sends the
// `till.usage_alert.triggered` webhook to the endpoints that name it and mails the organization's owners (and the
// customer with --notify-customer).
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { parseAmount, parseId } from "../flags.js";
import { customerIdOf } from "./customers.js";

export interface WireUsageAlert {
  id: string;
  created_at: string;
  meter_id: string;
  customer_id: string | null;
  kind: "units" | "amount" | "credits_percent" | "cap_percent" | "balance";
  threshold: number;
  notify_customer: boolean;
}

/** "5,000 units", "$50.00" (minor units: 5000), "80% of the credits", "100% of the cap", "a balance of 0 units". */
export function describeAlert(a: Pick<WireUsageAlert, "kind" | "threshold">): string {
  const n = a.threshold.toLocaleString("en-US", { maximumFractionDigits: 6 });
  switch (a.kind) {
    case "amount":
      return `an amount of ${n} (minor units)`;
    case "credits_percent":
      return `${n}% of the credits`;
    case "cap_percent":
      return `${n}% of the cap`;
    case "balance":
      return `a balance of ${n} units or less`;
    default:
      return `${n} units`;
  }
}

/** A threshold: a positive number, or 0 too when `zero` (a balance's "exhausted"). */
function parseNumber(value: string, zero = false): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0 || (zero && n === 0))) {
    throw new UsageError(`expected a ${zero ? "non-negative" : "positive"} number, got ${JSON.stringify(value)}`);
  }
  return n;
}

interface CreateFlags {
  units?: string;
  amount?: number;
  creditsPercent?: string;
  capPercent?: string;
  balance?: string;
  customer?: string;
  notifyCustomer?: boolean;
}

async function create(ctx: Context, opts: CreateFlags, [meter = ""]: string[]) {
  const given = [
    ["units", opts.units],
    ["amount", opts.amount],
    ["credits_percent", opts.creditsPercent],
    ["cap_percent", opts.capPercent],
    ["balance", opts.balance],
  ].filter((e): e is [string, string | number] => e[1] !== undefined);
  if (given.length !== 1) throw new UsageError("give exactly one threshold: --units, --amount, --credits-percent, --cap-percent or --balance", "what the alert measures");
  const [kind, value] = given[0]!;
  const body = {
    meter_id: meter,
    kind,
    threshold: typeof value === "number" ? value : parseNumber(value, kind === "balance"),
    customer_id: opts.customer ? await customerIdOf(ctx, opts.customer) : null,
    notify_customer: opts.notifyCustomer ?? false,
  };
  const a = await ctx.out.loading("Creating usage alert", v1(ctx).send<WireUsageAlert>("POST", "/usage-alerts/", body));
  const who = a.customer_id ? `customer ${a.customer_id}` : "every customer";
  ctx.out.done(a, `Created usage alert ${a.id}: ${describeAlert(a)} in a period, for ${who}${a.notify_customer ? " (the customer is mailed too)" : ""}.`);
}

async function list(ctx: Context, opts: { meter?: string }) {
  const res = await ctx.out.loading("Loading usage alerts", v1(ctx).get<{ items: WireUsageAlert[] }>("/usage-alerts/", { meter_id: opts.meter }));
  if (ctx.out.json) return ctx.out.printJson(res);
  await ctx.out.table(
    res.items,
    [
      { header: "ID", value: (a) => a.id },
      { header: "METER", value: (a) => a.meter_id },
      { header: "THRESHOLD", value: describeAlert },
      { header: "CUSTOMER", value: (a) => a.customer_id ?? "every customer" },
      { header: "MAILS CUSTOMER", value: (a) => (a.notify_customer ? "yes" : "no") },
    ],
    { empty: "No usage alerts: `till meters alerts create <meter-id> --units 10000`." },
  );
}

async function remove(ctx: Context, opts: { yes?: boolean }, [id = ""]: string[]) {
  await confirm(ctx, {
    yes: opts.yes,
    action: "delete",
    reason: `usage alert ${id} would be deleted,`,
    hint: `check it with \`till meters alerts list\`, then run \`till meters alerts delete ${id} --yes\``,
    question: async () => `Delete usage alert ${id}? [y/N] `,
  });
  await ctx.out.loading("Deleting usage alert", v1(ctx).send("DELETE", `/usage-alerts/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted usage alert ${id}.`);
}

export function registerAlerts(meters: Command): void {
  const alerts = meters
    .command("alerts")
    .description("usage alerts: a webhook (till.usage_alert.triggered) and emails when a customer's usage in a period crosses a threshold")
    .addHelpText(
      "after",
      examples([
        "till meters alerts create <meter-id> --units 10000",
        "till meters alerts create <meter-id> --cap-percent 80 --notify-customer",
        "till meters alerts create <meter-id> --balance 0",
        "till meters alerts list --meter <meter-id>",
        "till meters alerts delete <alert-id> --yes",
      ]),
    );
  alerts
    .command("list")
    .alias("ls")
    .description("list usage alerts")
    .option("--meter <id>", "only this meter's alerts", parseId)
    .action(withContext(list));
  alerts
    .command("create")
    .description("alert when a customer's usage of the meter in a period crosses a threshold (once per period)")
    .argument("<meter-id>", "the meter", parseId)
    .option("--units <n>", "threshold: units consumed in the period")
    .option("--amount <amount>", "threshold: what the period's usage costs, in minor units (5000 = $50.00)", parseAmount)
    .option("--credits-percent <n>", "threshold: units consumed as a percentage of the period's meter credits")
    .option("--cap-percent <n>", "threshold: the usage's cost as a percentage of the metered price's cap")
    .option("--balance <n>", "threshold: units left of the period's meter credits, reached from above (0: the credits are exhausted)")
    .option("--customer <id|email>", "only this customer (default: every customer)")
    .option("--notify-customer", "mail the customer too (the organization's owners always are)")
    .addHelpText("after", examples(["till meters alerts create <meter-id> --units 10000", "till meters alerts create <meter-id> --credits-percent 90 --customer ada@example.com --notify-customer"]))
    .action(withContext(create));
  alerts
    .command("delete")
    .description("delete a usage alert (asks first; --yes in scripts)")
    .argument("<alert-id>", "the alert", parseId)
    .option("--yes", "do not ask")
    .addHelpText("after", examples(["till meters alerts delete <alert-id> --yes"]))
    .action(withContext(remove));
}
