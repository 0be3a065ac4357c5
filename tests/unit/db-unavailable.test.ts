// Which errors say "the database is away" (a 503 with Retry-After) and which do not (a client's
// error, a constraint, another service refusing a connection). The socket errors are real ones, on loopback.
import net from "node:net";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { databaseUnavailableCode, isDatabaseUnavailable } from "../../server/db/unavailable.js";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("databaseUnavailableCode", () => {
  it("a query postgres.js could not send (PostgreSQL refusing connections) is the database away, wrapped or not", async () => {
    const port = await closedPort();
    const sql = postgres(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, connect_timeout: 5, onnotice: () => {} });
    const err = await sql`select 1`.then(
      () => null,
      (e: unknown) => e,
    );
    await sql.end({ timeout: 1 });
    expect(databaseUnavailableCode(err)).toBe("ECONNREFUSED");
    // drizzle's DrizzleQueryError keeps the driver's error as its cause
    expect(databaseUnavailableCode(new Error("Failed query: select 1", { cause: err }))).toBe("ECONNREFUSED");
  });

  it("a server that closes cleanly while connecting (a TCP proxy whose PostgreSQL is down) fails the query within connect_timeout", async () => {
    // porsager/postgres#1193, patched (patches/README.md): before, postgres.js reconnected at once, thousands of
    // times a second, and the query never settled
    let accepted = 0;
    const proxy = net.createServer((socket) => {
      accepted++;
      // FIN, with what the client sent read (an unread startup message would make it a reset, which was handled)
      socket.resume();
      socket.end();
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as net.AddressInfo;
    const sql = postgres(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      // a bound for a hang, far past the 2 s (a loaded machine's timers fire late), not a speed check
      const settled = await Promise.race([
        sql`select 1`.then(
          () => "answered",
          (e: unknown) => e,
        ),
        new Promise((r) => setTimeout(() => r("still pending after 20 s"), 20_000)),
      ]);
      expect(databaseUnavailableCode(settled)).toBe("CONNECTION_CLOSED");
      // a few attempts, spaced by the backoff, not a busy loop (thousands a second before)
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(20);
      // the pool is usable again: the next query gets its own attempts (and the same answer)
      const again = await sql`select 1`.then(
        () => "answered",
        (e: unknown) => e,
      );
      expect(databaseUnavailableCode(again)).toBe("CONNECTION_CLOSED");
    } finally {
      await sql.end({ timeout: 1 });
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it("the same socket error from another service (a webhook receiver, a payment processor) is not", async () => {
    const port = await closedPort();
    const err = await new Promise<unknown>((resolve) => net.connect(port, "127.0.0.1").once("error", resolve));
    expect((err as { code?: string }).code).toBe("ECONNREFUSED");
    expect(isDatabaseUnavailable(err)).toBe(false);
    const fetched = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(fetched)).toBe(false);
  });

  it("postgres.js's closed-connection codes and PostgreSQL's going-away SQLSTATEs are; a request's own errors are not", () => {
    for (const code of ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "CONNECT_TIMEOUT", "57P01", "57P02", "57P03", "53300", "25006", "08006", "08001"]) {
      expect(databaseUnavailableCode(Object.assign(new Error(code), { code })), code).toBe(code);
    }
    // unique violation, invalid text, serialization failure, a Fastify client error, nothing at all
    for (const code of ["23505", "22P02", "40001", "FST_ERR_CTP_INVALID_JSON_BODY"]) {
      expect(isDatabaseUnavailable(Object.assign(new Error(code), { code })), code).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error("plain"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable("CONNECTION_CLOSED")).toBe(false);
  });
});
