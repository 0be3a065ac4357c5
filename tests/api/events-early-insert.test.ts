// POST /v1/events/ingest's early INSERT (server/billing/events/ingest/early-insert.ts): on PostgreSQL a batch that
// looks storable as sent starts its INSERT from the body's text while the server parses and checks it, and is
// committed only if the check passes, the customers it names by id are live ones of the organization (read in
// its transaction) and the batch needs nothing the body does not say. Stored rows are the ones the usual path
// stores; a refused batch stores nothing; what the body does not say (a parent, `_cost` metadata) and a body
// whose text is not the batch it parses to are stored the usual way.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { Sql } from "postgres";
import { openDatabase, rowsOf } from "../../server/db/client.js";
import { preparable, PREPARED_TEXTS_MAX, startEarlyInsert } from "../../server/billing/events/ingest/early-insert.js";
import { ingestCounters } from "../../server/billing/events/ingest/index.js";
import { rebuildMeterRollups } from "../../server/billing/events/service.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let server: TestServer;
let seller: Seller;
let key: string;

beforeAll(async () => {
  database = await freshDatabase();
  server = await startServer({}, { database });
  seller = await createSeller(server, "early");
  key = await seller.createKey();
});
afterAll(async () => {
  await server?.close();
  await database?.close();
});

