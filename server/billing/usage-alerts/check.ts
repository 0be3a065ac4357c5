// Usage alerts found at ingest time: after a batch is stored, the customers it named who have an
// open subscription measuring a meter with alerts are measured over their current period (the rollups, as the
// renewal reads them), and each alert whose threshold is now reached and that has not fired for that customer
// and period fires once: a crossing row (unique per alert, customer and period), a `till.usage_alert.triggered`
// outbox event (sent only to endpoints naming it), the customer's `customer.state_changed` and the emails (the
// organization's owners; the customer when the alert says so), all in one transaction. An organization without
// alerts pays no query (service.ts's cache). A crash between the batch's commit and this check loses nothing for
// long: the next batch of that customer measures the same totals and fires what is due.
import type { Db, Queryable } from "../../db/client.js";
import { customerStateChanged, enqueue } from "../../db/outbox.js";
import { requestEmail } from "../customer-emails/service.js";
import { loadPrices } from "../products/service.js";
import type { MeteredUnitPriceWire, PriceWire } from "../products/wire.js";
import { creditsOf } from "../subscriptions/meter-credits.js";
import { subscriptionPools } from "../benefits/service.js";
import { applyCredits, meteredCharge, meteredChargeOf, type MeteredUsage } from "../subscriptions/usage.js";
import { batchBounds, customerKey, remember, settled, type Measure, type NamedEvent } from "./estimate.js";
import { isFast, measureConsumed } from "./measure.js";
import { ownerEmails } from "../organizations/service.js";
import * as repo from "./repository.js";
import { alertContext, type AlertContext } from "./service.js";
import { reaches, toUsageAlertWire, USAGE_ALERT_EVENT, type UsageAlertCrossingWire, type UsageAlertRow } from "./wire.js";

/** The customers a batch named, by id (lower-cased) and by external id. */
export interface NamedCustomers {
  ids: Set<string>;
  externalIds: Set<string>;
  /** Each event's customer (estimate.ts's customerKey) and metadata: what bounds the batch's usage. */
  events: NamedEvent[];
}

export const namedCustomers = (): NamedCustomers => ({ ids: new Set(), externalIds: new Set(), events: [] });

/** Where the check stood in this process (tests and the bench read it). */
export const alertCheckCounts = { checks: 0, settled: 0, measured: 0, fired: 0, ms: { subscriptions: 0, prices: 0, usage: 0, rollups: 0, credits: 0, crossed: 0, fire: 0 } };

/** Adds the time `p` takes to `alertCheckCounts.ms[phase]`. */
async function timed<T>(phase: keyof typeof alertCheckCounts.ms, p: Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await p;
  } finally {
    alertCheckCounts.ms[phase] += performance.now() - t;
  }
}

/** Crossings seen, as `${alert}/${customer}/${period start ms}` (they never un-happen). */
const crossedCache = new Set<string>();

/** Prices by id: a price's terms never change (a product's new terms are new prices), so they are kept here. */
const priceCache = new Map<string, PriceWire>();

