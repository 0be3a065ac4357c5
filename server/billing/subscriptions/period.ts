// Billing periods: a subscription's period is its price's interval (day, week, month, year) times its count, in
// calendar terms. Checkouts, renewals, plan changes and the test clock move dates by it.

/** `from` moved by `count` intervals (calendar months/years, clamped to the month's last day). */
export function addInterval(from: Date, interval: string, count: number): Date {
  const d = new Date(from.getTime());
  switch (interval) {
    case "day":
      d.setUTCDate(d.getUTCDate() + count);
      return d;
    case "week":
      d.setUTCDate(d.getUTCDate() + 7 * count);
      return d;
    case "month":
    case "year": {
      const months = interval === "month" ? count : 12 * count;
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, last));
      return d;
    }
    default:
      return d;
  }
}
