// `till customers members list|add|update|remove`: the members of a team customer (/v1/customers/{id}/members and
// /v1/members/), each with a role: owner (exactly one), billing_manager or member. The customer is named by id or
// email; a member by id or email. Making a member the owner hands ownership on (the owner becomes a billing
// manager); the owner cannot be removed.
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { isUuid } from "../flags.js";
import { changes, day, listOptions, listResource, type ListOptions } from "../resources.js";

/**
 * Finds the customer's id from an id or an email (customers.ts's, passed in: customers.ts registers these commands).
 */
type CustomerIdOf = (ctx: Context, ref: string) => Promise<string>;

interface WireMember {
  id: string;
  customer_id: string;
  email: string;
  name: string | null;
  external_id: string | null;
  role: string;
  created_at: string;
}

const ROLES = ["owner", "billing_manager", "member"] as const;

function role(flag: string, value: string | undefined, allowed: readonly string[] = ROLES): string | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value)) throw new UsageError(`${flag}: expected one of ${allowed.join(", ")}, got "${value}"`);
  return value;
}

const label = (m: WireMember) => `${m.email}${m.name ? ` (${m.name})` : ""}`;

/** The member `ref` names in the customer: an id as it is; an email, the member with it. */
async function memberIdOf(ctx: Context, customerId: string, ref: string): Promise<string> {
  if (isUuid(ref)) return ref.toLowerCase();
  const all = await ctx.out.loading("Finding the member", v1(ctx).listAll<WireMember>(`/customers/${customerId}/members`));
  const found = all.find((m) => m.email === ref.trim().toLowerCase());
  if (!found) throw new CliError(`the customer has no member with the email ${ref}`, { code: "ResourceNotFound", hint: "`till customers members list <customer>` shows them" });
  return found.id;
}

export function registerMembers(customers: Command, customerIdOf: CustomerIdOf): void {
  const members = customers
    .command("members")
    .description("the members of a team customer: list, add, change the role of, remove")
    .addHelpText(
      "after",
      examples([
        "till customers members list acme@example.com",
        "till customers members add <customer> --email ann@example.com --role billing_manager",
        "till customers members update <customer> ann@example.com --role owner",
        "till customers members remove <customer> joe@example.com",
      ]),
    );

  listOptions(members.command("list").alias("ls").description("list a team's members").argument("<customer>", "the customer's id or email"))
    .option("--role <role>", "only members with this role: owner, billing_manager or member")
    .action(
      withContext(async (ctx: Context, opts: ListOptions & { role?: string }, [ref = ""]: string[]) => {
        const customerId = await customerIdOf(ctx, ref);
        await listResource<WireMember>(ctx, opts, {
          path: `/customers/${customerId}/members`,
          noun: "members",
          query: { role: role("--role", opts.role) },
          columns: [
            { header: "ID", value: (m) => m.id },
            { header: "EMAIL", value: (m) => m.email },
            { header: "NAME", value: (m) => m.name ?? "" },
            { header: "ROLE", value: (m) => m.role },
            { header: "SINCE", value: (m) => day(m.created_at) },
          ],
          empty: "No members: only team customers have them (`till customers create --team`).",
        });
      }),
    );

  members
    .command("add")
    .description("add a member to a team customer")
    .argument("<customer>", "the customer's id or email")
    .requiredOption("--email <email>", "the member's email address")
    .option("--name <name>", "the member's name")
    .option("--role <role>", "member (default) or billing_manager")
    .option("--external-id <id>", "your own id for the member (unique within the customer)")
    .action(
      withContext(async (ctx: Context, opts: { email: string; name?: string; role?: string; externalId?: string }, [ref = ""]: string[]) => {
        const customerId = await customerIdOf(ctx, ref);
        const body = { email: opts.email.trim(), name: opts.name, role: role("--role", opts.role, ["member", "billing_manager"]), external_id: opts.externalId };
        const m = await ctx.out.loading("Adding the member", v1(ctx).send<WireMember>("POST", `/customers/${customerId}/members`, body));
        ctx.out.done(m, `Added ${label(m)} as ${m.role} (${m.id}).`);
      }),
    );

  members
    .command("update")
    .description("change a member's name or role (--role owner hands ownership on)")
    .argument("<customer>", "the customer's id or email")
    .argument("<member>", "the member's id or email")
    .option("--name <name>", "a new name")
    .option("--role <role>", "owner, billing_manager or member")
    .action(
      withContext(async (ctx: Context, opts: { name?: string; role?: string }, [ref = "", memberRef = ""]: string[]) => {
        const body = changes({ name: opts.name, role: role("--role", opts.role) }, "--name or --role");
        const customerId = await customerIdOf(ctx, ref);
        const id = await memberIdOf(ctx, customerId, memberRef);
        const m = await ctx.out.loading("Updating the member", v1(ctx).send<WireMember>("PATCH", `/customers/${customerId}/members/${id}`, body));
        ctx.out.done(m, `Updated ${label(m)}: ${m.role}.`);
      }),
    );

  members
    .command("remove")
    .description("remove a member from a team customer (not the owner)")
    .argument("<customer>", "the customer's id or email")
    .argument("<member>", "the member's id or email")
    .action(
      withContext(async (ctx: Context, _opts: object, [ref = "", memberRef = ""]: string[]) => {
        const customerId = await customerIdOf(ctx, ref);
        const id = await memberIdOf(ctx, customerId, memberRef);
        await ctx.out.loading("Removing the member", v1(ctx).send("DELETE", `/customers/${customerId}/members/${id}`));
        ctx.out.done({ id, customer_id: customerId, removed: true }, `Removed member ${memberRef.trim()} from the team.`);
      }),
    );
}
