// Typed CLI errors: each carries the process exit code, a stable machine code (the `code` of the --json
// error envelope) and an optional hint telling the user what to do next.

export const EXIT = {
  ok: 0,
  error: 1,
  /**
   * Bad usage or invalid input: an unknown flag, a malformed value, a value the server refused (422), an
   * invalid catalog file, confirmation nobody could give or a cancelled prompt; also "changes planned" for
   * dry-run style commands.
   */
  usage: 2,
  changesPlanned: 2,
  /** `entitlements check`: the customer may not use the feature (not an error: the answer, for `if till …`). */
  refused: 3,
  /** Not signed in, credentials refused, or the credential lacks the scope the request needs. */
  authRequired: 4,
  /**
   * Ctrl-C at a question: the command stopped before doing anything (128 + SIGINT, as shells report it); or while
   * `till import` waits for a run, which goes on at the server.
   */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const ERROR_CODES = {
  error: "error",
  usage: "usage",
  notSignedIn: "not_signed_in",
  unauthorized: "unauthorized",
  network: "network_error",
  expiredToken: "expired_token",
  accessDenied: "access_denied",
  noOrganization: "no_organization",
  missingScope: "missing_scope",
} as const;

/** The request an error came from: shown only with --verbose/--debug (with the server's request id). */
export interface RequestInfo {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
}

export const NOT_SIGNED_IN = "not signed in: run `till login` or set TILL_API_KEY";

export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly code: string;
  readonly hint: string | undefined;
  readonly request: RequestInfo | undefined;

  constructor(message: string, opts: { exitCode?: ExitCode; code?: string; hint?: string; request?: RequestInfo } = {}) {
    super(message);
    this.name = "CliError";
    this.exitCode = opts.exitCode ?? EXIT.error;
    this.code = opts.code ?? ERROR_CODES.error;
    this.hint = opts.hint;
    this.request = opts.request;
  }
}

/** Malformed input found before anything was sent: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT.usage, code: ERROR_CODES.usage, hint });
    this.name = "UsageError";
  }
}

/** No usable credentials, or the server refused them: exit 4. */
export class AuthRequiredError extends CliError {
  constructor(message = NOT_SIGNED_IN, opts: { code?: string; hint?: string; request?: RequestInfo } = {}) {
    super(message, { exitCode: EXIT.authRequired, code: opts.code ?? ERROR_CODES.notSignedIn, hint: opts.hint, request: opts.request });
    this.name = "AuthRequiredError";
  }
}

/** The server answered with an error status. `code` is the server's own error name when it gave one. */
export class ApiError extends CliError {
  readonly status: number;

  constructor(status: number, message: string, code: string, hint?: string, opts: { exitCode?: ExitCode; request?: RequestInfo } = {}) {
    super(message, { exitCode: opts.exitCode ?? EXIT.error, code, hint, request: opts.request });
    this.name = "ApiError";
    this.status = status;
  }

  /** The same error with another hint (what the command had done before it failed). */
  withHint(hint: string): ApiError {
    return new ApiError(this.status, this.message, this.code, hint, { exitCode: this.exitCode, request: this.request });
  }
}

/**
 * Not a failure: the command finished and printed its result, and its exit code carries news (`catalog
 * plan`: 2 = changes planned). main() exits with the code and prints nothing more.
 */
export class ExitStatus extends CliError {
  constructor(exitCode: ExitCode) {
    super("", { exitCode, code: "exit_status" });
    this.name = "ExitStatus";
  }
}

export function asCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(message);
}
