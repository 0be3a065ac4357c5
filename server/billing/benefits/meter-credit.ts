// A meter_credit benefit's terms: Polar's `units`, `rollover` and `meter_id`, and till's extension properties
// (docs/credits.md) — `schedule` (every_period, monthly, once), `pool` (customer, subscription) and `per_amount`
// with `min_units`/`max_units` (credits in proportion to the amount paid). Pure: the grant (fulfil.ts), the
// renewal and the monthly credits read the terms from here.

import { CREDIT_SCHEDULES, type CreditPool, type CreditSchedule } from "../../../shared/meter-credit-terms.js";

export { CREDIT_POOLS, CREDIT_SCHEDULES, type CreditPool, type CreditSchedule } from "../../../shared/meter-credit-terms.js";

export interface MeterCreditTerms {
  meterId: string;
  units: number;
  rollover: boolean;
  schedule: CreditSchedule;
  pool: CreditPool;
  /** With it, `units` credits for each `perAmount` minor units paid (rounded down), within min/max. */
  perAmount: number | null;
  minUnits: number | null;
  maxUnits: number | null;
}

const intOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null);

/** The terms of a meter_credit benefit's stored properties; null when they name no meter. */
export function meterCreditTerms(p: Record<string, unknown>): MeterCreditTerms | null {
  if (typeof p.meter_id !== "string") return null;
  return {
    meterId: p.meter_id.toLowerCase(),
    units: intOrNull(p.units) ?? 0,
    rollover: p.rollover === true,
    schedule: (CREDIT_SCHEDULES as readonly unknown[]).includes(p.schedule) ? (p.schedule as CreditSchedule) : "every_period",
    pool: p.pool === "subscription" ? "subscription" : "customer",
    perAmount: intOrNull(p.per_amount),
    minUnits: intOrNull(p.min_units),
    maxUnits: intOrNull(p.max_units),
  };
}

/**
 * The units each credit of a grant gives: the benefit's units, or — with `per_amount` — in proportion to the amount
 * paid (minor units, before tax, after discount), rounded down and held within `min_units`/`max_units`. A grant made
 * with no payment in hand (a seat claimed, a plan granted by the API) credits `min_units`, else nothing.
 */
export function creditUnits(t: MeterCreditTerms, amountPaid: number | null): number {
  if (t.perAmount === null || t.perAmount <= 0) return t.units;
  const raw = amountPaid === null ? 0 : Math.floor((Math.max(0, amountPaid) * t.units) / t.perAmount);
  const floor = Math.max(raw, t.minUnits ?? 0);
  return t.maxUnits === null ? floor : Math.min(floor, t.maxUnits);
}

/** The grant's units of each credit: what it recorded when it was made (`credit_units`), else the benefit's units. */
export function grantCreditUnits(t: MeterCreditTerms, grantProperties: Record<string, unknown>): number {
  return intOrNull(grantProperties.credit_units) ?? t.units;
}

/** `from` plus `months` calendar months, clamped to the month's last day (as billing periods are counted). */
export function addMonths(from: Date, months: number): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/**
 * The next monthly credit of a period anchored at `anchor` after `after`: the first anchor + k months later than it,
 * or null when that is not before the period's end (the renewal credits then). No end known: the month after.
 */
export function nextMonthlyCredit(anchor: Date, after: Date, end: Date | null): Date | null {
  for (let k = 1; k <= 1200; k++) {
    const at = addMonths(anchor, k);
    if (at.getTime() <= after.getTime()) continue;
    return end === null || at.getTime() < end.getTime() ? at : null;
  }
  return null;
}

/** till's extension properties of a meter_credit benefit, kept only when they differ from Polar's behaviour. */
export function meterCreditExtensions(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (v.schedule !== undefined && v.schedule !== "every_period") out.schedule = v.schedule;
  if (v.pool !== undefined && v.pool !== "customer") out.pool = v.pool;
  if (typeof v.per_amount === "number") {
    out.per_amount = v.per_amount;
    out.min_units = typeof v.min_units === "number" ? v.min_units : null;
    out.max_units = typeof v.max_units === "number" ? v.max_units : null;
  }
  return out;
}
