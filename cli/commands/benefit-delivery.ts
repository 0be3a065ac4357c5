// `till benefits grants|regrant|github connect|discord connect`: github_repository and discord benefits are
// delivered by the server's worker (invitations, roles); these show each grant's state and error, deliver a grant
// again, and give the server the seller's GitHub / Discord credentials (kept sealed; never shown again).
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { parseId } from "../flags.js";
import { day } from "../resources.js";

interface WireGrant {
  id: string;
  customer_id: string;
  customer?: { email?: string };
  is_granted: boolean;
  is_revoked: boolean;
  granted_at: string | null;
  error: { message: string; type: string; timestamp: string } | null;
  properties: Record<string, unknown>;
}

const accountOf = (g: WireGrant) =>
  String(g.properties.account_username ?? g.properties.granted_account_id ?? g.properties.account_id ?? "—");

async function grants(ctx: Context, opts: { failed?: boolean }, [benefitId = ""]: string[]) {
  const client = v1(ctx);
  const all: WireGrant[] = [];
  for (let page = 1; page <= 100; page++) {
    const res = await ctx.out.loading(
      "Loading grants",
      client.get<{ items: WireGrant[]; pagination: { max_page: number } }>(`/benefits/${benefitId}/grants?limit=100&page=${page}`),
    );
    all.push(...res.items);
    if (page >= res.pagination.max_page) break;
  }
  const rows = opts.failed ? all.filter((g) => g.error) : all;
  await ctx.out.table(
    rows,
    [
      { header: "ID", value: (g) => g.id },
      { header: "CUSTOMER", value: (g) => g.customer?.email ?? g.customer_id },
      { header: "STATE", value: (g) => (g.is_revoked ? "revoked" : g.error ? "failed" : g.is_granted ? "granted" : "pending") },
      { header: "ACCOUNT", value: accountOf },
      { header: "ERROR", value: (g) => (g.error ? `${g.error.type}: ${g.error.message} (${day(g.error.timestamp)})` : "") },
    ],
    { empty: opts.failed ? "No failed grants." : "No grants of this benefit yet." },
  );
}

async function regrant(ctx: Context, _opts: object, [grantId = ""]: string[]) {
  const g = await ctx.out.loading("Asking for a new delivery", v1(ctx).send<WireGrant>("POST", `/benefit-grants/${grantId}/regrant`, {}));
  ctx.out.done(g, `Grant ${g.id} will be ${g.is_revoked ? "revoked" : "delivered"} again by the server's worker; see \`till benefits grants <benefit>\`.`);
}

function readSecret(flag: string, value: string): string {
  if (!value.startsWith("@")) return value;
  const file = value.slice(1);
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8").trim();
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file === "-" ? "stdin" : file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

interface GithubFlags {
  token?: string;
  appId?: string;
  privateKey?: string;
  installationId?: string;
  clientId: string;
  clientSecret: string;
}

async function githubConnect(ctx: Context, o: GithubFlags) {
  const app = [o.appId, o.privateKey, o.installationId].filter(Boolean).length;
  if (!o.token && app !== 3) throw new UsageError("give --token, or --app-id, --private-key and --installation-id (a GitHub App installation)");
  if (o.token && app > 0) throw new UsageError("--token: not with a GitHub App (--app-id, --private-key, --installation-id)");
  const body = {
    ...(o.token ? { token: readSecret("--token", o.token) } : {}),
    ...(o.appId ? { app_id: o.appId, private_key: readSecret("--private-key", o.privateKey ?? ""), installation_id: o.installationId } : {}),
    client_id: o.clientId,
    client_secret: readSecret("--client-secret", o.clientSecret),
  };
  const res = await ctx.out.loading("Connecting GitHub", v1(ctx).send<{ regranted: number }>("PUT", "/benefit-integrations/github", body));
  ctx.out.done(res, `GitHub connected: repository benefits are delivered with it${res.regranted ? ` (${res.regranted} failed grants retried)` : ""}.`);
}

async function discordConnect(ctx: Context, o: { botToken: string; clientId: string; clientSecret: string }) {
  const body = { bot_token: readSecret("--bot-token", o.botToken), client_id: o.clientId, client_secret: readSecret("--client-secret", o.clientSecret) };
  const res = await ctx.out.loading("Connecting the Discord bot", v1(ctx).send<{ regranted: number }>("PUT", "/benefit-integrations/discord", body));
  ctx.out.done(res, `Discord bot connected: add it to your server with Manage Roles, its role above the benefits' roles${res.regranted ? ` (${res.regranted} failed grants retried)` : ""}.`);
}

/** Adds the delivery commands under `till benefits`. */
export function registerDelivery(benefits: Command): void {
  benefits
    .command("grants")
    .description("show a benefit's grants: who has it, the connected account, and delivery errors")
    .argument("<benefit>", "the benefit's id", parseId)
    .option("--failed", "only grants whose delivery failed (their error says why)")
    .addHelpText("after", examples(["till benefits grants <benefit-id>", "till benefits grants <benefit-id> --failed --json"]))
    .action(withContext(grants));

  benefits
    .command("regrant")
    .description("deliver a grant again (GitHub invitation, Discord role) after fixing what its error names")
    .argument("<grant>", "the grant's id", parseId)
    .addHelpText("after", examples(["till benefits regrant <grant-id>"]))
    .action(withContext(regrant));

  benefits
    .command("github")
    .description("GitHub for github_repository benefits")
    .addHelpText("after", examples(["till benefits github connect --token @token.txt --client-id Iv1.abc --client-secret @secret.txt"]))
    .command("connect")
    .description("give the server a GitHub token or App installation, and the OAuth app customers connect through")
    .option("--token <token>", "a token with admin rights on the repositories (@file or @- to read it)")
    .option("--app-id <id>", "a GitHub App's id (with --private-key and --installation-id)")
    .option("--private-key <pem>", "the App's private key (@file or @-)")
    .option("--installation-id <id>", "the App's installation on your account or organization")
    .requiredOption("--client-id <id>", "the OAuth app's client id (callback: <server>/v1/customer-portal/customers/oauth-accounts/callback)")
    .requiredOption("--client-secret <secret>", "the OAuth app's client secret (@file or @-)")
    .addHelpText(
      "after",
      examples([
        "till benefits github connect --token @token.txt --client-id Iv1.abc --client-secret @secret.txt",
        "till benefits github connect --app-id 12345 --private-key @app.pem --installation-id 678 --client-id Iv1.abc --client-secret @secret.txt",
      ]),
    )
    .action(withContext(githubConnect));

  benefits
    .command("discord")
    .description("Discord for discord benefits")
    .addHelpText("after", examples(["till benefits discord connect --bot-token @bot.txt --client-id 1234567890 --client-secret @secret.txt"]))
    .command("connect")
    .description("give the server your Discord bot's token and your application's OAuth client")
    .requiredOption("--bot-token <token>", "the bot's token (@file or @-)")
    .requiredOption("--client-id <id>", "the application's id (callback: <server>/v1/customer-portal/customers/oauth-accounts/callback)")
    .requiredOption("--client-secret <secret>", "the application's OAuth secret (@file or @-)")
    .addHelpText("after", examples(["till benefits discord connect --bot-token @bot.txt --client-id 1234567890 --client-secret @secret.txt"]))
    .action(withContext(discordConnect));
}
