// The lists' maintained counts (migration 0032, billing/list-counts.ts): total_count of the
// unfiltered orders, customers, subscriptions and events lists equals count(*) of the list's rows after
// concurrent inserts from several requests and transactions (some rolled back), soft and hard deletes, folds
// running alongside writers, sandbox next to live, and for rows that existed before the migration (the backfill).
// Filtered lists stay exact counts. Runs on PGlite (no DATABASE_URL) and PostgreSQL.
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, type Queryable } from "../../server/db/client.js";
import { COMPACT_AFTER, compactListCount, compactListCounts, listTotal, type CountedList } from "../../server/billing/list-counts.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { migrationsBefore, upgradedDatabase } from "../helpers/db.js";

async function rows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}

const LISTS = { orders: "order", customers: "customer", subscriptions: "subscription", events: "event" } as const;

/** count(*) of each list's rows in the organization: what total_count must say. */
async function counted(db: Queryable, organizationId: string): Promise<Record<CountedList, number>> {
  const [row] = await rows<Record<CountedList, number>>(
    db,
    sql`SELECT
      (SELECT count(*) FROM "order" WHERE organization_id = ${organizationId}::uuid)::int AS "order",
      (SELECT count(*) FROM customer WHERE organization_id = ${organizationId}::uuid AND deleted_at IS NULL)::int AS customer,
      (SELECT count(*) FROM subscription WHERE organization_id = ${organizationId}::uuid)::int AS subscription,
      (SELECT count(*) FROM event WHERE organization_id = ${organizationId}::uuid)::int AS event`,
  );
  if (!row) throw new Error("no counts");
  return row;
}

async function insertOrders(db: Queryable, organizationId: string, customerId: string, productId: string, n: number) {
  await db.execute(sql`INSERT INTO "order" (organization_id, status, subtotal_amount, net_amount, total_amount, currency, billing_reason,
      invoice_number, customer_id, product_id)
    SELECT ${organizationId}::uuid, 'paid', 1000, 1000, 1000, 'usd', 'purchase', 'LC-' || gen_random_uuid(), ${customerId}::uuid, ${productId}::uuid
    FROM generate_series(1, ${n}::int)`);
}

async function insertSubscriptions(db: Queryable, organizationId: string, customerId: string, productId: string, n: number) {
  await db.execute(sql`INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
      current_period_end, customer_id, product_id, price_ids, started_at)
    SELECT ${organizationId}::uuid, 'active', 1000, 'usd', 'month', now(), now() + interval '1 month', ${customerId}::uuid,
           ${productId}::uuid, '{}', now() - i * interval '1 minute'
    FROM generate_series(1, ${n}::int) AS i`);
}

