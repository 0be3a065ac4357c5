// Every environment variable the till CLI reads, named and parsed in this one place; nothing else in cli/
// touches process.env (except output.ts, which sets FORCE_COLOR=0 for Ink's colour library).
import os from "node:os";
import path from "node:path";

export interface CliEnv {
  /** TILL_API_KEY: an organization API key; wins over the stored credentials (CI). */
  apiKey: string | undefined;
  /** TILL_SANDBOX: 1 acts on the organization's sandbox, 0 live (cli/mode.ts parses it). */
  sandbox: string | undefined;
  /** TILL_SERVER: the server URL; wins over the profile's. */
  server: string | undefined;
  /** TILL_PROFILE: the profile to use when --profile is not given. */
  profile: string | undefined;
  /** TILL_PASSWORD: the password `till signup` uses when nobody can type one (scripts, the quick start's test). */
  password: string | undefined;
  /** TILL_CONFIG_DIR, else $XDG_CONFIG_HOME/till (%APPDATA%\till on Windows, ~/.config/till elsewhere). */
  configDir: string;
  /**
   * CI or CONTINUOUS_INTEGRATION set to anything but "0" or "false", even to "": never wait for a person. The
   * rule of Ink's is-in-ci, which decides whether Ink draws its screens: with two rules, `CI= till login` drew
   * nothing and waited for a person (isInCi below).
   */
  ci: boolean;
  /** NO_COLOR (any non-empty value, https://no-color.org) or TERM=dumb. */
  noColor: boolean;
  /** SSH_CONNECTION or SSH_TTY: the browser would open on the remote machine, so don't. */
  ssh: boolean;
  /** TILL_FORCE_TTY=1: render for a terminal even when stdout is not one (benchmarks, demos). */
  forceTty: boolean;
  /** TILL_DATA_DIR: the embedded server's data directory, as the server reads it (`till admin backup|restore`). */
  dataDir: string | undefined;
}

type Env = Record<string, string | undefined>;

const nonEmpty = (v: string | undefined): string | undefined => (v && v.trim() !== "" ? v.trim() : undefined);

function defaultConfigDir(env: Env): string {
  if (process.platform === "win32" && env.APPDATA) return path.join(env.APPDATA, "till");
  return path.join(nonEmpty(env.XDG_CONFIG_HOME) ?? path.join(os.homedir(), ".config"), "till");
}

/** is-in-ci's rule (node_modules/is-in-ci), read the same way: a variable set to "" is set. */
export function isInCi(env: Env): boolean {
  const set = (key: string) => key in env && env[key] !== undefined && env[key] !== "0" && env[key] !== "false";
  return set("CI") || set("CONTINUOUS_INTEGRATION");
}

export function readEnv(env: Env = process.env): CliEnv {
  return {
    apiKey: nonEmpty(env.TILL_API_KEY),
    server: nonEmpty(env.TILL_SERVER),
    sandbox: nonEmpty(env.TILL_SANDBOX),
    profile: nonEmpty(env.TILL_PROFILE),
    // not trimmed: spaces may be part of a password
    password: env.TILL_PASSWORD ? env.TILL_PASSWORD : undefined,
    configDir: nonEmpty(env.TILL_CONFIG_DIR) ?? defaultConfigDir(env),
    ci: isInCi(env),
    noColor: nonEmpty(env.NO_COLOR) !== undefined || env.TERM === "dumb",
    ssh: nonEmpty(env.SSH_CONNECTION) !== undefined || nonEmpty(env.SSH_TTY) !== undefined,
    forceTty: env.TILL_FORCE_TTY === "1",
    dataDir: nonEmpty(env.TILL_DATA_DIR),
  };
}