async function pricesOf(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, PriceWire>> {
  const key = (id: string) => `${organizationId}/${id}`;
  const missing = ids.filter((id) => !priceCache.has(key(id)));
  if (missing.length > 0) {
    if (priceCache.size > 50_000) priceCache.clear();
    for (const [id, price] of await loadPrices(db, organizationId, missing)) priceCache.set(key(id), price);
  }
  return new Map(ids.flatMap((id) => (priceCache.has(key(id)) ? [[id, priceCache.get(key(id))!] as const] : [])));
}

/** The alert's measure of a subscription's usage, or null when it does not apply (no credit, no cap). */
function valueOf(alert: UsageAlertRow, m: Measure): number | null {
  switch (alert.kind) {
    case "units":
      return m.consumed;
    case "amount":
      return m.amount;
    case "credits_percent":
      return m.credit > 0 ? (m.consumed / m.credit) * 100 : null;
    case "cap_percent":
      return m.cap !== null && m.cap > 0 ? (m.amount / m.cap) * 100 : null;
    case "balance":
      return m.credit > 0 ? m.credit - m.consumed : null;
    default:
      return null;
  }
}

/** Measures the named customers' periods and fires the alerts they crossed. Returns how many fired. */
export async function checkUsageAlerts(db: Db, organizationId: string, named: NamedCustomers): Promise<number> {
  const context = await alertContext(db, organizationId);
  const alerts = context.alerts;
  if (alerts.length === 0 || (named.ids.size === 0 && named.externalIds.size === 0)) return 0;
  alertCheckCounts.checks++;
  const meterIds = new Set(alerts.map((a) => a.meterId));
  const keyOf = (r: { alert: UsageAlertRow; m: Measure }) => `${r.alert.id}/${r.m.sub.customerId}/${r.m.sub.currentPeriodStart.getTime()}`;
  // the customers whose known usage plus what their batches can have added reaches no threshold are not measured
  const bounds = batchBounds(named.events, context);
  const ids = [...named.ids].filter((id) => !settled(organizationId, customerKey({ id }), bounds.get(customerKey({ id })), context));
  const externalIds = [...named.externalIds].filter((x) => !settled(organizationId, customerKey({ externalId: x }), bounds.get(customerKey({ externalId: x })), context));
  alertCheckCounts.settled += named.ids.size + named.externalIds.size - ids.length - externalIds.length;
  if (ids.length === 0 && externalIds.length === 0) return 0;
  const keys = [...ids.map((id) => customerKey({ id })), ...externalIds.map((externalId) => customerKey({ externalId }))];
  const fast = [...context.meters.values()].filter((m) => isFast(m, context.ready)).map((m) => ({ id: m.id, count: m.aggregation.func === "count" }));
  const subs = await timed("subscriptions", repo.openSubscriptionsWithSums(db, organizationId, ids, externalIds, fast));
  if (subs.length === 0) {
    remember(organizationId, keys, [], [], context);
    return 0;
  }
  const prices = await timed("prices", pricesOf(db, organizationId, [...new Set(subs.flatMap((s) => s.priceIds))]));
  const alerted = (p: PriceWire | undefined): p is MeteredUnitPriceWire =>
    p !== undefined && p.amount_type === "metered_unit" && meterIds.has(p.meter_id.toLowerCase());
  const plans = subs.flatMap((sub) => {
    const metered = sub.priceIds.map((id) => prices.get(id)).filter(alerted);
    return metered.length > 0 ? [{ sub, metered }] : [];
  });
  const measures = plans.length === 0 ? [] : await timed("usage", measure(db, organizationId, plans, context));
  remember(organizationId, keys, measures, subs, context);
  alertCheckCounts.measured += measures.length;
  // the values first: only (alert, customer) pairs whose threshold is reached are looked up among the crossings
  const reached: Array<{ alert: UsageAlertRow; m: Measure; value: number }> = [];
  for (const m of measures) {
    for (const alert of alerts) {
      if (alert.meterId !== m.meter.id.toLowerCase() || (alert.customerId !== null && alert.customerId !== m.sub.customerId)) continue;
      const value = valueOf(alert, m);
      if (value !== null && reaches(alert, value)) reached.push({ alert, m, value });
    }
  }
  // a crossing once seen stays crossed for its period: remembered here, asked of the database once
  const open = reached.filter((r) => !crossedCache.has(keyOf(r)));
  if (open.length === 0) return 0;
  const crossed = await timed(
    "crossed",
    repo.crossedKeys(db, organizationId, [...new Set(open.map((r) => r.m.sub.customerId))], [
      ...new Map(open.map((r) => [r.m.sub.currentPeriodStart.getTime(), r.m.sub.currentPeriodStart])).values(),
    ]),
  );
  if (crossedCache.size > 100_000) crossedCache.clear();
  for (const key of crossed) crossedCache.add(key);
  const due = open.filter((r) => !crossed.has(keyOf(r)));
  if (due.length === 0) return 0;
  const fired = await db.transaction(async (tx) => {
    let n = 0;
    for (const d of due) if (await fire(tx, organizationId, d.alert, d.m, d.value)) n++;
    return n;
  });
  for (const d of due) crossedCache.add(keyOf(d));
  alertCheckCounts.fired += fired;
  return fired;
}

/** Each subscription's usage of its alerted metered prices over its current period, after its meter credits. */
async function measure(
  db: Queryable,
  organizationId: string,
  plans: Array<{ sub: Awaited<ReturnType<typeof repo.openSubscriptionsWithSums>>[number]; metered: MeteredUnitPriceWire[] }>,
  context: AlertContext,
): Promise<Measure[]> {
  const meterIdOf = (p: MeteredUnitPriceWire) => p.meter_id.toLowerCase();
  // a subscription's own credit pool on a meter counts only the events naming it, as its renewal does
  const pools = context.credits ? await subscriptionPools(db, organizationId, plans.map((p) => p.sub.id)) : new Map<string, Set<string>>();
  const items = plans.flatMap((p, planIndex) =>
    p.metered.flatMap((price) => {
      const meter = context.meters.get(meterIdOf(price));
      if (!meter) return [];
      const customer = { id: p.sub.customerId, externalId: p.sub.externalId };
      const sum = isFast(meter, context.ready) ? (p.sub.sums.get(meter.id.toLowerCase()) ?? 0) : undefined;
      const subscriptionId = pools.get(p.sub.id)?.has(meterIdOf(price)) ? p.sub.id : undefined;
      return [{ planIndex, price, meter, customer, start: p.sub.currentPeriodStart, end: p.sub.currentPeriodEnd, sum, subscriptionId }];
    }),
  );
  const [consumed, credits] = await Promise.all([
    timed("rollups", measureConsumed(db, organizationId, items)),
    context.credits ? timed("credits", creditsOf(db, organizationId, plans.map((p) => p.sub.id))) : new Map<string, Map<string, number>>(),
  ]);
  const usage: MeteredUsage[][] = plans.map(() => []);
  items.forEach((it, n) => {
    const units = consumed[n] ?? 0;
    usage[it.planIndex]!.push({ price: it.price, meter: it.meter, consumed: units, amount: meteredCharge(it.price, units) });
  });
  return plans.flatMap((p, i) => {
    const subCredits = credits.get(p.sub.id);
    const seen = new Set<string>();
    return applyCredits(usage[i] ?? [], subCredits).flatMap((u) => {
      if (!u.meter || seen.has(u.meter.id)) return [];
      seen.add(u.meter.id);
      const charge = meteredChargeOf(u.price, u.billed);
      return [
        {
          sub: p.sub,
          price: u.price,
          meter: { id: u.meter.id, name: u.meter.name },
          consumed: u.consumed,
          credit: subCredits?.get(u.meter.id.toLowerCase()) ?? 0,
          amount: charge.uncapped,
          cap: u.price.cap_amount,
        },
      ];
    });
  });
}

/** Records one crossing with its webhook and emails; false when another batch recorded it first. */
async function fire(tx: Queryable, organizationId: string, alert: UsageAlertRow, m: Measure, value: number): Promise<boolean> {
  const row = await repo.insertCrossing(tx, {
    organizationId,
    alertId: alert.id,
    customerId: m.sub.customerId,
    subscriptionId: m.sub.id,
    periodStart: m.sub.currentPeriodStart,
    periodEnd: m.sub.currentPeriodEnd,
    measured: { value, consumed: m.consumed, credit: m.credit, amount: m.amount },
  });
  if (!row) return false;
  const data: UsageAlertCrossingWire = {
    id: row.id,
    crossed_at: row.crossedAt.toISOString(),
    alert: toUsageAlertWire(alert),
    customer: { id: m.sub.customerId, external_id: m.sub.externalId, email: m.sub.email, name: m.sub.name },
    subscription_id: m.sub.id,
    meter: m.meter,
    period_start: m.sub.currentPeriodStart.toISOString(),
    period_end: m.sub.currentPeriodEnd.toISOString(),
    consumed_units: m.consumed,
    credited_units: m.credit,
    amount: m.amount,
    cap_amount: m.cap,
    currency: m.sub.currency,
    value,
  };
  // a crossing is a change a cache of the customer's entitlements must hear of (a balance exhausted, a cap reached)
  await enqueue(tx, [{ type: USAGE_ALERT_EVENT, organizationId, data: data as unknown as Record<string, unknown> }, customerStateChanged(organizationId, m.sub.customerId)]);
  const recipients = [
    ...(await ownerEmails(tx, organizationId)).map((email) => ({ email, audience: "seller" })),
    ...(alert.notifyCustomer && m.sub.email ? [{ email: m.sub.email, audience: "customer" }] : []),
  ];
  for (const r of recipients) {
    await requestEmail(tx, { organizationId, causeId: row.id, type: "usage_alert", recipient: r.email, data: { ...data, audience: r.audience } });
  }
  return true;
}
