// `till auth status`: who the CLI acts as (GET /api/whoami with the credential in use), on which server,
// for which organization, and where the credential comes from. Exit 0 when signed in, 4 when not.
import type { Command } from "commander";
import { whoami } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context, type Credential } from "../context.js";

const SOURCE: Record<Credential["source"], string> = {
  flag: "--api-key",
  env: "TILL_API_KEY",
  profile: "stored session",
};

async function status(ctx: Context): Promise<void> {
  const credential = requireCredential(ctx);
  const who = await ctx.out.loading("Checking", whoami(ctx, credential));
  const known = ctx.profile.organization;
  const organization = who.organization_id
    ? { id: who.organization_id, name: known?.id === who.organization_id ? known.name : null, slug: known?.id === who.organization_id ? known.slug : null }
    : null;
  const data = {
    signed_in: true,
    server: ctx.server,
    profile: ctx.profileName,
    credential: { kind: who.kind, source: credential.source },
    api_key_from_env: credential.source === "env",
    user: who.user,
    organization,
    roles: who.roles,
    permissions: who.permissions,
  };
  await ctx.out.record(data, [
    { label: "Server", value: ctx.server },
    { label: "Signed in as", value: who.user ? `${who.user.email}${who.user.name ? ` (${who.user.name})` : ""}` : "an organization API key" },
    { label: "Credential", value: `${who.kind === "api_key" ? "API key" : "session"} from ${SOURCE[credential.source]}${credential.source === "profile" ? ` (profile ${ctx.profileName})` : ""}` },
    { label: "Organization", value: organization ? (organization.name ? `${organization.name} (${organization.slug}, ${organization.id})` : organization.id) : "none" },
    ...(who.roles.length > 0 ? [{ label: "Roles", value: who.roles.join(", ") }] : []),
  ]);
}

export function register(program: Command): void {
  const auth = program
    .command("auth")
    .description("inspect how the CLI is signed in")
    .addHelpText("after", examples(["till auth status"]));
  auth
    .command("status")
    .description("show the user, server and organization in use; exit 0 when signed in, 4 when not")
    .addHelpText("after", examples(["till auth status", "till auth status --json", "TILL_API_KEY=till_… till auth status"]))
    .action(withContext(status));
}
