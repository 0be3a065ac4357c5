// POST /v1/events/ingest's early INSERT, continued: a body whose text is not the batch it parses to, the rollups
// of kept meters, racing and concurrent batches, the body parsed only once the caller is known, and the early
// flight itself (its prepared statements, PostgreSQL reached while the server's thread is busy).
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { Sql } from "postgres";
import { openDatabase, rowsOf } from "../../server/db/client.js";
import { callTurnsOf } from "../../server/db/call-turns.js";
import { preparable, PREPARED_TEXTS_MAX, startEarlyInsert } from "../../server/billing/events/ingest/early-insert.js";
import { usingPostgres } from "../helpers/db.js";
import { earlyInsertFixture, unique, earlyInsertCounts, counts, delta, early } from "./events-early-insert-fixtures.js";

const fx = earlyInsertFixture();

/**
 * What a client backend of the database is at, seen from another process (this thread may be blocked meanwhile),
 * once PostgreSQL has run what it was sent: looked at until it is no longer running an earlier statement (a loaded
 * machine may still be at one after 300 ms), 10 s at most. Statements not sent would leave it idle in the
 * transaction, at the last one it was sent.
 */
const LOOK = `
import postgres from "postgres";
const sql = postgres(process.env.LOOK_URL, { max: 1, onnotice: () => {} });
const until = Date.now() + 10_000;
let rows;
do {
  await new Promise((r) => setTimeout(r, 100));
  rows = await sql\`SELECT state, left(query, 40) AS query FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = 'till-early-flight' AND state <> 'idle'\`;
} while (rows.length === 1 && rows[0].state === "active" && !rows[0].query.startsWith("WITH b AS MATERIALIZED (") && Date.now() < until);
process.stdout.write(JSON.stringify(rows));
await sql.end();
`;

