// `till auth status`: who the CLI acts as (GET /api/whoami with the credential in use), on which server,
// for which organization, and where the credential comes from. Exit 0 when signed in, 4 when not.
import type { Command } from "commander";
import { whoami } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireCredential, type Context, type Credential } from "../context.js";
import { describeMode } from "../mode.js";

const SOURCE: Record<Credential["source"], string> = {
  flag: "--api-key",
  env: "TILL_API_KEY",
  profile: "stored session",
};

async function status(ctx: Context): Promise<void> {
  const credential = requireCredential(ctx);
  const who = await ctx.out.loading("Checking", whoami(ctx, credential));
  const known = ctx.profile.organization;
  // in the sandbox the profile knows the live organization by name; the twin is its sandbox
  const named = known && known.id === (who.sandbox ? who.live_organization_id : who.organization_id) ? known : null;
  const organization = who.organization_id
    ? { id: who.organization_id, name: named ? `${named.name}${who.sandbox ? " (sandbox)" : ""}` : null, slug: who.sandbox ? null : (named?.slug ?? null) }
    : null;
  const data = {
    signed_in: true,
    server: ctx.server,
    profile: ctx.profileName,
    credential: { kind: who.kind, source: credential.source },
    api_key_from_env: credential.source === "env",
    user: who.user,
    organization,
    sandbox: who.sandbox,
    mode_source: ctx.mode.source,
    live_organization_id: who.live_organization_id,
    roles: who.roles,
    permissions: who.permissions,
  };
  await ctx.out.record(data, [
    { label: "Server", value: ctx.server },
    { label: "Signed in as", value: who.user ? `${who.user.email}${who.user.name ? ` (${who.user.name})` : ""}` : "an organization API key" },
    { label: "Credential", value: `${who.kind === "api_key" ? "API key" : "session"} from ${SOURCE[credential.source]}${credential.source === "profile" ? ` (profile ${ctx.profileName})` : ""}` },
    {
      label: "Organization",
      value: organization ? (organization.name ? `${organization.name} (${[organization.slug, organization.id].filter(Boolean).join(", ")})` : organization.id) : "none",
    },
    { label: "Mode", value: describeMode({ ...ctx.mode, sandbox: who.sandbox }, ctx.profileName) },
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
