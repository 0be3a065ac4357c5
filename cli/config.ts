// Profiles and their credentials, stored as JSON in <config dir>/config.json (mode 0600, directory 0700):
//   { "profiles": { "default": { "server": …, "token": …, "user": {…}, "organization": {…} } } }
// Writes go through `conf` (atomic, file mode); reads parse the file directly, because importing conf
// (and the JSON-schema validator it pulls in) costs more than the whole of a `--json` command.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "./errors.js";

export const DEFAULT_PROFILE = "default";
export const DEFAULT_SERVER = "http://localhost:3000";

export interface StoredUser {
  id: string;
  email: string;
  name: string;
}

export interface StoredOrganization {
  id: string;
  name: string;
  slug: string;
}

export interface Profile {
  server?: string;
  /** A device-flow session token: a secret, never printed. */
  token?: string;
  user?: StoredUser;
  organization?: StoredOrganization | null;
  /** `till sandbox on`: this profile's session acts on the sandbox unless told --live. */
  sandbox?: boolean;
}

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function checkProfileName(name: string): string {
  // conf addresses keys with dots; a name is also a path segment in messages, so keep it plain
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`--profile: expected letters, digits, "-" or "_" (at most 64), got "${name}"`);
  }
  return name;
}

export function configFile(dir: string): string {
  return path.join(dir, "config.json");
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function parseUser(v: unknown): StoredUser | undefined {
  if (!isRecord(v)) return undefined;
  const id = str(v.id);
  const email = str(v.email);
  return id && email ? { id, email, name: str(v.name) ?? "" } : undefined;
}

function parseOrganization(v: unknown): StoredOrganization | null | undefined {
  if (v === null) return null;
  if (!isRecord(v)) return undefined;
  const id = str(v.id);
  return id ? { id, name: str(v.name) ?? "", slug: str(v.slug) ?? "" } : undefined;
}

function parseProfile(v: unknown): Profile {
  if (!isRecord(v)) return {};
  return {
    server: str(v.server),
    token: str(v.token),
    user: parseUser(v.user),
    organization: parseOrganization(v.organization),
    ...(v.sandbox === true ? { sandbox: true } : {}),
  };
}

/** The stored profile, or an empty one when there is no file or no such profile. */
export function readProfile(dir: string, name: string): Profile {
  let raw: string;
  try {
    raw = readFileSync(configFile(dir), "utf8");
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    const profiles = isRecord(parsed) ? parsed.profiles : undefined;
    return isRecord(profiles) ? parseProfile(profiles[name]) : {};
  } catch {
    // a corrupt file is treated as empty; the next write replaces it
    return {};
  }
}

async function store(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { default: Conf } = await import("conf");
  return new Conf<{ profiles: Record<string, Profile> }>({
    cwd: dir,
    configName: "config",
    projectName: "till",
    configFileMode: 0o600,
    clearInvalidConfig: true,
  });
}

/** Merges `changes` into the profile (an `undefined` value removes that field). */
export async function updateProfile(dir: string, name: string, changes: Partial<Profile>): Promise<Profile> {
  const conf = await store(dir);
  const current = parseProfile(conf.get(`profiles.${name}`));
  const next: Profile = { ...current, ...changes };
  for (const key of Object.keys(next) as (keyof Profile)[]) if (next[key] === undefined) delete next[key];
  conf.set(`profiles.${name}`, next);
  return next;
}
