// Read replicas (DATABASE_REPLICA_URL, server/db/replicas.ts) against a real streaming replica: a primary and a
// hot standby made by this test (initdb, pg_basebackup -R) on loopback ports. Replay is paused on the standby so
// what it serves is provably the standby's: a row changed on the primary only still reads as before.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/db/client.js";
import type { ReadRouting } from "../../server/db/replicas.js";
import { uniqueEmail } from "../helpers/client.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";
import { createDatabase, missingBinaries, startPrimary, startReplica, teardown, type Cluster } from "../helpers/pg-cluster.js";

const missing = missingBinaries();
// CI (TILL_TEST_ALL=1) installs everything: a missing binary there is a failure, not a skip
if (missing.length > 0 && process.env.TILL_TEST_ALL === "1") throw new Error(`read-replicas: missing ${missing.join(", ")}`);
if (missing.length > 0) console.log(`read-replicas: skipped, missing ${missing.join(", ")} (Debian: apt-get install postgresql-15)`);

const MAX_LAG_MS = 8000;

let primary: Cluster | undefined;
let replica: Cluster | undefined;
let database: Database | undefined;
let server: TestServer | undefined;
let onPrimary: postgres.Sql;
let onStandby: postgres.Sql;
let reads: ReadRouting;
let link: TcpProxy;
let key: string;
let otherKey: string;

