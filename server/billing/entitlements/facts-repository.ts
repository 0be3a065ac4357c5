// The one statement an entitlement check starts with, on its hot path: the customer (by id or external id) and, in
// the same round trip, its granted feature flags and meter credits (with the status of the subscription that made
// each), its live subscriptions with their metered prices, the units its open reservations hold, the organization's
// live meters (those the feature may name, when one is asked) with their rollups' readiness and the customer's usage
// stamp, and whether past-due access is cut. These are rows of the benefits,
// subscriptions, products, meters and events domains read here as the customer state reads them through their doors
// (benefits' grantedOfCustomer, subscriptions' live rows, meters' meterPeriodsOfCustomer, events' rollup readiness) —
// one statement instead of five rounds of them, which is what a check on every request of a seller's app can afford.
import type { Queryable } from "../../db/client.js";
import { rawQuery } from "../../db/prepared.js";
import type { CustomerRef } from "../customers/service.js";

export interface GrantFact {
  benefit_id: string;
  type: string;
  key: string | null;
  subscription_id: string | null;
  /** the status of the subscription that made the grant (a seat holder's: the team's subscription, not its own) */
  subscription_status: string | null;
  meter_id: string | null;
  units: number | null;
}
export interface SubscriptionFact {
  id: string;
  status: string;
  product_id: string;
  start: string;
  end: string;
  metered: Array<{ meter_id: string; overage: string | null }>;
}
export interface MeterRowFact {
  id: string;
  name: string;
  filter: Record<string, unknown>;
  aggregation: Record<string, unknown>;
  ready: boolean;
  /**
   * The customer's usage stamp of a ready meter the feature may name (events' usageStampSql computes the same):
   * a total read at this stamp before is this one.
   */
  stamp: string | null;
}
export interface CustomerEntitlementRows {
  customer_id: string;
  external_id: string | null;
  grants: GrantFact[];
  subscriptions: SubscriptionFact[];
  /** the units open holds keep per meter, and when the first of them expires (epoch ms) */
  held: Array<{ meter_id: string; units: number; expires: number }>;
  meters: MeterRowFact[];
  past_due_access: boolean;
  /** the customer's and the organization's entitlement stamps, read in this statement (entitlementStampSql) */
  stamp: string;
}

/**
 * The customer's (`c`) and its organization's ($1) entitlement stamps as one text: migration 0087's triggers set a
 * new one on every change that can alter the customer's facts, so facts read in the same statement as a stamp are
 * the facts of every later read that sees the same stamp (facts-cache.ts).
 */
export const ENTITLEMENT_STAMP_SQL = `(c.id::text || ':'
    || coalesce((SELECT s.stamp FROM entitlement_stamp s WHERE s.organization_id = $1::uuid AND s.customer_id = c.id), 0)::text || ':'
    || coalesce((SELECT s.stamp FROM entitlement_stamp s WHERE s.organization_id = $1::uuid AND s.customer_id = $1::uuid), 0)::text)`;

