// `till sandbox [on|off]`: whether this profile's session acts on the organization's sandbox (test mode) or
// live. The setting is the profile's; --sandbox/--live and TILL_SANDBOX win over it for one run, and an API
// key always acts on its own side (till_test_… the sandbox). See cli/mode.ts.
import type { Command } from "commander";
import { examples, withContext } from "../command.js";
import { updateProfile } from "../config.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { describeMode } from "../mode.js";

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

export function register(program: Command): void {
  program
    .command("sandbox")
    .description("act on your organization's sandbox (test mode) or live: show or set the profile's mode")
    .argument("[on|off]", "on: the sandbox; off: live (without it: show the mode in use)")
    .addHelpText(
      "after",
      examples(["till sandbox on", "till products list --live", "till sandbox off", "till sandbox", "TILL_SANDBOX=1 till orders list"]) +
        "\nThe sandbox is a twin of each organization with its own products, customers, orders, invoice numbers and\n" +
        "webhook endpoints; nothing made there appears live. Members and roles are the organization's. An API key\n" +
        "acts on its own side: till_test_… the sandbox (`till keys create <name> --sandbox`), till_live_… live.\n" +
        "`till trigger` and `till listen` use the sandbox unless told --live.\n",
    )
    .action(withContext(sandbox));
}
