// POST /v1/events/ingest's early INSERT (server/billing/events/ingest/early-insert.ts): on PostgreSQL a batch that
// its statement can store as the service would starts its INSERT from the body's text while the server parses and
// checks it, and is committed only if the check passes, the customers it names by id are live ones of the
// organization (read in its transaction) and every parent it names was found (resolved by the statement, which
// also rewrites `_cost` and `_llm` as the check does). Stored rows are the ones the usual path stores; a refused
// batch stores nothing; what the statement does not do (a key its text hides, an amount float8 writes otherwise)
// is stored the usual way. Another text than the batch, kept meters, races and the early flight:
// events-early-insert-races.test.ts.
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../server/db/client.js";
import { createSeller } from "../helpers/seller.js";
import { earlyInsertFixture, unique, usualInsertCounts, delta, early } from "./events-early-insert-fixtures.js";

const fx = earlyInsertFixture();

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
    let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
    const d = await delta(async () => (answer = await fx.ingest({ events })));
    expect(answer).toEqual({ status: 200, body: { inserted: 999, duplicates: 1 } });
    expect(d).toEqual(early("committed"));

    const rows = await fx.stored(name);
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
    expect(await fx.ingest({ events })).toEqual({ status: 200, body: { inserted: 1, duplicates: 999 } });
  });

  it("rolls the early INSERT back when the batch is refused, late in the batch or by zod", async () => {
    const name = unique("refused");
    const plain = (i: number) => ({ name, external_customer_id: "c", external_id: `${name}-${i}`, metadata: { i } });
    const future = [...Array.from({ length: 999 }, (_, i) => plain(i)), { ...plain(999), timestamp: new Date(Date.now() + 86_400_000).toISOString() }];
    let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
    let d = await delta(async () => (answer = await fx.ingest({ events: future })));
    expect(answer?.status).toBe(422);
    expect(JSON.stringify(answer?.body)).toContain('"loc":["body","events",999,"timestamp"]');
    expect(d).toEqual(early("rolledBack"));

    const notScalar = Array.from({ length: 20 }, (_, i) => (i === 10 ? { ...plain(i), metadata: { deep: { a: 1 } } } : plain(i)));
    d = await delta(async () => (answer = await fx.ingest({ events: notScalar })));
    expect(answer?.status).toBe(422);
    expect(d).toEqual(early("rolledBack"));

    expect(await fx.stored(name)).toEqual([]);
  });

  it("commits a batch naming customers by id once they are found live in the organization, else answers 422", async () => {
    const name = unique("customers");
    const customer = async (email: string, apiKey = fx.key) => {
      const res = await fetch(`${fx.server.url}/v1/customers/`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const [a, b, gone] = [await customer(`${name}-a@example.com`), await customer(`${name}-b@example.com`), await customer(`${name}-gone@example.com`)];
    const deleted = await fetch(`${fx.server.url}/v1/customers/${gone}`, { method: "DELETE", headers: { authorization: `Bearer ${fx.key}` } });
    expect(deleted.status).toBe(204);
    const other = await createSeller(fx.server, "early-other");
    const theirs = await customer(`${name}-theirs@example.com`, await other.createKey());
    const unknown = "00000000-0000-4000-8000-000000000000";
    const plain = (i: number, customerId: string) => ({ name, customer_id: customerId, external_id: `${name}-${i}`, metadata: { i } });

    // stored early, ids as sent in any case
    let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
    let d = await delta(async () => (answer = await fx.ingest({ events: Array.from({ length: 50 }, (_, i) => plain(i, i % 2 ? a : b.toUpperCase())) })));
    expect(answer).toEqual({ status: 200, body: { inserted: 50, duplicates: 0 } });
    expect(d).toEqual(early("committed"));
    const rows = await fx.stored(name);
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((r) => r.customer_id))).toEqual(new Set([a, b]));

    // an unknown, a deleted and another organization's customer: each event that names one, as the usual path says
    for (const missing of [unknown, gone, theirs]) {
      const events = [plain(100, a), plain(101, missing), plain(102, b), plain(103, missing)];
      d = await delta(async () => (answer = await fx.ingest({ events })));
      expect(answer?.status).toBe(422);
      expect((answer?.body.detail as Array<{ loc: unknown[]; msg: string }>).map((i) => [i.loc, i.msg])).toEqual([
        [["body", "events", 1, "customer_id"], "Customer not found."],
        [["body", "events", 3, "customer_id"], "Customer not found."],
      ]);
      expect(d).toEqual(early("rolledBack"));
    }
    expect(await fx.stored(name)).toHaveLength(50);
  });

  it("stores early what its statement resolves: parents, _cost; one its text hides is rolled back first", async () => {
    const name = unique("resolved");
    const first = { name, external_customer_id: "c", external_id: `${name}-0`, metadata: { i: 0 } };
    // seen in the text: the early statement resolves the parents and rewrites `_cost` as the check does
    const batches = [
      [first, { name, external_customer_id: "c", external_id: `${name}-cost`, metadata: { _cost: { amount: 12, currency: "USD" } } }],
      [{ ...first, external_id: `${name}-2` }, { name, external_customer_id: "c", external_id: `${name}-child`, parent_id: `${name}-2` }],
      // the first event names a parent stored before, by id and by external_id
      [{ name, external_customer_id: "c", external_id: `${name}-grandchild`, parent_id: `${name}-child` }],
    ];
    for (const events of batches) {
      let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
      const d = await delta(async () => (answer = await fx.ingest({ events })));
      expect(answer).toEqual({ status: 200, body: { inserted: events.length, duplicates: 0 } });
      expect(d).toEqual(early("committed"));
    }
    // keys written with escapes, which the text's look misses and the parse reads: started plain, then rolled back
    const hidden = [
      JSON.stringify({
        events: [{ ...first, external_id: `${name}-3` }, { name, external_customer_id: "c", external_id: `${name}-cost2`, metadata: { _cost: { amount: "1.50", currency: "EUR" } } }],
      }).replace('"_cost"', '"\\u005fcost"'),
      JSON.stringify({
        events: [{ ...first, external_id: `${name}-4` }, { name, external_customer_id: "c", external_id: `${name}-child2`, parent_id: `${name}-4` }],
      }).replace('"parent_id"', '"parent\\u005fid"'),
    ];
    for (const body of hidden) {
      let answer: Awaited<ReturnType<typeof fx.ingest>> | undefined;
      const d = await delta(async () => (answer = await fx.ingest(body)));
      expect(answer).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } });
      expect(d).toEqual(early("rolledBack"));
    }
    const rows = new Map((await fx.stored(name)).map((r) => [r.external_id, r]));
    expect(rows.get(`${name}-cost`)!.metadata).toEqual({ _cost: { amount: "12", currency: "usd" } });
    expect(rows.get(`${name}-cost2`)!.metadata).toEqual({ _cost: { amount: "1.50", currency: "eur" } });
    const idOf = async (externalId: string) =>
      (await rowsOf<{ id: string }>(fx.server.database.db, sql`SELECT id FROM event WHERE organization_id = ${fx.seller.organizationId} AND external_id = ${externalId}`))[0]!.id;
    expect(rows.get(`${name}-child`)!.parent_id).toBe(await idOf(`${name}-2`));
    expect(rows.get(`${name}-grandchild`)!.parent_id).toBe(await idOf(`${name}-child`));
    expect(rows.get(`${name}-child2`)!.parent_id).toBe(await idOf(`${name}-4`));

    // parents not found (nobody's, the event itself, another event's repeat skipped aside): 422 at each, nothing stored
    const d = await delta(async () => {
      const answer = await fx.ingest({
        events: [
          { name: `${name}-orphan`, external_customer_id: "c", external_id: `${name}-o1`, parent_id: `${name}-nobody` },
          { name: `${name}-orphan`, external_customer_id: "c", external_id: `${name}-self`, parent_id: `${name}-self` },
          { name: `${name}-orphan`, external_customer_id: "c", external_id: `${name}-o1`, parent_id: "skipped, not checked" },
          { name: `${name}-orphan`, external_customer_id: "c", parent_id: await idOf(`${name}-2`) },
        ],
      });
      expect(answer.status).toBe(422);
      expect((answer.body.detail as Array<{ loc: unknown[]; msg: string; input: unknown }>).map((i) => [i.loc, i.msg, i.input])).toEqual([
        [["body", "events", 0, "parent_id"], "Parent event not found.", `${name}-nobody`],
        [["body", "events", 1, "parent_id"], "Parent event not found.", `${name}-self`],
      ]);
    });
    expect(d).toEqual(early("rolledBack"));
    expect(await fx.stored(`${name}-orphan`)).toEqual([]);
  });

  it("stores the usual way, from the body's text, with what the check decided for some events: _cost, _llm, parents, the first of an external_id", async () => {
    const name = unique("patched");
    const llm = { vendor: "openai", model: "gpt", input_tokens: 10, output_tokens: 5, total_tokens: 15, extra: "not kept" };
    // the first event's `_cost` is one the early statement would not write as the check does (1e15: float8 says
    // "1e+15"), so no early INSERT starts: on both databases the usual INSERT reads the text with patches
    const events = [
      { name, external_customer_id: "c", external_id: `${name}-root`, metadata: { i: 0, _cost: { amount: 1e15, currency: "usd" } } },
      { name, external_customer_id: "c", external_id: `${name}-1`, parent_id: `${name}-root`, metadata: { i: 1, _cost: { amount: 1.5, currency: "EUR", x: 1 } } },
      { name, external_customer_id: "c", external_id: `${name}-1`, metadata: { i: "the second of an external_id: skipped" } },
      { name, external_customer_id: "c", metadata: { i: 3, _llm: llm } },
      { name, external_customer_id: "c", external_id: `${name}-4`, parent_id: `${name}-1`, timestamp: "2026-01-02T03:04:05.678Z" },
    ];
    const before = usualInsertCounts();
    const d = await delta(async () => expect(await fx.ingest({ events })).toEqual({ status: 200, body: { inserted: 4, duplicates: 1 } }));
    expect(d).toEqual({ started: 0, committed: 0, rolledBack: 0, failed: 0 });
    const after = usualInsertCounts();
    expect([after.text - before.text, after.rows - before.rows]).toEqual([1, 0]);
    const rows = await rowsOf<{ id: string; external_id: string | null; parent_id: string | null; metadata: Record<string, unknown>; timestamp: Date | string }>(
      fx.server.database.db,
      sql`SELECT id, external_id, parent_id, metadata, timestamp FROM event WHERE organization_id = ${fx.seller.organizationId} AND name = ${name} ORDER BY metadata->>'i'`,
    );
    const byExternal = new Map(rows.map((r) => [r.external_id, r]));
    const llmKept = { vendor: "openai", model: "gpt", input_tokens: 10, output_tokens: 5, total_tokens: 15 };
    expect(rows.map((r) => r.metadata)).toEqual([
      { i: 0, _cost: { amount: "1000000000000000", currency: "usd" } },
      { i: 1, _cost: { amount: "1.5", currency: "eur" } },
      { i: 3, _llm: llmKept },
      {},
    ]);
    expect(byExternal.get(`${name}-1`)!.parent_id).toBe(byExternal.get(`${name}-root`)!.id);
    expect(byExternal.get(`${name}-4`)!.parent_id).toBe(byExternal.get(`${name}-1`)!.id);
    expect(new Date(byExternal.get(`${name}-4`)!.timestamp).toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(rows.every((r) => /^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(r.id))).toBe(true);

    // `_llm` and `_cost` the early statement writes as the check does (counts sent as 10.0 are integers, unknown
    // keys dropped): stored early, the same metadata
    const early2 = `${name}-early`;
    const text = JSON.stringify({
      events: [{ name: early2, external_customer_id: "c", metadata: { i: 0, _llm: llm, _cost: { amount: 1.5, currency: "EUR", x: 1 } } }],
    }).replace('"input_tokens":10', '"input_tokens":10.0');
    expect(await delta(async () => expect(await fx.ingest(text)).toEqual({ status: 200, body: { inserted: 1, duplicates: 0 } }))).toEqual(early("committed"));
    expect((await fx.stored(early2))[0]!.metadata).toEqual({ i: 0, _llm: llmKept, _cost: { amount: "1.5", currency: "eur" } });

    // a text PostgreSQL reads otherwise than JSON.parse (a repeated events key): on PostgreSQL the early INSERT
    // fails, then the usual one from the text; the rows are sent instead
    const body = `{"events":[{"name":"${name}-not","external_customer_id":"c"}],` +
      `"events":[{"name":"${name}-again","external_customer_id":"c","external_id":"${name}-a","metadata":{"_cost":{"amount":2,"currency":"USD"}}},` +
      `{"name":"${name}-again","external_customer_id":"d","parent_id":"${name}-a"}]}`;
    const refused = usualInsertCounts();
    const failed = await delta(async () => expect(await fx.ingest(body)).toEqual({ status: 200, body: { inserted: 2, duplicates: 0 } }));
    expect(failed).toEqual(early("failed"));
    const then = usualInsertCounts();
    expect([then.textRefused - refused.textRefused, then.rows - refused.rows]).toEqual([1, 1]);
    expect((await fx.stored(`${name}-again`)).map((r) => [r.external_customer_id, r.metadata])).toEqual([
      ["c", { _cost: { amount: "2", currency: "usd" } }],
      ["d", {}],
    ]);
    expect(await fx.stored(`${name}-not`)).toEqual([]);

    // refused by the usual path (a parent nobody has): rolled back, nothing stored
    const orphan = [{ ...events[0]!, name: `${name}-orphan`, external_id: undefined }, { name: `${name}-orphan`, external_customer_id: "c", parent_id: "nobody" }];
    const answer = await fx.ingest({ events: orphan });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('"loc":["body","events",1,"parent_id"]');
    expect(await fx.stored(`${name}-orphan`)).toEqual([]);
  });
});