describe("POST /v1/events/ingest, stored early", () => {
  it("stores the batch the body parses to when its text holds another (a repeated events key)", async () => {
    const name = unique("twice");
    const body = `{"events":[{"name":"${name}-not","external_customer_id":"c"}],"events":[{"name":"${name}","external_customer_id":"c"},{"name":"${name}","external_customer_id":"d"}]}`;
    let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
    const d = await delta(async () => (answer = await fx.ingest(body)));
    expect(answer).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
    // PostgreSQL refused the text between the first `[` and the last `]` as JSON: nothing of it was stored
    expect(d).toEqual(early("failed"));
    expect((await fx.stored(name)).map((r) => r.external_customer_id).sort()).toEqual(["c", "d"]);
    expect(await fx.stored(`${name}-not`)).toEqual([]);
  });

  it("keeps the rollups of the kept meters for what it stored", async () => {
    const name = unique("metered");
    const meter = await fx.keptMeter(name, name, { func: "sum", property: "tokens" });
    const events = Array.from({ length: 300 }, (_, i) => ({ name, external_customer_id: `c${i % 3}`, external_id: `${name}-${i}`, metadata: { tokens: i } }));
    const d = await delta(async () => expect((await fx.ingest({ events })).body).toEqual({ inserted: 300, duplicates: 0 }));
    expect(d).toEqual(early("committed"));
    // a repeat adds nothing to the rollups
    await fx.ingest({ events: events.slice(0, 10) });
    const [row] = await rowsOf(
      fx.server.database.db,
      sql`SELECT sum(r.events)::int AS events, sum(r.total)::int AS total, count(DISTINCT r.external_customer_id)::int AS customers
          FROM meter_rollup r JOIN meter_rollup_state s ON s.meter_id = r.meter_id
          WHERE r.meter_id = ${meter.id} AND s.status = 'ready'`,
    );
    expect(row).toEqual({ events: 300, total: (299 * 300) / 2, customers: 3 });
  });

  it("keeps the rollups of a meter made ready, or archived, after the meters it remembered for the organization", async () => {
    // the INSERT goes out with the organization's kept meters as last read; the read made in its transaction decides
    const name = unique("remembered");
    const events = (tag: string) => Array.from({ length: 100 }, (_, i) => ({ name, external_customer_id: "c", external_id: `${name}-${tag}-${i}`, metadata: { units: 2 } }));
    expect((await fx.ingest({ events: events("a") })).body).toEqual({ inserted: 100, duplicates: 0 });
    const changedBefore = earlyInsertCounts().metersChanged;
    const meter = await fx.keptMeter(name, name, { func: "sum", property: "units" });
    expect((await fx.ingest({ events: events("b") })).body).toEqual({ inserted: 100, duplicates: 0 });
    expect((await fx.ingest({ events: events("c") })).body).toEqual({ inserted: 100, duplicates: 0 });
    const total = async () => {
      const [row] = await rowsOf(
        fx.server.database.db,
        sql`SELECT coalesce(sum(total), 0)::int AS total, count(*)::int AS rows FROM meter_rollup WHERE meter_id = ${meter.id}`,
      );
      return row;
    };
    // the rebuild counted batch a; b and c were kept by the INSERT's upkeep
    expect(await total()).toMatchObject({ total: 600 });
    if (usingPostgres) expect(earlyInsertCounts().metersChanged - changedBefore).toBe(1);

    // archived: no more upkeep, its rollups dropped, and the next batch adds none back
    const archived = await fetch(`${fx.server.url}/v1/meters/${meter.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${fx.key}`, "content-type": "application/json" },
      body: JSON.stringify({ is_archived: true }),
    });
    expect(archived.status).toBe(200);
    expect((await fx.ingest({ events: events("d") })).body).toEqual({ inserted: 100, duplicates: 0 });
    expect(await total()).toEqual({ total: 0, rows: 0 });
    if (usingPostgres) expect(earlyInsertCounts().metersChanged - changedBefore).toBe(2);
  });

  it("stores racing batches once, early or not", async () => {
    const name = unique("race");
    const events = Array.from({ length: 200 }, (_, i) => ({ name, external_customer_id: "race", external_id: `${name}-${i}`, metadata: { i } }));
    const answers = await Promise.all(Array.from({ length: 8 }, () => fx.ingest({ events })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.reduce((n, a) => n + (a.body.inserted as number), 0)).toBe(200);
    expect(await fx.stored(name)).toHaveLength(200);
    const settled = await counts();
    expect(settled.started).toBe(settled.committed + settled.rolledBack + settled.failed);
  });

  it("parses the body only once the caller is known: a 401 for a stranger's malformed 1 MiB, a 422 for a key's", async () => {
    const malformed = `{"events":[${'{"name":"x","external_customer_id":"c"},'.repeat(25_000)}`;
    const stranger = await fetch(`${fx.server.url}/v1/events/ingest`, { method: "POST", headers: { "content-type": "application/json" }, body: malformed });
    expect(stranger.status).toBe(401);
    const keyed = await fx.ingest(malformed);
    expect(keyed).toEqual({ status: 422, body: { detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] } });
  });

  it("stores concurrent batches of one organization with kept meters, early and not, without a deadlock", async () => {
    // the usual path once took a meter's buckets before the list count's row, the early one after: they deadlocked
    const name = unique("concurrent");
    const meterIds = [(await fx.keptMeter(`${name}-sum`, name, { func: "sum", property: "units" })).id, (await fx.keptMeter(`${name}-count`, name, { func: "count" })).id];
    let next = 0;
    const batch = () => {
      const n = next++;
      const now = Date.now();
      return Array.from({ length: 500 }, (_, i) => ({
        name,
        timestamp: new Date(now - ((i * 7919) % 300) * 1000).toISOString(),
        external_customer_id: `c-${i % 50}`,
        external_id: `${name}-${n}-${i}`,
        metadata: { units: i % 10 },
      }));
    };
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let k = 0; k < 3; k++) statuses.push((await fx.ingest({ events: batch() })).status);
      }),
    );
    expect(statuses).toEqual(Array(12).fill(200));
    const [totals] = await rowsOf(fx.server.database.db, sql`SELECT sum(events)::int AS events, sum(total)::int AS total FROM meter_rollup WHERE meter_id = ${meterIds[0]}`);
    expect(totals).toEqual({ events: 6000, total: 12 * 50 * 45 });
  }, 60_000);
});

