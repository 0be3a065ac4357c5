// The event table partitioned by month (migration 0060) on a database that already holds events: every event in
// its month, counts kept, external_ids still deduplicated after the move; months made ahead by the worker's
// upkeep (an event that came before its month moves into it); retention dropping whole months.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, type Database } from "../../server/db/client.js";
import { maintainEventPartitions } from "../../server/billing/events/service.js";
import { insertEventsWithRollups } from "../../server/billing/events/rollups.js";
import { migrationsBefore, upgradedDatabase } from "../helpers/db.js";

let database: Database | undefined;
afterAll(async () => {
  await database?.close();
});

const org = randomUUID();
const OLD_MONTHS = ["2025-01", "2025-02", "2025-03", "2025-04"];
const PER_MONTH = 500;

const count = async (query: ReturnType<typeof sql>) => Number((await rowsOf<{ n: number }>(database!.db, query))[0]?.n ?? 0);
const events = () => count(sql`SELECT count(*)::int AS n FROM event WHERE organization_id = ${org}::uuid`);
const listed = () => count(sql`SELECT coalesce(sum(n), 0)::int AS n FROM list_count WHERE organization_id = ${org}::uuid AND list = 'event'`);
const months = async () =>
  (await rowsOf<{ name: string }>(
    database!.db,
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event'::regclass ORDER BY 1`,
  )).map((r) => r.name);
const ingest = (rows: Array<Record<string, unknown>>) =>
  database!.db.transaction(async (tx) => (await insertEventsWithRollups(tx, org, { text: JSON.stringify(rows), now: sql`now()` })).inserted);

describe("partitioned events", () => {
  it("moves today's events into monthly partitions, counts and external_ids kept", async () => {
    database = await upgradedDatabase(migrationsBefore("_partitioned_events"), async (db) => {
      await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Old', ${`old-${org}`}, now())`);
      for (const [m, month] of OLD_MONTHS.entries()) {
        await db.execute(sql`INSERT INTO event (organization_id, name, timestamp, external_id)
          SELECT ${org}::uuid, 'api.call', ${`${month}-01T00:00:00Z`}::timestamptz + (g || ' minutes')::interval, 'old-' || (${m * PER_MONTH} + g)
          FROM generate_series(0, ${PER_MONTH - 1}) g`);
      }
      await db.execute(sql`INSERT INTO event (organization_id, name, timestamp) VALUES (${org}::uuid, 'api.call', '1999-06-15T00:00:00Z')`);
    });
    const total = OLD_MONTHS.length * PER_MONTH + 1;
    expect(await events()).toBe(total);
    expect(await listed()).toBe(total);
    const names = await months();
    expect(names).toEqual(expect.arrayContaining(["event_default", "event_y1999m06", "event_y2025m01", "event_y2025m04"]));
    expect(await count(sql`SELECT count(*)::int AS n FROM event_y2025m02`)).toBe(PER_MONTH);
    expect(await count(sql`SELECT count(*)::int AS n FROM event_default`)).toBe(0);

    // an external_id stored before the move is still a duplicate; a new one is stored once per batch
    const inserted = await ingest([
      { name: "api.call", timestamp: "2025-02-03T00:00:00Z", external_id: "old-7" },
      { name: "api.call", timestamp: "2025-03-03T00:00:00Z", external_id: "new-1" },
      { name: "api.call", timestamp: "2025-04-03T00:00:00Z", external_id: "new-1" },
      { name: "api.call", timestamp: "2025-04-03T00:00:00Z" },
    ]);
    expect(inserted).toBe(2);
    expect(await ingest([{ name: "api.call", timestamp: "2026-01-01T00:00:00Z", external_id: "new-1" }])).toBe(0);
    expect(await events()).toBe(total + 2);
    expect(await listed()).toBe(total + 2);
  }, 180_000);

  it("makes months ahead; an event that came before its month moves into it", async () => {
    const now = new Date();
    const far = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 8, 10));
    expect(await ingest([{ name: "api.call", timestamp: far.toISOString() }])).toBe(1);
    expect(await count(sql`SELECT count(*)::int AS n FROM event_default`)).toBe(1);
    await maintainEventPartitions(database!.db, undefined);
    const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
    const name = (d: Date) => `event_y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(await months()).toContain(name(ahead));
    await database!.db.execute(sql`SELECT till_event_partition(${far.toISOString()}::timestamptz)`);
    expect(await count(sql`SELECT count(*)::int AS n FROM event_default`)).toBe(0);
    expect(await count(sql.raw(`SELECT count(*)::int AS n FROM ${name(far)}`))).toBe(1);
  });

  it("drops whole months past TILL_EVENT_RETENTION, the list's count with them", async () => {
    const before = await events();
    const dropped = await maintainEventPartitions(database!.db, 12);
    expect(dropped).toEqual(expect.arrayContaining(["event_y1999m06", "event_y2025m01", "event_y2025m02", "event_y2025m03", "event_y2025m04"]));
    // 2,001 seeded and the two ingested into 2025's months are gone; the 2026 and later ones stay
    expect(await events()).toBe(before - (OLD_MONTHS.length * PER_MONTH + 1) - 2);
    expect(await listed()).toBe(await events());
    // their external_ids are still remembered
    expect(await ingest([{ name: "api.call", timestamp: "2026-01-02T00:00:00Z", external_id: "old-7" }])).toBe(0);
  });
});