async function ingest(body: unknown) {
  const res = await fetch(`${server.url}/v1/events/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Row {
  name: string;
  timestamp: Date;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  parent_id: string | null;
  metadata: Record<string, unknown>;
  source: string;
}

async function stored(name: string): Promise<Row[]> {
  return rowsOf<Row>(
    server.database.db,
    sql`SELECT name, timestamp, customer_id, external_customer_id, external_id, parent_id, metadata, source
        FROM event WHERE organization_id = ${seller.organizationId} AND name = ${name} ORDER BY created_at, external_id`,
  );
}

/** A meter over the events named `eventName`, its rollups ready (rebuilt as the worker would). */
async function keptMeter(name: string, eventName: string, aggregation: Record<string, string>): Promise<{ id: string }> {
  const res = await fetch(`${server.url}/v1/meters/`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name, filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] }, aggregation }),
  });
  expect(res.status).toBe(201);
  const meter = (await res.json()) as { id: string };
  for (let i = 0; i < 50; i++) await rebuildMeterRollups(server.database.db, seller.organizationId, meter.id);
  return meter;
}

const unique = (p: string) => `${p}_${Math.random().toString(36).slice(2, 10)}`;
/** The counts after the server has settled a batch (a rollback is not waited for by the answer). */
type Counters = ReturnType<typeof ingestCounters>;
const earlyInsertCounts = (): Counters["early"] => ingestCounters().early;
const stagedInsertCounts = (): Counters["staged"] => ingestCounters().staged;
const usualInsertCounts = (): Counters["usual"] => ingestCounters().usual;
async function counts(): Promise<Counters["early"]> {
  let c = earlyInsertCounts();
  for (let i = 0; i < 100 && c.started !== c.committed + c.rolledBack + c.failed; i++) {
    await new Promise((r) => setTimeout(r, 20));
    c = earlyInsertCounts();
  }
  return c;
}
const prefixed = (c: Counters["staged"]) => ({ stagedStarted: c.started, stagedCommitted: c.committed, stagedRolledBack: c.rolledBack, stagedFailed: c.failed });
/** The staging counts once every staging started has ended. */
async function settledStaged(): Promise<Counters["staged"]> {
  let c = stagedInsertCounts();
  for (let i = 0; i < 100 && c.started !== c.committed + c.rolledBack + c.failed; i++) {
    await new Promise((r) => setTimeout(r, 20));
    c = stagedInsertCounts();
  }
  return c;
}
/** How a batch changed the counts: on PGlite nothing is started early. */
async function delta(send: () => Promise<unknown>) {
  const before = await counts();
  await send();
  const after = await counts();
  return {
    started: after.started - before.started,
    committed: after.committed - before.committed,
    rolledBack: after.rolledBack - before.rolledBack,
    failed: after.failed - before.failed,
  };
}
/** One early INSERT started and ended `how`, on PostgreSQL; none on PGlite (it runs on the server's thread). */
const early = (how: "committed" | "rolledBack" | "failed") =>
  usingPostgres ? { started: 1, committed: 0, rolledBack: 0, failed: 0, [how]: 1 } : { started: 0, committed: 0, rolledBack: 0, failed: 0 };

describe("POST /v1/events/ingest, stored early", () => {
  it("stores a plain batch as the usual path would, duplicates and defaults included", async () => {
    const name = unique("early");
    const sentAt = Date.now();
    const events = Array.from({ length: 1000 }, (_, i) => ({
      name,
      external_customer_id: `cust-${i % 7}`,
      ...(i === 3 ? {} : { external_id: `${name}-${i === 5 ? 4 : i}` }), // #5 repeats #4's; #3 has none
      ...(i % 2 ? { timestamp: new Date(sentAt - i * 1000).toISOString() } : {}),
      metadata: { n: i, half: i / 2, ok: i % 3 === 0, text: `é "quoted" \\ ${i}`, big: 12345678901 },
      member_id: "ignored",
      id: "ignored-too",
    }));
    let answer: Awaited<ReturnType<typeof ingest>> | undefined;
    const d = await delta(async () => (answer = await ingest({ events })));
    expect(answer).toEqual({ status: 200, body: { inserted: 999, duplicates: 1 } });
    expect(d).toEqual(early("committed"));

    const rows = await stored(name);
    expect(rows).toHaveLength(999);
    const byExternal = new Map(rows.map((r) => [r.external_id, r]));
    for (const [i, e] of events.entries()) {
      if (i === 5) continue;
      const row = i === 3 ? rows.find((r) => r.external_id === null)! : byExternal.get(e.external_id!)!;
      expect(row).toMatchObject({ name, source: "user", customer_id: null, external_customer_id: e.external_customer_id, parent_id: null, metadata: e.metadata });
      if (e.timestamp) expect(new Date(row.timestamp).toISOString()).toBe(e.timestamp);
      else {
        const at = new Date(row.timestamp).getTime();
        expect(at).toBeGreaterThanOrEqual(sentAt - 5);
        expect(at).toBeLessThanOrEqual(Date.now());
      }
    }
    // #4 is kept, not its repeat #5
    expect(byExternal.get(`${name}-4`)!.metadata).toMatchObject({ n: 4 });

    // the same batch again: every event a duplicate
    expect(await ingest({ events })).toEqual({ status: 200, body: { inserted: 1, duplicates: 999 } });
  });

  it("rolls the early INSERT back when the batch is refused, late in the batch or by zod", async () => {
    const name = unique("refused");
    const plain = (i: number) => ({ name, external_customer_id: "c", external_id: `${name}-${i}`, metadata: { i } });
    const future = [...Array.from({ length: 999 }, (_, i) => plain(i)), { ...plain(999), timestamp: new Date(Date.now() + 86_400_000).toISOString() }];
    let answer: Awaited<ReturnType<typeof ingest>> | undefined;
    let d = await delta(async () => (answer = await ingest({ events: future })));
    expect(answer?.status).toBe(422);
    expect(JSON.stringify(answer?.body)).toContain('"loc":["body","events",999,"timestamp"]');
    expect(d).toEqual(early("rolledBack"));

    const notScalar = Array.from({ length: 20 }, (_, i) => (i === 10 ? { ...plain(i), metadata: { deep: { a: 1 } } } : plain(i)));
    d = await delta(async () => (answer = await ingest({ events: notScalar })));
    expect(answer?.status).toBe(422);
    expect(d).toEqual(early("rolledBack"));

    expect(await stored(name)).toEqual([]);
  });

  it("commits a batch naming customers by id once they are found live in the organization, else answers 422", async () => {
    const name = unique("customers");
    const customer = async (email: string, apiKey = key) => {
      const res = await fetch(`${server.url}/v1/customers/`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const [a, b, gone] = [await customer(`${name}-a@example.com`), await customer(`${name}-b@example.com`), await customer(`${name}-gone@example.com`)];
    const deleted = await fetch(`${server.url}/v1/customers/${gone}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });
    expect(deleted.status).toBe(204);
    const other = await createSeller(server, "early-other");
    const theirs = await customer(`${name}-theirs@example.com`, await other.createKey());
    const unknown = "00000000-0000-4000-8000-000000000000";
    const plain = (i: number, customerId: string) => ({ name, customer_id: customerId, external_id: `${name}-${i}`, metadata: { i } });

    // stored early, ids as sent in any case
    let answer: Awaited<ReturnType<typeof ingest>> | undefined;
    let d = await delta(async () => (answer = await ingest({ events: Array.from({ length: 50 }, (_, i) => plain(i, i % 2 ? a : b.toUpperCase())) })));
    expect(answer).toEqual({ status: 200, body: { inserted: 50, duplicates: 0 } });
    expect(d).toEqual(early("committed"));
    const rows = await stored(name);
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((r) => r.customer_id))).toEqual(new Set([a, b]));

    // an unknown, a deleted and another organization's customer: each event that names one, as the usual path says
    for (const missing of [unknown, gone, theirs]) {
      const events = [plain(100, a), plain(101, missing), plain(102, b), plain(103, missing)];
      d = await delta(async () => (answer = await ingest({ events })));
      expect(answer?.status).toBe(422);
      expect((answer?.body.detail as Array<{ loc: unknown[]; msg: string }>).map((i) => [i.loc, i.msg])).toEqual([
        [["body", "events", 1, "customer_id"], "Customer not found."],
        [["body", "events", 3, "customer_id"], "Customer not found."],
      ]);
      expect(d).toEqual(early("rolledBack"));
    }
    expect(await stored(name)).toHaveLength(50);
  });

  it("stores the usual way what the body does not say: _cost, a parent; one its text hides is rolled back first", async () => {
    const name = unique("usual");
    const first = { name, external_customer_id: "c", external_id: `${name}-0`, metadata: { i: 0 } };
    const none = { started: 0, committed: 0, rolledBack: 0, failed: 0 };
    // seen in the text: no early INSERT is started (it would only hold up the usual one)
    const batches = [
      [first, { name, external_customer_id: "c", external_id: `${name}-cost`, metadata: { _cost: { amount: 12, currency: "USD" } } }],
      [{ ...first, external_id: `${name}-2` }, { name, external_customer_id: "c", external_id: `${name}-child`, parent_id: `${name}-2` }],
    ];
    for (const events of batches) {
      let answer: Awaited<ReturnType<typeof ingest>> | undefined;
      const d = await delta(async () => (answer = await ingest({ events })));
      expect(answer).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
      expect(d).toEqual(none);
    }
    // keys written with escapes, which the text's look misses and the parse reads: started, then rolled back
    const hidden = [
      JSON.stringify({ events: [{ ...first, external_id: `${name}-3` }, { name, external_customer_id: "c", external_id: `${name}-cost2`, metadata: { _cost: { amount: "1.50", currency: "EUR" } } }] }).replace('"_cost"', '"\\u005fcost"'),
      JSON.stringify({ events: [{ ...first, external_id: `${name}-4` }, { name, external_customer_id: "c", external_id: `${name}-child2`, parent_id: `${name}-4` }] }).replace('"parent_id"', '"parent\\u005fid"'),
    ];
    for (const body of hidden) {
      let answer: Awaited<ReturnType<typeof ingest>> | undefined;
      const d = await delta(async () => (answer = await ingest(body)));
      expect(answer).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
      expect(d).toEqual(early("rolledBack"));
    }
    const rows = new Map((await stored(name)).map((r) => [r.external_id, r]));
    expect(rows.get(`${name}-cost`)!.metadata).toEqual({ _cost: { amount: "12", currency: "usd" } });
    expect(rows.get(`${name}-cost2`)!.metadata).toEqual({ _cost: { amount: "1.50", currency: "eur" } });
    expect(rows.get(`${name}-child2`)!.parent_id).not.toBeNull();
    const parent = (await server.database.db.execute(
      sql`SELECT id FROM event WHERE organization_id = ${seller.organizationId} AND external_id = ${`${name}-2`}`,
    )) as unknown;
    const parentId = (Array.isArray(parent) ? parent : (parent as { rows: unknown[] }).rows)[0] as { id: string };
    expect(rows.get(`${name}-child`)!.parent_id).toBe(parentId.id);
  });

  it("stores the usual way, staged or from the body's text, with what was decided for some events: ids, parents, _cost, _llm, the first of an external_id", async () => {
    const name = unique("patched");
    const llm = { vendor: "openai", model: "gpt", input_tokens: 10, output_tokens: 5, total_tokens: 15, extra: "not kept" };
    const events = [
      { name, external_customer_id: "c", external_id: `${name}-root`, metadata: { i: 0 } },
      { name, external_customer_id: "c", external_id: `${name}-1`, parent_id: `${name}-root`, metadata: { i: 1, _cost: { amount: 1.5, currency: "EUR", x: 1 } } },
      { name, external_customer_id: "c", external_id: `${name}-1`, metadata: { i: "the second of an external_id: skipped" } },
      { name, external_customer_id: "c", metadata: { i: 3, _llm: llm } },
      { name, external_customer_id: "c", external_id: `${name}-4`, parent_id: `${name}-1`, timestamp: "2026-01-02T03:04:05.678Z" },
    ];
    // on PostgreSQL staged while the body is parsed (staged-insert.ts), on PGlite from the text once it is
    const before = { ...usualInsertCounts(), ...prefixed(stagedInsertCounts()) };
    expect(await ingest({ events })).toEqual({ status: 200, body: { inserted: 4, duplicates: 1 } });
    const after = { ...usualInsertCounts(), ...prefixed(await settledStaged()) };
    expect([after.text - before.text, after.rows - before.rows, after.stagedStarted - before.stagedStarted, after.stagedCommitted - before.stagedCommitted]).toEqual(
      usingPostgres ? [0, 0, 1, 1] : [1, 0, 0, 0],
    );
    const rows = await rowsOf<{ id: string; external_id: string | null; parent_id: string | null; metadata: Record<string, unknown>; timestamp: Date | string }>(
      server.database.db,
      sql`SELECT id, external_id, parent_id, metadata, timestamp FROM event WHERE organization_id = ${seller.organizationId} AND name = ${name} ORDER BY metadata->>'i'`,
    );
    const byExternal = new Map(rows.map((r) => [r.external_id, r]));
    expect(rows.map((r) => r.metadata)).toEqual([
      { i: 0 },
      { i: 1, _cost: { amount: "1.5", currency: "eur" } },
      { i: 3, _llm: { vendor: "openai", model: "gpt", input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
      {},
    ]);
    expect(byExternal.get(`${name}-1`)!.parent_id).toBe(byExternal.get(`${name}-root`)!.id);
    expect(byExternal.get(`${name}-4`)!.parent_id).toBe(byExternal.get(`${name}-1`)!.id);
    expect(new Date(byExternal.get(`${name}-4`)!.timestamp).toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(rows.every((r) => /^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(r.id))).toBe(true);

    // a text PostgreSQL reads otherwise than JSON.parse (a repeated events key): the rows are sent instead
    const body = `{"events":[{"name":"${name}-not","external_customer_id":"c"}],"events":[{"name":"${name}-again","external_customer_id":"c","external_id":"${name}-a","metadata":{"_cost":{"amount":2,"currency":"USD"}}},{"name":"${name}-again","external_customer_id":"d","parent_id":"${name}-a"}]}`;
    const refused = { ...usualInsertCounts(), ...prefixed(stagedInsertCounts()) };
    expect(await ingest(body)).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
    const then = { ...usualInsertCounts(), ...prefixed(await settledStaged()) };
    expect([then.textRefused - refused.textRefused, then.rows - refused.rows, then.stagedFailed - refused.stagedFailed]).toEqual(usingPostgres ? [0, 1, 1] : [1, 1, 0]);
    expect((await stored(`${name}-again`)).map((r) => [r.external_customer_id, r.metadata])).toEqual([
      ["c", { _cost: { amount: "2", currency: "usd" } }],
      ["d", {}],
    ]);
    expect(await stored(`${name}-not`)).toEqual([]);

    // refused (a parent nobody has): the staging is rolled back, nothing stored
    const orphan = { ...prefixed(stagedInsertCounts()) };
    const answer = await ingest({ events: [{ name: `${name}-orphan`, external_customer_id: "c", parent_id: "nobody", metadata: { _cost: { amount: 1, currency: "USD" } } }] });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('"loc":["body","events",0,"parent_id"]');
    expect(prefixed(await settledStaged()).stagedRolledBack - orphan.stagedRolledBack).toBe(usingPostgres ? 1 : 0);
    expect(await stored(`${name}-orphan`)).toEqual([]);
  });

  it("stores the batch the body parses to when its text holds another (a repeated events key)", async () => {
    const name = unique("twice");
    const body = `{"events":[{"name":"${name}-not","external_customer_id":"c"}],"events":[{"name":"${name}","external_customer_id":"c"},{"name":"${name}","external_customer_id":"d"}]}`;
    let answer: Awaited<ReturnType<typeof ingest>> | undefined;
    const d = await delta(async () => (answer = await ingest(body)));
    expect(answer).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
    // PostgreSQL refused the text between the first `[` and the last `]` as JSON: nothing of it was stored
    expect(d).toEqual(early("failed"));
    expect((await stored(name)).map((r) => r.external_customer_id).sort()).toEqual(["c", "d"]);
    expect(await stored(`${name}-not`)).toEqual([]);
  });

  it("keeps the rollups of the kept meters for what it stored", async () => {
    const name = unique("metered");
    const meter = await keptMeter(name, name, { func: "sum", property: "tokens" });
    const events = Array.from({ length: 300 }, (_, i) => ({ name, external_customer_id: `c${i % 3}`, external_id: `${name}-${i}`, metadata: { tokens: i } }));
    const d = await delta(async () => expect((await ingest({ events })).body).toEqual({ inserted: 300, duplicates: 0 }));
    expect(d).toEqual(early("committed"));
    // a repeat adds nothing to the rollups
    await ingest({ events: events.slice(0, 10) });
    const [row] = await rowsOf(
      server.database.db,
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
    expect((await ingest({ events: events("a") })).body).toEqual({ inserted: 100, duplicates: 0 });
    const changedBefore = earlyInsertCounts().metersChanged;
    const meter = await keptMeter(name, name, { func: "sum", property: "units" });
    expect((await ingest({ events: events("b") })).body).toEqual({ inserted: 100, duplicates: 0 });
    expect((await ingest({ events: events("c") })).body).toEqual({ inserted: 100, duplicates: 0 });
    const total = async () => {
      const [row] = await rowsOf(
        server.database.db,
        sql`SELECT coalesce(sum(total), 0)::int AS total, count(*)::int AS rows FROM meter_rollup WHERE meter_id = ${meter.id}`,
      );
      return row;
    };
    // the rebuild counted batch a; b and c were kept by the INSERT's upkeep
    expect(await total()).toMatchObject({ total: 600 });
    if (usingPostgres) expect(earlyInsertCounts().metersChanged - changedBefore).toBe(1);

    // archived: no more upkeep, its rollups dropped, and the next batch adds none back
    const archived = await fetch(`${server.url}/v1/meters/${meter.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ is_archived: true }),
    });
    expect(archived.status).toBe(200);
    expect((await ingest({ events: events("d") })).body).toEqual({ inserted: 100, duplicates: 0 });
    expect(await total()).toEqual({ total: 0, rows: 0 });
    if (usingPostgres) expect(earlyInsertCounts().metersChanged - changedBefore).toBe(2);
  });

  it("stores racing batches once, early or not", async () => {
    const name = unique("race");
    const events = Array.from({ length: 200 }, (_, i) => ({ name, external_customer_id: "race", external_id: `${name}-${i}`, metadata: { i } }));
    const answers = await Promise.all(Array.from({ length: 8 }, () => ingest({ events })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.reduce((n, a) => n + (a.body.inserted as number), 0)).toBe(200);
    expect(await stored(name)).toHaveLength(200);
    const settled = await counts();
    expect(settled.started).toBe(settled.committed + settled.rolledBack + settled.failed);
  });

  it("parses the body only once the caller is known: a 401 for a stranger's malformed 1 MiB, a 422 for a key's", async () => {
    const malformed = `{"events":[${'{"name":"x","external_customer_id":"c"},'.repeat(25_000)}`;
    const stranger = await fetch(`${server.url}/v1/events/ingest`, { method: "POST", headers: { "content-type": "application/json" }, body: malformed });
    expect(stranger.status).toBe(401);
    const keyed = await ingest(malformed);
    expect(keyed).toEqual({ status: 422, body: { detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] } });
  });

  it("stores concurrent batches of one organization with kept meters, early and not, without a deadlock", async () => {
    // the usual path once took a meter's buckets before the list count's row, the early one after: they deadlocked
    const name = unique("concurrent");
    const meterIds = [(await keptMeter(`${name}-sum`, name, { func: "sum", property: "units" })).id, (await keptMeter(`${name}-count`, name, { func: "count" })).id];
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
        for (let k = 0; k < 3; k++) statuses.push((await ingest({ events: batch() })).status);
      }),
    );
    expect(statuses).toEqual(Array(12).fill(200));
    const [totals] = await rowsOf(server.database.db, sql`SELECT sum(events)::int AS events, sum(total)::int AS total FROM meter_rollup WHERE meter_id = ${meterIds[0]}`);
    expect(totals).toEqual({ events: 6000, total: 12 * 50 * 45 });
  }, 60_000);
});

/** What a client backend of the database is at, seen from another process (this thread may be blocked meanwhile). */
const LOOK = `
import postgres from "postgres";
await new Promise((r) => setTimeout(r, 300));
const sql = postgres(process.env.LOOK_URL, { max: 1, onnotice: () => {} });
const rows = await sql\`SELECT state, left(query, 40) AS query FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = 'till-early-flight' AND state <> 'idle'\`;
process.stdout.write(JSON.stringify(rows));
await sql.end();
`;

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
  it("reaches PostgreSQL whole while the server's thread is busy: prepared, its statements wait for no reply", async () => {
    // a client of its own beside the server's (whose worker may be in a transaction of its own meanwhile), named
    // so: the early path takes one of its connections, both of which are warmed
    const url = new URL(database.url!);
    url.searchParams.set("application_name", "till-early-flight");
    const own = await openDatabase({ url: url.toString(), max: 4 });
    try {
      const body = (name: string) =>
        JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => ({ name, external_id: `${name}-${i}`, external_customer_id: "c1", metadata: { i } })) });
      // each connection runs the flight once: its statements are prepared there
      const warm = [unique("warm"), unique("warm")].map((name) => startEarlyInsert(own.db, seller.organizationId, body(name), new Date())!);
      expect(await Promise.all(warm.map((w) => w.commit()))).toEqual([{ inserted: 100 }, { inserted: 100 }]);

      const name = unique("flight");
      const early = startEarlyInsert(own.db, seller.organizationId, body(name), new Date())!;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      // this thread is blocked from here until the child has looked: what PostgreSQL ran meanwhile, it had been
      // sent by now. An unprepared statement with parameters is sent as Parse and Describe, the rest after a
      // reply this thread would have to read: the transaction would sit at its first SELECT
      const look = spawnSync(process.execPath, ["--input-type=module", "-e", LOOK], {
        env: { ...process.env, LOOK_URL: database.url! },
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(look.stderr).toBe("");
      const seen = JSON.parse(look.stdout) as Array<{ state: string; query: string }>;
      // at the INSERT, or done with it (a slow machine may still be running it)
      expect(seen).toEqual([{ state: expect.stringMatching(/^(idle in transaction|active)$/), query: expect.stringMatching(/^WITH b AS MATERIALIZED \(/) }]);
      expect(await early.commit()).toEqual({ inserted: 100 });
      expect(await stored(name)).toHaveLength(100);
    } finally {
      await own.close();
    }
  });
});