const statement = (match: string) => `WITH c AS (
    SELECT c.id, c.external_id FROM customer c
    WHERE c.organization_id = $1::uuid AND ${match} AND c.deleted_at IS NULL LIMIT 1
  ), subs AS (
    SELECT s.id, s.status, s.product_id, s.current_period_start, s.current_period_end, s.price_ids FROM subscription s, c
    WHERE s.organization_id = $1::uuid AND s.customer_id = c.id AND s.ended_at IS NULL
      AND s.status IN ('active', 'trialing', 'past_due', 'unpaid')
  )
  SELECT c.id::text AS customer_id, c.external_id,
    (SELECT coalesce(json_agg(json_build_object(
        'benefit_id', b.id, 'type', b.type, 'key', b.metadata ->> 'key', 'subscription_id', g.subscription_id,
        'subscription_status', gs.status,
        'meter_id', lower(g.properties ->> 'last_credited_meter_id'),
        'units', CASE WHEN jsonb_typeof(g.properties -> 'last_credited_units') = 'number'
                   THEN (g.properties ->> 'last_credited_units')::float8 END)), '[]')::text
      FROM benefit_grant g JOIN benefit b ON b.id = g.benefit_id
        LEFT JOIN subscription gs ON gs.organization_id = $1::uuid AND gs.id = g.subscription_id
      WHERE g.organization_id = $1::uuid AND g.customer_id = c.id AND g.granted_at IS NOT NULL
        AND g.revoked_at IS NULL AND b.type IN ('feature_flag', 'meter_credit')) AS grants,
    (SELECT coalesce(json_agg(json_build_object(
        'id', s.id, 'status', s.status, 'product_id', s.product_id, 'start', s.current_period_start,
        'end', s.current_period_end,
        'metered', (SELECT coalesce(json_agg(json_build_object('meter_id', lower(p.meter_id::text), 'overage', p.overage)), '[]')
                    FROM product_price p
                    WHERE p.organization_id = $1::uuid AND p.id = ANY(s.price_ids) AND p.meter_id IS NOT NULL))), '[]')::text
      FROM subs s) AS subscriptions,
    (SELECT coalesce(json_agg(json_build_object('meter_id', lower(h.meter_id::text), 'units', h.units, 'expires', h.expires)), '[]')::text
      FROM (SELECT r.meter_id, sum(r.units) AS units, floor(extract(epoch FROM min(r.expires_at)) * 1000)::float8 AS expires
            FROM entitlement_reservation r
            WHERE r.organization_id = $1::uuid AND r.customer_id = c.id AND r.status = 'held'
              AND r.expires_at > $3::timestamptz GROUP BY r.meter_id) h) AS held,
    (SELECT coalesce(json_agg(json_build_object('id', m.id, 'name', m.name, 'filter', m.filter, 'aggregation', m.aggregation,
        'ready', coalesce(st.status = 'ready', false),
        'stamp', CASE WHEN st.status = 'ready'
          THEN st.version::text || ':' || coalesce((SELECT sum(u.writes) FROM meter_usage_stamp u WHERE u.meter_id = st.meter_id
            AND (u.customer_id = c.id::text OR u.external_customer_id = c.external_id)), 0)::text END)
        ORDER BY m.created_at, m.id), '[]')::text
      FROM meter m LEFT JOIN meter_rollup_state st ON st.meter_id = m.id
      WHERE m.organization_id = $1::uuid AND m.archived_at IS NULL
        AND ($4::text IS NULL OR lower(m.id::text) = lower($4::text) OR m.name = $4::text)) AS meters,
    coalesce((SELECT o.details -> 'plan_settings' ->> 'access_while_past_due' FROM billing_organization o
      WHERE o.organization_id = $1::uuid), 'true') AS past_due_access,
    ${ENTITLEMENT_STAMP_SQL} AS stamp
  FROM c`;

// two statements, each prepared once per connection (one round trip, no parse or plan on the hot path)
const BY_ID = statement("c.id = $2::uuid");
const BY_EXTERNAL_ID = statement("c.external_id = $2::text");

export async function customerEntitlementRows(
  db: Queryable,
  organizationId: string,
  ref: CustomerRef,
  feature?: string,
  now = new Date(),
): Promise<CustomerEntitlementRows | undefined> {
  const byId = "id" in ref;
  const params = [organizationId, byId ? ref.id.toLowerCase() : ref.externalId, now.toISOString(), feature ?? null];
  const [row] = await rawQuery(db, byId ? BY_ID : BY_EXTERNAL_ID, params);
  if (!row) return undefined;
  const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;
  return {
    customer_id: String(row.customer_id),
    external_id: row.external_id === null || row.external_id === undefined ? null : String(row.external_id),
    grants: json(row.grants),
    subscriptions: json(row.subscriptions),
    held: json(row.held),
    meters: json(row.meters),
    past_due_access: String(row.past_due_access) !== "false",
    stamp: String(row.stamp),
  };
}
