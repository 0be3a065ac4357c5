// "The database is away": an error that says PostgreSQL could not be reached or dropped the connection (a restart,
// a failover, terminated backends), as opposed to one about the request. The HTTP error handlers answer those with
// 503 and Retry-After instead of a 500, so clients retry (the SDK's retry codes and the CLI's include 503), and
// postgres.js reconnects by itself on the next query (patches/postgres+3.4.9.patch keeps the process alive meanwhile).

/** What a 503 tells the client to wait, in seconds: postgres.js reconnects on the next query. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

export const DATABASE_UNAVAILABLE_BODY = {
  error: "ServiceUnavailable",
  detail: "The database is unavailable right now; retry shortly.",
} as const;

/** postgres.js's own codes for a connection that could not be used. */
const DRIVER_CODES = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "CONNECT_TIMEOUT"]);

/**
 * Socket errors postgres.js passes on as a query's error; it marks those with the failed query (`query`), which
 * tells them from the same codes of a call to another service (a webhook receiver, a payment processor).
 */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception), admin_shutdown,
 * crash_shutdown, cannot_connect_now (starting up, shutting down, in recovery), too_many_connections, and
 * read_only_sql_transaction: till opens no read-only transaction, so a write refused as read-only reached a standby
 * (a failover under way, a proxy or name still pointing at the old primary) and is worth retrying shortly.
 */
function unavailableState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || ["57P01", "57P02", "57P03", "53300", "25006"].includes(code);
}

/**
 * The code that says the database is away, found on `err` or an error it wraps in `cause` (drizzle's
 * DrizzleQueryError does); undefined when it is not such an error.
 */
export function databaseUnavailableCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      if (DRIVER_CODES.has(code) || unavailableState(code)) return code;
      if (SOCKET_CODES.has(code) && "query" in current) return code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export const isDatabaseUnavailable = (err: unknown): boolean => databaseUnavailableCode(err) !== undefined;

/** The answer to a request that failed because the database is away: 503, Retry-After, the usual error shape. */
export function sendDatabaseUnavailable(
  req: { log: { warn(obj: unknown, msg: string): void } },
  reply: { status(code: number): { header(name: string, value: string): { send(body: unknown): unknown } } },
  err: unknown,
): unknown {
  // the code only: the wrapped error's message carries the failed query's parameters (emails, hashed tokens)
  req.log.warn({ code: databaseUnavailableCode(err) }, "database unavailable: answered 503");
  return reply.status(503).header("retry-after", String(DATABASE_RETRY_AFTER_SECONDS)).send(DATABASE_UNAVAILABLE_BODY);
}
