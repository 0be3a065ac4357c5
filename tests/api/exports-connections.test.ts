// An export's COPY must give its connection back usable, however the stream ended: read to its end by a slow
// reader, or given up after its first chunk (the client went away). postgres.js 3.4.9 can leave the socket of a
// connection whose COPY ended in the chunk that filled the stream paused, and every later query on that
// connection then waits forever (porsager/postgres#499). PostgreSQL only: PGlite has no COPY to the client.
import { sql } from "drizzle-orm";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvStream, textColumn, type CsvExport } from "../../server/billing/csv.js";
import { rowsOf, type Database } from "../../server/db/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";

let database: Database;
const csv: CsvExport = { name: "probe", columns: [textColumn("v", "t.v")], from: "FROM csv_probe t", where: ["true"] };
const ROWS = 300; // ~60 KB: a few socket chunks, the last one often holding CopyData, CopyDone and ReadyForQuery

beforeAll(async () => {
  // two connections: one left stuck would show at once
  database = await freshDatabase({ max: 2 });
  await database.db.execute(
    sql`CREATE TABLE csv_probe (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), created_at timestamptz NOT NULL DEFAULT now(), v text)`,
  );
  await database.db.execute(sql`INSERT INTO csv_probe (v) SELECT repeat('x', 200) FROM generate_series(1, ${ROWS})`);
});
afterAll(async () => database?.close());

/** `work`, or a rejection after `ms` (a query on a stuck connection never settles). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms: a connection is stuck`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const lines = (text: string) => text.split("\r\n").filter(Boolean).length;

/** The pool answers: a query and two exports at once (each needs its own connection) all complete. */
async function poolAnswers(): Promise<void> {
  const [one, first, second] = await within(10_000, Promise.all([
    rowsOf<{ one: number }>(database.db, sql`SELECT 1 AS one`),
    csvStream(database.db, csv).then(readAll),
    csvStream(database.db, csv).then(readAll),
  ]));
  expect(one).toEqual([{ one: 1 }]);
  expect(lines(first)).toBe(ROWS + 1);
  expect(lines(second)).toBe(ROWS + 1);
}

describe.runIf(usingPostgres)("an export's connection", () => {
  it("is usable again after a reader that stopped after the first chunk and went away", async () => {
    for (let n = 0; n < 10; n++) {
      const stream = await csvStream(database.db, csv);
      await new Promise<void>((resolve) => stream.once("data", () => resolve()));
      stream.pause();
      // the COPY goes on into the stream's buffer until it is full and the socket is paused
      await new Promise((r) => setTimeout(r, 50));
      stream.destroy();
      await poolAnswers();
    }
  }, 120_000);

  it("is usable again after a slow reader read it to its end", async () => {
    for (let n = 0; n < 10; n++) {
      const stream = await csvStream(database.db, csv);
      await new Promise((r) => setTimeout(r, 50));
      expect(lines(await readAll(stream))).toBe(ROWS + 1);
      await poolAnswers();
    }
  }, 120_000);
});
