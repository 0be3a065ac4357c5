// Metrics through both SDKs, every response validated by the SDK's models: a 13-month test-clock
// scenario in a sandbox organization (new subscriptions, an upgrade, a trial, a yearly plan, a discount, a
// cancellation at period end, a revoke, refunds, a second currency, a one-time purchase) compared with figures
// computed by hand here from the definitions in docs/metrics.md; limits, export, dashboards, bad input and
// tenancy. Time-zone edges: metrics-time-zones.test.ts.
import { RFCDate } from "@polar-sh/sdk/types/rfcdate.js";
import { RFCDate as RFCDate049 } from "polar-sdk-049/types/rfcdate.js";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor } from "../helpers/seller.js";
import { metricsFixture } from "./metrics-fixtures.js";

const fx = metricsFixture();

const MONTHS = ["2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06", "2027-07", "2027-08", "2027-09", "2027-10", "2027-11", "2027-12", "2028-01"];

describe("a 13-month scenario on the test clock", () => {
  it("answers figures computed by hand, month by month, through both SDKs", async () => {
    await fx.advanceTo("2027-01-01T10:00:00Z");
    const monthly = (name: string, amount: number, currency: "usd" | "eur" = "usd", extra: Record<string, unknown> = {}) =>
      fx.sdk.products.create({ name, recurringInterval: "month", prices: [{ amountType: "fixed", priceAmount: amount, priceCurrency: currency }], ...extra });
    const basic = await monthly("Basic", 1000);
    const pro = await monthly("Pro", 3000);
    const trial = await monthly("Trial", 2000, "usd", { trialInterval: "day", trialIntervalCount: 14 });
    const euro = await monthly("Euro", 5000, "eur");
    const yearly = await fx.sdk.products.create({ name: "Yearly", recurringInterval: "year", prices: [{ amountType: "fixed", priceAmount: 12000, priceCurrency: "usd" }] });
    const ebook = await fx.sdk.products.create({ name: "Ebook", prices: [{ amountType: "fixed", priceAmount: 1500, priceCurrency: "usd" }] });
    const discount = await fx.sdk.discounts.create({ name: "Twenty", type: "percentage", basisPoints: 2000, duration: "forever", code: "TWENTY" });

    // January 1st, 10:00
    const a = await fx.buy(basic, "a@example.com");
    const b = await fx.buy(yearly, "b@example.com");
    const c = await fx.buy(trial, "c@example.com");
    const d = await fx.buy(euro, "d@example.com");
    const e = await fx.buy(ebook, "e@example.com");
    const f = await fx.buy(basic, "f@example.com", { discountId: discount.id });
    expect([a.netAmount, b.netAmount, c.netAmount, d.netAmount, e.netAmount, f.netAmount]).toEqual([1000, 12000, 0, 5000, 1500, 800]);
    expect(d.currency).toBe("eur");
    await fx.sdk.refunds.create({ orderId: e.id, reason: "customer_request", amount: 1500 });
    // costs of January 1st (events at the clock's now): 0.5 and 1.25 dollars, and 2 euros (not the organization's
    // currency)
    await fx.sdk.events.ingest({
      events: [
        { name: "llm.call", customerId: a.customerId, metadata: { _cost: { amount: 0.5, currency: "usd" } } },
        { name: "llm.call", customerId: c.customerId, metadata: { _cost: { amount: "1.25", currency: "usd" } } },
        { name: "llm.call", customerId: d.customerId, metadata: { _cost: { amount: 2, currency: "eur" } } },
      ],
    });

    // February 1st: C's trial converted on the 15th; A, D and F renewed on the 1st
    await fx.advanceTo("2027-02-01T12:00:00Z");
    // February 10th: A upgrades to Pro, the difference invoiced now
    await fx.advanceTo("2027-02-10T10:00:00Z");
    await fx.sdk.subscriptions.update({ id: a.subscriptionId ?? "", subscriptionUpdate: { productId: pro.id, prorationBehavior: "invoice" } });
    // March 5th: D (euro) cancels at the end of its period (April 1st), too expensive; part of A's March renewal
    // refunded
    await fx.advanceTo("2027-03-05T10:00:00Z");
    await fx.sdk.subscriptions.update({ id: d.subscriptionId ?? "", subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_expensive" } });
    const aMarch = (await fx.ordersOf(a.subscriptionId ?? "")).find((o) => o.createdAt.toISOString().startsWith("2027-03"));
    expect(aMarch?.netAmount).toBe(3000);
    await fx.sdk.refunds.create({ orderId: aMarch?.id ?? "", reason: "service_disruption", amount: 500 });
    // June 10th: B (yearly) revoked now, unused
    await fx.advanceTo("2027-06-10T10:00:00Z");
    await fx.sdk.subscriptions.update({ id: b.subscriptionId ?? "", subscriptionUpdate: { revoke: true, customerCancellationReason: "unused" } });
    for (const month of ["2027-07", "2027-08", "2027-09", "2027-10", "2027-11", "2027-12", "2028-01", "2028-02"]) await fx.advanceTo(`${month}-01T12:00:00Z`);

    const res = await fx.sdk.metrics.get({ startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2028-01-31"), interval: "month" });
    const res049 = await fx.sdk049.metrics.get({ startDate: new RFCDate049("2027-01-01"), endDate: new RFCDate049("2028-01-31"), interval: "month" });
    expect(JSON.stringify(res049)).toBe(JSON.stringify(res));
    expect(res.periods.map((p) => p.timestamp.toISOString().slice(0, 7))).toEqual(MONTHS);

    // ---- by hand (docs/metrics.md) ----
    // U: the upgrade's invoiced difference (A, Basic → Pro on Feb 10th), as the order says
    const upgrades = (await fx.ordersOf(a.subscriptionId ?? "")).filter((o) => o.billingReason === "subscription_update");
    expect(upgrades).toHaveLength(1);
    const U = upgrades[0]?.netAmount ?? 0;
    expect(U).toBeGreaterThan(0);
    const per13 = (jan: number, rest: Record<number, number>, otherwise: number) =>
      MONTHS.map((_, i) => (i === 0 ? jan : (rest[i] ?? otherwise)));
    // MRR at each month's end: A 1000 (3000 from Feb 10th) + B 12000/12 + C 2000 (after its trial, Jan 15th)
    // + F 1000 − 20%; D is in euros (not the organization's currency); B revoked in June
    const mrr = per13(1000 + 1000 + 2000 + 800, { 1: 6800, 2: 6800, 3: 6800, 4: 6800 }, 3000 + 2000 + 800);
    // active (paying) subscriptions, D included: A B C D F; D ends April 1st; B in June
    const active = per13(5, { 1: 5, 2: 5, 3: 4, 4: 4 }, 3);
    const committed = per13(5, { 1: 5, 2: 4, 3: 4, 4: 4 }, 3);
    // revenue in dollars: January A 1000 + B 12000 + C 0 (trial) + F 800 + E 1500, then C's first 2000 on the 15th;
    // February: A 1000 + F 800 + C 2000 + U; from March: A 3000 + F 800 + C 2000
    const revenue = per13(1000 + 12000 + 0 + 800 + 1500 + 2000, { 1: 1000 + 800 + 2000 + U }, 3000 + 800 + 2000);
    // net: E refunded in full (January), 500 of A's March renewal refunded
    const net = per13(17300 - 1500, { 1: 3800 + U, 2: 5800 - 500 }, 5800);
    // orders in any currency: January A B C D E F + C's renewal; February A D F C + the upgrade; March A D F C; then A
    // F C
    const orders = per13(7, { 1: 5, 2: 4 }, 3);
    const renewed = per13(1, { 1: 4, 2: 4 }, 3);
    const churned = per13(0, { 3: 1, 5: 1 }, 0);
    // churn rate: churned in the month ÷ active at its start (April: D of 5; June: B of 4)
    const churnRate = per13(0, { 3: 1 / 5, 5: 1 / 4 }, 0);
    const canceled = per13(0, { 2: 1, 5: 1 }, 0);
    // ARPU: MRR ÷ paying subscriptions in dollars (A B C F, then A C F)
    const arpu = per13(Math.round(4800 / 4), { 1: 1700, 2: 1700, 3: 1700, 4: 1700 }, Math.round(5800 / 3));
    const p = res.periods;
    expect(p.map((x) => x.monthlyRecurringRevenue)).toEqual(mrr);
    expect(p.map((x) => x.annualRecurringRevenue)).toEqual(mrr.map((v) => v * 12));
    expect(p.map((x) => x.committedMonthlyRecurringRevenue)).toEqual(mrr);
    expect(p.map((x) => x.activeSubscriptions)).toEqual(active);
    expect(p.map((x) => x.committedSubscriptions)).toEqual(committed);
    expect(p.map((x) => x.revenue)).toEqual(revenue);
    expect(p.map((x) => x.netRevenue)).toEqual(net);
    expect(p.map((x) => x.cumulativeRevenue)).toEqual(revenue.map((_, i) => revenue.slice(0, i + 1).reduce((s, v) => s + v, 0)));
    expect(p.map((x) => x.orders)).toEqual(orders);
    expect(p.map((x) => x.renewedSubscriptions)).toEqual(renewed);
    expect(p.map((x) => x.newSubscriptions)).toEqual(per13(5, {}, 0));
    expect(p.map((x) => x.churnedSubscriptions)).toEqual(churned);
    expect(p.map((x) => x.churnRate)).toEqual(churnRate);
    expect(p.map((x) => x.canceledSubscriptions)).toEqual(canceled);
    expect(p.map((x) => x.canceledSubscriptionsTooExpensive)).toEqual(per13(0, { 2: 1 }, 0));
    expect(p.map((x) => x.canceledSubscriptionsUnused)).toEqual(per13(0, { 5: 1 }, 0));
    expect(p.map((x) => x.averageRevenuePerUser)).toEqual(arpu);
    // LTV: ARPU ÷ monthly churn
    expect(p.map((x) => x.ltv)).toEqual(per13(0, { 3: Math.round(1700 / (1 / 5)), 5: Math.round(5800 / 3 / (1 / 4)) }, 0));
    // January's dollar orders: A B C E F + C's renewal (6); D is in euros
    expect(p[0]?.averageOrderValue).toBe(Math.round(17300 / 6));
    expect(p[0]).toMatchObject({
      oneTimeProducts: 1,
      oneTimeProductsRevenue: 1500,
      oneTimeProductsNetRevenue: 0,
      newSubscriptionsRevenue: 1000 + 12000 + 0 + 800,
      renewedSubscriptionsRevenue: 2000,
      trialMonthlyRecurringRevenue: 0,
    });
    expect(p[1]?.renewedSubscriptionsRevenue).toBe(1000 + 800 + 2000);
    // costs: 1.75 dollars from three customers with events; gross margin = net revenue − costs
    expect(p.map((x) => x.costs)).toEqual(per13(1.75, {}, 0));
    expect(p.map((x) => x.cumulativeCosts)).toEqual(per13(1.75, {}, 1.75));
    expect(p[0]).toMatchObject({ activeUserByEvent: 3, grossMargin: Math.round(15800 - 1.75), grossMarginPercentage: (15800 - 1.75) / 15800 });
    expect(p[0]?.costPerUser).toBeCloseTo(1.75 / 3, 10);
    expect(p[1]).toMatchObject({ grossMargin: 3800 + U, grossMarginPercentage: 1, costs: 0 });
    // totals: sums of flows, the last level, ratios over the range
    expect(res.totals).toMatchObject({
      revenue: revenue.reduce((s, v) => s + v, 0),
      netRevenue: net.reduce((s, v) => s + v, 0),
      orders: orders.reduce((s, v) => s + v, 0),
      monthlyRecurringRevenue: 5800,
      activeSubscriptions: 3,
      churnedSubscriptions: 2,
      canceledSubscriptions: 2,
    });
    // the range's churn rate: the mean of the months' rates, January left out (nothing active at its start to
    // churn from), not 2 churned ÷ 0 active at the range's start
    expect(res.totals.churnRate).toBeCloseTo((1 / 5 + 1 / 4) / 12, 12);
    // checkouts are dated by the organization's clock, as their orders are: the six of January 1st, 2027
    expect(p.map((x) => [x.checkouts, x.succeededCheckouts])).toEqual(MONTHS.map((_, i) => (i === 0 ? [6, 6] : [0, 0])));
    expect(res.totals).toMatchObject({ checkouts: 6, succeededCheckouts: 6, checkoutsConversion: 1 });

    // by day in January: C trialing until the 15th (trial MRR, not MRR)
    const days = await fx.sdk.metrics.get({
      startDate: new RFCDate("2027-01-13"),
      endDate: new RFCDate("2027-01-16"),
      interval: "day",
      metrics: ["monthly_recurring_revenue", "trial_monthly_recurring_revenue", "active_subscriptions"],
    });
    expect(days.periods.map((x) => [x.monthlyRecurringRevenue, x.trialMonthlyRecurringRevenue, x.activeSubscriptions])).toEqual([
      [2800, 2000, 4],
      [2800, 2000, 4],
      [4800, 0, 5],
      [4800, 0, 5],
    ]);
    expect(Object.keys(days.metrics).filter((k) => days.metrics[k as keyof typeof days.metrics])).toEqual([
      "activeSubscriptions",
      "monthlyRecurringRevenue",
      "trialMonthlyRecurringRevenue",
    ]);
    expect(days.periods[0]?.revenue).toBeUndefined();

    // by day, churn is over the trailing 30 days ÷ those active at their start: D ended April 1st (of 5 active on
    // March 2nd's end, and on March 16th's); from May 1st the window (April 2nd – May 1st) holds no churn
    const april = await fx.sdk049.metrics.get({
      startDate: new RFCDate049("2027-04-01"),
      endDate: new RFCDate049("2027-05-01"),
      interval: "day",
      metrics: ["churn_rate", "churned_subscriptions", "ltv", "average_revenue_per_user"],
    });
    expect(april.periods).toHaveLength(31);
    expect(april.periods.map((x) => x.churnedSubscriptions)).toEqual([1, ...new Array<number>(30).fill(0)]);
    expect([april.periods[0]?.churnRate, april.periods[14]?.churnRate, april.periods[29]?.churnRate, april.periods[30]?.churnRate]).toEqual([0.2, 0.2, 0.2, 0]);
    expect(april.periods[0]?.ltv).toBe(Math.round((1700 * ((30 * 12) / 365)) / 0.2));
    // the range's rate is the mean of its days' 30-day rates
    expect(april.totals.churnRate).toBeCloseTo((30 * 0.2) / 31, 12);

    // filters: one product, one customer, one-time only
    const onlyPro = await fx.sdk.metrics.get({ startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2027-12-31"), interval: "month", productId: pro.id });
    expect(onlyPro.periods.map((x) => x.monthlyRecurringRevenue)).toEqual([0, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000]);
    // A moved from Basic to Pro: new under Basic, where it started (with F), never under Pro
    expect(onlyPro.periods.map((x) => x.newSubscriptions)).toEqual(new Array<number>(12).fill(0));
    const onlyBasic = await fx.sdk049.metrics.get({ startDate: new RFCDate049("2027-01-01"), endDate: new RFCDate049("2027-03-31"), interval: "month", productId: basic.id });
    expect(onlyBasic.periods.map((x) => [x.newSubscriptions, x.activeSubscriptions, x.monthlyRecurringRevenue])).toEqual([[2, 2, 1800], [0, 1, 800], [0, 1, 800]]);
    const onlyF = await fx.sdk049.metrics.get({ startDate: new RFCDate049("2027-01-01"), endDate: new RFCDate049("2027-03-31"), interval: "month", customerId: f.customerId });
    expect(onlyF.periods.map((x) => [x.revenue, x.monthlyRecurringRevenue])).toEqual([[800, 800], [800, 800], [800, 800]]);
    const oneTime = await fx.sdk.metrics.get({ startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2027-03-31"), interval: "month", billingType: "one_time" });
    expect(oneTime.periods.map((x) => [x.orders, x.revenue, x.monthlyRecurringRevenue, x.activeSubscriptions])).toEqual([[1, 1500, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]);

    // the export: the same figures as CSV, both SDKs
    const csv = String(await fx.sdk.metrics.export({ startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2027-03-31"), interval: "month", metrics: ["revenue", "monthly_recurring_revenue"] }));
    const csv049 = await fx.sdk049.metrics.export({
      startDate: new RFCDate049("2027-01-01"), endDate: new RFCDate049("2027-03-31"), interval: "month",
      metrics: ["revenue", "monthly_recurring_revenue"],
    });
    expect(csv049).toBe(csv);
    expect(csv.trim().split("\r\n")).toEqual([
      "timestamp,monthly_recurring_revenue,revenue",
      `2027-01-01T00:00:00.000Z,4800,17300`,
      `2027-02-01T00:00:00.000Z,6800,${3800 + U}`,
      `2027-03-01T00:00:00.000Z,6800,5800`,
    ]);
  }, 300_000);
});

describe("limits, bad input, dashboards, tenancy", () => {
  it("reports Polar's limits through both SDKs and refuses what is out of them with a 422", async () => {
    const limits = await fx.sdk.metrics.limits();
    const limits049 = await fx.sdk049.metrics.limits();
    expect(limits.minDate.toString()).toBe("2023-01-01");
    expect(limits049.intervals).toEqual(limits.intervals);
    expect(limits.intervals).toEqual({
      hour: { minDays: 0, maxDays: 7 },
      day: { minDays: 0, maxDays: 366 },
      week: { minDays: 14, maxDays: 371 },
      month: { minDays: 60, maxDays: 1460 },
      year: { minDays: 366, maxDays: 3650 },
    });
    const get = (query: string) => fx.raw("GET", `/v1/metrics/?${query}`);
    const cases: Array<[string, unknown[]]> = [
      ["start_date=2027-01-01&end_date=2027-01-09&interval=hour", ["query", "interval"]],
      ["start_date=2027-01-01&end_date=2027-02-01&interval=month", ["query", "interval"]],
      ["start_date=2027-02-01&end_date=2027-01-01&interval=day", ["query", "end_date"]],
      ["start_date=2022-12-31&end_date=2023-01-01&interval=day", ["query", "start_date"]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=minute", ["query", "interval"]],
      ["start_date=2027-13-01&end_date=2027-01-02&interval=day", ["query", "start_date"]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&timezone=Mars/Olympus", ["query", "timezone"]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&timezone=%2B05:00", ["query", "timezone"]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&metrics=mrr", ["query", "metrics", 0]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&product_id=nope", ["query", "product_id", 0]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&billing_type=free", ["query", "billing_type", 0]],
      ["end_date=2027-01-02&interval=day", ["query", "start_date"]],
      ["start_date=2027-01-01&start_date=2027-01-02&end_date=2027-01-02&interval=day", ["query", "start_date"]],
      ["start_date=2027-02-27&end_date=2027-02-30&interval=day", ["query", "end_date"]],
      ["start_date=9999-12-30&end_date=9999-12-31&interval=day", ["query", "end_date"]],
      ["start_date=2027-01-01&end_date=2027-01-02&interval=day&customer_id=00000000-0000-0000-0000-00000000000g", ["query", "customer_id", 0]],
      [`start_date=2027-01-01&end_date=2027-01-02&interval=day&timezone=UTC%00`, ["query", "timezone"]],
      [`start_date=2027-01-01&end_date=2027-01-02&interval=day&timezone=${"A".repeat(100)}`, ["query", "timezone"]],
      [`start_date=2027-01-01&end_date=2027-01-02&interval=day&${Array.from({ length: 300 }, (_, i) => `metrics=x${i}`).join("&")}`, ["query", "metrics", 0]],
    ];
    for (const [query, loc] of cases) {
      const res = await get(query);
      expect(res.status, query).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>).map((d) => d.loc), query).toContainEqual(loc);
    }
    const csv = await fetch(`${fx.server.url}/v1/metrics/export?start_date=2027-01-01&end_date=2027-01-02&interval=day&metrics=orders`, {
      headers: { authorization: `Bearer ${fx.key}` },
    });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
  });

  it("keeps dashboards per organization (both SDKs), and another organization's data out", async () => {
    const created = await fx.sdk.metrics.createDashboard({ name: "Growth", metrics: ["monthly_recurring_revenue", "churn_rate"] });
    expect(created).toMatchObject({ name: "Growth", metrics: ["monthly_recurring_revenue", "churn_rate"], modifiedAt: null });
    const second = await fx.sdk049.metrics.createDashboard({ name: "Sales" });
    expect(second.metrics).toEqual([]);
    expect((await fx.sdk.metrics.listDashboards({})).map((d) => d.name)).toEqual(["Growth", "Sales"]);
    const updated = await fx.sdk049.metrics.updateDashboard({ id: second.id, metricDashboardUpdate: { metrics: ["revenue"] } });
    expect(updated).toMatchObject({ name: "Sales", metrics: ["revenue"] });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    expect(await fx.sdk.metrics.getDashboard({ id: created.id })).toEqual(created);
    const bad = await fx.raw("POST", "/v1/metrics/dashboards", { name: "X", metrics: ["nope"] });
    expect(bad.status).toBe(422);
    expect((await fx.raw("POST", "/v1/metrics/dashboards", { name: "" })).status).toBe(422);
    expect((await fx.raw("PATCH", `/v1/metrics/dashboards/${created.id}`, { metrics: "revenue" })).status).toBe(422);
    expect((await fx.sdk.metrics.listDashboards({})).length).toBe(2);

    // another organization: its own dashboards, 404 for ours, and none of our numbers
    const stranger = await createSeller(fx.server, "metrics-other");
    const strangerKey = await stranger.createSandboxKey();
    const theirs = sdkFor(fx.server, strangerKey);
    expect(await theirs.metrics.listDashboards({})).toEqual([]);
    // another organization's id answers 404 (like any foreign row); among others, it matches nothing of theirs
    await expect(fx.sdk.metrics.listDashboards({ organizationId: stranger.organizationId })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.sdk.metrics.listDashboards({ organizationId: [stranger.organizationId, randomUUID()] }))).toEqual([]);
    expect((await rawRequest(fx.server.url, strangerKey, "GET", `/v1/metrics/dashboards/${created.id}`)).status).toBe(404);
    expect((await rawRequest(fx.server.url, strangerKey, "PATCH", `/v1/metrics/dashboards/${created.id}`, { name: "Mine" })).status).toBe(404);
    expect((await rawRequest(fx.server.url, strangerKey, "DELETE", `/v1/metrics/dashboards/${created.id}`)).status).toBe(404);
    const year = { startDate: new RFCDate("2027-01-01"), endDate: new RFCDate("2027-12-31"), interval: "month" as const, metrics: ["revenue", "monthly_recurring_revenue"] };
    expect((await theirs.metrics.get(year)).totals).toEqual({ revenue: 0, monthlyRecurringRevenue: 0 });
    // another organization's id: 404; in a list without ours: nothing; their customer as a filter: nothing
    await expect(fx.sdk.metrics.get({ ...year, organizationId: stranger.organizationId })).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.sdk.metrics.get({ ...year, organizationId: [stranger.organizationId, randomUUID()] })).totals).toEqual({ revenue: 0, monthlyRecurringRevenue: 0 });
    const theirCustomer = await theirs.customers.create({ email: "theirs@example.com" });
    expect((await fx.sdk.metrics.get({ ...year, customerId: theirCustomer.id })).totals).toEqual({ revenue: 0, monthlyRecurringRevenue: 0 });
    expect((await fx.sdk.metrics.get(year)).totals.revenue).toBeGreaterThan(0);
    // live and sandbox never mixed: the live organization has none of the sandbox's numbers
    const live = sdkFor(fx.server, await fx.seller.createKey());
    expect((await live.metrics.get(year)).totals).toEqual({ revenue: 0, monthlyRecurringRevenue: 0 });
    expect(await live.metrics.listDashboards({})).toEqual([]);

    await fx.sdk.metrics.deleteDashboard({ id: created.id });
    expect((await fx.raw("GET", `/v1/metrics/dashboards/${created.id}`)).status).toBe(404);
    expect((await fx.sdk.metrics.listDashboards({})).map((d) => d.name)).toEqual(["Sales"]);
    // a key without metrics scopes is refused
    const noMetrics = await fx.seller.createSandboxKey({ orders: ["read"] });
    expect((await rawRequest(fx.server.url, noMetrics, "GET", "/v1/metrics/limits")).status).toBe(403);
  });
});
