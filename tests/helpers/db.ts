// A fresh database per test server: a new PostgreSQL database when DATABASE_URL is set, else in-memory PGlite.
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { openDatabase, type Database } from "../../server/db/client.js";

export const usingPostgres = Boolean(process.env.DATABASE_URL);

export async function freshDatabase(): Promise<Database & { url: string | undefined }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { ...(await openDatabase({})), url: undefined };
  const name = `till_test_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), max: 5 });
  return {
    ...database,
    url: url.toString(),
    async close() {
      await database.close();
      const dropper = postgres(base, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await dropper.end();
    },
  };
}
