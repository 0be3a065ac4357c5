// A backlog of subscriptions due for renewal, made the way the billing-run benches need it: the catalog (a meter,
// a plan and a plan with usage) through the API, then N customers, their subscriptions, saved methods and the
// metered ones' events in bulk SQL (INSERT … SELECT generate_series), never the API. Used by bench:billing-run and
// bench:capacity's renewals phase.
import { sql } from "drizzle-orm";
import { markRollupsBuilding, rebuildMeterRollups } from "../../server/billing/events/service.js";
import type { Db } from "../../server/db/client.js";
import { call } from "./client.js";

/** Events of each metered subscription in the period ended (the renewal bills their sum). */
export const EVENTS_PER_METERED = 100;
export const GOOD_METHOD = "pm_test_4242_12_2030";
/** The test processor declines charges to this method (4000 0000 0000 0341). */
export const FAILING_METHOD = "pm_test_0341_12_2030_fails";

export type Rows = Array<Record<string, unknown>>;
export async function rows(db: Db, query: ReturnType<typeof sql>): Promise<Rows> {
  const result = (await db.execute(query)) as unknown;
  return Array.isArray(result) ? (result as Rows) : (result as { rows: Rows }).rows;
}

/** What the seeded subscriptions are of: a monthly plan, and a monthly plan with a metered price on `renew.call`. */
export interface RenewalCatalog {
  meterId: string;
  plainProductId: string;
  fixedPriceId: string;
  meteredProductId: string;
  meteredPriceIds: string[];
}

export async function makeRenewalCatalog(base: string, auth: Record<string, string>): Promise<RenewalCatalog> {
  const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "renew.call" }] };
  const meterId = (await call<{ id: string }>(base, "POST", "/v1/meters/", { name: "Calls", filter, aggregation: { func: "sum", property: "units" } }, auth)).json.id;
  type Product = { id: string; prices: Array<{ id: string }> };
  const fixed = { amount_type: "fixed", price_amount: 1000, price_currency: "usd" };
  const plain = (await call<Product>(base, "POST", "/v1/products/", { name: "Plan", recurring_interval: "month", prices: [fixed] }, auth)).json;
  const metered = (
    await call<Product>(base, "POST", "/v1/products/", {
      name: "Plan with usage",
      recurring_interval: "month",
      prices: [fixed, { amount_type: "metered_unit", meter_id: meterId, unit_amount: "5", price_currency: "usd" }],
    }, auth)
  ).json;
  return { meterId, plainProductId: plain.id, fixedPriceId: plain.prices[0]!.id, meteredProductId: metered.id, meteredPriceIds: metered.prices.map((p) => p.id) };
}

export interface SeedOptions extends RenewalCatalog {
  organizationId: string;
  n: number;
  /** When the seeded periods end (they start a month and a minute before); default a minute ago. */
  dueAt?: Date;
}

export interface Seeded {
  subscriptions: number;
  events: number;
  subsSeconds: number;
  eventsSeconds: number;
  rollupSeconds: number;
}

/**
 * `n` customers of the organization, each with a monthly subscription whose period ends at `dueAt`: 30% of the
 * plan with usage (EVENTS_PER_METERED events each in that period, their rollups built), 10% paying with a saved
 * method whose charges are declined. Customers and subscriptions carry `metadata.i` (1…n) and `bench`.
 */