beforeAll(async () => {
  if (missing.length > 0) return;
  primary = await startPrimary();
  replica = await startReplica(primary);
  // a TCP link between till and the replica, as a proxy in front of it: when the replica is down it accepts and
  // then closes cleanly (FIN), which postgres.js once answered by reconnecting forever (patches/README.md). While
  // cut (refusing), new connections are closed and open ones die on their next statement.
  link = new TcpProxy({ port: replica.port }, { targetClosed: "end" });
  await link.listen();
  const url = await createDatabase(primary, "till");
  // freshness is measured when a test asks (reads.check()), not on a timer: what the routing believes is the test's
  database = await openDatabase({ url, replicaUrls: [replica.url("till").replace(`:${replica.port}/`, `:${link.port}/`)], replicaMaxLagMs: MAX_LAG_MS, replicaCheckIntervalMs: 3_600_000, max: 5 });
  reads = database.reads!;
  server = await startServer({}, { database });
  key = await (await createSeller(server, "replica")).createKey();
  otherKey = await (await createSeller(server, "replica-other")).createKey();
  onPrimary = postgres(url, { max: 1, onnotice: () => {} });
  onStandby = postgres(replica.url("till"), { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await teardown([() => onPrimary?.end(), () => onStandby?.end(), () => server?.close(), () => database?.close(), () => link?.cut(), replica?.destroy, primary?.destroy]);
});

/** Waits until a list of `token`'s is served by the replica (it has replayed the caller's last write). */
async function servedByReplica(token: string): Promise<void> {
  await expect
    .poll(async () => {
      await reads.check();
      const before = reads.counts.replica;
      await sdkFor(server!, token).products.list({});
      return reads.counts.replica > before;
    }, { timeout: 60_000 })
    .toBe(true);
}

/** The name the list of `token`'s gives product `id` (undefined: not listed). */
const listedName = async (token: string, id: string) =>
  (await sdkFor(server!, token).products.list({ limit: 100 })).result.items.find((p) => p.id === id)?.name;

// a test run again after a failure (CI's --retry) makes its own rows: names and emails are per attempt, and
// lists are read for the products made here
describe.skipIf(missing.length > 0)("read replicas", () => {
  let productId: string;
  let otherProductId: string;
  let after: string;

  it("serves lists and exports from the replica, reads a caller's writes from the primary", async () => {
    // a retry finds replay paused by the first try
    await onStandby`SELECT pg_wal_replay_resume()`;
    const sdk = sdkFor(server!, key);
    const made = await sdk.products.create({ name: "Alpha", prices: [{ amountType: "fixed", priceAmount: 500, priceCurrency: "usd" }] });
    productId = made.id;
    // written, then read at once: the write is there (from the primary: the replica has not been seen to replay it)
    expect(await listedName(key, productId)).toBe("Alpha");
    const before = uniqueEmail("before");
    after = uniqueEmail("after");
    await sdk.customers.create({ email: before, name: "Customer" });
    otherProductId = (
      await sdkFor(server!, otherKey).products.create({ name: "Other", prices: [{ amountType: "fixed", priceAmount: 100, priceCurrency: "usd" }] })
    ).id;
    await servedByReplica(key);
    await servedByReplica(otherKey);

    await onStandby`SELECT pg_wal_replay_pause()`;
    await onPrimary`UPDATE product SET name = 'Renamed on the primary' WHERE id = ${productId}`;
    await onPrimary`UPDATE customer SET email = ${after} WHERE email = ${before}`;
    // the standby's copy: the primary's change is not replayed
    expect(await listedName(key, productId)).toBe("Alpha");
    const exported = await fetch(`${server!.url}/v1/customers/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(exported.status).toBe(200);
    const csv = await exported.text();
    expect(csv).toContain(before);
    expect(csv).not.toContain(after);

    // this caller writes: its next read sees the write (and the primary's own change), the replica still paused
    await sdk.products.update({ id: productId, productUpdate: { name: "Beta" } });
    expect(await listedName(key, productId)).toBe("Beta");
  });

  it("sends reads to the primary while the replica lags past TILL_REPLICA_MAX_LAG", async () => {
    // a retry finds replay resumed by the first try
    await onStandby`SELECT pg_wal_replay_pause()`;
    await onPrimary`UPDATE product SET name = 'Other, renamed' WHERE id = ${otherProductId}`;
    await expect
      .poll(
        async () => {
          await reads.check();
          return reads.state()[0]!.lagMs ?? 0;
        },
        { timeout: MAX_LAG_MS * 4 },
      )
      .toBeGreaterThan(MAX_LAG_MS);
    expect(await listedName(otherKey, otherProductId)).toBe("Other, renamed");
    await onStandby`SELECT pg_wal_replay_resume()`;
    await servedByReplica(otherKey);
    expect(await listedName(otherKey, otherProductId)).toBe("Other, renamed");
  });

  it("an export whose replica connection dies as its COPY starts runs on the primary", async () => {
    await servedByReplica(key);
    // the replica's pooled connections are open; the next statement sent on one finds it gone
    link.refusing = true;
    // not measured since: the routing still takes the replica for healthy and fresh, and sends the export to it
    expect(reads.state()[0]!.healthy).toBe(true);
    const fallbacks = reads.counts.fallback;
    try {
      const exported = await fetch(`${server!.url}/v1/customers/export`, { headers: { authorization: `Bearer ${key}` } });
      expect(exported.status).toBe(200);
      expect(await exported.text()).toContain(after);
      expect(reads.counts.fallback).toBe(fallbacks + 1);
      expect(reads.state()[0]!.healthy).toBe(false);
    } finally {
      link.refusing = false;
    }
  });

  // a PostgreSQL stopped and the checks that find it: bounded wider than the default on a loaded machine
  it("a replica stopped mid-run: reads go on from the primary, no request fails", async () => {
    // a retry finds the replica stopped by the first try (on a machine loaded enough to time that try out)
    await replica!.start();
    const sdk = sdkFor(server!, otherKey);
    // named through the API: the replica serves the list once it has replayed this write
    await sdk.products.update({ id: otherProductId, productUpdate: { name: "Before the stop" } });
    await servedByReplica(otherKey);
    const fallbacks = reads.counts.fallback;
    let stopped: Promise<void> | undefined;
    const results: string[][] = [];
    for (let round = 0; round < 12; round++) {
      if (round === 3) stopped = replica!.stop("immediate");
      const batch = await Promise.all([0, 1, 2].map(async () => (await sdk.products.list({ limit: 100 })).result.items.filter((p) => p.id === otherProductId).map((p) => p.name)));
      results.push(...batch);
      await new Promise((r) => setTimeout(r, 100));
    }
    await stopped;
    expect(results.every((names) => names.length === 1 && names[0] === "Before the stop")).toBe(true);
    await reads.check();
    expect(reads.state()[0]!.healthy).toBe(false);
    // reads after the stop: the primary's, the export too
    await onPrimary`UPDATE product SET name = 'After the stop' WHERE id = ${otherProductId}`;
    expect(await listedName(otherKey, otherProductId)).toBe("After the stop");
    const exported = await fetch(`${server!.url}/v1/customers/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain(after);
    // the requests in flight when it stopped ran again on the primary, or the check found it first
    expect(reads.counts.fallback >= fallbacks).toBe(true);
  }, 180_000);

  it("a replica down behind its proxy with none of till's connections open: the next read runs on the primary", async () => {
    await replica!.start();
    await servedByReplica(otherKey);
    // till's connections to the replica end (as after a restart), then it stops: not measured since, the routing
    // still takes it for healthy, so the next read opens a connection, which the proxy accepts and closes
    await onStandby`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`;
    await replica!.stop("fast");
    expect(reads.state()[0]!.healthy).toBe(true);
    const fallbacks = reads.counts.fallback;
    // postgres.js gives up within the replica's connect_timeout (2 s; it once reconnected forever) and the read
    // runs again on the primary
    expect(await listedName(otherKey, otherProductId)).toBe("After the stop");
    expect(reads.counts.fallback).toBe(fallbacks + 1);
    expect(reads.state()[0]!.healthy).toBe(false);
  }, 60_000);
});
