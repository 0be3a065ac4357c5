// SQL of usage alerts (org-scoped): the alerts, their crossings (one per alert, customer and period: the unique
// key makes a repeat a no-op), and the reads the ingest-time check needs (open subscriptions of the customers
// a batch named; the organization's owners, told by email).
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { rowsOf, type Queryable } from "../../db/client.js";
import { usageAlert, usageAlertCrossing } from "../../db/schema/index.js";
import type { UsageAlertRow } from "./wire.js";

export async function insertAlert(db: Queryable, values: typeof usageAlert.$inferInsert): Promise<UsageAlertRow> {
  const [row] = await db.insert(usageAlert).values(values).returning();
  return row!;
}

export async function findAlert(db: Queryable, organizationId: string, id: string): Promise<UsageAlertRow | undefined> {
  const [row] = await db.select().from(usageAlert).where(and(eq(usageAlert.organizationId, organizationId), eq(usageAlert.id, id)));
  return row;
}

export async function listAlerts(db: Queryable, organizationId: string, meterId?: string): Promise<UsageAlertRow[]> {
  return db
    .select()
    .from(usageAlert)
    .where(and(eq(usageAlert.organizationId, organizationId), meterId ? eq(usageAlert.meterId, meterId) : undefined))
    .orderBy(asc(usageAlert.createdAt), asc(usageAlert.id))
    .limit(1000);
}

export async function deleteAlert(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const gone = await db
    .delete(usageAlert)
    .where(and(eq(usageAlert.organizationId, organizationId), eq(usageAlert.id, id)))
    .returning({ id: usageAlert.id });
  return gone.length > 0;
}

