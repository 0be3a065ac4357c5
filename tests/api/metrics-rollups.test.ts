// The metrics' hourly rollups (migration 0048, server/billing/metrics/rollups.ts) answer exactly what the scan
// of the source rows answers: every metric, every period, after inserts, updates and deletes of orders,
// checkouts, subscriptions and events, in two currencies, by hour, day, week and month in UTC, Europe/Berlin and
// America/Los_Angeles (across a clock change), filtered by product and billing type (metric_product_hour), in zones
// whose offsets cut UTC hours (Asia/Kolkata, Asia/Kathmandu, America/St_Johns, Australia/Adelaide: those hours
// scanned), before and after the fold; and the rollups of rows written before
// the migration (its backfill) answer the same; a subscription that changed product is new under its first product
// (migration 0078, which dates those changed before it so); active users are counted from the kept counts of folded
// rows and the unfolded ones (billing/metrics/users.ts) as the scan counts them.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsFolder, rowsOf, type Database } from "../../server/db/client.js";
import { getMetrics, type MetricsQuery } from "../../server/billing/metrics/service.js";
import { plan } from "../../server/billing/metrics/rollups.js";
import { foldMetricRollups } from "../../server/billing/metrics/fold.js";
import { freshDatabase, upgradedDatabase } from "../helpers/db.js";

const opened: Database[] = [];
afterAll(async () => {
  for (const d of opened) await d.close();
});

type Db = Database["db"];

/** An organization with a bit of everything, dated around the end of March 2026 (Europe's clock change). */
async function seed(db: Db, org: string): Promise<void> {
  await seedRows(db, org);
  // the subscriptions' orders belong to one (billing type "recurring")
  await db.execute(sql`UPDATE "order" SET subscription_id = (SELECT id FROM subscription WHERE organization_id = ${org}::uuid ORDER BY started_at LIMIT 1)
    WHERE organization_id = ${org}::uuid AND billing_reason <> 'purchase'`);
}

