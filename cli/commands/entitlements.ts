// `till entitlements check`: may this customer use this feature (a feature_flag benefit's key or id, or a meter's
// name or id), and for a meter how much is left (POST /v1/entitlements/check, till's own API). The customer is
// named by id or email (--customer; an email becomes the id with customerIdOf) or by your own id for them
// (--external-customer-id, sent as is). The answer is the exit code as well, so a script can branch on it: 0
// allowed, 3 refused; with --json the answer is the data (`.allowed`) and the exit code 0 either way, as `gh pr
// checks --json` does. A customer id or external id till does not know is an answer (customer_not_found), not an
// error; an email no customer has is (exit 1), as in every command that looks one up. The signing keys and signed
// snapshots: entitlement-keys.ts.
import type { Command } from "commander";
import type { EntitlementAnswer, OverageMode } from "../../shared/entitlements.js";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { EXIT, ExitStatus, UsageError } from "../errors.js";
import { parseCustomer } from "../flags.js";
import { customerIdOf } from "./customers.js";
import { registerKeys } from "./entitlement-keys.js";

/** The check's answer on the wire: the shared answer with the feature asked, the customer found and the overage. */
export interface WireEntitlementCheck extends EntitlementAnswer {
  feature: string;
  customer_id: string | null;
  overage: OverageMode | null;
}

/** A number of a meter's units: positive (a meter may sum fractions). */
export function parseUnits(value: string): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0) || n > 1e12) throw new UsageError(`--units: expected a positive number of units, got ${JSON.stringify(value)}`);
  return n;
}

export interface CustomerFlags {
  customer?: string;
  externalCustomerId?: string;
}

/** The body's customer: `customer_id` (an email looked up) or `external_customer_id`; exactly one. */
export async function customerOfFlags(ctx: Context, opts: CustomerFlags): Promise<{ customer_id: string } | { external_customer_id: string }> {
  if (opts.customer !== undefined && opts.externalCustomerId !== undefined) {
    throw new UsageError("--customer and --external-customer-id: name the customer by one of them");
  }
  if (opts.externalCustomerId !== undefined) {
    if (opts.externalCustomerId.trim() === "") throw new UsageError("--external-customer-id: expected your id for the customer");
    return { external_customer_id: opts.externalCustomerId };
  }
  if (opts.customer === undefined) throw new UsageError("missing the customer: pass --customer <id|email> or --external-customer-id <your id>");
  return { customer_id: await customerIdOf(ctx, opts.customer) };
}

const amount = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 6 });

/** The line under the verdict: a meter's numbers, or the flag that answered. */
function details(a: WireEntitlementCheck): string | null {
  if (a.kind === "meter") {
    const parts = [`balance ${amount(a.balance ?? 0)}`, `limit ${a.limit === null ? "none" : amount(a.limit)}`, `held ${amount(a.held ?? 0)}`];
    if (a.units !== null) parts.push(`units ${amount(a.units)}`);
    if (a.overage !== null) parts.push(`overage ${a.overage}`);
    return parts.join(" · ");
  }
  if (a.kind === "feature_flag") return `feature flag (benefit ${a.benefit_id})`;
  return null;
}

interface CheckFlags extends CustomerFlags {
  feature: string;
  units?: number;
}

async function check(ctx: Context, opts: CheckFlags) {
  const body = { ...(await customerOfFlags(ctx, opts)), feature: opts.feature, ...(opts.units === undefined ? {} : { units: opts.units }) };
  const a = await ctx.out.loading("Checking", v1(ctx).send<WireEntitlementCheck>("POST", "/entitlements/check", body));
  const s = ctx.out.style;
  const verdict = a.allowed ? s.green("allowed") : `${s.red("refused")}: ${a.reason ?? "unknown"}`;
  const more = details(a);
  ctx.out.done(a, more === null ? verdict : `${verdict}\n${s.dim(more)}`);
  // --json: the answer is the data; otherwise the exit code says it too
  if (!a.allowed && !ctx.out.json) throw new ExitStatus(EXIT.refused);
}

const EXIT_CODES =
  "\nExit codes:\n" +
  "  0  allowed (and always with --json: read .allowed)\n" +
  "  3  refused: the reason is printed (customer_not_found, no_benefit, insufficient_balance, subscription_past_due)\n" +
  "  1  failure (no customer has the email, the server could not be reached); 2 usage or an unknown feature (422); 4 auth\n";

export function register(program: Command): void {
  const entitlements = program
    .command("entitlements")
    .description("may a customer use a feature now, and how much of a meter is left (what your app asks on its hot path)")
    .addHelpText(
      "after",
      examples([
        "till entitlements check --customer ada@example.com --feature pdf_export",
        "till entitlements check --external-customer-id user_42 --feature compute --units 5",
        "till entitlements snapshot --customer ada@example.com",
        "till entitlements keys",
        "till entitlements rotate-key",
      ]),
    );

  entitlements
    .command("check")
    .description("answer allowed or refused (with the reason), and for a meter its balance, limit and held units; nothing is written")
    .option("--customer <id|email>", "the customer, by its id or email", parseCustomer)
    .option("--external-customer-id <id>", "the customer, by your own id for them (its external id)")
    .requiredOption("--feature <key|meter>", "a feature_flag benefit's metadata key (or id), or a meter's name (or id)")
    .option("--units <n>", "for a meter: the units about to be used (refused when the balance does not cover them)", parseUnits)
    .addHelpText(
      "after",
      examples([
        "till entitlements check --customer ada@example.com --feature pdf_export",
        "till entitlements check --customer <id> --feature compute --units 5",
        "till entitlements check --external-customer-id user_42 --feature compute --json --jq .balance",
        "if till entitlements check --external-customer-id user_42 --feature pdf_export > /dev/null; then …; fi",
      ]) + EXIT_CODES,
    )
    .action(withContext(check));

  registerKeys(entitlements);
}
