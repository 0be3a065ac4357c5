// What every command runs with: the global flags resolved against the environment and the stored profile
// (flag > environment > profile > default), the credential to send, and the output.
import { readEnv, type CliEnv } from "./env.js";
import { checkProfileName, DEFAULT_PROFILE, DEFAULT_SERVER, readProfile, type Profile } from "./config.js";
import { AuthRequiredError, UsageError } from "./errors.js";
import { createOutput, type Output } from "./output.js";
import type { JsonPrinter } from "./json-filter.js";
import { resolveMode, type Mode } from "./mode.js";
import { setHintScope } from "./hints.js";
import { API_KEY_PREFIX } from "../shared/auth-mount.js";

/** The global flags as commander hands them over (`cmd.optsWithGlobals()`). */
export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  server?: string;
  apiKey?: string;
  color?: boolean;
  sandbox?: boolean;
  live?: boolean;
  verbose?: boolean;
  debug?: boolean;
  /** `--json=<fields>` (main() rewrites it to this hidden option), --jq and --template: cli/json-filter.ts. */
  jsonFields?: string;
  jq?: string;
  template?: string;
}

/** Whether the result is printed as JSON: --json, or one of the options that shape it. */
export const wantsJson = (opts: GlobalOptions): boolean =>
  opts.json === true || opts.jsonFields !== undefined || opts.jq !== undefined || opts.template !== undefined;

/** What a command tells createContext about itself (withContext's second argument). */
export interface CommandTraits {
  /** Works in the sandbox unless told --live (`till trigger`, `till listen`). */
  sandboxByDefault?: boolean;
  /** "till trigger", for messages. */
  name?: string;
}


export interface Credential {
  token: string;
  kind: "api_key" | "session";
  /** Where it came from: `--api-key`, TILL_API_KEY or the stored profile. */
  source: "flag" | "env" | "profile";
}

export interface Context {
  env: CliEnv;
  out: Output;
  json: boolean;
  profileName: string;
  profile: Profile;
  /** Base URL without a trailing slash. */
  server: string;
  credential: Credential | null;
  /**
   * Whether requests act on the organization's sandbox (cli/mode.ts); a session sends Till-Sandbox: true.
   * Resolved when first read, so a run that sends nothing (`listen --print-secret`) never trips on a conflict.
   */
  readonly sandbox: boolean;
  readonly mode: Mode;
  /** --verbose/--debug: each request's method, path, status and request id on stderr. */
  verbose: boolean;
}

export function normalizeServer(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${from}: expected an http(s) URL such as http://localhost:3000, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${from}: expected an http(s) URL such as http://localhost:3000, got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, "");
}

function credentialFrom(opts: GlobalOptions, env: CliEnv, profile: Profile): Credential | null {
  const pick = (token: string, source: Credential["source"]): Credential => ({
    token,
    source,
    kind: token.startsWith(API_KEY_PREFIX) ? "api_key" : "session",
  });
  if (opts.apiKey) return pick(opts.apiKey, "flag");
  if (env.apiKey) return pick(env.apiKey, "env");
  if (profile.token) return pick(profile.token, "profile");
  return null;
}

export function createContext(opts: GlobalOptions, env: CliEnv = readEnv(), traits: CommandTraits = {}, printer?: JsonPrinter): Context {
  const json = wantsJson(opts);
  const verbose = opts.verbose === true || opts.debug === true;
  const out = createOutput({ json, env, color: opts.color !== false, verbose, printer });
  const profileName = checkProfileName(opts.profile ?? env.profile ?? DEFAULT_PROFILE);
  const profile = readProfile(env.configDir, profileName);
  const server = opts.server
    ? normalizeServer(opts.server, "--server")
    : env.server
      ? normalizeServer(env.server, "TILL_SERVER")
      : normalizeServer(profile.server ?? DEFAULT_SERVER, `profile "${profileName}" server`);
  setHintScope({
    profileFlag: opts.profile,
    serverFlag: opts.server ? server : undefined,
    profileServer: profile.server === undefined ? undefined : normalizeServer(profile.server, `profile "${profileName}" server`),
  });
  if (opts.apiKey) {
    // the value sits in the shell history and in `ps` output for as long as the command runs
    out.warn("--api-key puts the key in your shell history and process list; prefer TILL_API_KEY.");
  }
  const credential = credentialFrom(opts, env, profile);
  let mode: Mode | undefined;
  const resolve = (): Mode =>
    (mode ??= resolveMode({
      flags: { sandbox: opts.sandbox, live: opts.live },
      env,
      profile,
      apiKey: credential?.kind === "api_key" ? { token: credential.token, where: credential.source === "env" ? "TILL_API_KEY" : "--api-key" } : undefined,
      sandboxByDefault: traits.sandboxByDefault === true,
      command: traits.name ?? "this command",
    }));
  return {
    env,
    out,
    json,
    profileName,
    profile,
    server,
    credential,
    verbose,
    get mode() {
      return resolve();
    },
    get sandbox() {
      return resolve().sandbox;
    },
  };
}

/** The credential, or exit 4 with the one actionable message (never a prompt: CI and pipes have nobody to ask). */
export function requireCredential(ctx: Context): Credential {
  if (!ctx.credential) throw new AuthRequiredError();
  return ctx.credential;
}

/** For /api/auth commands (organizations, keys): they act as a signed-in user, which an API key is not. */
export function requireSession(ctx: Context): Credential {
  const credential = requireCredential(ctx);
  if (credential.kind === "api_key") {
    const where = credential.source === "env" ? "TILL_API_KEY" : "--api-key";
    throw new AuthRequiredError(`this command needs a signed-in user, and ${where} is an organization API key`, {
      hint: `run \`till login\` and try again without ${where}`,
    });
  }
  return credential;
}