describe("the lists' maintained counts", () => {
  let server: TestServer;
  let seller: Seller;
  let key: string;
  let sandboxKey: string;
  let twin: string;
  let productId: string;
  let customerId: string;

  const db = () => server.database.db;

  async function call<T = Record<string, unknown>>(token: string, method: string, p: string, body?: unknown) {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  type Page = { items: Array<{ id: string }>; pagination: { total_count: number; max_page: number } };
  const total = async (token: string, list: keyof typeof LISTS, query = "") => {
    const res = await call<Page>(token, "GET", `/v1/${list}/?limit=3${query}`);
    expect(res.status).toBe(200);
    return res.body.pagination.total_count;
  };

  /** Every list's total_count (through the API) equals count(*) of its rows. */
  async function expectExact(token: string, organizationId: string) {
    const expected = await counted(db(), organizationId);
    for (const [list, table] of Object.entries(LISTS) as Array<[keyof typeof LISTS, CountedList]>) {
      expect({ list, total: await total(token, list) }).toEqual({ list, total: expected[table] });
    }
    return expected;
  }

  beforeAll(async () => {
    server = await startServer();
    seller = await createSeller(server, "list-counts");
    [key, sandboxKey] = await Promise.all([seller.createKey(), seller.createSandboxKey()]);
    const whoami = await call<{ organization_id: string }>(sandboxKey, "GET", "/api/whoami");
    twin = whoami.body.organization_id;
    expect(twin).not.toBe(seller.organizationId);
    const product = await call<{ id: string }>(key, "POST", "/v1/products/", {
      name: "Counted",
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    });
    expect(product.status).toBe(201);
    productId = product.body.id;
    const customer = await call<{ id: string }>(key, "POST", "/v1/customers/", { email: `counted-${Date.now()}@example.com` });
    customerId = customer.body.id;
  });
  afterAll(async () => server?.close());

  it("start from the organization's rows and follow concurrent API writes (customers, events with dedupe)", async () => {
    await expectExact(key, seller.organizationId);
    const emails = Array.from({ length: 12 }, (_, i) => `many-${i}-${Date.now()}@example.com`);
    const created = await Promise.all(emails.map((email) => call<{ id: string }>(key, "POST", "/v1/customers/", { email })));
    expect(created.map((c) => c.status)).toEqual(emails.map(() => 201));
    // the same email twice at once: one is refused, the count has only the one that exists
    await Promise.all([0, 1].map(() => call(key, "POST", "/v1/customers/", { email: emails[0] })));
    // six requests of 40 events at once, each sharing 20 external ids with another: the duplicates are not counted
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 40 }, (_, i) => ({
        name: "counted.call",
        external_customer_id: `ext-${i % 4}`,
        external_id: `dup-${(b * 20 + i) % 140}`,
      })),
    );
    const ingested = await Promise.all(batches.map((events) => call<{ inserted: number }>(key, "POST", "/v1/events/ingest", { events })));
    expect(ingested.map((r) => r.status)).toEqual(batches.map(() => 200));
    const expected = await expectExact(key, seller.organizationId);
    expect(expected.event).toBe(140);
    expect(expected.customer).toBe(13);
  });

  it("stay exact under concurrent transactions, rollbacks, soft and hard deletes, and folds alongside", async () => {
    const before = await counted(db(), seller.organizationId);
    const work = Array.from({ length: 16 }, async (_, i) => {
      const write = async (tx: Queryable) => {
        await insertOrders(tx, seller.organizationId, customerId, productId, 1 + (i % 3));
        await insertSubscriptions(tx, seller.organizationId, customerId, productId, 1 + (i % 2));
        await tx.execute(sql`INSERT INTO event (organization_id, name, timestamp) SELECT ${seller.organizationId}::uuid, 'tx.event', now()
          FROM generate_series(1, 5)`);
        if (i % 4 === 3) throw new Error("rolled back");
      };
      await db()
        .transaction(write)
        .catch((err: unknown) => {
          if (!(err instanceof Error) || err.message !== "rolled back") throw err;
        });
      // a fold while others write: it takes only rows it can lock and no uncommitted ones
      if (i % 5 === 0) await compactListCount(db(), seller.organizationId, "order");
    });
    await Promise.all(work);
    const after = await expectExact(key, seller.organizationId);
    // 12 of 16 committed: orders 1+2+3+1 per four (i % 3 over 0..15, minus the rolled back i = 3, 7, 11, 15)
    const committed = Array.from({ length: 16 }, (_, i) => i).filter((i) => i % 4 !== 3);
    expect(after.order - before.order).toBe(committed.reduce((s, i) => s + 1 + (i % 3), 0));
    expect(after.subscription - before.subscription).toBe(committed.reduce((s, i) => s + 1 + (i % 2), 0));
    expect(after.event - before.event).toBe(committed.length * 5);

    // a soft delete leaves the customers list (through the API), a hard delete any list
    const victims = (await call<Page>(key, "GET", "/v1/customers/?limit=3")).body.items;
    const deleted = await Promise.all(victims.map((c) => call(key, "DELETE", `/v1/customers/${c.id}`)));
    expect(deleted.map((d) => d.status)).toEqual(victims.map(() => 204));
    await db().execute(sql`DELETE FROM "order" WHERE id IN (SELECT id FROM "order" WHERE organization_id = ${seller.organizationId}::uuid LIMIT 2)`);
    await db().execute(sql`DELETE FROM event WHERE organization_id = ${seller.organizationId}::uuid AND name = 'tx.event'`);
    // an update that does not delete moves nothing; restoring a soft-deleted customer brings it back
    await db().execute(sql`UPDATE customer SET name = 'renamed' WHERE organization_id = ${seller.organizationId}::uuid`);
    await db().execute(sql`UPDATE customer SET deleted_at = NULL WHERE id = ${victims[0]!.id}::uuid`);
    const final = await expectExact(key, seller.organizationId);
    expect(final.customer).toBe(after.customer - victims.length + 1);
  });

  it("fold on read past the threshold and in the worker's pass, the total unchanged", async () => {
    for (let i = 0; i < COMPACT_AFTER + 5; i++) await insertOrders(db(), seller.organizationId, customerId, productId, 1);
    const deltas = async () =>
      (
        await rows<{ n: number }>(
          db(),
          sql`SELECT count(*)::int AS n FROM list_count WHERE organization_id = ${seller.organizationId}::uuid AND list = 'order'`,
        )
      )[0]?.n ?? 0;
    expect(await deltas()).toBeGreaterThan(COMPACT_AFTER);
    const expected = (await counted(db(), seller.organizationId)).order;
    expect(await listTotal(db(), seller.organizationId, "order")).toBe(expected); // this read folds
    expect(await deltas()).toBe(1);
    expect(await listTotal(db(), seller.organizationId, "order")).toBe(expected);

    await insertOrders(db(), seller.organizationId, customerId, productId, 2);
    while ((await compactListCounts(db(), 100)) === 100);
    expect(await deltas()).toBe(1);
    await expectExact(key, seller.organizationId);
  });

  it("keep the sandbox apart from live", async () => {
    const liveBefore = await counted(db(), seller.organizationId);
    const created = await Promise.all(
      [1, 2, 3].map((i) => call(sandboxKey, "POST", "/v1/customers/", { email: `sandbox-${i}-${Date.now()}@example.com` })),
    );
    expect(created.map((c) => c.status)).toEqual([201, 201, 201]);
    const events = [{ name: "sandbox.call", external_customer_id: "s" }, { name: "sandbox.call", external_customer_id: "s" }];
    expect((await call(sandboxKey, "POST", "/v1/events/ingest", { events })).status).toBe(200);
    const sandbox = await expectExact(sandboxKey, twin);
    expect(sandbox.customer).toBe(3);
    expect(sandbox.event).toBe(2);
    expect(await expectExact(key, seller.organizationId)).toEqual(liveBefore);
  });

  it("page deeper through the index the same rows the first page's query orders (default and other sorts)", async () => {
    for (const [list, query] of [
      ["orders", ""],
      ["orders", "&sorting=created_at"],
      ["orders", "&sorting=-amount"],
      ["customers", ""],
      ["customers", "&sorting=email"],
      ["subscriptions", ""],
      ["events", ""],
      ["events", "&sorting=timestamp"],
      ["events", "&name=counted.call"],
    ] as const) {
      const whole = (await call<Page>(key, "GET", `/v1/${list}/?limit=100${query}`)).body.items.map((i) => i.id);
      const paged: string[] = [];
      for (let p = 1; p <= 10; p++) paged.push(...(await call<Page>(key, "GET", `/v1/${list}/?limit=10&page=${p}${query}`)).body.items.map((i) => i.id));
      expect({ list, query, ids: paged }).toEqual({ list, query, ids: whole });
    }
  });

  it("answer filtered lists with exact counts (the last page's from its rows)", async () => {
    const all = await counted(db(), seller.organizationId);
    expect(await total(key, "orders", `&customer_id=${customerId}`)).toBe(all.order);
    expect(await total(key, "orders", `&customer_id=${randomUUID()}`)).toBe(0);
    expect(await total(key, "subscriptions", `&product_id=${productId}`)).toBe(all.subscription);
    expect(await total(key, "events", "&name=counted.call")).toBe(140);
    // a page past the end, the last page and a full page of a filtered list
    expect(await total(key, "events", "&name=counted.call&page=100")).toBe(140);
    expect(await total(key, "events", "&name=counted.call&page=47")).toBe(140);
    expect(await total(key, "events", "&name=counted.call&page=2")).toBe(140);
    const [many] = await rows<{ n: number }>(
      db(),
      sql`SELECT count(*)::int AS n FROM customer WHERE organization_id = ${seller.organizationId}::uuid AND deleted_at IS NULL AND email LIKE 'many-%'`,
    );
    expect(await total(key, "customers", "&query=many-")).toBe(many!.n);
  });
});

