// `_cost` and `_llm` rewritten by the early INSERT's statement (rollups.ts, reservedRewritten) are what the check
// makes of them (input.ts: zod's costMetadata and llmMetadata), for every value the check lets the statement
// rewrite (eventInputFast says "in-sql"): a number's float8 text against String(), over random amounts of every
// magnitude in the band (outside it they differ, which is why the check keeps those from the early INSERT); `_llm`'s
// known keys only, its counts as integers however the body writes them.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { insertEventsWithRollups } from "../../server/billing/events/rollups.js";
import { EventInput, eventInputFast } from "../../server/billing/events/ingest/input.js";
import { freshDatabase, rolledBack } from "../helpers/db.js";

let database: Awaited<ReturnType<typeof freshDatabase>>;
const org = randomUUID();
beforeAll(async () => {
  database = await freshDatabase();
  await database.db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Cost', ${`cost-${org}`}, now())`);
});
afterAll(async () => {
  await database?.close();
});

/** A small seeded generator (mulberry32): the same amounts on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the statement stores for each `_cost` (in a rolled-back transaction), in order. */
const storedCosts = (costs: unknown[], edit = (text: string) => text) => storedReserved("_cost", costs, edit);

/** What the statement stores for each value of the reserved `key` (in a rolled-back transaction), in order. */
async function storedReserved(key: "_cost" | "_llm", values: unknown[], edit = (text: string) => text, asText = false): Promise<unknown[]> {
  const name = `${key}-${randomUUID()}`;
  const text = edit(JSON.stringify(values.map((value, n) => ({ name, external_customer_id: "c", metadata: { n, [key]: value } }))));
  return rolledBack(database.db, async (tx) => {
    await insertEventsWithRollups(tx, org, { text, now: sql`now()`, resolve: true });
    const value = asText ? sql`(metadata->${key})::text` : sql`metadata->${key}`;
    const rows = await rowsOf<{ value: unknown }>(tx, sql`SELECT ${value} AS value FROM event WHERE organization_id = ${org}::uuid AND name = ${name} ORDER BY (metadata->>'n')::int`);
    return rows.map((r) => r.value);
  });
}

/** Each value as PostgreSQL writes it as jsonb text. */
const jsonbTexts = async (values: unknown[]): Promise<string[]> =>
  (await rowsOf<{ t: string }>(database.db, sql`SELECT e::text AS t FROM jsonb_array_elements(${JSON.stringify(values)}::text::jsonb) WITH ORDINALITY AS x(e, n) ORDER BY n`)).map((r) => r.t);

const checked = (cost: unknown) => {
  const { inSql, value } = checkedAs("_cost", cost);
  return { inSql, cost: value };
};

/**
 * What the fast check and zod make of a reserved key's value: whether the early statement may rewrite it, and zod's.
 */
const checkedAs = (key: "_cost" | "_llm", value: unknown) => {
  const event = { name: "n", external_customer_id: "c", metadata: { [key]: value } };
  const fast = eventInputFast(event, ["body", "events", 0]);
  const zod = EventInput.parse(event);
  return { inSql: fast !== undefined && "value" in fast && fast.changed === "in-sql", value: zod.metadata?.[key] };
};

describe("_cost rewritten by the early statement", () => {
  it("is zod's for every amount the check lets it rewrite", async () => {
    const next = random(20261126);
    const costs: unknown[] = [];
    for (let i = 0; i < 4000; i++) {
      const magnitude = 10 ** Math.floor(next() * 19 - 4); // 1e-4 … 1e14
      const kind = i % 5;
      const amount =
        kind === 0 ? next() * magnitude
        : kind === 1 ? -next() * magnitude
        : kind === 2 ? Math.round(next() * 1e6) / 10 ** Math.floor(next() * 8) // cents, mills and the like
        : kind === 3 ? Number((next() * 1000).toFixed(Math.floor(next() * 6)))
        : (next() * 1e6).toFixed(Math.floor(next() * 9)); // a decimal string, trailing zeros kept
      costs.push({ amount, currency: ["USD", "eur", "Gbp"][i % 3], extra: i });
    }
    costs.push(...[0, 1e-4, 0.1 + 0.2, 12, 999_999_999_999_999, 123456.789e3, "007.50", "-0.0001"].map((amount) => ({ amount, currency: "JPY" })));
    // the few random ones below 1e-4 are the usual path's
    const kept = costs.filter((c) => checked(c).inSql);
    expect(kept.length).toBeGreaterThan(3900);
    expect(await storedCosts(kept)).toEqual(kept.map((c) => checked(c).cost));
    // -0 as a body may send it (JSON.stringify writes 0): "0" both ways
    expect(checked({ amount: -0, currency: "usd" })).toEqual({ inSql: true, cost: { amount: "0", currency: "usd" } });
    expect(await storedCosts([{ amount: 0, currency: "usd" }], (text) => text.replace('"amount":0', '"amount":-0'))).toEqual([{ amount: "0", currency: "usd" }]);
  });

  it("differs from zod's outside the band the check keeps from it", async () => {
    const outside = [1e15, 1e-5, 123456789012345680, 0.00001234].map((amount) => ({ amount, currency: "usd" }));
    expect(outside.map(checked).map((c) => c.inSql)).toEqual([false, false, false, false]);
    const stored = (await storedCosts(outside)) as Array<{ amount: string }>;
    const zod = outside.map((c) => (checked(c).cost as { amount: string }).amount);
    expect(stored.map((c, i) => [c.amount, zod[i]])).toEqual([
      ["1e+15", "1000000000000000"],
      ["1e-05", "0.00001"],
      ["1.2345678901234568e+17", "123456789012345680"],
      ["1.234e-05", "0.00001234"],
    ]);
  });

  it("_llm: zod's known keys only, the counts as integers however the body writes them", async () => {
    const next = random(7);
    const llms = Array.from({ length: 300 }, (_, i) => {
      const llm: Record<string, unknown> = { vendor: `vendor ${i}`, model: "é \"m\" \\ ✓", input_tokens: Math.floor(next() * 1e9), output_tokens: i, total_tokens: 2 ** 53 - 1 - i };
      if (i % 2) llm.prompt = i % 4 === 1 ? null : "a prompt";
      if (i % 3) llm.response = "an answer";
      if (i % 5) llm.cached_input_tokens = i % 7;
      if (i % 6 === 0) llm.extra = { not: "kept" };
      return llm;
    });
    expect(llms.every((l) => checkedAs("_llm", l).inSql)).toBe(true);
    // counts written as 10.0 and 1e1 in the body: JSON.parse reads 10 for both
    const edit = (text: string) => text.replace(/"output_tokens":10,/, '"output_tokens":10.0,').replace(/"output_tokens":20,/, '"output_tokens":2e1,');
    const expected = llms.map((l) => checkedAs("_llm", l).value);
    expect(await storedReserved("_llm", llms, edit)).toEqual(expected);
    // as jsonb text too (read back through JSON.parse, 10.0 and 10 look alike)
    expect(await storedReserved("_llm", llms, edit, true)).toEqual(await jsonbTexts(expected));
  });
});
