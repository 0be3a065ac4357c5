// The commands a message names (`run \`till login\``, "Next: `till orgs create <name>`") as the person must
// type them next: with the --profile and --server this run was given on the command line, when the next run
// would not find them by itself (the default profile; TILL_PROFILE and TILL_SERVER stay set in the shell; a
// server stored in the profile is found there). createContext sets them; output.ts applies them to every
// message and hint it prints.

let scope: HintScope = { profileFlag: undefined, serverFlag: undefined, profileServer: undefined };

export interface HintScope {
  /** --profile NAME, as given on the command line (not TILL_PROFILE). */
  profileFlag: string | undefined;
  /** --server URL, normalized, as given on the command line (not TILL_SERVER). */
  serverFlag: string | undefined;
  /** The server the profile stores, which a later run uses without --server. */
  profileServer: string | undefined;
}

const quoteForShell = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** The global flags a command named in a message needs, e.g. " --profile staging --server http://localhost:4000". */
export function hintFlags(scope: HintScope): string {
  const flags: string[] = [];
  if (scope.profileFlag !== undefined && scope.profileFlag !== "default") flags.push("--profile", scope.profileFlag);
  if (scope.serverFlag !== undefined && scope.serverFlag !== scope.profileServer) flags.push("--server", scope.serverFlag);
  return flags.map((f) => ` ${quoteForShell(f)}`).join("");
}

export function setHintScope(next: HintScope): void {
  scope = next;
}

/** The profile now stores `server` (login, signup): later commands find it without --server. */
export function profileStoresServer(server: string): void {
  scope = { ...scope, profileServer: server };
}

/** `message` with this run's global flags after every `till` it names in backquotes, or that opens it. */
export function scopeHint(message: string, flags: string = hintFlags(scope)): string {
  if (flags === "") return message;
  return message.replace(/`till(?= )/g, `\`till${flags}`).replace(/^till(?= )/, `till${flags}`);
}
