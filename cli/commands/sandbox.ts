// `till sandbox [on|off]`: whether this profile's session acts on the organization's sandbox (test mode) or
// live. The setting is the profile's; --sandbox/--live and TILL_SANDBOX win over it for one run, and an API
// key always acts on its own side (till_test_… the sandbox). See cli/mode.ts. `till sandbox reset` clears the
// sandbox's customers (their subscriptions end), products and benefits, after asking.
import type { Command } from "commander";
import { v1, whoami } from "../client.js";
import { examples, withContext } from "../command.js";
import { updateProfile } from "../config.js";
import { confirm } from "../confirm.js";
import { requireCredential, type Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { describeMode } from "../mode.js";
import { plural } from "../resources.js";

async function sandbox(ctx: Context, _opts: object, [setting]: string[]): Promise<void> {
  if (setting === undefined) {
    return ctx.out.done(
      { sandbox: ctx.mode.sandbox, source: ctx.mode.source, profile: ctx.profileName },
      `Mode: ${describeMode(ctx.mode, ctx.profileName)}.`,
    );
  }
  if (setting !== "on" && setting !== "off") throw new UsageError(`<on|off>: expected on or off, got "${setting}"`);
  const on = setting === "on";
  await updateProfile(ctx.env.configDir, ctx.profileName, { sandbox: on ? true : undefined });
  if (ctx.credential?.kind === "api_key") {
    ctx.out.warn("An API key acts on its own side whatever this setting says (till_test_… keys: the sandbox).");
  }
  ctx.out.done(
    { sandbox: on, profile: ctx.profileName },
    on
      ? `Sandbox on for profile ${ctx.profileName}: commands act on your organization's sandbox (--live for one run).`
      : `Sandbox off for profile ${ctx.profileName}: commands act live (--sandbox for one run; trigger and listen still use the sandbox).`,
  );
}

interface Named {
  id: string;
}

/**
 * Deletes the sandbox's customers (which ends their subscriptions now and revokes their grants: nothing renews
 * on a later clock advance), archives its products (the API deletes none) and deletes its benefits. Only after
 * the server confirms the credential acts on a sandbox, and after asking (--yes in scripts).
 */
async function reset(ctx: Context, opts: { yes?: boolean }): Promise<void> {
  if (!ctx.mode.sandbox) throw new UsageError("till sandbox reset only resets the sandbox: drop --live (or TILL_SANDBOX=0)");
  const me = await ctx.out.loading("Checking the sandbox", whoami(ctx, requireCredential(ctx)));
  if (!me.sandbox) throw new CliError("the server says this credential does not act on a sandbox: nothing was changed");
  const client = v1(ctx);
  const load = async () => {
    const [customers, products, benefits] = await Promise.all([
      client.listAll<Named>("/customers/"),
      client.listAll<Named>("/products/", { is_archived: "false" }),
      client.listAll<Named>("/benefits/"),
    ]);
    return { customers, products, benefits };
  };
  let found: Awaited<ReturnType<typeof load>> | undefined;
  const describe = (f: NonNullable<typeof found>) =>
    `${plural(f.customers.length, "customer")} (their subscriptions end now), ${plural(f.products.length, "product")} (archived) and ${plural(f.benefits.length, "benefit")}`;
  await confirm(ctx, {
    yes: opts.yes,
    action: "reset",
    reason: "the sandbox's customers, products and benefits would be deleted,",
    hint: "check what is there with `till customers list --sandbox` and `till products list --sandbox`, then run `till sandbox reset --yes`",
    question: async () => {
      found = await ctx.out.loading("Loading the sandbox", load());
      return `Reset the sandbox: delete ${describe(found)}? Live objects are not touched. [y/N] `;
    },
  });
  found ??= await ctx.out.loading("Loading the sandbox", load());
  const all = found;
  await ctx.out.loading("Resetting the sandbox", (async () => {
    for (const c of all.customers) await client.send("DELETE", `/customers/${c.id}`);
    for (const p of all.products) await client.send("PATCH", `/products/${p.id}`, { is_archived: true });
    for (const b of all.benefits) await client.send("DELETE", `/benefits/${b.id}`);
  })());
  ctx.out.done(
    { customers_deleted: all.customers.length, products_archived: all.products.length, benefits_deleted: all.benefits.length },
    `Sandbox reset: deleted ${plural(all.customers.length, "customer")}, archived ${plural(all.products.length, "product")}, deleted ${plural(all.benefits.length, "benefit")}.`,
  );
}

export function register(program: Command): void {
  const sandboxCommand = program
    .command("sandbox")
    .description("act on your organization's sandbox (test mode) or live: show or set the profile's mode")
    .argument("[on|off]", "on: the sandbox; off: live (without it: show the mode in use); `reset`: see `till sandbox reset --help`")
    .addHelpText(
      "after",
      examples(["till sandbox on", "till products list --live", "till sandbox off", "till sandbox", "TILL_SANDBOX=1 till orders list"]) +
        "\nThe sandbox is a twin of each organization with its own products, customers, orders, invoice numbers and\n" +
        "webhook endpoints; nothing made there appears live. Members and roles are the organization's. An API key\n" +
        "acts on its own side: till_test_… the sandbox (`till keys create <name> --sandbox`), till_live_… live.\n" +
        "`till trigger` and `till listen` use the sandbox unless told --live.\n",
    )
    .action(withContext(sandbox));
  sandboxCommand
    .command("reset")
    .description("clear the sandbox: delete its customers (their subscriptions end), archive its products, delete its benefits")
    .option("-y, --yes", "do not ask first (scripts, CI)")
    .addHelpText(
      "after",
      examples(["till sandbox reset", "till sandbox reset --yes"]) +
        "\nWhat `till trigger` and tests made in the sandbox goes: nothing renews on a later `till clock advance`.\n" +
        "Live objects, webhook endpoints, meters, discounts and API keys are not touched.\n",
    )
    .action(withContext(reset, { sandboxByDefault: true, name: "till sandbox reset" }));
}
