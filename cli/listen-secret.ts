// The signing secret `till listen` re-signs forwarded events with: random (`whsec_` + 32 bytes, like an
// endpoint's), one per sign-in session of a profile on a server. It is made on the first `till listen` of the
// session and kept in the config directory (file mode 0600), so `--print-secret` can feed the app's environment
// for the whole session; `till login` and `till logout` forget it, so every new session signs with a new one.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const FILE = "listen-secrets.json";
const keyOf = (profile: string, server: string) => `${profile} ${server}`;

function readAll(configDir: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(path.join(configDir, FILE), "utf8")) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
  } catch {
    return {}; // none yet (or unreadable): a new one replaces it
  }
}

function writeAll(configDir: string, secrets: Record<string, string>): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(configDir, FILE), `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
}

/** This session's secret, made with `generate` when there is none yet. */
export async function listenSecret(configDir: string, profile: string, server: string, generate: () => Promise<string>): Promise<string> {
  const secrets = readAll(configDir);
  const known = secrets[keyOf(profile, server)];
  if (typeof known === "string" && known.startsWith("whsec_")) return known;
  const secret = await generate();
  writeAll(configDir, { ...secrets, [keyOf(profile, server)]: secret });
  return secret;
}

/** Forgets the secret of a profile on a server (a session ends or begins). */
export function forgetListenSecret(configDir: string, profile: string, server: string): void {
  const secrets = readAll(configDir);
  if (!(keyOf(profile, server) in secrets)) return;
  delete secrets[keyOf(profile, server)];
  writeAll(configDir, secrets);
}
