// till's own `active_customers` metric on the test clock: customers with a paying subscription in a period or a
// paid order in it (a trial counts from its end), a distinct count over the range as the total, answered only when
// named, the previous period's figure beside it as the home asks it, and unchanged for the SDK (which strips it).
import { RFCDate } from "@polar-sh/sdk/types/rfcdate.js";
import { describe, expect, it } from "vitest";
import { metricsFixture } from "./metrics-fixtures.js";

const fx = metricsFixture();

interface Answer {
  periods: Array<Record<string, number | string>>;
  totals: Record<string, number>;
  metrics: Record<string, { slug: string; type: string }>;
}

async function ask(query: string): Promise<Answer> {
  const res = await fx.raw("GET", `/v1/metrics/?${query}`);
  expect([res.status, res.body]).toEqual([200, expect.anything()]);
  return res.body as unknown as Answer;
}

const range = (start: string, end: string, interval: string) =>
  `start_date=${start}&end_date=${end}&interval=${interval}&timezone=UTC&metrics=active_customers&metrics=active_subscriptions`;

describe("active customers", () => {
  it("counts paying subscriptions and paid orders per period, distinct over the range", async () => {
    await fx.advanceTo("2027-01-01T10:00:00Z");
    const monthly = await fx.sdk.products.create({ name: "Monthly", recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: 1000, priceCurrency: "usd" }] });
    const trial = await fx.sdk.products.create({
      name: "Trial", recurringInterval: "month", trialInterval: "day", trialIntervalCount: 14,
      prices: [{ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" }],
    });
    const ebook = await fx.sdk.products.create({ name: "Ebook", prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }] });
    // January 1st: A subscribes, B buys once, C starts a 14-day trial (paying from the 15th)
    const a = await fx.buy(monthly, "a@example.com");
    await fx.buy(ebook, "b@example.com");
    await fx.buy(trial, "c@example.com");
    // January 10th: A's subscription revoked
    await fx.advanceTo("2027-01-10T10:00:00Z");
    await fx.sdk.subscriptions.update({ id: a.subscriptionId ?? "", subscriptionUpdate: { revoke: true } });
    // February 20th: D starts a trial, still in it at the clock's now (March 1st)
    await fx.advanceTo("2027-02-20T10:00:00Z");
    await fx.buy(trial, "d@example.com");
    await fx.advanceTo("2027-03-01T12:00:00Z");

    const months = await ask(range("2027-01-01", "2027-03-31", "month"));
    expect(months.periods.map((p) => p.active_customers)).toEqual([3, 1, 1]);
    expect(months.totals.active_customers).toBe(3);
    expect(months.metrics.active_customers).toEqual({ slug: "active_customers", display_name: "Active Customers", type: "scalar" });

    // by day (the churn window's lookback before the range is not shown): A until the 10th, B on the 1st, C from
    // the 15th
    const days = await ask(range("2027-01-01", "2027-01-31", "day"));
    const jan = days.periods.map((p) => p.active_customers);
    expect(jan.slice(0, 11)).toEqual([2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    expect(jan.slice(13, 16)).toEqual([0, 1, 1]);
    expect(days.totals.active_customers).toBe(3);

    // the period before January (as the home asks it): nothing yet
    const before = await ask(range("2026-12-01", "2026-12-31", "day"));
    expect(before.totals.active_customers).toBe(0);
    // February on: C only (D is still in its trial)
    const later = await ask(range("2027-02-01", "2027-03-31", "day"));
    expect(later.totals.active_customers).toBe(1);
    expect(later.periods.slice(28).every((p) => p.active_customers === (p.timestamp === "2027-03-01T00:00:00.000Z" ? 1 : 0))).toBe(true);

    // one-time only: B
    const oneTime = await ask(`${range("2027-01-01", "2027-03-31", "month")}&billing_type=one_time`);
    expect(oneTime.totals.active_customers).toBe(1);

    // not named, not answered: Polar's set as it was; the SDK reads a named one without complaint
    const all = await ask("start_date=2027-01-01&end_date=2027-03-31&interval=month");
    expect(all.totals).not.toHaveProperty("active_customers");
    expect(all.totals.active_subscriptions).toBe(1);
    const sdk = await fx.sdk.metrics.get({ startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2027-03-31"), interval: "month", metrics: ["active_customers"] });
    expect(sdk.periods).toHaveLength(3);
  }, 300_000);
});
