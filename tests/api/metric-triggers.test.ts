// The metric rollups' triggers (migrations 0048, 0061, 0069, 0072): every one that fires on an INSERT or UPDATE
// runs its statements written out, which PL/pgSQL plans once per session, not with EXECUTE, which plans them on
// every statement (most of a one-event insert's time); and the event table's insert still rolls up its costs and
// active users, one statement of many rows or one row at a time.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../server/db/client.js";
import { freshDatabase } from "../helpers/db.js";

type Db = Awaited<ReturnType<typeof freshDatabase>>;
let database: Db;
const ORG = "00000000-0000-4000-8000-0000000000a1";

beforeAll(async () => {
  database = await freshDatabase();
  await database.db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${ORG}::uuid, 'Metric triggers', 'metric-triggers', now())`);
}, 120_000);
afterAll(async () => {
  await database?.close();
});

const rows = <T>(query: ReturnType<typeof sql>) => rowsOf<T>(database.db, query);

describe("metric rollup triggers", () => {
  it("every one fired by an INSERT or UPDATE runs its statements written out, the event table's insert included", async () => {
    const triggers = await rows<{ tbl: string; trigger: string; fn: string; src: string }>(sql`
      SELECT c.relname AS tbl, t.tgname AS trigger, p.proname AS fn, p.prosrc AS src
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
      WHERE NOT t.tgisinternal AND t.tgparentid = 0 AND t.tgname ~ '_metric_hour_(ins|upd)$'
      ORDER BY 1, 2`);
    expect(triggers.map((t) => t.trigger)).toEqual(
      expect.arrayContaining(["event_metric_hour_ins", "order_metric_hour_ins", "order_metric_hour_upd", "checkout_metric_hour_upd", "subscription_metric_hour_ins"]),
    );
    for (const t of triggers) expect(t.src, `${t.trigger} → ${t.fn}`).not.toMatch(/\bEXECUTE\b/i);
    expect(triggers.find((t) => t.trigger === "event_metric_hour_ins")?.fn).toBe("till_metric_event_ins");
  });

  it("the event table's insert rolls up costs and active users, many rows at once or one at a time", async () => {
    const hour = "2026-03-04T05:00:00Z";
    await database.db.execute(sql`
      INSERT INTO event (organization_id, name, source, timestamp, external_customer_id, metadata)
      SELECT ${ORG}::uuid, 'llm', 'user', ${hour}::timestamptz + (g || ' seconds')::interval, 'user-' || (g % 3),
        jsonb_build_object('_cost', jsonb_build_object('amount', '0.25', 'currency', 'USD'))
      FROM generate_series(1, 8) g`);
    for (const user of ["user-0", "user-9"]) {
      await database.db.execute(sql`
        INSERT INTO event (organization_id, name, source, timestamp, external_customer_id, metadata)
        VALUES (${ORG}::uuid, 'llm', 'user', ${hour}::timestamptz + interval '30 minutes', ${user}, '{"_cost":{"amount":"1.5","currency":"usd"}}'::jsonb)`);
    }
    // an event without a cost counts its user only
    await database.db.execute(sql`
      INSERT INTO event (organization_id, name, source, timestamp, external_customer_id, metadata)
      VALUES (${ORG}::uuid, 'login', 'user', ${hour}::timestamptz + interval '40 minutes', 'user-7', '{}'::jsonb)`);
    const [costs] = await rows<{ currency: string; costs: string }>(sql`
      SELECT currency, sum(costs)::text AS costs FROM metric_hour WHERE organization_id = ${ORG}::uuid AND hour = ${hour}::timestamptz AND costs <> 0 GROUP BY currency`);
    expect(costs).toEqual({ currency: "usd", costs: "5.00" });
    const users = await rows<{ user_key: string }>(sql`
      SELECT DISTINCT user_key FROM metric_event_user_hour WHERE organization_id = ${ORG}::uuid AND hour = ${hour}::timestamptz ORDER BY 1`);
    expect(users.map((u) => u.user_key)).toEqual(["user-0", "user-1", "user-2", "user-7", "user-9"]);
  });
});