export async function seedDueSubscriptions(db: Db, b: SeedOptions): Promise<Seeded> {
  const org = b.organizationId;
  const started = performance.now();
  const checkouts: string[] = [];
  for (const method of [GOOD_METHOD, FAILING_METHOD]) {
    const [row] = await rows(
      db,
      sql`INSERT INTO checkout (organization_id, client_secret, expires_at, amount, currency, product_ids, status, payment_processor_metadata)
        VALUES (${org}::uuid, ${`bench_${method}`}, now(), 1000, 'usd', ARRAY[${b.plainProductId}::uuid], 'succeeded',
                jsonb_build_object('payment_method_id', ${method}::text)) RETURNING id`,
    );
    checkouts.push(String(row?.id));
  }
  for (let done = 0; done < b.n; done += 50_000) {
    const series = sql`generate_series(${done + 1}::int, ${Math.min(b.n, done + 50_000)}::int) AS i`;
    await rows(db, sql`INSERT INTO customer (organization_id, email, name, metadata)
      SELECT ${org}::uuid, 'renew-' || i || '@example.com', 'Renewal ' || i, jsonb_build_object('i', i) FROM ${series}`);
  }
  const meteredPrices = sql.raw(`ARRAY[${b.meteredPriceIds.map((id) => `'${id.replace(/[^0-9a-f-]/gi, "")}'::uuid`).join(",")}]`);
  const end = b.dueAt ? sql`${b.dueAt.toISOString()}::timestamptz` : sql`date_trunc('second', now()) - interval '1 minute'`;
  // i % 10 = 0: the failing method; 1..3: the metered product (30%)
  await rows(db, sql`INSERT INTO subscription (organization_id, status, amount, currency, recurring_interval, current_period_start,
      current_period_end, started_at, customer_id, product_id, price_ids, checkout_id, metadata)
    SELECT ${org}::uuid, 'active', 1000, 'usd', 'month', ${end} + interval '1 minute' - interval '1 month', ${end},
           now() - interval '1 month', c.id,
           CASE WHEN (c.metadata->>'i')::int % 10 BETWEEN 1 AND 3 THEN ${b.meteredProductId}::uuid ELSE ${b.plainProductId}::uuid END,
           CASE WHEN (c.metadata->>'i')::int % 10 BETWEEN 1 AND 3 THEN ${meteredPrices} ELSE ARRAY[${b.fixedPriceId}::uuid] END,
           CASE WHEN (c.metadata->>'i')::int % 10 = 0 THEN ${checkouts[1]}::uuid ELSE ${checkouts[0]}::uuid END,
           jsonb_build_object('bench', 'billing-run')
    FROM customer c WHERE c.organization_id = ${org}::uuid AND c.metadata ? 'i'`);
  // the renewal charges the customer's default saved method (payments: payment_method); each
  // customer's is the one its checkout saved
  await rows(db, sql`INSERT INTO payment_method (organization_id, customer_id, processor, processor_method_id, brand, last4, exp_month, exp_year, is_default)
    SELECT ${org}::uuid, c.id, 'test', CASE WHEN (c.metadata->>'i')::int % 10 = 0 THEN ${FAILING_METHOD} ELSE ${GOOD_METHOD} END, 'visa',
           CASE WHEN (c.metadata->>'i')::int % 10 = 0 THEN '0341' ELSE '4242' END, 12, 2030, true
    FROM customer c WHERE c.organization_id = ${org}::uuid AND c.metadata ? 'i'`);
  const seededSubs = performance.now();
  await rows(db, sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, metadata)
    SELECT ${org}::uuid, 'renew.call', 'user', s.current_period_start + k * interval '1 hour', s.customer_id, jsonb_build_object('units', k % 10)
    FROM subscription s CROSS JOIN generate_series(1, ${EVENTS_PER_METERED}::int) AS k
    WHERE s.organization_id = ${org}::uuid AND s.product_id = ${b.meteredProductId}::uuid`);
  const seededEvents = performance.now();
  await markRollupsBuilding(db, org, b.meterId);
  await rebuildMeterRollups(db, org, b.meterId);
  for (const t of ["customer", "subscription", "event", "meter_rollup", "checkout", "payment_method"]) await rows(db, sql.raw(`ANALYZE ${t}`));
  const [counts] = await rows(
    db,
    sql`SELECT (SELECT count(*) FROM subscription WHERE organization_id = ${org}::uuid)::int AS subs,
               (SELECT count(*) FROM event WHERE organization_id = ${org}::uuid AND name = 'renew.call')::int AS events`,
  );
  return {
    subscriptions: Number(counts?.subs),
    events: Number(counts?.events),
    subsSeconds: (seededSubs - started) / 1000,
    eventsSeconds: (seededEvents - seededSubs) / 1000,
    rollupSeconds: (performance.now() - seededEvents) / 1000,
  };
}

/** Subscriptions of the organization still due (active or trialing, period ended). */
export async function dueCount(db: Db, organizationId: string): Promise<number> {
  const [row] = await rows(
    db,
    sql`SELECT count(*)::int AS due FROM subscription WHERE organization_id = ${organizationId}::uuid
        AND status IN ('active', 'trialing') AND current_period_end <= now()`,
  );
  return Number(row?.due);
}
