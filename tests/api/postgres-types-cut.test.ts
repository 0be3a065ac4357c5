// postgres.js reads the array types on each new connection from a message handler that drops the promise: a
// connection closed during that read (a restart, pg_terminate_backend) rejected it with nobody listening, and the
// server process ended (seen in tests/api/db-outage.test.ts on a loaded CI). patches/postgres+3.4.9.patch settles
// it: the queries waiting on that connection are settled as for any closed connection, and the next one reads the
// types.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usingPostgres } from "../helpers/db.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";

describe.skipIf(!usingPostgres)("a connection closed while postgres.js reads the array types", () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  let proxy: TcpProxy;
  let cuts = 0;
  beforeAll(async () => {
    process.on("unhandledRejection", record);
    const base = new URL(process.env.DATABASE_URL!);
    // the first connection is closed as soon as its client asks for the array types
    proxy = new TcpProxy(
      { host: base.hostname, port: Number(base.port || 5432) },
      {
        fromClient(chunk, link) {
          if (cuts > 0 || !chunk.includes("typcategory")) return true;
          cuts++;
          link.destroy();
          return false;
        },
      },
    );
    await proxy.listen();
  });
  afterAll(async () => {
    process.off("unhandledRejection", record);
    await proxy?.cut();
  });

  it("on a reserved connection: rejects nothing unhandled, its query fails as on a closed connection, the next connection works", async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      // a reserved connection (till's pipelined transactions and early INSERT): the types are read after it is
      // handed over, with no query of its own waiting for them
      const failed = await sql.reserve().then(
        async (conn) => {
          try {
            await conn`SELECT 1 AS one`;
            return null;
          } finally {
            conn.release();
          }
        },
        (err: unknown) => err,
      ).catch((err: unknown) => err as { code?: string });
      expect(cuts).toBe(1);
      // the query on the closed connection fails as on any closed connection (or ran before the cut)
      expect(failed === null || (failed as { code?: string }).code === "CONNECTION_CLOSED").toBe(true);
      // an unhandled rejection is reported after the microtasks and a turn of the event loop
      await new Promise((r) => setTimeout(r, 100));
      expect(unhandled).toEqual([]);
      // a new connection reads the types again: an array comes back parsed
      const [row] = await sql<Array<{ xs: number[] }>>`SELECT ARRAY[1, 2, 3]::int[] AS xs`;
      expect(row?.xs).toEqual([1, 2, 3]);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
