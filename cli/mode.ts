// Which side of the organization the CLI acts on: live or its sandbox (docs/architecture.md, "Sandbox").
// --sandbox/--live > TILL_SANDBOX > the profile's `till sandbox on` > the command's default (live, except
// `trigger` and `listen`). An API key has one side, its prefix's: a choice that contradicts it stops the run
// before any request (exit 2) rather than act on the other side.
import type { CliEnv } from "./env.js";
import type { Profile } from "./config.js";
import { UsageError } from "./errors.js";

/** A sandbox key's prefix (till_test_…); live keys are till_live_… or, made earlier, till_…. */
export const SANDBOX_KEY_PREFIX = "till_test_";
/** Sent with each request of a session in sandbox mode. */
export const SANDBOX_HEADER = "till-sandbox";

export type ModeSource = "flag" | "env" | "profile" | "key" | "default";

export interface Mode {
  sandbox: boolean;
  /** What decided it: --sandbox/--live, TILL_SANDBOX, the profile, the API key's prefix, or the command. */
  source: ModeSource;
}

/** TILL_SANDBOX: 1/true/yes/on or 0/false/no/off; unset or empty means "not said". */
export function parseSandboxEnv(raw: string | undefined): boolean | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new UsageError(`TILL_SANDBOX: expected 1 or 0 (true or false), got "${raw}"`);
}

export interface ModeInput {
  flags: { sandbox?: boolean; live?: boolean };
  env: CliEnv;
  profile: Profile;
  /** The credential's token when it is an API key (its prefix decides), else undefined. */
  apiKey: { token: string; where: string } | undefined;
  /** `till trigger` and `till listen` work in the sandbox unless told --live. */
  sandboxByDefault: boolean;
  /** The command, for messages ("till trigger"). */
  command: string;
}

export function resolveMode(input: ModeInput): Mode {
  const { flags } = input;
  if (flags.sandbox && flags.live) throw new UsageError("--sandbox and --live: choose one");
  const fromFlag = flags.sandbox ? true : flags.live ? false : undefined;
  const fromEnv = parseSandboxEnv(input.env.sandbox);
  const explicit: Mode | undefined =
    fromFlag !== undefined ? { sandbox: fromFlag, source: "flag" } : fromEnv !== undefined ? { sandbox: fromEnv, source: "env" } : undefined;
  if (input.apiKey) {
    const keySandbox = input.apiKey.token.startsWith(SANDBOX_KEY_PREFIX);
    const side = keySandbox ? "a sandbox key (till_test_…)" : "a live key";
    if (explicit && explicit.sandbox !== keySandbox) {
      const asked = explicit.source === "flag" ? (explicit.sandbox ? "--sandbox" : "--live") : `TILL_SANDBOX=${input.env.sandbox ?? ""}`;
      throw new UsageError(
        `${asked} asks for the ${explicit.sandbox ? "sandbox" : "live side"}, and ${input.apiKey.where} is ${side}`,
        explicit.sandbox ? "use a sandbox key (`till keys create <name> --sandbox`)" : "use a live key",
      );
    }
    if (!explicit && input.sandboxByDefault && !keySandbox) {
      throw new UsageError(
        `${input.command} works in the sandbox unless told --live, and ${input.apiKey.where} is ${side}`,
        `pass --live to act on live objects, or use a sandbox key (\`till keys create <name> --sandbox\`)`,
      );
    }
    return { sandbox: keySandbox, source: "key" };
  }
  if (explicit) return explicit;
  if (input.profile.sandbox) return { sandbox: true, source: "profile" };
  return { sandbox: input.sandboxByDefault, source: "default" };
}

/** "sandbox (--sandbox)", "live (default)": how `till auth status` and `till sandbox` say it. */
export function describeMode(mode: Mode, profileName: string): string {
  const why: Record<ModeSource, string> = {
    flag: mode.sandbox ? "--sandbox" : "--live",
    env: "TILL_SANDBOX",
    profile: `till sandbox on, profile ${profileName}`,
    key: "the API key's prefix",
    default: "default",
  };
  return `${mode.sandbox ? "sandbox" : "live"} (${why[mode.source]})`;
}