describe("rows written before the counts' migration", () => {
  const orgs = [randomUUID(), randomUUID()];
  let database: Database;

  beforeAll(async () => {
    database = await upgradedDatabase(migrationsBefore("_list_counts"), async (db) => {
      for (const [i, org] of orgs.entries()) {
        await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Old', ${`old-${org}`}, now())`);
        await db.execute(sql`INSERT INTO customer (organization_id, email, deleted_at)
          SELECT ${org}::uuid, 'old-' || g || '@example.com', CASE WHEN g % 5 = 0 THEN now() END FROM generate_series(1, ${20 + i}) AS g`);
        const [c] = await rows<{ id: string }>(db, sql`SELECT id FROM customer WHERE organization_id = ${org}::uuid LIMIT 1`);
        const [p] = await rows<{ id: string }>(db, sql`INSERT INTO product (organization_id, name) VALUES (${org}::uuid, 'Old') RETURNING id`);
        await insertOrders(db, org, c!.id, p!.id, 7 + i);
        await insertSubscriptions(db, org, c!.id, p!.id, 3 + i);
        await db.execute(sql`INSERT INTO event (organization_id, name, timestamp) SELECT ${org}::uuid, 'old', now() FROM generate_series(1, ${50 + i})`);
      }
    });
  });
  afterAll(async () => database?.close());

  it("are counted by the backfill, and later writes add to them", async () => {
    for (const org of orgs) {
      const expected = await counted(database.db, org);
      expect(expected.customer).toBeGreaterThan(0);
      for (const list of Object.values(LISTS)) expect({ list, n: await listTotal(database.db, org, list) }).toEqual({ list, n: expected[list] });
    }
    await database.db.execute(sql`INSERT INTO event (organization_id, name, timestamp) VALUES (${orgs[0]}::uuid, 'new', now())`);
    await database.db.execute(sql`UPDATE customer SET deleted_at = now() WHERE organization_id = ${orgs[1]}::uuid AND deleted_at IS NULL`);
    expect(await listTotal(database.db, orgs[0]!, "event")).toBe((await counted(database.db, orgs[0]!)).event);
    expect(await listTotal(database.db, orgs[1]!, "customer")).toBe(0);
  });
});
