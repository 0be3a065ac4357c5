// `till orgs dunning show|set`: how failed renewal charges are retried and how the subscription ends after the
// last failure — the `dunning_settings` till adds to GET/PATCH /v1/organizations/{id} (the SDK drops the field,
// so this is plain /v1 JSON). The server checks the values; its 422 is shown as it is.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";

type ResolveOrganization = (ctx: Context, org: string | undefined) => Promise<string>;
let resolveOrganizationId: ResolveOrganization;

interface DunningSettings {
  retry_intervals_days: number[];
  final_action: "cancel" | "unpaid";
}

interface OrgWithDunning {
  id: string;
  name: string;
  dunning_settings?: DunningSettings;
}

const DEFAULTS: DunningSettings = { retry_intervals_days: [3, 5, 7], final_action: "cancel" };

/** `3,5,7` (or `none`): days to wait before each retry. */
export function parseRetries(value: string): number[] {
  if (/^\s*(none|never|0)\s*$/i.test(value)) return [];
  const parts = value.split(/[,\s]+/).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) {
    throw new UsageError(`--retries: "${value}" is not a list of days`, "write whole days separated by commas (3,5,7), or none");
  }
  return parts.map(Number);
}

function describeRetries(days: number[]): string {
  return days.length === 0 ? "none (the subscription ends at the first failure)" : days.map((d) => `${d}d`).join(", ") + " (each after the previous failure)";
}

const describeEnd = (s: DunningSettings) =>
  s.final_action === "cancel" ? "cancel (ended, benefits revoked)" : "unpaid (kept, benefits revoked, payable from the portal)";

async function load(ctx: Context, org: string | undefined) {
  const id = await resolveOrganizationId(ctx, org);
  const found = await ctx.out.loading("Loading dunning settings", v1(ctx).get<OrgWithDunning>(`/organizations/${id}`));
  return { id, name: found.name, settings: found.dunning_settings ?? DEFAULTS };
}

async function show(ctx: Context, opts: { org?: string }): Promise<void> {
  const { name, settings } = await load(ctx, opts.org);
  await ctx.out.record(settings, [
    { label: "Organization", value: name },
    { label: "Retries", value: describeRetries(settings.retry_intervals_days) },
    { label: "After the last failure", value: describeEnd(settings) },
  ]);
}

async function set(ctx: Context, opts: { org?: string; retries?: string; then?: string; reset?: boolean }): Promise<void> {
  if (opts.retries === undefined && opts.then === undefined && !opts.reset) {
    throw new UsageError("nothing to set", "give --retries 3,5,7, --then cancel|unpaid, or --reset");
  }
  if (opts.reset && (opts.retries !== undefined || opts.then !== undefined)) throw new UsageError("--reset: cannot be used with --retries or --then", "reset, or set values");
  if (opts.then !== undefined && opts.then !== "cancel" && opts.then !== "unpaid") {
    throw new UsageError(`--then: "${opts.then}" is not an end state`, "write cancel or unpaid");
  }
  const id = await resolveOrganizationId(ctx, opts.org);
  const body = opts.reset
    ? { dunning_settings: null }
    : {
        dunning_settings: {
          ...(opts.retries !== undefined ? { retry_intervals_days: parseRetries(opts.retries) } : {}),
          ...(opts.then !== undefined ? { final_action: opts.then } : {}),
        },
      };
  const updated = await ctx.out.loading("Saving dunning settings", v1(ctx).send<OrgWithDunning>("PATCH", `/organizations/${id}`, body));
  const saved = updated.dunning_settings ?? DEFAULTS;
  ctx.out.done(saved, `Retries: ${describeRetries(saved.retry_intervals_days)}\nAfter the last failure: ${describeEnd(saved)}`);
}

export function registerDunning(orgs: Command, resolve: ResolveOrganization): void {
  resolveOrganizationId = resolve;
  const dunning = orgs
    .command("dunning")
    .description("how failed renewal charges are retried, and how the subscription ends after the last failure")
    .addHelpText(
      "after",
      examples(["till orgs dunning show", "till orgs dunning set --retries 3,5,7 --then cancel", "till orgs dunning set --then unpaid", "till orgs dunning set --reset"]) +
        "\nA failed renewal leaves its order pending and the subscription past_due; the charge is tried again after\n" +
        "each wait (counted from the previous failure). After the last failure the subscription is canceled, or\n" +
        "kept as unpaid (its order still payable from the portal); its benefits are revoked either way.\n",
    );
  const org = ["--org <id|slug>", "the organization (default: the active one)"] as const;
  dunning
    .command("show")
    .description("show the retry schedule and the end state")
    .option(...org)
    .addHelpText("after", examples(["till orgs dunning show", "till orgs dunning show --json"]))
    .action(withContext(show));
  dunning
    .command("set")
    .description("set the retry schedule and/or the end state")
    .option("--retries <days>", "days to wait before each retry, comma separated (3,5,7), or none")
    .option("--then <end>", "after the last failure: cancel or unpaid")
    .option("--reset", "back to the defaults (3,5,7 then cancel)")
    .option(...org)
    .addHelpText("after", examples(["till orgs dunning set --retries 2,4 --then unpaid", "till orgs dunning set --retries none --json"]))
    .action(withContext(set));
}
