// openDatabase on PGlite starts from a dump when given one (tests/helpers/db.ts loads each test server's database
// from a migrated dump): the dump's rows are there, which a database made afresh (initdb and every migration)
// would not hold, and so is its record of the applied migrations.
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationsFolder, openDatabase, rowsOf } from "../../server/db/client.js";

describe("openDatabase({ loadDataDir })", () => {
  it("opens the dumped data directory, rows and applied migrations included", async () => {
    const source = new PGlite();
    await migrate(drizzle(source), { migrationsFolder });
    await source.exec("CREATE TABLE dump_marker (note text); INSERT INTO dump_marker VALUES ('from the dump')");
    const dump = await source.dumpDataDir("none");
    await source.close();

    const opened = await openDatabase({ loadDataDir: dump });
    try {
      const marker = await rowsOf<{ note: string }>(opened.db, sql`SELECT note FROM dump_marker`);
      expect(marker).toEqual([{ note: "from the dump" }]);
      const [applied] = await rowsOf<{ n: number }>(opened.db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
      expect(applied?.n).toBeGreaterThan(0);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
