// `till metrics`: the chart of a fixed series as a person sees it with NO_COLOR in 80 columns (a snapshot of
// the renderer), the command's span and value helpers, and the CLI against the real server with two paid orders:
// --json is the API's answer, a pipe gets tab-separated lines, a terminal the chart with its summary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct, pay } from "../helpers/checkout.js";
import { rawRequest } from "../helpers/api.js";
import { createSeller, sdkFor, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { describeChange, formatAxis, formatValue, sinceDate, slugOf, summaryLine, type Series } from "../../cli/commands/metrics.js";
import { parseJson, screenText, spawnTillInTerminal, tempConfigDir, till, type TillOptions } from "./till.js";

// the in-process renderings are colourless; restored after, as the worker runs other files next (isolate: false)
const noColor = process.env.NO_COLOR;
process.env.NO_COLOR = "1";
afterAll(() => {
  if (noColor === undefined) delete process.env.NO_COLOR;
  else process.env.NO_COLOR = noColor;
});

const MONTHS = ["2025-12", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"];
const MRR = [120_000, 131_000, 150_500, 149_000, 162_000, 171_250, 190_000, 188_000, 204_000, 223_000, 231_500, 240_000];

describe("the chart", () => {
  it("draws a fixed series in 80 columns without colour: heading, summary, axis labels, columns", async () => {
    const { renderColumnChart } = await import("../../cli/ui/ColumnChart.js");
    const series: Series = {
      slug: "monthly_recurring_revenue",
      name: "Monthly Recurring Revenue",
      type: "currency",
      level: true,
      points: MONTHS.map((m, i) => ({ timestamp: `${m}-01T00:00:00.000Z`, value: MRR[i] ?? 0 })),
      total: 240_000,
    };
    const text = renderColumnChart(
      ["Monthly Recurring Revenue, by month, 2025-12-01 → 2026-11-24 (UTC)", "Acme (acme), live", summaryLine(series, "usd", (iso) => iso.slice(0, 7))],
      series.points.map((p) => ({ label: p.timestamp.slice(0, 7), value: p.value })),
      { columns: 80, axis: (v) => formatAxis(v, "currency", "usd"), combine: "last" },
    );
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/\u001b\[/);
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(`\n${text}\n`).toMatchInlineSnapshot(`
      "
      Monthly Recurring Revenue, by month, 2025-12-01 → 2026-11-24 (UTC)
      Acme (acme), live
      Monthly Recurring Revenue: $2,400.00 now · +$1,200.00 (+100.0%) since 2025-12

      $2.4K ┤                                                      ▃▃▃▃▃ ▆▆▆▆▆ █████
            │                                    ▃▃▃▃▃ ▂▂▂▂▂ ▆▆▆▆▆ █████ █████ █████
            │                        ▃▃▃▃▃ ▆▆▆▆▆ █████ █████ █████ █████ █████ █████
            │      ▃▃▃▃▃ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████
      $1.2K ┤█████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████
            │█████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████
            │█████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████
            │█████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████ █████
         $0 └───────────────────────────────────────────────────────────────────────
             2025-12                       2026-05                           2026-11
      "
    `);
  });

  it("groups more periods than columns, and reads spans, values and changes", async () => {
    const { renderColumnChart } = await import("../../cli/ui/ColumnChart.js");
    const days = Array.from({ length: 365 }, (_, i) => ({ label: `d${i}`, value: i % 7 }));
    const text = renderColumnChart(["Orders"], days, { columns: 80, axis: (v) => formatAxis(v, "scalar", "usd"), combine: "sum" });
    expect(text).toContain("each column: 5 periods");
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(80);

    expect(sinceDate("12mo", "2026-11-24")).toBe("2025-12-01");
    expect(sinceDate("1y", "2026-11-24")).toBe("2025-12-01");
    expect(sinceDate("30d", "2026-11-24")).toBe("2026-10-26");
    expect(sinceDate("2w", "2026-11-24")).toBe("2026-11-11");
    expect(sinceDate("2026-01-31", "2026-11-24")).toBe("2026-01-31");
    expect(() => sinceDate("soon", "2026-11-24")).toThrow(/--since/);
    expect(slugOf("mrr")).toBe("monthly_recurring_revenue");
    expect(slugOf("net-revenue")).toBe("net_revenue");
    expect(slugOf("churned-subscriptions")).toBe("churned_subscriptions");
    expect(formatValue(123_456, "currency", "eur")).toBe("€1,234.56");
    expect(formatValue(500, "currency", "jpy")).toBe("¥500");
    expect(formatValue(0.125, "percentage", "usd")).toBe("12.5%");
    expect(formatAxis(150_000, "currency", "usd")).toBe("$1.5K");
    expect(describeChange(1000, 1500, "currency", "usd")).toBe("+$5.00 (+50.0%)");
    expect(describeChange(0.05, 0.04, "percentage", "usd")).toBe("−1.0 pts");
    expect(describeChange(3, 3, "scalar", "usd")).toBe("no change");
  });
});

describe("till metrics against the server", () => {
  let server: TestServer;
  let seller: Seller;
  let cli: TillOptions;

  beforeAll(async () => {
    server = await startServer();
    seller = await createSeller(server, "cli-metrics");
    cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url } };
    const product = await createProduct(seller, "fixed");
    for (let i = 0; i < 2; i++) await pay(server, await seller.sdk.checkouts.create({ products: [product.id] }));
  }, 120_000);
  afterAll(async () => server?.close());

  it("--json is the API's answer: periods, totals and the metric's definition", async () => {
    const r = await till(["metrics", "revenue", "--since", "7d", "--json"], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = parseJson<{ periods: Array<Record<string, unknown>>; totals: Record<string, number>; metrics: Record<string, unknown> }>(r.stdout);
    expect(body.periods).toHaveLength(7);
    expect(Object.keys(body.periods[0] ?? {}).sort()).toEqual(["revenue", "timestamp"]);
    expect(body.totals).toEqual({ revenue: 5000 });
    expect(body.metrics).toEqual({ revenue: { slug: "revenue", display_name: "Revenue", type: "currency" } });
    const jq = await till(["metrics", "orders", "--since", "7d", "--jq", ".totals.orders"], cli);
    expect(jq.stdout).toBe("2\n");
  });

  it("a pipe gets one tab-separated line per period; a bad metric or span is a clear error", async () => {
    const r = await till(["metrics", "orders", "--since", "3d"], cli);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00(\.000)?Z\t2$/);
    const bad = await till(["metrics", "unicorns", "--since", "3d"], cli);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("Unknown metric: unicorns");
    const span = await till(["metrics", "mrr", "--since", "soon"], cli);
    expect(span.exitCode).not.toBe(0);
    expect(span.stderr).toContain("--since");
    // the message names what is wrong with the interval: a month is too large for 30 days, a day too small for two
    // years
    const large = await till(["metrics", "revenue", "--since", "30d", "--interval", "month"], cli);
    expect([large.exitCode, large.stderr]).toEqual([
      2,
      expect.stringContaining("The interval is too large for the date range: by month, a range covers at least 60 days. Use a smaller interval or increase the date range."),
    ]);
    const small = await till(["metrics", "revenue", "--since", "2y", "--interval", "day"], cli);
    expect([small.exitCode, small.stderr]).toEqual([
      2,
      expect.stringContaining("The interval is too small for the date range: by day, a range covers at most 366 days. Use a larger interval or reduce the date range."),
    ]);
  });

  it("a terminal (NO_COLOR, 80 columns) shows the chart with its summary, and the overview", async () => {
    const env = { ...cli, env: { ...cli.env, NO_COLOR: "1", COLUMNS: "80" } };
    const r = await spawnTillInTerminal(["metrics", "revenue", "--since", "7d"], env);
    const screen = screenText(String(r.stdout));
    expect(screen).toMatch(/Revenue, by day, \d{4}-\d{2}-\d{2} → \d{4}-\d{2}-\d{2} \(UTC\)\ncli-metrics org \d+ \(cli-metrics-[a-z0-9-]+\), live\n/);
    expect(screen).toMatch(/Revenue: \$50\.00 in \d{4}-\d{2}-\d{2} · \+\$50\.00 since \d{4}-\d{2}-\d{2} · \$50\.00 in all/);
    expect(screen).toMatch(/\$50 ┤ +█+/);
    // the overview says what each figure is: a level now, a flow's total over the range beside its last period
    const overview = screenText(String((await spawnTillInTerminal(["metrics", "--since", "7d"], env)).stdout));
    expect(overview).toMatch(/Orders +2 in all +2 in \d{4}-\d{2}-\d{2}/);
    expect(overview).toMatch(/Revenue +\$50\.00 in all +\$50\.00 in \d{4}-\d{2}-\d{2}/);
    expect(overview).toMatch(/Active Subscriptions +0 now/);
  });

  it("in a sandbox, a range without --until ends at the test clock's today", async () => {
    const key = await seller.createSandboxKey();
    const advanced = await rawRequest(server.url, key, "POST", "/v1/test-clock/advance", { by: "84d" });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const clockDay = String(advanced.body.now).slice(0, 10);
    const sandbox = sdkFor(server, key);
    const product = await sandbox.products.create({ name: "Sandbox book", prices: [{ amountType: "fixed", priceAmount: 700, priceCurrency: "usd" }] });
    await pay(server, await sandbox.checkouts.create({ products: [product.id] }));
    const env = { configDir: tempConfigDir(), env: { TILL_API_KEY: key, TILL_SERVER: server.url } };
    const r = await till(["metrics", "orders", "--since", "3d", "--json"], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = parseJson<{ periods: Array<{ timestamp: string; orders: number }>; totals: Record<string, number> }>(r.stdout);
    expect(body.periods.map((p) => p.timestamp.slice(0, 10)).at(-1)).toBe(clockDay);
    expect(body.totals).toEqual({ orders: 1 });
    // and the checkout is dated by the clock as well: it counts on the clock's day
    const checkouts = await till(["metrics", "checkouts", "--since", "1d"], env);
    expect(checkouts.stdout.trim()).toMatch(new RegExp(`^${clockDay}T00:00:00(\\.000)?Z\t1$`));
  });
});
