// `till stripe connect|status|disconnect` (/v1/stripe/connection, till's own): the organization's Stripe account.
// The sandbox takes test-mode keys, the live organization live keys (`--live` / `--sandbox` choose, as everywhere).
// The secret key never goes on the command line: it is typed without echo, read from a file or stdin (@file,
// @-), or taken from TILL_STRIPE_SECRET_KEY; the server shows only its kind and last four characters.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import { askSecret, canAsk, confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { EXIT, ExitStatus, UsageError } from "../errors.js";
import type { StripeConnectionWire, StripeStatusWire } from "../../shared/stripe.js";

type Connection = StripeConnectionWire;
type Status = StripeStatusWire;

function readValue(flag: string, value: string): string {
  if (!value.startsWith("@")) return value.trim();
  const file = value.slice(1);
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8").trim();
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file === "-" ? "stdin" : file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

async function secretKeyOf(ctx: Context, flag: string | undefined): Promise<string> {
  if (flag) {
    if (!flag.startsWith("@")) throw new UsageError("--secret-key: give @file or @- (stdin), never the key itself: a command line is seen by other users and kept in shell history");
    return readValue("--secret-key", flag);
  }
  const fromEnv = process.env.TILL_STRIPE_SECRET_KEY;
  if (fromEnv) return fromEnv.trim();
  if (!canAsk(ctx)) throw new UsageError("no Stripe secret key: nobody to ask", "give it with --secret-key @file (or @- for stdin), or in TILL_STRIPE_SECRET_KEY");
  const typed = await askSecret(`Stripe ${ctx.sandbox ? "test-mode" : "live"} secret or restricted key (${ctx.sandbox ? "sk_test_/rk_test_" : "sk_live_/rk_live_"}): `);
  if (typed === null) {
    ctx.out.info("Cancelled: nothing was changed.");
    throw new ExitStatus(EXIT.usage);
  }
  return typed.trim();
}

const side = (ctx: Context) => (ctx.sandbox ? "the sandbox" : "live");

function fields(c: Connection) {
  return [
    { label: "Account", value: c.account_id ?? "(not readable with this restricted key)" },
    { label: "Mode", value: c.livemode ? "live" : "test" },
    { label: "Secret key", value: c.secret_key },
    { label: "Publishable key", value: c.publishable_key },
    { label: "Webhook", value: c.webhook_endpoint.id ? `${c.webhook_endpoint.id} → ${c.webhook_endpoint.url}` : `Stripe CLI forwarding to ${c.webhook_endpoint.url}` },
    { label: "Last event", value: c.last_event ? `${c.last_event.type} (${c.last_event.id}) at ${c.last_event.received_at}` : "none yet" },
    { label: "Last error", value: c.last_error ? `${c.last_error.code} at ${c.last_error.at}: ${c.last_error.message}` : "none" },
    { label: "Connected", value: c.connected_at },
  ];
}

interface ConnectFlags {
  publishableKey: string;
  secretKey?: string;
  webhookSecret?: string;
}

async function connect(ctx: Context, o: ConnectFlags) {
  const body = {
    secret_key: await secretKeyOf(ctx, o.secretKey),
    publishable_key: o.publishableKey.trim(),
    ...(o.webhookSecret ? { webhook_secret: readValue("--webhook-secret", o.webhookSecret) } : {}),
  };
  const c = await ctx.out.loading(`Connecting Stripe to ${side(ctx)}`, v1(ctx).send<Connection>("PUT", "/stripe/connection", body));
  await ctx.out.record(c, fields(c));
  ctx.out.info(
    c.webhook_endpoint.id
      ? `Stripe is connected to ${side(ctx)}; its events come to ${c.webhook_endpoint.url}.`
      : `Stripe is connected to ${side(ctx)}; forward its events with: stripe listen --forward-to ${c.webhook_endpoint.url}`,
  );
}

async function status(ctx: Context) {
  const s = await ctx.out.loading("Reading the Stripe connection", v1(ctx).get<Status>("/stripe/connection"));
  if (!s.connected) {
    const meanwhile = s.test_processor ? "checkouts use till's built-in test processor (test cards)" : "checkouts of paid products are refused until it is";
    ctx.out.done(s, `Stripe is not connected to ${side(ctx)}: ${meanwhile}. Connect it: till stripe connect --publishable-key pk_…`);
    return;
  }
  await ctx.out.record(s, fields(s));
}

async function disconnect(ctx: Context, o: { yes?: boolean }) {
  await confirm(ctx, {
    yes: o.yes,
    action: "disconnect",
    reason: "payments stop going through Stripe",
    hint: `check \`till stripe status\`, then run \`till stripe disconnect --yes\``,
    question: async () => `Disconnect Stripe from ${side(ctx)}? till's webhook endpoint is removed from the account and the keys forgotten. [y/N] `,
  });
  const res = await ctx.out.loading("Disconnecting Stripe", v1(ctx).send<{ endpoint_removed: boolean }>("DELETE", "/stripe/connection"));
  ctx.out.done(
    res,
    res.endpoint_removed
      ? `Stripe is disconnected from ${side(ctx)}; till's webhook endpoint was removed from the account.`
      : `Stripe is disconnected from ${side(ctx)}. (No webhook endpoint of till's was removed: none was made, or the key no longer works; check the account's webhooks.)`,
  );
}

export function register(program: Command): void {
  const stripe = program
    .command("stripe")
    .description("connect the organization's Stripe account (test keys for the sandbox, live keys for live)")
    .addHelpText("after", examples(["till stripe connect --publishable-key pk_test_… --secret-key @-", "till stripe status", "till stripe disconnect"]));

  stripe
    .command("connect")
    .description("check the keys against Stripe, register till's webhook endpoint on the account, and keep the keys (encrypted)")
    .requiredOption("--publishable-key <key>", "the publishable key (pk_test_… for the sandbox, pk_live_… for live)")
    .option("--secret-key <@file>", "the secret or restricted key, read from a file or stdin (@-); else TILL_STRIPE_SECRET_KEY, else asked")
    .option("--webhook-secret <secret>", "the signing secret of `stripe listen` (local development: Stripe cannot reach a local till)")
    .addHelpText(
      "after",
      `\nA restricted key (rk_…) is recommended: the README lists the permissions till needs.\n${examples([
        "till sandbox on && till stripe connect --publishable-key pk_test_123 --secret-key @stripe-key.txt",
        "echo \"$STRIPE_KEY\" | till stripe connect --live --publishable-key pk_live_123 --secret-key @-",
        "till stripe connect --publishable-key pk_test_123 --webhook-secret whsec_… # events through `stripe listen`",
      ])}`,
    )
    .action(withContext(connect));

  stripe.command("status").description("the connected account, its mode, till's webhook endpoint, the last event received and the last payment Stripe could not process").action(withContext(status));

  stripe
    .command("disconnect")
    .description("remove till's webhook endpoint from the account and forget the keys")
    .option("--yes", "do not ask first")
    .action(withContext(disconnect));
}
