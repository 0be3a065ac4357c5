// `till orgs status` and `till orgs submit`: where the organization stands on its way to live payments (created,
// onboarding_started, under_review, denied, active: GET /v1/organizations/{id}/status, till's own) with the next
// step, and the business details a seller submits to go live (Polar's `details`, PATCH /v1/organizations/{id}).
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";

/** orgs.ts's `resolveOrganizationId`, handed in (this file is registered by orgs.ts: no import back). */
type ResolveOrganization = (ctx: Context, org: string | undefined) => Promise<string>;
let resolveOrganizationId: ResolveOrganization;

interface Step {
  step: string;
  done: boolean;
  text: string;
  command: string | null;
}

export interface StatusReport {
  status: string;
  lifecycle_status: string;
  sandbox: boolean;
  test_payments: boolean;
  live_payments: boolean;
  details_submitted_at: string | null;
  review: { required: boolean; status: string | null; reason: string | null };
  steps: Step[];
  next_step: Step | null;
}

const describeStep = (s: Step) => (s.command ? `${s.text}: ${s.command}` : s.text);

async function status(ctx: Context, opts: { org?: string }): Promise<void> {
  const id = await resolveOrganizationId(ctx, opts.org);
  const report = await ctx.out.loading("Loading the organization's status", v1(ctx).get<StatusReport>(`/organizations/${id}/status`));
  const note = report.sandbox
    ? " (a sandbox: test payments from the start)"
    : report.test_payments && report.lifecycle_status !== "active"
      ? ` (TILL_TEST_PAYMENTS=live on this server; with real money it would be ${report.lifecycle_status})`
      : "";
  await ctx.out.record(report, [
    { label: "Status", value: `${report.status}${note}` },
    { label: "Live payments", value: report.live_payments ? "yes" : "no" },
    ...report.steps.map((s) => ({ label: s.done ? "Done" : "To do", value: s.text })),
    ...(report.review.status === "denied" && report.review.reason ? [{ label: "Denied because", value: report.review.reason }] : []),
    { label: "Next step", value: report.next_step ? describeStep(report.next_step) : "none" },
  ]);
}

interface SubmitOptions {
  org?: string;
  about?: string;
  productDescription?: string;
  intendedUse?: string;
}

async function submit(ctx: Context, opts: SubmitOptions): Promise<void> {
  const missing = [
    opts.about ? null : "--about",
    opts.productDescription ? null : "--product-description",
    opts.intendedUse ? null : "--intended-use",
  ].filter((f): f is string => f !== null);
  if (missing.length > 0) {
    throw new UsageError(`missing ${missing.join(", ")}`, 'till orgs submit --about "what your business is" --product-description "what you sell" --intended-use "how you will use till"');
  }
  const id = await resolveOrganizationId(ctx, opts.org);
  const details = { about: opts.about, product_description: opts.productDescription, intended_use: opts.intendedUse };
  await ctx.out.loading("Submitting your business details", v1(ctx).send("PATCH", `/organizations/${id}`, { details }));
  const report = await v1(ctx).get<StatusReport>(`/organizations/${id}/status`);
  const next = report.next_step ? ` Next: ${describeStep(report.next_step)}.` : "";
  ctx.out.done(report, `Submitted your business details. Status: ${report.status}.${next}`);
}

export function registerStatus(orgs: Command, resolve: ResolveOrganization): void {
  resolveOrganizationId = resolve;
  const org = ["--org <id|slug>", "the organization (default: the active one)"] as const;
  orgs
    .command("status")
    .description("where the organization stands on its way to live payments, and the next step")
    .option(...org)
    .addHelpText(
      "after",
      examples(["till orgs status", "till orgs status --org acme --json"]) +
        "\nStatuses: created, onboarding_started (legal or business details, or Stripe, begun), under_review (the\n" +
        "instance reviews submitted details: TILL_ORG_REVIEW=required), denied (read why, change, submit again), active\n" +
        "(business details submitted and Stripe connected with live keys: live checkouts of paid products work).\n",
    )
    .action(withContext(status));
  orgs
    .command("submit")
    .description("submit your business details: what you sell and to whom (needed for live payments)")
    .option("--about <text>", "what your business is")
    .option("--product-description <text>", "what you sell")
    .option("--intended-use <text>", "how you will use till")
    .option(...org)
    .addHelpText(
      "after",
      examples(['till orgs submit --about "We make invoicing tools" --product-description "A hosted invoicing app, monthly" --intended-use "Subscriptions for small businesses"']) +
        "\nSubmitting again replaces the details (after a denial: it asks for a review again).\n",
    )
    .action(withContext(submit));
}