async function seedRows(db: Db, org: string): Promise<void> {
  await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Rollups', ${`r-${org}`}, now())`);
  const [c1] = await rowsOf<{ id: string }>(db, sql`INSERT INTO customer (organization_id, email) VALUES (${org}::uuid, 'a@example.com') RETURNING id`);
  const [c2] = await rowsOf<{ id: string }>(db, sql`INSERT INTO customer (organization_id, email) VALUES (${org}::uuid, 'b@example.com') RETURNING id`);
  const [p] = await rowsOf<{ id: string }>(db, sql`INSERT INTO product (organization_id, name, recurring_interval) VALUES (${org}::uuid, 'Pro', 'month') RETURNING id`);
  const [book] = await rowsOf<{ id: string }>(db, sql`INSERT INTO product (organization_id, name, recurring_interval) VALUES (${org}::uuid, 'Book', NULL) RETURNING id`);
  const products = [book?.id ?? null, p?.id ?? null, p?.id ?? null, null];
  const customers = [c1?.id ?? "", c2?.id ?? ""];
  // orders every 7 hours from March 20th to April 10th, 2026: reasons, currencies, refunds and fees vary
  for (let i = 0; i < 72; i++) {
    // minutes 0, 17, 34 and 51: a half-hour zone's boundaries cut their hours
    const at = new Date(Date.UTC(2026, 2, 20) + i * 7 * 3_600_000 + (i % 4) * 17 * 60_000).toISOString();
    const reason = ["purchase", "subscription_create", "subscription_cycle"][i % 3] ?? "purchase";
    const status = i % 11 === 0 ? "pending" : i % 7 === 0 ? "partially_refunded" : "paid";
    await db.execute(sql`INSERT INTO "order" (organization_id, status, subtotal_amount, net_amount, total_amount, refunded_amount,
        platform_fee_amount, currency, billing_reason, invoice_number, customer_id, product_id, created_at)
      VALUES (${org}::uuid, ${status}, ${1000 + i * 10}, ${1000 + i * 10}, ${1000 + i * 10}, ${i % 7 === 0 ? 250 : 0}, ${i % 5 === 0 ? 30 : 0},
        ${i % 4 === 0 ? "eur" : "usd"}, ${reason}, ${`R-${org}-${i}`}, ${customers[i % 2]}::uuid, ${products[i % 3]}::uuid, ${at}::timestamptz)`);
    if (i % 4 === 1) {
      await db.execute(sql`INSERT INTO checkout (organization_id, status, client_secret, expires_at, amount, currency, product_ids, product_id, customer_id, created_at)
        VALUES (${org}::uuid, 'open', ${`cs-${org}-${i}`}, now(), 1000, 'usd', '{}'::uuid[], ${products[i % 4]}::uuid, ${customers[i % 2]}::uuid, ${at}::timestamptz)`);
    }
    if (i % 3 === 2) {
      const cost = i % 9 === 2 ? { amount: "0.75" } : i % 9 === 5 ? { amount: "1.5", currency: "usd" } : { amount: "2", currency: "eur" };
      await db.execute(sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, external_customer_id, metadata)
        VALUES (${org}::uuid, 'llm', 'user', ${at}::timestamptz, ${i % 6 === 2 ? null : customers[i % 2]}::uuid, ${i % 6 === 2 ? "ext-1" : null},
          ${JSON.stringify({ _cost: cost })}::jsonb)`);
    }
  }
  // subscriptions: started, a trial, canceled with and without a reason, churned; monthly and yearly
  const sub = (status: string, amount: number, interval: string, started: string, opts: { ended?: string; canceled?: string; reason?: string; trialEnd?: string; currency?: string } = {}) =>
    db.execute(sql`INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
        current_period_end, started_at, ended_at, canceled_at, customer_cancellation_reason, trial_end, customer_id, product_id, price_ids)
      VALUES (${org}::uuid, ${status}, ${amount}, ${opts.currency ?? "usd"}, ${interval}, ${started}::timestamptz, ${started}::timestamptz + interval '1 month',
        ${started}::timestamptz, ${opts.ended ?? null}::timestamptz, ${opts.canceled ?? null}::timestamptz, ${opts.reason ?? null},
        ${opts.trialEnd ?? null}::timestamptz, ${customers[0]}::uuid, ${p?.id ?? ""}::uuid, '{}'::uuid[])`);
  await sub("active", 1000, "month", "2026-03-21T05:00:00Z");
  await sub("active", 12000, "year", "2026-03-25T23:30:00Z", { currency: "eur" });
  await sub("canceled", 2000, "month", "2026-03-22T10:00:00Z", { ended: "2026-04-02T10:00:00Z", canceled: "2026-03-30T09:00:00Z", reason: "too_expensive" });
  await sub("trialing", 5000, "month", "2026-03-26T00:30:00Z", { trialEnd: "2026-04-09T00:30:00Z" });
  await sub("active", 3000, "month", "2026-03-27T12:00:00Z", { canceled: "2026-04-01T01:00:00Z" });
}

/**
 * Changes after the fact: a pending order paid, a refund, a deleted order, a checkout that succeeded, an event removed.
 */
async function change(db: Db, org: string): Promise<void> {
  await db.execute(sql`UPDATE "order" SET status = 'paid' WHERE organization_id = ${org}::uuid AND invoice_number = ${`R-${org}-11`}`);
  await db.execute(sql`UPDATE "order" SET status = 'refunded', refunded_amount = net_amount WHERE organization_id = ${org}::uuid AND invoice_number = ${`R-${org}-13`}`);
  await db.execute(sql`DELETE FROM "order" WHERE organization_id = ${org}::uuid AND invoice_number = ${`R-${org}-20`}`);
  await db.execute(sql`UPDATE checkout SET status = 'succeeded' WHERE organization_id = ${org}::uuid AND client_secret IN (${`cs-${org}-5`}, ${`cs-${org}-9`})`);
  await db.execute(sql`DELETE FROM event WHERE id = (SELECT id FROM event WHERE organization_id = ${org}::uuid ORDER BY timestamp LIMIT 1)`);
  await db.execute(sql`UPDATE subscription SET status = 'canceled', ended_at = '2026-04-05T03:00:00Z', canceled_at = '2026-04-04T03:00:00Z',
      customer_cancellation_reason = 'unused' WHERE organization_id = ${org}::uuid AND amount = 1000`);
  // a subscription moved to another product, an order to another product and out of its subscription
  await db.execute(sql`UPDATE subscription SET product_id = (SELECT id FROM product WHERE organization_id = ${org}::uuid AND name = 'Book')
    WHERE organization_id = ${org}::uuid AND amount = 3000`);
  await db.execute(sql`UPDATE "order" SET product_id = NULL, subscription_id = NULL WHERE organization_id = ${org}::uuid AND invoice_number = ${`R-${org}-14`}`);
}

const QUERIES: Array<Omit<MetricsQuery, "empty">> = [
  { startDate: "2026-03-20", endDate: "2026-04-10", interval: "day", timezone: "UTC" },
  { startDate: "2026-03-20", endDate: "2026-04-10", interval: "day", timezone: "Europe/Berlin" },
  { startDate: "2026-03-01", endDate: "2026-04-30", interval: "week", timezone: "America/Los_Angeles" },
  { startDate: "2026-01-01", endDate: "2026-06-30", interval: "month", timezone: "Europe/Berlin" },
  { startDate: "2026-03-24", endDate: "2026-03-27", interval: "hour", timezone: "Europe/Berlin" },
];

/** Filtered (product, billing type) and in zones whose offsets cut UTC hours: from the rollups too. */
async function filteredQueries(db: Db, org: string): Promise<Array<Omit<MetricsQuery, "empty">>> {
  const products = await rowsOf<{ id: string; name: string }>(db, sql`SELECT id, name FROM product WHERE organization_id = ${org}::uuid ORDER BY name`);
  const [book, pro] = products.map((p) => p.id);
  const march = { startDate: "2026-03-20", endDate: "2026-04-10" };
  return [
    { ...march, interval: "day", timezone: "UTC", productIds: [pro ?? ""] },
    { ...march, interval: "day", timezone: "Europe/Berlin", productIds: [book ?? "", pro ?? ""] },
    { startDate: "2026-01-01", endDate: "2026-06-30", interval: "month", timezone: "Europe/Berlin", billingTypes: ["one_time"] },
    { startDate: "2026-03-01", endDate: "2026-04-30", interval: "week", timezone: "America/Los_Angeles", billingTypes: ["recurring"] },
    { ...march, interval: "day", timezone: "Asia/Kolkata" },
    { ...march, interval: "day", timezone: "America/St_Johns", billingTypes: ["recurring"], productIds: [pro ?? ""] },
    { startDate: "2026-03-01", endDate: "2026-04-30", interval: "week", timezone: "Asia/Kolkata", productIds: [book ?? ""] },
    { startDate: "2026-01-01", endDate: "2026-06-30", interval: "month", timezone: "Australia/Adelaide", billingTypes: ["one_time"] },
    { startDate: "2026-03-24", endDate: "2026-03-27", interval: "hour", timezone: "Asia/Kathmandu" },
  ];
}

async function expectSameAsScan(db: Db, org: string): Promise<void> {
  for (const q of [...QUERIES, ...(await filteredQueries(db, org))]) {
    const query = { ...q, empty: false };
    const [fromRollups, fromScan] = [await getMetrics(db, org, query), await getMetrics(db, org, query, { scan: true })];
    expect(fromRollups.periods.length, `${q.interval} ${q.timezone}`).toBeGreaterThan(0);
    expect(fromRollups, `${q.interval} in ${q.timezone} ${JSON.stringify(q.productIds ?? q.billingTypes ?? "")}`).toEqual(fromScan);
  }
}

describe("the metrics' hourly rollups", () => {
  it("answer what the scan answers, after changes, before and after the fold", async () => {
    const database = await freshDatabase();
    opened.push(database);
    const org = randomUUID();
    await seed(database.db, org);
    await expectSameAsScan(database.db, org);
    // some revenue, some churn: the comparison is not of zeros
    const month = await getMetrics(database.db, org, { ...QUERIES[3], empty: false } as MetricsQuery);
    expect(month.totals.revenue).toBeGreaterThan(0);
    expect(month.totals.churned_subscriptions).toBe(1);
    expect(month.totals.active_user_by_event).toBeGreaterThan(0);
    await change(database.db, org);
    await expectSameAsScan(database.db, org);
    await foldMetricRollups(database.db, org);
    const [unfolded] = await rowsOf<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM metric_hour WHERE organization_id = ${org}::uuid AND NOT folded`);
    expect(unfolded?.n).toBe(0);
    await expectSameAsScan(database.db, org);
  }, 180_000);

  it("count active users from the kept counts of folded rows plus the unfolded ones, as the scan does", async () => {
    const database = await freshDatabase();
    opened.push(database);
    const db = database.db;
    const org = randomUUID();
    await seed(db, org);
    await foldMetricRollups(db, org);
    await expectSameAsScan(db, org);
    // new events after the fold: a customer already counted in the period (folded), a new one, an external id
    const event = (at: string, customer: string | null, external: string | null) =>
      db.execute(sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, external_customer_id, metadata)
        VALUES (${org}::uuid, 'llm', 'user', ${at}::timestamptz, ${customer}::uuid, ${external}, '{}'::jsonb)`);
    const [known] = await rowsOf<{ id: string }>(db, sql`SELECT customer_id AS id FROM event WHERE organization_id = ${org}::uuid AND customer_id IS NOT NULL LIMIT 1`);
    const [other] = await rowsOf<{ id: string }>(db, sql`INSERT INTO customer (organization_id, email) VALUES (${org}::uuid, 'c@example.com') RETURNING id`);
    await event("2026-03-28T13:10:00Z", known?.id ?? null, null);
    await event("2026-03-28T14:10:00Z", other?.id ?? null, null);
    await event("2026-04-02T01:00:00Z", null, "ext-2");
    await expectSameAsScan(db, org);
    // a folded customer-hour removed, then everything folded: the kept counts are renewed each time
    await db.execute(sql`DELETE FROM event WHERE id = (SELECT id FROM event WHERE organization_id = ${org}::uuid ORDER BY timestamp DESC LIMIT 1)`);
    await expectSameAsScan(db, org);
    await foldMetricRollups(db, org);
    await expectSameAsScan(db, org);
    const [generation] = await rowsOf<{ g: number }>(db, sql`SELECT generation::int AS g FROM metric_user_generation WHERE organization_id = ${org}::uuid`);
    expect(generation?.g).toBeGreaterThanOrEqual(3);
  }, 180_000);

  it("answer filters by product and billing type, and zones that cut UTC hours; a customer filter is scanned", () => {
    const scope = { organizationId: org0, currency: "usd", unit: "day" as const, timezone: "UTC", startLocal: "", endLocal: "", now: new Date() };
    const hourly = [{ start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 0, 2) }];
    const halfHour = [{ start: Date.UTC(2026, 0, 1) - 5.5 * 3_600_000, end: Date.UTC(2026, 0, 2) - 5.5 * 3_600_000 }];
    expect(plan(scope, hourly)).toEqual({ byProduct: false, cut: [] });
    expect(plan(scope, halfHour)).toEqual({ byProduct: false, cut: [Date.UTC(2026, 0, 1) - 6 * 3_600_000, Date.UTC(2026, 0, 2) - 6 * 3_600_000] });
    expect(plan({ ...scope, productIds: [org0] }, hourly)).toEqual({ byProduct: true, cut: [] });
    expect(plan({ ...scope, billingType: "one_time" }, halfHour)?.byProduct).toBe(true);
    expect(plan({ ...scope, customerIds: [org0] }, hourly)).toBeNull();
  });

  it("are filled by the migration from the rows written before it", async () => {
    const org = randomUUID();
    const database = await upgradedDatabase(migrationsBefore("_metric_rollups"), (db) => seed(db, org));
    opened.push(database);
    const [rows] = await rowsOf<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM metric_hour WHERE organization_id = ${org}::uuid`);
    expect(rows?.n).toBeGreaterThan(0);
    await expectSameAsScan(database.db, org);
    await change(database.db, org);
    await expectSameAsScan(database.db, org);
  }, 180_000);

  it("count a subscription that changed product as new under the one it started on, moved there by the migration for those changed before it", async () => {
    const org = randomUUID();
    const database = await upgradedDatabase(migrationsBefore("_subscription_started_product"), async (db) => {
      await seed(db, org);
      await change(db, org);
    });
    opened.push(database);
    const db = database.db;
    const [book, pro] = (await rowsOf<{ id: string }>(db, sql`SELECT id FROM product WHERE organization_id = ${org}::uuid ORDER BY name`)).map((p) => p.id);
    const started = async (amount: number) =>
      (await rowsOf<{ started: string | null }>(db, sql`SELECT started_product_id AS started FROM subscription WHERE organization_id = ${org}::uuid AND amount = ${amount}`))[0]?.started;
    // the one moved to Book before the migration started on Pro
    expect(await started(3000)).toBe(pro);
    expect(await started(1000)).toBeNull();
    const totals = async (productIds: string[]) =>
      (await getMetrics(db, org, { startDate: "2026-03-20", endDate: "2026-04-10", interval: "day", timezone: "UTC", productIds, empty: false })).totals;
    // all five started on Pro; the moved one churns and cancels under Book, where it is now
    expect(await totals([pro ?? ""])).toMatchObject({ new_subscriptions: 5 });
    expect(await totals([book ?? ""])).toMatchObject({ new_subscriptions: 0 });
    await expectSameAsScan(db, org);
    // a change after the migration: the trigger keeps the first product, and only the first
    await db.execute(sql`UPDATE subscription SET product_id = ${book ?? ""}::uuid WHERE organization_id = ${org}::uuid AND amount = 1000`);
    await db.execute(sql`UPDATE subscription SET product_id = ${pro ?? ""}::uuid WHERE organization_id = ${org}::uuid AND amount = 3000`);
    expect(await started(1000)).toBe(pro);
    expect(await started(3000)).toBe(pro);
    expect(await totals([pro ?? ""])).toMatchObject({ new_subscriptions: 5 });
    expect(await totals([book ?? ""])).toMatchObject({ new_subscriptions: 0 });
    await expectSameAsScan(db, org);
  }, 180_000);
});

const org0 = "00000000-0000-4000-8000-000000000000";

/** A copy of the migrations folder without the migration whose tag ends with `suffix` and those after it. */
function migrationsBefore(suffix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-migrations-"));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
  const cut = journal.entries.findIndex((e) => e.tag.endsWith(suffix));
  expect(cut).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, cut);
  writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  const tags = new Set(entries.map((e) => `${e.tag}.sql`));
  for (const f of readdirSync(migrationsFolder)) if (tags.has(f)) copyFileSync(path.join(migrationsFolder, f), path.join(dir, f));
  return dir;
}
