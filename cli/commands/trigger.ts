// `till trigger <event-type>`: makes a webhook event happen for real, as the Stripe CLI does. Each type has a
// recipe of /v1 calls (cli/trigger-recipes.ts) with the profile's credentials — a product, a checkout paid with
// the test card, a refund… — so every endpoint and `till listen` gets the genuine payload the server emits for
// it. Nothing is ever sent as a made-up event: a server that cannot produce a type's cause answers the step with
// its error, which is shown as is. It works in the organization's sandbox unless told --live, so nothing it
// makes shows in the live catalog or uses up a live invoice number.
import { Argument, type Command } from "commander";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { WEBHOOK_EVENT_TYPES } from "../../shared/webhook-events.js";
import { suggest } from "../completion.js";
import { OVERRIDE_NOUNS, parseOverride, type Override } from "../trigger-override.js";
import { isTriggerType, RECIPE_INFO, RECIPES, Run, TRIGGER_EVENT_TYPES, type TriggerEventType } from "../trigger-recipes.js";

const LIST_HINT = "`till trigger --list` shows the event types it can make happen";

function list(ctx: Context): void {
  const rows = TRIGGER_EVENT_TYPES.map((type) => ({ type, does: RECIPE_INFO[type].does, creates: RECIPE_INFO[type].creates }));
  const width = Math.max(...rows.map((r) => r.type.length));
  ctx.out.done(rows, rows.map((r) => `${r.type.padEnd(width)}  ${r.does}`).join("\n"));
}

/** Overrides only for objects this type creates: anything else would be silently ignored. */
function checkOverrides(type: TriggerEventType, overrides: Override[]): void {
  const { creates } = RECIPE_INFO[type];
  const stray = overrides.find((o) => !creates.includes(o.noun));
  if (stray) {
    const made = creates.length > 0 ? `it creates ${creates.join(", ")}` : "it creates nothing --override can set";
    throw new UsageError(`--override ${stray.text}: ${type} creates no ${stray.noun} (${made})`, LIST_HINT);
  }
}

async function trigger(ctx: Context, opts: { list?: boolean; override?: Override[] }, [type]: string[]): Promise<void> {
  if (opts.list) {
    if (type !== undefined) throw new UsageError("--list: takes no event type");
    return list(ctx);
  }
  if (type === undefined) throw new UsageError("missing the event type, such as order.paid", LIST_HINT);
  if (!isTriggerType(type)) {
    const known = (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
    throw new UsageError(known ? `till trigger cannot make ${type} happen` : `unknown event type "${type}"`, LIST_HINT);
  }
  const overrides = opts.override ?? [];
  checkOverrides(type, overrides);
  const run = new Run(ctx, type, overrides);
  await RECIPES[type](run);
  const where = ctx.sandbox ? "in the sandbox" : "live";
  ctx.out.info(`Triggered ${type} ${where}: your ${where === "live" ? "live" : "sandbox"} webhook endpoints and \`till listen${ctx.sandbox ? "" : " --live"}\` get it in a moment.`);
  if (ctx.json) ctx.out.printJson({ event: type, sandbox: ctx.sandbox, created: run.created, overrides: overrides.map((o) => o.text) });
}

export function register(program: Command): void {
  program
    .command("trigger")
    .description("make a webhook event happen with real objects (a product, a test-card payment, a refund…)")
    .addArgument(suggest(new Argument("[event-type]", "the event to cause, such as order.paid (see --list)"), TRIGGER_EVENT_TYPES))
    .option("--list", "list the event types it can make happen, and what each creates")
    .option("--override <path=value>", "set a field of an object it creates, repeatable: product.name=Pro, product.prices.0.price_amount:=2500", parseOverride)
    .addHelpText(
      "after",
      examples([
        "till trigger order.paid",
        "till trigger subscription.canceled --json",
        "till trigger order.paid --live",
        "till trigger order.paid --override product.name=\"Pro plan\" --override product.prices.0.price_amount:=2500",
        "till trigger order.paid --override checkout.metadata.campaign=spring --override customer.email=ada@example.com",
        "till trigger --list",
      ]) +
        `\nEvent types:\n${TRIGGER_EVENT_TYPES.map((t) => `  ${t}`).join("\n")}\n` +
        `\nOverrides: --override <object>.<field>=<value> sets <field> (a dotted path; a number indexes a list) in the\n` +
        `/v1 request body that creates <object>, one of ${OVERRIDE_NOUNS.join(", ")}; <object>.<field>:=<json> sets a\n` +
        "number, true/false, null, an object or a list. benefit, product, checkout, refund and a customer of its own\n" +
        "are the bodies of POST /v1/benefits/, /v1/products/, /v1/checkouts/, /v1/refunds/ and /v1/customers/; the\n" +
        "customer of a purchase is made by paying the checkout, so customer.<field> sets customer_<field> of the checkout's\n" +
        "confirmation (customer.email, customer.name, customer.billing_address.country). An object the event type does\n" +
        "not create is refused (exit 2) before anything is made; `--list --json` names what each type creates.\n" +
        "\nWhat it creates is real and stays in the organization's sandbox (products and customers named \"till trigger …\"),\n" +
        "where nothing appears live; --live makes it in the live organization instead. With an API key, use a sandbox\n" +
        "key (till_test_…), or a live one with --live. Payments use the test processor's card 4242 4242 4242 4242.\n" +
        "Its objects carry the metadata till_trigger=<type>: `till catalog pull` leaves them out, and its subscriptions\n" +
        "renew when the sandbox's clock moves on until `till sandbox reset` clears the sandbox.\n",
    )
    .action(withContext(trigger, { sandboxByDefault: true, name: "till trigger" }));
}