export interface OpenSubscription {
  id: string;
  customerId: string;
  externalId: string | null;
  email: string | null;
  name: string | null;
  priceIds: string[];
  currency: string;
  status: string;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

/**
 * The open (active, trialing, past due) subscriptions of the customers named by id or external id, each with its
 * consumed units so far per `fast` meter (a sum's total or a count's events over the meter's hourly rollups, from the
 * hour its period started in: the caller takes off that hour's part before the start), in one statement — the
 * ingest-time check's one read in the usual case.
 */
export async function openSubscriptionsWithSums(
  db: Queryable,
  organizationId: string,
  ids: string[],
  externalIds: string[],
  fast: Array<{ id: string; count: boolean }>,
): Promise<Array<OpenSubscription & { sums: Map<string, number> }>> {
  if (ids.length === 0 && externalIds.length === 0) return [];
  // lists as one JSON parameter each; uuids compared as uuids, so the indexes serve
  const list = (xs: string[]) => sql`(SELECT jsonb_array_elements_text(${JSON.stringify(xs)}::jsonb))`;
  const uuids = (xs: string[]) => sql`(SELECT x::uuid FROM jsonb_array_elements_text(${JSON.stringify(xs)}::jsonb) AS x)`;
  const counted = fast.filter((m) => m.count).map((m) => m.id);
  // one row per (subscription, meter with rollups in its period); a subscription without any has one row, meter null
  // by id, and by the external id carried without an id (the rollups' two keys, each served by its index)
  // the organization's few alerted meters as constants (evaluated once, not per subscription row)
  const constants = (xs: string[]) => (xs.length === 0 ? sql`(NULL::uuid)` : sql`(${sql.join(xs.map((x) => sql`${x}::uuid`), sql`, `)})`);
  const meters = constants(fast.map((m) => m.id));
  const range = sql`r.bucket >= date_trunc('hour', s.current_period_start, 'UTC') AND r.bucket < s.current_period_end`;
  const rollupJoin =
    fast.length === 0
      ? sql`LEFT JOIN (SELECT NULL::uuid AS meter_id, NULL::numeric AS events, NULL::numeric AS total) r ON false`
      : sql`LEFT JOIN LATERAL (
          SELECT r.meter_id, r.events, r.total FROM meter_rollup r WHERE r.meter_id IN ${meters} AND r.customer_id = c.id::text AND ${range}
          UNION ALL
          SELECT r.meter_id, r.events, r.total FROM meter_rollup r
            WHERE c.external_id IS NOT NULL AND r.meter_id IN ${meters} AND r.customer_id = '' AND r.external_customer_id = c.external_id AND ${range}
        ) r ON true`;
  const found = await rowsOf<{
    id: string;
    customer_id: string;
    external_id: string | null;
    email: string | null;
    name: string | null;
    price_ids: string[] | string;
    currency: string;
    status: string;
    start_ms: number | string;
    end_ms: number | string;
    meter_id: string | null;
    q: number | string | null;
  }>(
    db,
    sql`SELECT s.id, c.id AS customer_id, c.external_id, c.email, c.name, to_jsonb(s.price_ids) AS price_ids, s.currency, s.status,
        extract(epoch FROM s.current_period_start) * 1000 AS start_ms, extract(epoch FROM s.current_period_end) * 1000 AS end_ms,
        r.meter_id, sum(CASE WHEN r.meter_id IN ${constants(counted)} THEN r.events::numeric ELSE coalesce(r.total, 0) END) AS q
      FROM customer c JOIN subscription s ON s.customer_id = c.id AND s.organization_id = c.organization_id
      ${rollupJoin}
      WHERE c.organization_id = ${organizationId}::uuid AND c.deleted_at IS NULL
        AND (c.id IN ${uuids(ids)} OR c.external_id IN ${list(externalIds)})
        AND s.status IN ('active', 'trialing', 'past_due')
      GROUP BY s.id, c.id, r.meter_id`,
  );
  const json = <T>(v: T | string): T => (typeof v === "string" ? (JSON.parse(v) as T) : v);
  const subs = new Map<string, OpenSubscription & { sums: Map<string, number> }>();
  for (const r of found) {
    let sub = subs.get(r.id);
    if (!sub) {
      sub = {
        id: r.id,
        customerId: r.customer_id,
        externalId: r.external_id,
        email: r.email,
        name: r.name,
        priceIds: json(r.price_ids),
        currency: r.currency,
        status: r.status,
        currentPeriodStart: new Date(Math.round(Number(r.start_ms))),
        currentPeriodEnd: new Date(Math.round(Number(r.end_ms))),
        sums: new Map(),
      };
      subs.set(r.id, sub);
    }
    if (r.meter_id) sub.sums.set(r.meter_id.toLowerCase(), Number(r.q ?? 0));
  }
  return [...subs.values()];
}

/**
 * Whether the organization has a meter_credit benefit on one of these meters (else no subscription has credits on
 * them).
 */
export async function hasMeterCredits(db: Queryable, organizationId: string, meterIds: string[]): Promise<boolean> {
  if (meterIds.length === 0) return false;
  const found = await rowsOf<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM benefit WHERE organization_id = ${organizationId}::uuid AND type = 'meter_credit'
      AND lower(properties ->> 'meter_id') IN (SELECT jsonb_array_elements_text(${JSON.stringify(meterIds)}::jsonb)) LIMIT 1`,
  );
  return found.length > 0;
}

/** Which (alert, customer, period start) of these already crossed, as `${alert}/${customer}/${ms}` keys. */
export async function crossedKeys(db: Queryable, organizationId: string, customerIds: string[], periodStarts: Date[]): Promise<Set<string>> {
  if (customerIds.length === 0) return new Set();
  const rows = await db
    .select({ a: usageAlertCrossing.alertId, c: usageAlertCrossing.customerId, p: usageAlertCrossing.periodStart })
    .from(usageAlertCrossing)
    .where(
      and(
        eq(usageAlertCrossing.organizationId, organizationId),
        inArray(usageAlertCrossing.customerId, customerIds),
        inArray(usageAlertCrossing.periodStart, periodStarts),
      ),
    );
  return new Set(rows.map((r) => `${r.a}/${r.c}/${r.p.getTime()}`));
}

/** Records a crossing; undefined when it was recorded before (another batch got there first). */
export async function insertCrossing(
  tx: Queryable,
  values: typeof usageAlertCrossing.$inferInsert,
): Promise<typeof usageAlertCrossing.$inferSelect | undefined> {
  const [row] = await tx.insert(usageAlertCrossing).values(values).onConflictDoNothing().returning();
  return row;
}