describe("the early flight's prepared statements", () => {
  it("are bounded per client: past the bound, a new text is sent unprepared, the ones prepared stay so", () => {
    const client = (() => {}) as unknown as Sql;
    const texts = Array.from({ length: PREPARED_TEXTS_MAX + 3 }, (_, i) => `SELECT ${i}`);
    expect(texts.map((t) => preparable(client, t))).toEqual(texts.map((_, i) => i < PREPARED_TEXTS_MAX));
    expect(preparable(client, "SELECT 0")).toBe(true);
    expect(preparable(client, `SELECT ${PREPARED_TEXTS_MAX}`)).toBe(false);
    expect(preparable((() => {}) as unknown as Sql, `SELECT ${PREPARED_TEXTS_MAX}`)).toBe(true);
  });
});

describe.runIf(usingPostgres)("the early flight", () => {
  it("takes a turn of the pool's half it shares with charges at the processor, and is not started without one", async () => {
    const own = await openDatabase({ url: fx.database.url!, max: 4 });
    try {
      const turns = callTurnsOf(own.db)!;
      expect(turns.turns).toBe(2);
      const body = (name: string) => JSON.stringify({ events: [{ name, external_id: `${name}-0`, external_customer_id: "c1" }] });
      // two charges hold the half: the batch is not stored early (the usual path stores it)
      expect(turns.tryTake()).toBe(true);
      expect(turns.tryTake()).toBe(true);
      expect(startEarlyInsert(own.db, fx.seller.organizationId, body(unique("full")), new Date())).toBeUndefined();
      turns.give();
      const name = unique("turn");
      const started = startEarlyInsert(own.db, fx.seller.organizationId, body(name), new Date());
      expect(started).toBeDefined();
      expect(turns.state).toEqual({ held: 2, waiting: 0 });
      expect(await started!.commit()).toEqual({ inserted: 1 });
      // given back once decided
      expect(turns.state).toEqual({ held: 1, waiting: 0 });
      turns.give();
    } finally {
      await own.close();
    }
  });

  it("reaches PostgreSQL whole while the server's thread is busy: prepared, its statements wait for no reply", async () => {
    // a client of its own beside the server's (whose worker may be in a transaction of its own meanwhile), named
    // so: the early path takes one of its connections, both of which are warmed
    const url = new URL(fx.database.url!);
    url.searchParams.set("application_name", "till-early-flight");
    const own = await openDatabase({ url: url.toString(), max: 4 });
    try {
      const body = (name: string) =>
        JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => ({ name, external_id: `${name}-${i}`, external_customer_id: "c1", metadata: { i } })) });
      // each connection runs the flight once: its statements are prepared there
      const warm = [unique("warm"), unique("warm")].map((name) => startEarlyInsert(own.db, fx.seller.organizationId, body(name), new Date())!);
      expect(await Promise.all(warm.map((w) => w.commit()))).toEqual([{ inserted: 100 }, { inserted: 100 }]);

      const name = unique("flight");
      const early = startEarlyInsert(own.db, fx.seller.organizationId, body(name), new Date())!;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      // this thread is blocked from here until the child has looked: what PostgreSQL ran meanwhile, it had been
      // sent by now. An unprepared statement with parameters is sent as Parse and Describe, the rest after a
      // reply this thread would have to read: the transaction would sit at its first SELECT
      const look = spawnSync(process.execPath, ["--input-type=module", "-e", LOOK], {
        env: { ...process.env, LOOK_URL: fx.database.url! },
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(look.stderr).toBe("");
      const seen = JSON.parse(look.stdout) as Array<{ state: string; query: string }>;
      // at the INSERT, or done with it (a slow machine may still be running it)
      expect(seen).toEqual([{ state: expect.stringMatching(/^(idle in transaction|active)$/), query: expect.stringMatching(/^WITH b AS MATERIALIZED \(/) }]);
      expect(await early.commit()).toEqual({ inserted: 100 });
      expect(await fx.stored(name)).toHaveLength(100);
    } finally {
      await own.close();
    }
  });
});
