// `till logout`: revokes the profile's session on the server (POST /api/auth/sign-out) and forgets it
// locally. The local copy goes even when the server cannot be reached: the user asked to be signed out here.
import type { Command } from "commander";
import { request } from "../client.js";
import { examples, withContext } from "../command.js";
import { updateProfile } from "../config.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import { forgetListenSecret } from "../listen-secret.js";

async function logout(ctx: Context): Promise<void> {
  const token = ctx.profile.token;
  if (ctx.env.apiKey) ctx.out.warn("TILL_API_KEY is still set: commands will keep using it.");
  // the session's `till listen` secret ends with it (signed in or not)
  forgetListenSecret(ctx.env.configDir, ctx.profileName, ctx.server);
  if (!token) {
    ctx.out.done(
      { server: ctx.server, profile: ctx.profileName, signed_out: false, revoked: false },
      `Not signed in (profile "${ctx.profileName}").`,
    );
    return;
  }
  let revoked = false;
  try {
    const res = await request(ctx, "POST", "/api/auth/sign-out", {
      body: {},
      credential: { token, kind: "session", source: "profile" },
    });
    revoked = res.status === 200;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    ctx.out.warn(`${err.message}; the session stays valid on the server until it expires.`);
  }
  await updateProfile(ctx.env.configDir, ctx.profileName, { token: undefined, user: undefined, organization: undefined });
  const who = ctx.profile.user?.email;
  ctx.out.done(
    { server: ctx.server, profile: ctx.profileName, signed_out: true, revoked },
    `Signed out${who ? ` ${who}` : ""} of ${ctx.server}.`,
  );
}

export function register(program: Command): void {
  program
    .command("logout")
    .description("revoke the stored session on the server and remove it from the profile")
    .addHelpText("after", examples(["till logout", "till logout --profile staging"]))
    .action(withContext(logout));
}
