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

/** "products:write, webhooks:read" from {products: ["read","write"], webhooks: ["read"]} (write includes read). */
export function describeScopes(permissions: Record<string, string[]>): string {
  const scopes = Object.entries(permissions).map(([resource, actions]) => `${resource}:${actions.includes("write") ? "write" : actions.join("+")}`);
  return scopes.length > 0 ? scopes.join(", ") : "none";
}

async function status(ctx: Context): Promise<void> {
  const credential = requireCredential(ctx);
  const who = await ctx.out.loading("Checking", whoami(ctx, credential));
  const key = who.api_key ?? null;
  const known = ctx.profile.organization;
  // a key names its organization itself (the live one, for a sandbox key); a session's is the one the profile
  // remembers — in the sandbox the profile knows the live organization by name, and the twin is its sandbox
  const named = key?.organization ?? (known && known.id === (who.sandbox ? who.live_organization_id : who.organization_id) ? known : null);
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
    api_key: key,
  };
  await ctx.out.record(data, [
    { label: "Server", value: ctx.server },
    {
      label: "Signed in as",
      value: who.user ? `${who.user.email}${who.user.name ? ` (${who.user.name})` : ""}` : `the organization API key ${key?.name ? `"${key.name}"` : "(unnamed)"}${key ? ` (${key.id})` : ""}`,
    },
    { label: "Credential", value: `${who.kind === "api_key" ? "API key" : "session"} from ${SOURCE[credential.source]}${credential.source === "profile" ? ` (profile ${ctx.profileName})` : ""}` },
    {
      label: "Organization",
      value: organization ? (organization.name ? `${organization.name} (${[organization.slug, organization.id].filter(Boolean).join(", ")})` : organization.id) : "none",
    },
    { label: "Mode", value: describeMode({ ...ctx.mode, sandbox: who.sandbox }, ctx.profileName) },
    ...(who.roles.length > 0 ? [{ label: "Roles", value: who.roles.join(", ") }] : []),
    ...(key
      ? [
          { label: "Scopes", value: describeScopes(who.permissions) },
          { label: "Expires", value: key.expires_at ? key.expires_at.slice(0, 10) : "never" },
        ]
      : []),
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
