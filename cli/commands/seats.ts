// `till seats list|assign|revoke|resend`: the seats of a seat-based purchase (/v1/customer-seats). A seat goes to
// an email (an invitation with a claim link is mailed) or to an existing customer; the person who claims it gets
// the product's benefits. Revoking a seat revokes those benefits and cannot be undone (asks first, --yes in scripts).
import type { Command } from "commander";
import { v1 } from "../client.js";
import { confirm } from "../confirm.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { collectMetadata, parseEmail, parseId, type MetadataValue } from "../flags.js";
import { day } from "../resources.js";

export interface WireSeat {
  id: string;
  status: string;
  email: string | null;
  customer_id: string | null;
  customer_email: string | null;
  subscription_id: string | null;
  order_id: string | null;
  invitation_token_expires_at: string | null;
  claimed_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

interface WireSeatsList {
  seats: WireSeat[];
  available_seats: number;
  total_seats: number;
}

interface OwnerFlags {
  subscription?: string;
  order?: string;
}

/** --subscription or --order, exactly one, as the query or body keys. */
function ownerOf(opts: OwnerFlags & { checkout?: string }): Record<string, string> {
  const given = [
    ["subscription_id", opts.subscription],
    ["order_id", opts.order],
    ["checkout_id", opts.checkout],
  ].filter((e): e is [string, string] => e[1] !== undefined);
  const names = "checkout" in opts ? "--subscription, --order or --checkout" : "--subscription or --order";
  if (given.length !== 1) throw new UsageError(`give exactly one of ${names}`, "a seat belongs to a seat-based subscription or one-time order");
  return Object.fromEntries(given);
}

const holder = (s: WireSeat) => s.customer_email ?? s.email ?? s.customer_id ?? "";

function state(s: WireSeat): string {
  if (s.status === "claimed") return `claimed ${day(s.claimed_at)}`;
  if (s.status === "revoked") return `revoked ${day(s.revoked_at)}`;
  return s.invitation_token_expires_at ? `invited, until ${day(s.invitation_token_expires_at)}` : s.status;
}

async function list(ctx: Context, opts: OwnerFlags) {
  const query = ownerOf(opts);
  const res = await ctx.out.loading("Loading seats", v1(ctx).get<WireSeatsList>("/customer-seats", query));
  if (ctx.out.json) {
    ctx.out.printJson(res);
    return;
  }
  ctx.out.info(`${res.total_seats - res.available_seats} of ${res.total_seats} seats assigned, ${res.available_seats} free.`);
  await ctx.out.table(
    res.seats,
    [
      { header: "ID", value: (s) => s.id },
      { header: "HOLDER", value: holder },
      { header: "STATUS", value: state },
      { header: "CUSTOMER", value: (s) => s.customer_id ?? "" },
    ],
    { empty: "No seats assigned yet: `till seats assign --subscription <id> --email <address>`." },
  );
}

interface AssignFlags extends OwnerFlags {
  checkout?: string;
  email?: string;
  customer?: string;
  externalCustomer?: string;
  metadata?: Record<string, MetadataValue>;
  claimNow?: boolean;
}

async function assign(ctx: Context, opts: AssignFlags) {
  const who = [
    ["email", opts.email],
    ["customer_id", opts.customer],
    ["external_customer_id", opts.externalCustomer],
  ].filter((e): e is [string, string] => e[1] !== undefined);
  if (who.length !== 1) throw new UsageError("give exactly one of --email, --customer or --external-customer", "who gets the seat");
  const body = {
    ...ownerOf({ subscription: opts.subscription, order: opts.order, checkout: opts.checkout }),
    ...Object.fromEntries(who), metadata: opts.metadata, immediate_claim: opts.claimNow ?? false,
  };
  const s = await ctx.out.loading("Assigning seat", v1(ctx).send<WireSeat>("POST", "/customer-seats", body));
  const what = s.status === "claimed" ? "claimed for them now (no invitation sent)" : `invitation mailed, valid until ${day(s.invitation_token_expires_at)}`;
  ctx.out.done(s, `Assigned seat ${s.id} to ${holder(s)}: ${what}.`);
}

async function revoke(ctx: Context, opts: { yes?: boolean }, [id = ""]: string[]) {
  await confirm(ctx, {
    yes: opts.yes,
    action: "revoke",
    reason: `seat ${id} would be revoked and its holder's benefits with it,`,
    hint: `check it with \`till seats list --subscription <id>\`, then run \`till seats revoke ${id} --yes\``,
    question: async () => `Revoke seat ${id} and its holder's benefits? [y/N] `,
  });
  const s = await ctx.out.loading("Revoking seat", v1(ctx).send<WireSeat>("DELETE", `/customer-seats/${id}`));
  ctx.out.done(s, `Revoked seat ${s.id} (${holder(s)}): its benefits are revoked and the seat is free again.`);
}

async function resend(ctx: Context, _opts: object, [id = ""]: string[]) {
  const s = await ctx.out.loading("Sending invitation", v1(ctx).send<WireSeat>("POST", `/customer-seats/${id}/resend`, {}));
  ctx.out.done(s, `Sent a new invitation for seat ${s.id} to ${holder(s)}, valid until ${day(s.invitation_token_expires_at)}; the previous link no longer works.`);
}

const ownerOptions = (cmd: Command) =>
  cmd
    .option("--subscription <id>", "the seat-based subscription", parseId)
    .option("--order <id>", "the seat-based one-time order", parseId);

export function register(program: Command): void {
  const seats = program
    .command("seats")
    .description("hand out the seats of a seat-based purchase; each holder gets the product's benefits")
    .addHelpText(
      "after",
      examples([
        "till seats list --subscription <id>",
        "till seats assign --subscription <id> --email ada@example.com",
        "till seats resend <seat-id>",
        "till seats revoke <seat-id> --yes",
      ]) + "\nBuyers can manage their own seats in the customer portal as well.\n",
    );

  ownerOptions(seats.command("list").alias("ls").description("list a purchase's seats and how many are free"))
    .addHelpText("after", examples(["till seats list --subscription <id>", "till seats list --order <id> --json"]))
    .action(withContext(list));

  ownerOptions(seats.command("assign").description("give a seat to someone: an invitation to claim it is mailed"))
    .option("--checkout <id>", "the purchase a completed checkout made", parseId)
    .option("--email <address>", "the person's email", parseEmail)
    .option("--customer <id>", "an existing customer", parseId)
    .option("--external-customer <id>", "an existing customer, by your own id for it")
    .option("--metadata <key=value>", "data kept with the seat, repeatable (at most 10)", collectMetadata)
    .option("--claim-now", "claim it for them at once, without an invitation")
    .addHelpText(
      "after",
      examples([
        "till seats assign --subscription <id> --email ada@example.com",
        "till seats assign --order <id> --customer <customer-id> --metadata team=core",
        "till seats assign --subscription <id> --external-customer user_42 --claim-now",
      ]),
    )
    .action(withContext(assign));

  seats
    .command("revoke")
    .description("take a seat back: its holder loses the product's benefits (asks first)")
    .argument("<seat-id>", "the seat's id", parseId)
    .option("-y, --yes", "do not ask (scripts)")
    .addHelpText("after", examples(["till seats revoke <seat-id>", "till seats revoke <seat-id> --yes --json"]))
    .action(withContext(revoke));

  seats
    .command("resend")
    .description("mail a pending seat's invitation again, with a new link")
    .argument("<seat-id>", "the seat's id", parseId)
    .addHelpText("after", examples(["till seats resend <seat-id>"]))
    .action(withContext(resend));
}
