// Migration 0060 (the event table partitioned by month) on a database holding TILL_BENCH_EVENTS events (1,000,000
// by default) spread over 12 months, a tenth with an external_id: how long the migration takes and that every
// event, count and external_id survives it; then the migrations after it, 0070 among them (each external_id's
// claim given its event: an UPDATE of every claim), timed apart. PostgreSQL only (DATABASE_URL; a throw-away
// database is made beside it).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:partition-events
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { openDatabase } from "../server/db/client.js";
import { migrationsBefore } from "../tests/helpers/db.js";

const EVENTS = Number(process.env.TILL_BENCH_EVENTS ?? 1_000_000);

async function main(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("bench:partition-events needs DATABASE_URL (PostgreSQL)");
  const name = `till_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  try {
    const older = await openDatabase({ url: url.toString(), max: 1, migrationsFolder: migrationsBefore("_partitioned_events") });
    await older.close();
    const pg = postgres(url.toString(), { max: 1, onnotice: () => {} });
    const org = randomUUID();
    await pg`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}, 'Bench', ${`bench-${org}`}, now())`;
    let t = performance.now();
    for (let done = 0; done < EVENTS; done += 100_000) {
      const n = Math.min(100_000, EVENTS - done);
      await pg`INSERT INTO event (organization_id, name, timestamp, customer_id, external_id, metadata)
        SELECT ${org}::uuid, 'api.call', now() - ((g % 365) || ' days')::interval - ((g % 1440) || ' minutes')::interval, NULL,
          CASE WHEN g % 10 = 0 THEN 'ext-' || g END, jsonb_build_object('tokens', g % 100)
        FROM generate_series(${done}::int, ${done + n - 1}::int) g`;
    }
    await pg`CHECKPOINT`;
    console.log(`seeded ${EVENTS.toLocaleString("en")} events over 12 months in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const partitioned = await openDatabase({ url: url.toString(), max: 1, migrationsFolder: migrationsBefore("_metric_product_rollups") });
    const seconds = (performance.now() - t) / 1000;
    await partitioned.close();
    t = performance.now();
    const migrated = await openDatabase({ url: url.toString(), max: 1 });
    const later = (performance.now() - t) / 1000;
    await migrated.close();
    const [counts] = await pg<Array<{ events: number; keys: number; listed: number; parts: number; defaults: number; named: number }>>`
      SELECT (SELECT count(*)::int FROM event) AS events, (SELECT count(*)::int FROM event_external_id) AS keys,
        (SELECT coalesce(sum(n), 0)::int FROM list_count WHERE list = 'event') AS listed,
        (SELECT count(*)::int FROM pg_inherits WHERE inhparent = 'event'::regclass) AS parts,
        (SELECT count(*)::int FROM event_default) AS defaults,
        (SELECT count(*)::int FROM event_external_id c JOIN event e ON e.id = c.event_id AND e.timestamp = c.event_timestamp AND e.external_id = c.external_id) AS named`;
    console.log(`migration 0060: ${seconds.toFixed(1)} s (${Math.round(EVENTS / seconds).toLocaleString("en")} events/s)`);
    console.log(`the migrations after it (0061–): ${later.toFixed(1)} s; claims naming their event: ${counts!.named} (${counts!.named === counts!.keys ? "PASS" : "FAIL"})`);
    console.log(`after: ${counts!.events} events (${counts!.events === EVENTS ? "PASS" : "FAIL"}), ${counts!.keys} external_ids (${counts!.keys === Math.ceil(EVENTS / 10) ? "PASS" : "FAIL"}), list count ${counts!.listed} (${counts!.listed === EVENTS ? "PASS" : "FAIL"}), ${counts!.parts} partitions, ${counts!.defaults} in the default one`);
    await pg.end();
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
