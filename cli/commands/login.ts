// `till login`: the OAuth 2.0 device authorization grant (RFC 8628) against /api/auth/device/*. The code
// and URL go to stderr (stdout stays for the result); the browser opens when a person is plainly at this
// machine. The session token is stored in the profile (0600), with the user and active organization.
import type { Command } from "commander";
import { authClient, failFor, request } from "../client.js";
import { examples, withContext } from "../command.js";
import { updateProfile } from "../config.js";
import type { Context, Credential } from "../context.js";
import { ask, canAsk } from "../confirm.js";
import { AuthRequiredError, CliError, ERROR_CODES } from "../errors.js";
import { forgetListenSecret } from "../listen-secret.js";
import { profileStoresServer } from "../hints.js";
import { CLI_DEVICE_CLIENT } from "../../shared/device-clients.js";
import { getSession, listOrganizations, setActiveOrganization, stored } from "./orgs.js";

export const DEVICE_CLIENT_ID = CLI_DEVICE_CLIENT.id;
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** RFC 8628 §3.5: after slow_down the interval grows by 5 seconds for the rest of the flow. */
const SLOW_DOWN_STEP_MS = 5_000;

interface DeviceCodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

interface TokenResponse {
  access_token: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ABCDEFGH → ABCD-EFGH (the server ignores the dash). */
export const formatUserCode = (code: string) => (code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code);

/** How long the opener (xdg-open, open, start) gets to fail before the browser counts as opened. */
const OPENER_GRACE_MS = 1_500;

/**
 * Asks the system to open `url`; true only when the opener did not fail: it was found and did not exit with
 * an error (xdg-open exits 3 when no browser is available, as on a server or in a container).
 */
export async function openBrowser(url: string): Promise<boolean> {
  try {
    const { default: open } = await import("open");
    const child = await open(url);
    return await new Promise<boolean>((resolve) => {
      // not unref'd: `open` unrefs the detached opener, so this timer is what keeps the process alive until
      // the opener has had its chance to fail (unref'd, a terminal run ended here, silently, with exit 0)
      const timer = setTimeout(() => resolve(true), OPENER_GRACE_MS);
      child.once("error", () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    });
  } catch {
    return false;
  }
}

function oauthError(body: unknown): string | undefined {
  return typeof body === "object" && body !== null && "error" in body && typeof body.error === "string" ? body.error : undefined;
}

/** Polls the token endpoint until the code is approved, denied or expired; returns the session token. */
async function pollForToken(ctx: Context, code: DeviceCodeResponse): Promise<string> {
  let interval = Math.max(1, code.interval) * 1000;
  const minutes = Math.round(code.expires_in / 60);
  const deadline = Date.now() + code.expires_in * 1000;
  const expired = () =>
    new CliError("the one-time code expired before it was approved", {
      code: ERROR_CODES.expiredToken,
      hint: `run \`till login\` again and approve within ${minutes} minute${minutes === 1 ? "" : "s"}`,
    });
  for (;;) {
    await sleep(interval);
    if (Date.now() > deadline) throw expired();
    const res = await request(ctx, "POST", "/api/auth/device/token", {
      body: { grant_type: DEVICE_GRANT, device_code: code.device_code, client_id: DEVICE_CLIENT_ID },
    });
    if (res.status === 200) return (res.body as TokenResponse).access_token;
    switch (oauthError(res.body)) {
      case "authorization_pending":
        continue;
      case "slow_down":
        interval += SLOW_DOWN_STEP_MS;
        continue;
      case "expired_token":
        throw expired();
      case "access_denied":
        throw new CliError("the sign-in request was denied in the browser", {
          code: ERROR_CODES.accessDenied,
          hint: "run `till login` again and choose Approve",
        });
      default:
        failFor(res, null, "POST /api/auth/device/token");
    }
  }
}

function showCodePlain(ctx: Context, code: DeviceCodeResponse): void {
  ctx.out.notice(`! Your one-time code: ${formatUserCode(code.user_code)}`);
  ctx.out.notice(`Open ${code.verification_uri_complete} in a browser (or go to ${code.verification_uri} and enter the code).`);
}

/**
 * The stored session of this profile and server, when the server still accepts it: who is signed in.
 * An expired or revoked session is no reason to ask, so it counts as none.
 */
async function signedInAs(ctx: Context): Promise<string | null> {
  const token = ctx.profile.token;
  if (!token || ctx.profile.server !== ctx.server) return null;
  const res = await request(ctx, "GET", "/api/whoami", { credential: { token, kind: "session", source: "profile" } });
  if (res.status !== 200) return null;
  const body = res.body as { user?: { email?: string } | null };
  return body.user?.email ?? ctx.profile.user?.email ?? "an unknown user";
}

/**
 * Already signed in: a terminal is asked whether to start over; anywhere else it is said, exit 0 (--force starts over).
 */
async function keepExistingSession(ctx: Context, force: boolean | undefined): Promise<boolean> {
  if (force) return false;
  const who = await signedInAs(ctx);
  if (!who) return false;
  const where = `${ctx.server} as ${who}${ctx.profileName === "default" ? "" : ` (profile ${ctx.profileName})`}`;
  if (canAsk(ctx)) {
    if (await ask(`You are already signed in to ${where}. Sign in again? [y/N] `)) return false;
  } else {
    ctx.out.info(`Already signed in to ${where}: nothing to do (\`till login --force\` signs in again).`);
  }
  ctx.out.done({ server: ctx.server, profile: ctx.profileName, already_signed_in: true, email: who }, `Still signed in to ${where}.`);
  return true;
}

async function login(ctx: Context, opts: { browser: boolean; force?: boolean }): Promise<void> {
  if (ctx.env.ci) {
    throw new AuthRequiredError("`till login` needs a person at a browser, and CI is set", {
      hint: "in CI use an organization API key: create one with `till keys create`, then set TILL_API_KEY (and TILL_SERVER)",
    });
  }
  if (await keepExistingSession(ctx, opts.force)) return;
  if (ctx.env.apiKey) ctx.out.warn("TILL_API_KEY is set: commands will keep using it instead of this sign-in.");

  const code = await authClient(ctx, null).post<DeviceCodeResponse>("/device/code", { client_id: DEVICE_CLIENT_ID });
  // the code and the link first, whatever the browser does next: a person can always type them in
  let boxProps = {
    userCode: formatUserCode(code.user_code),
    verificationUri: code.verification_uri,
    verificationUriComplete: code.verification_uri_complete,
    browserOpened: false,
    waiting: true,
  };
  const screen = ctx.out.interactiveErr ? (await ctx.out.live()).showDeviceCode(boxProps, process.stderr) : null;
  if (!screen) showCodePlain(ctx, code);
  // only when someone is plainly at this machine: over SSH the browser would open on the far side
  const canOpen = opts.browser && process.stdin.isTTY === true && !ctx.env.ssh;
  if (canOpen && (await openBrowser(code.verification_uri_complete))) {
    boxProps = { ...boxProps, browserOpened: true };
    screen?.update(boxProps);
    if (!screen) ctx.out.notice("Opened that link in your browser (if it did not appear, open it yourself).");
  }
  if (!screen) ctx.out.notice("Waiting for approval…");
  let token: string;
  try {
    token = await pollForToken(ctx, code);
  } finally {
    screen?.update({ ...boxProps, waiting: false });
    screen?.stop(false);
  }

  const credential: Credential = { token, kind: "session", source: "profile" };
  const auth = authClient(ctx, credential);
  const [session, orgs] = await Promise.all([getSession(auth), listOrganizations(auth)]);
  let active = orgs.find((o) => o.id === session.session.activeOrganizationId) ?? null;
  if (!active && orgs[0]) active = await setActiveOrganization(auth, orgs[0].id);

  const { id, email, name } = session.user;
  await updateProfile(ctx.env.configDir, ctx.profileName, {
    server: ctx.server,
    token,
    user: { id, email, name },
    organization: active ? stored(active) : null,
  });
  forgetListenSecret(ctx.env.configDir, ctx.profileName, ctx.server);
  profileStoresServer(ctx.server);
  const organization = active ? stored(active) : null;
  ctx.out.done(
    { server: ctx.server, profile: ctx.profileName, user: { id, email, name }, organization },
    `Signed in to ${ctx.server} as ${email}` + (organization ? `; organization ${organization.name} (${organization.slug}).` : "."),
  );
  if (!organization) ctx.out.info("You have no organization yet: create one with `till orgs create <name>`.");
}

export function register(program: Command): void {
  program
    .command("login")
    .description("sign in with your browser (device code) and store the session in the profile")
    .option("--no-browser", "do not open a browser; print the URL only")
    .option("--force", "sign in again even when this profile is signed in to the server")
    .addHelpText(
      "after",
      examples(["till login", "till login --server https://till.example.com", "till login --profile staging --no-browser"]) +
        "\nIn CI, don't log in: set TILL_API_KEY (an organization API key) and TILL_SERVER.\n",
    )
    .action(withContext(login));
}
