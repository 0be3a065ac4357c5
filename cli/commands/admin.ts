// `till admin orgs list|approve|deny`: the platform admins' review of organizations' submitted details
// (/v1/admin/organizations, till's own; a server with TILL_ORG_REVIEW=required puts them under_review). Needs the
// session of a platform admin: a user with the admin role, or one listed in TILL_ADMIN_USER_IDS. `till admin
// backup|restore` (admin-backup.ts): the embedded server's data directory, on the machine it runs on.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireSession, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { isUuid } from "../../shared/uuid.js";
import { registerBackup } from "./admin-backup.js";

const STATUSES = ["created", "onboarding_started", "under_review", "denied", "active"] as const;

interface ReviewedOrganization {
  id: string;
  name: string;
  slug: string;
  status: string;
  details_submitted_at: string | null;
  details: Record<string, unknown> | null;
  review: { status: string | null; reason: string | null; reviewed_at: string | null };
  owners: string[];
}

function parseStatus(value: string): string {
  if (!(STATUSES as readonly string[]).includes(value)) throw new UsageError(`--status: "${value}" is not a status`, `one of ${STATUSES.join(", ")}`);
  return value;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

async function list(ctx: Context, opts: { status?: string }): Promise<void> {
  requireSession(ctx);
  const rows = await ctx.out.loading("Loading organizations", v1(ctx).listAll<ReviewedOrganization>("/admin/organizations/", { status: opts.status }));
  await ctx.out.table(
    rows,
    [
      { header: "Slug", value: (o) => o.slug },
      { header: "Status", value: (o) => o.status },
      { header: "Submitted", value: (o) => o.details_submitted_at?.slice(0, 10) ?? "—" },
      { header: "Owners", value: (o) => o.owners.join(", ") },
      { header: "About", value: (o) => text(o.details?.about).slice(0, 60) },
      { header: "ID", value: (o) => o.id },
    ],
    { empty: opts.status ? `No organization is ${opts.status}.` : "No organizations." },
  );
}

/** An organization by id, or by slug among those the admin list shows. */
async function organizationId(ctx: Context, org: string): Promise<string> {
  if (isUuid(org)) return org.toLowerCase();
  const all = await v1(ctx).listAll<ReviewedOrganization>("/admin/organizations/");
  const found = all.find((o) => o.slug === org);
  if (!found) throw new UsageError(`<org>: no organization "${org}"`, "give its id or slug: till admin orgs list");
  return found.id;
}

async function approve(ctx: Context, _opts: object, [org = ""]: string[]): Promise<void> {
  requireSession(ctx);
  const id = await organizationId(ctx, org);
  const done = await ctx.out.loading("Approving", v1(ctx).send<ReviewedOrganization>("POST", `/admin/organizations/${id}/approve`));
  const still = done.status === "active" ? "" : ` It is ${done.status}: it still needs a Stripe account with live keys to go live.`;
  ctx.out.done(done, `Approved ${done.slug}.${still}`);
}

async function deny(ctx: Context, opts: { reason?: string }, [org = ""]: string[]): Promise<void> {
  requireSession(ctx);
  if (!opts.reason?.trim()) throw new UsageError("--reason is required", 'say why, for the seller to read: till admin orgs deny acme --reason "Tell us what you sell"');
  const id = await organizationId(ctx, org);
  const done = await ctx.out.loading("Denying", v1(ctx).send<ReviewedOrganization>("POST", `/admin/organizations/${id}/deny`, { reason: opts.reason }));
  ctx.out.done(done, `Denied ${done.slug}: ${done.review.reason ?? ""} (the seller reads this in till orgs status and can submit again).`);
}

export function register(program: Command): void {
  const admin = program
    .command("admin")
    .description("the platform admins' side: reviewing organizations, backing up the embedded database");
  registerBackup(admin);
  const orgs = admin
    .command("orgs")
    .description("organizations whose details wait for review (TILL_ORG_REVIEW=required)")
    .addHelpText(
      "after",
      examples(["till admin orgs list --status under_review", "till admin orgs approve acme", 'till admin orgs deny acme --reason "Tell us what you sell"']) +
        "\nNeeds the session of a platform admin (the admin role, or a user id in TILL_ADMIN_USER_IDS): till login.\n",
    );
  orgs
    .command("list")
    .alias("ls")
    .description("list organizations, oldest submission first")
    .option("--status <status>", `only these: ${STATUSES.join(", ")}`, parseStatus)
    .addHelpText("after", examples(["till admin orgs list --status under_review", "till admin orgs list --json"]))
    .action(withContext(list));
  orgs
    .command("approve")
    .description("approve an organization's details (active once its Stripe account is connected)")
    .argument("<org>", "organization id or slug")
    .addHelpText("after", examples(["till admin orgs approve acme"]))
    .action(withContext(approve));
  orgs
    .command("deny")
    .description("deny an organization's details, saying why (it can submit again)")
    .argument("<org>", "organization id or slug")
    .option("--reason <text>", "why, shown to the seller (required)")
    .addHelpText("after", examples(['till admin orgs deny acme --reason "Tell us what you sell"']))
    .action(withContext(deny));
}
