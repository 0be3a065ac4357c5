// till behind PgBouncer in transaction mode (DATABASE_URL=…?pgbouncer=true, DATABASE_DIRECT_URL for migrations and
// LISTEN): a smoke set of the API through a real PgBouncer on loopback, in front of a PostgreSQL of this test's own.
// Without `prepare: false` PgBouncer 1.18 answers postgres.js's named statements with "prepared statement … does
// not exist" once a transaction lands on another server connection.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/db/client.js";
import { pay } from "../helpers/checkout.js";
import { Receiver } from "../helpers/receiver.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { createDatabase, missingBinaries, startPgBouncer, startPrimary, teardown, type Cluster, type Pooler } from "../helpers/pg-cluster.js";

const missing = missingBinaries({ pgbouncer: true });
// CI (TILL_TEST_ALL=1) installs everything: a missing binary there is a failure, not a skip
if (missing.length > 0 && process.env.TILL_TEST_ALL === "1") throw new Error(`pgbouncer: missing ${missing.join(", ")}`);
if (missing.length > 0) console.log(`pgbouncer: skipped, missing ${missing.join(", ")} (Debian: apt-get install postgresql-15 pgbouncer)`);

let primary: Cluster | undefined;
let pooler: Pooler | undefined;
let database: Database | undefined;
let server: TestServer | undefined;
let onPrimary: postgres.Sql;
const receiver = new Receiver();

beforeAll(async () => {
  if (missing.length > 0) return;
  primary = await startPrimary();
  pooler = await startPgBouncer(primary);
  const direct = await createDatabase(primary, "till");
  database = await openDatabase({ url: pooler.url("till"), directUrl: direct, max: 10 });
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" }, { database });
  await server.worker.start();
  onPrimary = postgres(direct, { max: 1, onnotice: () => {} });
  await receiver.start();
});

afterAll(async () => {
  await teardown([() => onPrimary?.end(), () => server?.close(), () => database?.close(), () => receiver.stop(), pooler?.stop, primary?.destroy]);
});

describe.skipIf(missing.length > 0)("behind PgBouncer (transaction mode)", () => {
  it("runs the smoke set: catalog, customers, usage, a paid checkout, webhooks, exports, idempotent retries", async () => {
    const seller = await createSeller(server!, "pooled");
    const key = await seller.createKey();
    const sdk = sdkFor(server!, key);
    await sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}/pooled`, format: "raw", events: ["order.created"] });
    const meter = await sdk.meters.create({
      name: "Calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api.call" }] },
      aggregation: { func: "count" },
    });
    const product = await sdk.products.create({ name: "Pooled", prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }] });
    // many statements at once: every one lands on whichever server connection PgBouncer picks
    const names = await Promise.all(Array.from({ length: 20 }, async () => (await sdk.products.get({ id: product.id })).name));
    expect(new Set(names)).toEqual(new Set(["Pooled"]));
    const customer = await sdk.customers.create({ email: "pooled@example.com", externalId: "pooled-1" });
    // the batch stored by the early INSERT, its statements prepared on a reserved connection
    // (events/ingest/early-insert.ts)
    const events = Array.from({ length: 300 }, (_, i) => ({ name: "api.call", customerId: customer.id, externalId: `call-${i}` }));
    expect(await sdk.events.ingest({ events })).toEqual({ inserted: 300, duplicates: 0 });
    expect(await sdk.events.ingest({ events: events.slice(0, 10) })).toEqual({ inserted: 0, duplicates: 10 });
    await expect
      .poll(async () =>
        (await sdk.customers.getState({ id: customer.id })).activeMeters.length +
        (await sdk.meters.quantities({
          id: meter.id, startTimestamp: new Date(Date.now() - 86_400_000), endTimestamp: new Date(Date.now() + 86_400_000), interval: "day",
        })).total)
      .toBeGreaterThanOrEqual(300);

    const checkout = await sdk.checkouts.create({ products: [product.id] });
    const confirmed = await pay(server!, checkout);
    expect(confirmed.status).toBe("confirmed");
    // the worker delivers order.created (woken by LISTEN on the direct connection)
    await receiver.until((hits) => hits.find((h) => h.path === "/pooled" && h.body.includes('"order.created"')), 20_000);
    const orders = await sdk.orders.list({});
    expect(orders.result.items).toHaveLength(1);

    // an export's COPY through the pooler, on a reserved connection
    const exported = await fetch(`${server!.url}/v1/customers/export`, { headers: { authorization: `Bearer ${key}` } });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain("pooled@example.com");

    // an idempotent write retried: the same answer, one row
    const headers = { "idempotency-key": "pooled-retry-1" };
    const first = await sdk.customers.create({ email: "retry@example.com" }, { headers });
    const again = await sdk.customers.create({ email: "retry@example.com" }, { headers });
    expect(again.id).toBe(first.id);

    const [listening] = await onPrimary<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'till-direct' AND query ILIKE 'listen%'`;
    expect(listening!.n).toBeGreaterThan(0);
  });
});
