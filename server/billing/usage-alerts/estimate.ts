// What this process knows of a customer's usage between measures (ingest with alerts must stay
// within 10% of ingest without). After a check measures a customer (check.ts), its measures are kept here; each
// later batch of that customer adds an upper bound of what the batch can have added to each meter — a count
// meter: the customer's events in it; a sum over a metadata key: the positive numbers under that key (the meter's
// filter can only leave events out, so no filter is evaluated) — and the check measures the customer again only
// when that bound could reach a threshold, the measures are older than ALERTS_TTL_MS, the alerts
// changed, or a period ended. Other aggregations (and a sum over the timestamp) are measured on every batch.
// Within one process the bound never undercounts (checks of an organization run one at a time: coalesce.ts);
// another replica's batches of the same customer are seen at the next measure, at most ALERTS_TTL_MS later.
import { resolveProperty } from "../../../shared/meter-filter.js";
import type { MeteredUnitPriceWire } from "../products/wire.js";
import { meteredChargeOf } from "../subscriptions/usage.js";
import type { MeterWire } from "../meters/wire.js";
import type { OpenSubscription } from "./repository.js";
import { ALERTS_TTL_MS, type AlertContext } from "./service.js";
import { reaches, type UsageAlertRow } from "./wire.js";

/** A (subscription, meter)'s usage over its current period, as the check measured it. */
export interface Measure {
  sub: OpenSubscription;
  price: MeteredUnitPriceWire;
  meter: { id: string; name: string };
  consumed: number;
  /** The period's credit on the meter (units). */
  credit: number;
  /** What the usage beyond the credit costs, before the cap. */
  amount: number;
  cap: number | null;
}

/** An event of a batch, by the key of the customer it names (customerKey). */
export interface NamedEvent {
  customer: string;
  metadata: Record<string, unknown> | undefined;
}

/** The key of a customer named by id (lower-cased) or by external id. */
export const customerKey = (by: { id: string } | { externalId: string }): string => ("id" in by ? `i:${by.id.toLowerCase()}` : `x:${by.externalId}`);

interface Known {
  at: number;
  context: AlertContext;
  measures: Measure[];
  /** Upper bounds of the units added since the measure, by lower-cased meter id. */
  added: Map<string, number>;
}

const known = new Map<string, Known>();
const at = (organizationId: string, key: string) => `${organizationId}/${key}`;

/** An upper bound of the units each batch event adds to `meter` (Infinity: no bound known). */
function boundOf(meter: MeterWire): ((e: NamedEvent) => number) | null {
  const a = meter.aggregation;
  if (a.func === "count") return () => 1;
  if (a.func !== "sum") return null;
  const prop = resolveProperty(a.property);
  if (typeof prop === "string" || prop.kind !== "metadata") return null;
  const key = prop.key;
  return (e) => {
    const v = e.metadata?.[key];
    return typeof v === "number" && v > 0 ? v : 0;
  };
}

/** Per customer key, per alerted meter (lower-cased id), an upper bound of the units the events added. */
export function batchBounds(events: NamedEvent[], context: AlertContext): Map<string, Map<string, number>> {
  const meters = [...context.meters.values()].map((m) => ({ id: m.id.toLowerCase(), bound: boundOf(m) }));
  const out = new Map<string, Map<string, number>>();
  for (const e of events) {
    let per = out.get(e.customer);
    if (!per) out.set(e.customer, (per = new Map()));
    for (const m of meters) per.set(m.id, (per.get(m.id) ?? 0) + (m.bound ? m.bound(e) : Infinity));
  }
  return out;
}

/** The most `m`'s alert can measure once its units grow by at most `more` (volume tiers are not monotone). */
function highest(alert: UsageAlertRow, m: Measure, more: number): number {
  const upper = m.consumed + more;
  switch (alert.kind) {
    case "units":
      return upper;
    case "credits_percent":
      return m.credit > 0 ? (upper / m.credit) * 100 : -Infinity;
    case "amount":
    case "cap_percent": {
      if (alert.kind === "cap_percent" && (m.cap === null || m.cap <= 0)) return -Infinity;
      const points = [upper, ...(m.price.unit_tiers?.tiers ?? []).flatMap((t) => (t.up_to === null ? [] : [t.up_to + m.credit]))];
      const amounts = points.filter((u) => u >= m.consumed && u <= upper).map((u) => meteredChargeOf(m.price, Math.max(0, u - m.credit)).uncapped);
      const amount = Math.max(...amounts);
      return alert.kind === "amount" ? amount : (amount / m.cap!) * 100;
    }
    default:
      return Infinity;
  }
}

/**
 * Whether a customer's batch can be left unmeasured: its measures are fresh and no alert's threshold can be
 * reached by them plus the bounds (one crossed already included: a new period starts below it); if so the bounds
 * are added to what is known.
 */
export function settled(
  organizationId: string,
  key: string,
  bounds: Map<string, number> | undefined,
  context: AlertContext,
  now = Date.now(),
): boolean {
  const k = known.get(at(organizationId, key));
  if (!k || k.context !== context || now - k.at >= ALERTS_TTL_MS) return false;
  const more = (meterId: string) => (k.added.get(meterId) ?? 0) + (bounds?.get(meterId) ?? 0);
  for (const m of k.measures) {
    if (m.sub.currentPeriodEnd.getTime() <= now) return false;
    const meterId = m.meter.id.toLowerCase();
    const grown = more(meterId);
    if (!Number.isFinite(grown)) return false;
    for (const alert of context.alerts) {
      if (alert.meterId !== meterId || (alert.customerId !== null && alert.customerId !== m.sub.customerId)) continue;
      // a balance only falls as units are consumed: its lowest is the credit less every unit the bound allows
      const extreme = alert.kind === "balance" ? (m.credit > 0 ? m.credit - (m.consumed + grown) : null) : highest(alert, m, grown);
      if (extreme !== null && reaches(alert, extreme)) return false;
    }
  }
  for (const [meterId, n] of bounds ?? []) k.added.set(meterId, (k.added.get(meterId) ?? 0) + n);
  return true;
}

/** Keeps a measure of the customers named by `keys` (each customer under its id and external id too). */
export function remember(organizationId: string, keys: string[], measures: Measure[], subs: OpenSubscription[], context: AlertContext, now = Date.now()): void {
  if (known.size > 100_000) known.clear();
  const byCustomer = new Map<string, Known>();
  const entryOf = (customerId: string) => {
    let k = byCustomer.get(customerId);
    if (!k) byCustomer.set(customerId, (k = { at: now, context, measures: [], added: new Map() }));
    return k;
  };
  for (const s of subs) entryOf(s.customerId);
  for (const m of measures) entryOf(m.sub.customerId).measures.push(m);
  const stored = new Set<string>();
  for (const s of subs) {
    const k = entryOf(s.customerId);
    for (const key of [customerKey({ id: s.customerId }), ...(s.externalId !== null ? [customerKey({ externalId: s.externalId })] : [])]) {
      known.set(at(organizationId, key), k);
      stored.add(key);
    }
  }
  // a customer named without an open subscription measuring an alerted meter: nothing to alert on until then
  for (const key of keys) if (!stored.has(key)) known.set(at(organizationId, key), { at: now, context, measures: [], added: new Map() });
}
