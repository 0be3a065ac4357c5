// `till signup`: creates an account (email + password, POST /api/auth/sign-up/email) and signs this profile
// in with the session the sign-up answers, so a first run goes on with `till orgs create` without a browser.
// The password is typed without echo at a terminal; scripts give it on stdin (--password-stdin) or in
// TILL_PASSWORD. `till login` (the browser) stays the way to sign in to an account that exists.
import type { Command } from "commander";
import { authClient } from "../client.js";
import { examples, withContext } from "../command.js";
import { updateProfile } from "../config.js";
import type { Context } from "../context.js";
import { askLine, askSecret, canAsk } from "../confirm.js";
import { ApiError, CliError, EXIT, ExitStatus, UsageError } from "../errors.js";
import { parseEmail } from "../flags.js";
import { forgetListenSecret } from "../listen-secret.js";
import { profileStoresServer } from "../hints.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../shared/passwords.js";

interface SignupFlags {
  email?: string;
  name?: string;
  passwordStdin?: boolean;
}

interface SignUpResponse {
  token: string | null;
  user: { id: string; email: string; name: string; emailVerified?: boolean };
}

/** better-auth's refusals of a sign-up that the user fixes by typing something else: exit 2. */
const INPUT_CODES = new Set(["PASSWORD_TOO_SHORT", "PASSWORD_TOO_LONG", "INVALID_EMAIL", "VALIDATION_ERROR"]);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // the line's end is not part of the password (`echo "$PW" | till signup --password-stdin`)
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

const cancelled = (ctx: Context): never => {
  ctx.out.info("Cancelled: no account was created.");
  throw new ExitStatus(EXIT.usage);
};

async function emailOf(ctx: Context, flag: string | undefined): Promise<string> {
  if (flag) return flag;
  if (!canAsk(ctx)) throw new UsageError("--email: the new account's email is required", "till signup --email you@example.com");
  const typed = await askLine("Email: ");
  if (!typed) return cancelled(ctx);
  try {
    return parseEmail(typed);
  } catch (err) {
    throw new UsageError(`email: ${err instanceof Error ? err.message : String(err)}`, "run `till signup` again");
  }
}

/** Why the server would refuse `password` (the shared rule, counted as the server counts), or null. */
function passwordProblem(password: string): string | null {
  const n = password.length;
  if (n < PASSWORD_MIN_LENGTH) return `Too short: that password has ${n} character${n === 1 ? "" : "s"}, it needs at least ${PASSWORD_MIN_LENGTH}.`;
  if (n > PASSWORD_MAX_LENGTH) return `Too long: that password has ${n} characters, at most ${PASSWORD_MAX_LENGTH} are allowed.`;
  return null;
}

/**
 * The password typed at the terminal, asked for again at once (not after the confirmation) while it breaks the rule.
 */
async function typedPassword(ctx: Context): Promise<string> {
  for (;;) {
    const typed = await askSecret(`Password (at least ${PASSWORD_MIN_LENGTH} characters): `);
    if (typed === null || typed === "") return cancelled(ctx);
    const problem = passwordProblem(typed);
    if (!problem) return typed;
    ctx.out.info(`${problem} Type another (an empty one cancels).`);
  }
}

/** --password-stdin, else TILL_PASSWORD, else typed twice at the terminal. */
async function passwordOf(ctx: Context, fromStdin: boolean | undefined): Promise<string> {
  if (fromStdin) {
    const password = await readStdin();
    if (!password) throw new UsageError("--password-stdin: stdin was empty", "echo \"$PASSWORD\" | till signup --email you@example.com --password-stdin");
    return password;
  }
  if (ctx.env.password) return ctx.env.password;
  if (!canAsk(ctx)) {
    throw new UsageError("a password is needed and nobody can type it here", "pass it on stdin with --password-stdin, or set TILL_PASSWORD");
  }
  const first = await typedPassword(ctx);
  const again = await askSecret("Password again: ");
  if (again === null) return cancelled(ctx);
  if (again !== first) throw new UsageError("the two passwords differ: nothing was created", "run `till signup` again");
  return first;
}

async function signup(ctx: Context, opts: SignupFlags): Promise<void> {
  const email = await emailOf(ctx, opts.email);
  const password = await passwordOf(ctx, opts.passwordStdin);
  const name = opts.name?.trim() || email.split("@")[0] || email;
  let created: SignUpResponse;
  try {
    created = await ctx.out.loading("Creating your account", authClient(ctx, null).post<SignUpResponse>("/sign-up/email", { email, password, name }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === "USER_ALREADY_EXISTS" || err.code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL") {
      throw new CliError(`an account with the email ${email} exists on ${ctx.server}`, {
        code: "user_exists",
        hint: "sign in to it with `till login` (forgot the password? reset it at the sign-in page)",
      });
    }
    if (INPUT_CODES.has(err.code)) throw new UsageError(`${err.code.startsWith("PASSWORD") ? "password" : "--email"}: ${err.message}`);
    throw err;
  }
  const { id, name: userName } = created.user;
  if (!created.token) {
    // the server asks for the email to be verified first: the account exists, the sign-in comes after
    ctx.out.done(
      { server: ctx.server, profile: ctx.profileName, user: { id, email, name: userName }, signed_in: false },
      `Created the account ${email} on ${ctx.server}. Verify your email (the link was sent to it), then run \`till login\`.`,
    );
    return;
  }
  const replaced = ctx.profile.token && ctx.profile.user?.email !== email ? ctx.profile.user?.email : undefined;
  await updateProfile(ctx.env.configDir, ctx.profileName, {
    server: ctx.server,
    token: created.token,
    user: { id, email, name: userName },
    organization: null,
  });
  forgetListenSecret(ctx.env.configDir, ctx.profileName, ctx.server);
  profileStoresServer(ctx.server);
  ctx.out.done(
    { server: ctx.server, profile: ctx.profileName, user: { id, email, name: userName }, signed_in: true },
    `Created the account ${email} and signed in to ${ctx.server}` +
      `${ctx.profileName === "default" ? "" : ` (profile ${ctx.profileName})`}${replaced ? `, in place of ${replaced}` : ""}.`,
  );
  ctx.out.info(`A link to verify ${email} was mailed to it (a development server prints it in its log).`);
  ctx.out.info("Next: create your organization with `till orgs create <name>`.");
}

export function register(program: Command): void {
  program
    .command("signup")
    .description("create an account on the server (email + password) and sign this profile in")
    .option("--email <email>", "the account's email (asked at a terminal when missing)", parseEmail)
    .option("--name <name>", "your name (default: the part of the email before @)")
    .option("--password-stdin", "read the password from stdin (else TILL_PASSWORD, else it is asked without echo)")
    .addHelpText(
      "after",
      examples([
        "till signup",
        "till signup --email you@example.com --name \"Ada Lovelace\"",
        "echo \"$PASSWORD\" | till signup --email you@example.com --password-stdin",
        "TILL_PASSWORD=… till signup --email you@example.com --server https://till.example.com",
      ]) +
        "\nThe new account is signed in at once (no browser needed); `till login` signs in to an account that exists.\n" +
        "The server mails a link to verify the email (a development server prints it in its log).\n",
    )
    .action(withContext(signup));
}
