// A DATABASE_URL naming several hosts with target_session_attrs=read-write, as a failover set-up gives till
// (docs/operations.md, ops/failover): against servers this test makes on loopback (initdb, pg_basebackup -R) — a
// port nothing listens on, a hot standby, and its primary, in that order. postgres.js 3.4.9 alone took the standby
// for read-write (it reports default_transaction_read_only = off) and every write failed; till asks the driver for
// the primary (server/db/client.ts). Then a failover without Patroni: the primary stops as a crash would, the
// standby is promoted (pg_promote), and the same server writes again on it without a restart.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf, type Database } from "../../server/db/client.js";
import { sql } from "drizzle-orm";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { createDatabase, missingBinaries, startPrimary, startReplica, teardown, type Cluster } from "../helpers/pg-cluster.js";
import { freePort } from "../helpers/ports.js";
import { eventually } from "../helpers/receiver.js";

const missing = missingBinaries();
// CI (TILL_TEST_ALL=1) installs everything: a missing binary there is a failure, not a skip
if (missing.length > 0 && process.env.TILL_TEST_ALL === "1") throw new Error(`db-multihost: missing ${missing.join(", ")}`);
if (missing.length > 0) console.log(`db-multihost: skipped, missing ${missing.join(", ")} (Debian: apt-get install postgresql-15)`);

let primary: Cluster | undefined;
let standby: Cluster | undefined;
let database: Database | undefined;
let server: TestServer | undefined;
let key: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  primary = await startPrimary();
  standby = await startReplica(primary);
  await createDatabase(primary, "till");
  // the standby has the database once it replayed its creation: before, a connection to it is refused outright
  // (FATAL, which the driver does not pass over to the next host)
  const onStandby = postgres(standby.url("postgres"), { max: 1, onnotice: () => {} });
  try {
    await eventually(async () => (await onStandby`SELECT 1 FROM pg_database WHERE datname = 'till'`).length === 1, 60_000);
  } finally {
    await onStandby.end({ timeout: 5 });
  }
  const dead = await freePort();
  const hosts = [dead, standby.port, primary.port].map((port) => `127.0.0.1:${port}`).join(",");
  database = await openDatabase({ url: `postgres://postgres@${hosts}/till?target_session_attrs=read-write`, max: 4 });
  server = await startServer({}, { database });
  key = await (await createSeller(server, "multihost")).createKey();
}, 180_000);

afterAll(async () => {
  await teardown([() => server?.close(), () => database?.close(), standby?.destroy, primary?.destroy]);
});

/** The port of the server the handle's queries reach. */
const servedBy = async () => (await rowsOf<{ port: number }>(database!.db, sql`SELECT inet_server_port() AS port`))[0]?.port;

describe.skipIf(missing.length > 0)("a multi-host DATABASE_URL with target_session_attrs=read-write", () => {
  it("skips the host that is down and the standby: migrations ran and writes land on the primary", async () => {
    expect(await servedBy()).toBe(primary!.port);
    const product = await sdkFor(server!, key).products.create({ name: "Multi-host", prices: [{ amountType: "free" }] });
    expect(product.name).toBe("Multi-host");
  });

  it("after the primary's crash and the standby's promotion, the same server writes on the new primary", { timeout: 120_000 }, async () => {
    await primary!.stop("immediate");
    const onStandby = postgres(standby!.url("till"), { max: 1, onnotice: () => {} });
    try {
      await onStandby`SELECT pg_promote(true, 60)`;
    } finally {
      await onStandby.end({ timeout: 5 });
    }
    // the pool's connections to the old primary are gone; the next ones go to the promoted standby
    await expect
      .poll(async () => {
        const made = await sdkFor(server!, key)
          .products.create({ name: "After failover", prices: [{ amountType: "free" }] })
          .then((p) => p.name, () => undefined);
        return made;
      }, { timeout: 60_000, interval: 200 })
      .toBe("After failover");
    expect(await servedBy()).toBe(standby!.port);
  });
});
