// `_cost` rewritten by the early INSERT's statement (rollups.ts, costRewritten) is what the check makes of it
// (input.ts: zod's costMetadata), for every amount the check lets the statement rewrite (eventInputFast says
// "in-sql"): a number's float8 text against String(), over random amounts of every magnitude in the band; and
// outside the band they differ, which is why the check keeps those from the early INSERT.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { insertEventsWithRollups } from "../../server/billing/events/rollups.js";
import { EventInput, eventInputFast } from "../../server/billing/events/ingest/input.js";
import { freshDatabase } from "../helpers/db.js";

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
async function storedCosts(costs: unknown[], edit = (text: string) => text): Promise<unknown[]> {
  const name = `cost-${randomUUID()}`;
  const text = edit(JSON.stringify(costs.map((cost, n) => ({ name, external_customer_id: "c", metadata: { n, _cost: cost } }))));
  const rolledBack = new Error("rolled back");
  let stored: unknown[] = [];
  await database.db
    .transaction(async (tx) => {
      await insertEventsWithRollups(tx, org, { text, now: sql`now()`, resolve: true });
      const rows = await rowsOf<{ cost: unknown }>(tx, sql`SELECT metadata->'_cost' AS cost FROM event WHERE organization_id = ${org}::uuid AND name = ${name} ORDER BY (metadata->>'n')::int`);
      stored = rows.map((r) => r.cost);
      throw rolledBack;
    })
    .catch((err: unknown) => {
      if (err !== rolledBack) throw err;
    });
  return stored;
}

const checked = (cost: unknown) => {
  const event = { name: "n", external_customer_id: "c", metadata: { _cost: cost } };
  const fast = eventInputFast(event, ["body", "events", 0]);
  const zod = EventInput.parse(event);
  return { inSql: fast !== undefined && "value" in fast && fast.changed === "in-sql", cost: zod.metadata?._cost };
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
});
