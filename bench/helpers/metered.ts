// A metered customer at scale, shared by bench:entitlements and bench:preview: a subscription made through a paid
// checkout (the test card), then — in the child, by SQL — the organization's crowd of customers and the customer's
// events of the meter spread over its current period (moved 30 days back, as a subscription a month old), which
// reach the meter's rollups the way a definition change does: the meter marked `building` and rebuilt from the
// events in one statement (events/rollups.ts rebuildRollups), so reads take whole hours from the rollups as they
// do in production. Loopback only.
import { sql } from "drizzle-orm";
import { markRollupsBuilding, rebuildMeterRollups } from "../../server/billing/events/service.js";
import { rowsOf, type Db } from "../../server/db/client.js";
import { call } from "./client.js";

/** A subscription to `productId` through a paid checkout (the test card), for a new customer `email`; its customer's id. */
export async function subscribe(base: string, auth: Record<string, string>, productId: string, email: string): Promise<string> {
  const checkout = await call<{ client_secret: string }>(base, "POST", "/v1/checkouts/", { products: [productId] }, auth);
  const secret = checkout.json.client_secret;
  const card = { number: "4242424242424242", exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" };
  const token = await call<{ confirmation_token_id: string }>(base, "POST", `/v1/checkouts/client/${secret}/test-card`, card);
  const body = { customer_email: email, customer_name: "Bench Buyer", customer_billing_address: { country: "FR" }, confirmation_token_id: token.json.confirmation_token_id };
  await call(base, "POST", `/v1/checkouts/client/${secret}/confirm`, body);
  for (let i = 0; i < 200; i++) {
    const found = await call<{ items: Array<{ id: string }> }>(base, "GET", `/v1/customers/?email=${encodeURIComponent(email)}`, undefined, auth);
    if (found.json.items[0]) return found.json.items[0].id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no customer ${email}`);
}

export interface SeedRequest {
  organizationId: string;
  customerId: string;
  meterId: string;
  /** more customers of the organization */
  customers: number;
  /** events of `eventName` for the customer, `units` 0–9 each */
  events: number;
  eventName: string;
}

export interface Seeded {
  customers: number;
  events: number;
  units: number;
  seconds: { customers: number; events: number; rollups: number };
}

/** The crowd and the events (see the header), the rollups rebuilt, the tables analyzed; what is there now. */
export async function seedMeteredUsage(db: Db, s: SeedRequest): Promise<Seeded> {
  const run = (query: ReturnType<typeof sql>) => rowsOf<Record<string, unknown>>(db, query);
  const started = Date.now();
  await run(sql`UPDATE subscription SET current_period_start = now() - interval '30 days' WHERE customer_id = ${s.customerId}::uuid`);
  const chunk = 250_000;
  for (let done = 0; done < s.customers; done += chunk) {
    const series = sql`generate_series(${done + 1}::int, ${Math.min(s.customers, done + chunk)}::int) AS i`;
    await run(sql`INSERT INTO customer (organization_id, email, name, external_id, metadata)
      SELECT ${s.organizationId}::uuid, 'crowd-' || i || '@example.com', 'Crowd ' || i, 'crowd-' || i, '{}'::jsonb FROM ${series}`);
  }
  const seededCustomers = Date.now();
  for (let done = 0; done < s.events; done += chunk) {
    const series = sql`generate_series(${done + 1}::int, ${Math.min(s.events, done + chunk)}::int) AS i`;
    await run(sql`INSERT INTO event (organization_id, name, source, timestamp, customer_id, metadata)
      SELECT ${s.organizationId}::uuid, ${s.eventName}, 'user', now() - interval '1 hour' - (i % 40000) * interval '1 minute', ${s.customerId}::uuid,
             jsonb_build_object('units', i % 10)
      FROM ${series}`);
  }
  const seededEvents = Date.now();
  await markRollupsBuilding(db, s.organizationId, s.meterId);
  await rebuildMeterRollups(db, s.organizationId, s.meterId);
  for (const t of ["customer", "subscription", "event", "meter_rollup", "benefit_grant"]) await run(sql.raw(`VACUUM ANALYZE ${t}`));
  const [sum] = await run(sql`SELECT coalesce(sum((metadata->>'units')::numeric), 0)::float8 AS units, count(*)::int AS n FROM event
    WHERE organization_id = ${s.organizationId}::uuid AND customer_id = ${s.customerId}::uuid AND name = ${s.eventName}`);
  const [all] = await run(sql`SELECT count(*)::int AS n FROM customer WHERE organization_id = ${s.organizationId}::uuid`);
  return {
    customers: Number(all?.n),
    events: Number(sum?.n),
    units: Number(sum?.units),
    seconds: { customers: (seededCustomers - started) / 1000, events: (seededEvents - seededCustomers) / 1000, rollups: (Date.now() - seededEvents) / 1000 },
  };
}
