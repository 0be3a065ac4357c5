// Processes of a new release started together (a rolling upgrade's, several replicas) each run the migrations at
// boot: one at a time, so none fails on another's half-applied tables, and each migration is applied once.
// PostgreSQL only: the embedded database belongs to one process.
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationsFolder, openDatabase, rowsOf, type Database } from "../../server/db/client.js";
import { createPostgresDatabase, usingPostgres } from "../helpers/db.js";

describe.skipIf(!usingPostgres)("migrations at boot of processes starting together (PostgreSQL only)", () => {
  it("three processes opening an empty database at once all start; each migration is applied once", { timeout: 120_000 }, async () => {
    const created = await createPostgresDatabase(process.env.DATABASE_URL ?? "");
    const opened = await Promise.allSettled([1, 2, 3].map(() => openDatabase({ url: created.url, max: 2 })));
    const databases = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    try {
      expect(opened.map((o) => (o.status === "rejected" ? String(o.reason) : "started"))).toEqual(["started", "started", "started"]);
      const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
      const db = (databases[0] as Database).db;
      const [applied] = await rowsOf<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
      expect(applied?.n).toBe(journal.entries.length);
    } finally {
      for (const database of databases) await database.close();
      await created.drop();
    }
  });
});
