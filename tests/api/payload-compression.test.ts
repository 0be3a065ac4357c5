// Migration 0073: the outbox's, webhook messages' and Stripe events' payloads are compressed with lz4 where
// PostgreSQL has it (pglz cost about 6 % of the database's CPU per confirm), and keep the default where it does not
// (PGlite): the migration runs on both.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db.js";

type Db = Awaited<ReturnType<typeof freshDatabase>>;
let database: Db;

beforeAll(async () => {
  database = await freshDatabase();
}, 120_000);
afterAll(async () => {
  await database.close();
});

const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> => {
  const result = (await database.db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
};

/** Whether this PostgreSQL was built with lz4 (a column can be declared with it). */
async function hasLz4(): Promise<boolean> {
  try {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`CREATE TEMP TABLE lz4_probe (p text COMPRESSION lz4) ON COMMIT DROP`);
    });
    return true;
  } catch {
    return false;
  }
}

describe("payload compression (0073)", () => {
  it("declares lz4 on the three payload columns where PostgreSQL has it, the default elsewhere", async () => {
    const columns = await rows<{ table: string; compression: string }>(sql`
      SELECT c.relname AS table, a.attcompression::text AS compression
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE a.attname = 'payload' AND c.relname IN ('outbox', 'webhook_event', 'stripe_event') AND c.relkind = 'r'
      ORDER BY c.relname`);
    const expected = (await hasLz4()) ? "l" : "";
    expect(columns).toEqual([
      { table: "outbox", compression: expected },
      { table: "stripe_event", compression: expected },
      { table: "webhook_event", compression: expected },
    ]);
  });

  it("stores a large outbox payload compressed with lz4 where PostgreSQL has it", async () => {
    const id = "00000000-0000-4000-8000-0000000000b1";
    const payload = JSON.stringify({ data: { lines: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `line ${i}`, amount: 1900 })) } });
    await database.db.transaction(async (tx) => {
      // the row alone (its organization is not what is looked at)
      await tx.execute(sql`SET LOCAL session_replication_role = replica`);
      await tx.execute(sql`INSERT INTO outbox (id, organization_id, type, payload) VALUES (${id}::uuid, gen_random_uuid(), 'order.created', ${payload}::jsonb)`);
    });
    const [stored] = await rows<{ method: string | null; intact: boolean }>(
      sql`SELECT pg_column_compression(payload) AS method, payload = ${payload}::jsonb AS intact FROM outbox WHERE id = ${id}::uuid`,
    );
    expect(stored?.intact).toBe(true);
    expect(stored?.method).toBe((await hasLz4()) ? "lz4" : "pglz");
  });
});
