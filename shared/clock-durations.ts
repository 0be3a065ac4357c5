// The durations `till clock advance` takes (`31d`, `1w`, `12h30m`, `1mo`, `1y`): the CLI checks them before any
// request, the test clock reads them (server/billing/test-clock). Months and years are calendar ones, counted
// as subscription periods are (`1mo` from the 31st ends on the month's last day), so an advance by a plan's
// interval lands on its period end; the other units are fixed lengths.

export const DURATION_EXAMPLES = "31d, 1w, 12h, 30m, 90s, 1mo, 1y or 1d12h";

const WHOLE = /^(\d+(mo|[ywdhms]))+$/;
const PART = /(\d+)(mo|[ywdhms])/g;
const UNIT_MS: Record<string, number> = { w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

export interface ClockDuration {
  /** Calendar months (a year is 12). */
  months: number;
  /** Fixed milliseconds (weeks, days, hours, minutes, seconds). */
  ms: number;
}

/** `1y2mo`, `31d`, `1d12h` → its months and milliseconds; null when it is not such a duration. */
export function parseClockDuration(text: string): ClockDuration | null {
  const trimmed = text.trim().toLowerCase();
  if (!WHOLE.test(trimmed)) return null;
  let months = 0;
  let ms = 0;
  for (const [, n, unit = "s"] of trimmed.matchAll(PART)) {
    if (unit === "y") months += 12 * Number(n);
    else if (unit === "mo") months += Number(n);
    else ms += Number(n) * (UNIT_MS[unit] ?? 0);
  }
  return Number.isSafeInteger(ms) && Number.isSafeInteger(months) ? { months, ms } : null;
}
