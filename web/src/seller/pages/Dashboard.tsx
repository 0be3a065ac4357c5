// /: the seller's home — MRR, revenue, active subscriptions and churn over a chosen range (in the address as
// `range`), each a chart with its number and change beside it and its periods as a table, on the page's side.
import { useMemo } from "react";
import { formatMoney } from "../../../../shared/money.js";
import { v1 } from "../api.js";
import { LineChart, type Series } from "../Chart.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { CHARTS, loadMetrics, RANGES, rangeOf, summaryOf, type MetricsAnswer, type Range } from "../metrics.js";
import { Loading } from "../parts.js";
import { currentMode, href, params } from "../url.js";

type Chart = (typeof CHARTS)[number];

const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

function formatterOf(chart: Chart, currency: string): (v: number) => string {
  if (chart.kind === "ratio") return percent;
  if (chart.slug === "active_subscriptions") return (v) => String(Math.round(v));
  return (v) => formatMoney(Math.round(v), currency);
}

function periodLabel(iso: string, range: Range): string {
  return range.interval === "year" ? iso.slice(0, 4) : range.interval === "month" ? iso.slice(0, 7) : iso.slice(0, 10);
}

/** What a churn rate of the range is (docs/metrics.md): the mean of its periods' rates, each over its window. */
const perWindow = (range: Range) => (range.interval === "day" ? "per 30 days" : `per ${range.interval}`);

function Metric({ chart, answer, range, currency }: { chart: Chart; answer: MetricsAnswer; range: Range; currency: string }) {
  const format = useMemo(() => formatterOf(chart, currency), [chart, currency]);
  const series: Series = useMemo(
    () => ({ times: answer.periods.map((p) => Date.parse(p.timestamp) / 1000), values: answer.periods.map((p) => p[chart.slug] ?? 0) }),
    [answer, chart],
  );
  const summary = summaryOf(answer, chart.slug, chart.kind);
  const change = summary.first === null ? null : summary.now - summary.first;
  const id = `metric-${chart.slug}`;
  return (
    <section className="metric" aria-labelledby={id}>
      <h2 id={id}>{chart.title}</h2>
      <p className="metric-value" data-testid={chart.slug}>
        {format(summary.now)}
      </p>
      <p className="hint">
        {chart.kind === "flow" ? `in all, ${range.label.toLowerCase()}` : chart.kind === "ratio" ? `${perWindow(range)} on average, ${range.label.toLowerCase()}` : "now"}
        {change !== null && change !== 0 ? ` · ${change > 0 ? "+" : "−"}${format(Math.abs(change))} since the start` : ""}
      </p>
      <figure>
        <LineChart series={series} format={format} label={chart.title} whole={chart.kind !== "ratio"} />
        <figcaption className="visually-hidden">
          {chart.title} by {range.interval}, {range.label.toLowerCase()}; the numbers are in the table below.
        </figcaption>
      </figure>
      <details>
        <summary>{chart.title} by period</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`${chart.title} by period`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col" className="num">
                  {chart.title}
                </th>
              </tr>
            </thead>
            <tbody>
              {answer.periods.map((p, i) => (
                <tr key={p.timestamp}>
                  <td>{periodLabel(p.timestamp, range)}</td>
                  <td className="num">{format(series.values[i] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

function RangePicker({ range, dates }: { range: Range; dates?: { start: string; end: string } }) {
  const org = params().get("org");
  return (
    <>
      <nav aria-label="Range" className="ranges">
        <ul>
          {RANGES.map((r) => (
            <li key={r.id}>
              <a href={href("/", { range: r.id })} aria-current={r.id === range.id ? "true" : undefined}>
                {r.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* any range: the address keeps it (range=custom&from=…&to=…), so it can be shared and reloaded */}
      <form method="get" action="/" className="custom-range" aria-label="Custom range" key={`${dates?.start}-${dates?.end}`}>
        {org && <input type="hidden" name="org" value={org} />}
        <input type="hidden" name="mode" value={currentMode()} />
        <input type="hidden" name="range" value="custom" />
        <label>
          From <input type="date" name="from" required min="2023-01-01" defaultValue={dates?.start} />
        </label>
        <label>
          To <input type="date" name="to" required min="2023-01-01" defaultValue={dates?.end} />
        </label>
        <button type="submit" aria-current={range.id === "custom" ? "true" : undefined}>
          Show this range
        </button>
      </form>
    </>
  );
}

export function Dashboard() {
  const { scope, mode } = useSeller();
  const asked = params();
  const range = rangeOf(asked.get("range"), asked.get("from"), asked.get("to"));
  const metrics = useLoad(() => loadMetrics(scope, range), `${range.id}:${range.from ?? ""}:${range.to ?? ""}`);
  const org = useLoad(
    () => v1<{ default_presentment_currency?: string | null; invoice_details?: { address: unknown; tax_id: string | null } }>(scope, "GET", `/organizations/${scope.organizationId}`),
    "org",
  );
  const currency = org.data?.default_presentment_currency ?? "usd";
  const details = org.data?.invoice_details;
  return (
    <>
      {org.data && (!details?.address || !details.tax_id) && (
        <p className="warning" role="note">
          Your invoices lack your {!details?.address ? "address" : "tax id"}
          {!details?.address && !details?.tax_id ? " and tax id" : ""}: <a href={href("/settings")}>add your legal details</a>.
        </p>
      )}
      <RangePicker range={range} dates={metrics.data} />
      {metrics.data && (
        <p className="hint" data-testid="range-dates">
          {metrics.data.start} to {metrics.data.end}
          {mode === "sandbox" && !range.from ? ", ending on the sandbox's clock today" : ""}
        </p>
      )}
      <Loading loading={metrics.loading} error={metrics.error} />
      {metrics.data && (
        <div className="metrics">
          {CHARTS.map((c) => (
            <Metric key={c.slug} chart={c} answer={metrics.data!} range={range} currency={currency} />
          ))}
        </div>
      )}
      {metrics.data && metrics.data.totals.revenue === 0 && metrics.data.totals.active_subscriptions === 0 && (
        <p className="hint">
          Nothing sold {mode === "sandbox" ? "in the sandbox " : ""}in this range yet. <a href={href("/products/new")}>Create a product</a> and share its checkout link.
        </p>
      )}
    </>
  );
}
