// Migration 0068: a payment is found by the processor's id (its events, a late bank answer) and a customer's charge
// still processing (a wallet's, processingChargeOf) through an index, not a scan of the organization's payments —
// also under a prepared statement's generic plan, whose parameters the partial index's predicate cannot see (the
// query writes its constants out). PostgreSQL only (EXPLAIN's plan); a few thousand payments of one organization.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, usingPostgres } from "../helpers/db.js";

type Db = Awaited<ReturnType<typeof freshDatabase>>;
let database: Db | undefined;
const ORG = "00000000-0000-4000-8000-000000000001";
const CUSTOMER = "00000000-0000-4000-8000-000000000100";

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await freshDatabase();
  await database.db.transaction(async (tx) => {
    // the payments alone (their organization, customers and orders are not what is measured)
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await tx.execute(sql`
      INSERT INTO payment (id, organization_id, customer_id, processor, processor_payment_id, status, amount, currency, method, decline_reason, attempt, created_at)
      SELECT gen_random_uuid(), ${ORG}::uuid, ('00000000-0000-4000-8000-' || lpad((100 + g % 500)::text, 12, '0'))::uuid, 'stripe', 'pi_' || g,
        CASE WHEN g % 1000 = 0 THEN 'pending' WHEN g % 7 = 0 THEN 'failed' ELSE 'succeeded' END, 1000, 'usd', 'card',
        CASE WHEN g % 1000 = 0 THEN 'processing' WHEN g % 7 = 0 THEN 'card_declined' END,
        CASE WHEN g % 3 = 0 THEN 'top_up' ELSE 'renewal' END, now() - (g || ' minutes')::interval
      FROM generate_series(1, 5000) g`);
  });
  await database.db.execute(sql`ANALYZE payment`);
}, 120_000);
afterAll(async () => {
  await database?.close();
});

/**
 * The generic plan of `query` (parameters $1…) with `args`, as a pooled prepared statement runs it after five calls.
 */
async function genericPlan(name: string, types: string, query: string, args: string): Promise<string> {
  if (!database) throw new Error("no database");
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL plan_cache_mode = force_generic_plan`);
    await tx.execute(sql.raw(`PREPARE ${name}(${types}) AS ${query}`));
    const rows = (await tx.execute(sql.raw(`EXPLAIN (COSTS OFF) EXECUTE ${name}(${args})`))) as unknown as Array<{ "QUERY PLAN": string }>;
    await tx.execute(sql.raw(`DEALLOCATE ${name}`));
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
}

describe.skipIf(!usingPostgres)("the payment lookups of migration 0068", () => {
  it("processingChargeOf's query uses payment_processing_idx", async () => {
    // the query of payments' repository.processingChargeOf
    const plan = await genericPlan(
      "processing_charge",
      "uuid, uuid, text, text",
      `SELECT * FROM payment WHERE organization_id = $1 AND customer_id = $2 AND currency = $3 AND attempt = $4 ` +
        `AND "payment"."status" = 'pending' AND "payment"."decline_reason" = 'processing' LIMIT 1`,
      `'${ORG}', '${CUSTOMER}', 'usd', 'top_up'`,
    );
    expect(plan).toContain("payment_processing_idx");
    expect(plan).not.toContain("Seq Scan");
  });

  it("a payment found by the processor's id uses payment_processor_payment_idx", async () => {
    const plan = await genericPlan(
      "by_processor_id", "uuid, text",
      `SELECT * FROM payment WHERE organization_id = $1 AND processor_payment_id IN ($2) ORDER BY created_at DESC LIMIT 1`,
      `'${ORG}', 'pi_4321'`,
    );
    expect(plan).toContain("payment_processor_payment_idx");
    expect(plan).not.toContain("Seq Scan");
  });
});
