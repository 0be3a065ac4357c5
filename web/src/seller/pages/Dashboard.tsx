// /: the seller's home — the figures that matter over a chosen range (in the address: `range`, or `range=custom`
// with `from` and `to`), each beside the period before's (`compare=off` hides it; all time has none) with its
// change and a chart, the shown figures as CSV, and the failed payments to look at. In the sandbox, a range ends on
// its test clock.
import { useMemo, useState } from "react";
import { formatMoney } from "../../../../shared/money.js";
import { v1 } from "../api.js";
import { LineChart, type Series } from "../Chart.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { changeOf, CHARTS, csvOf, loadMetrics, loadPrevious, MIN_DATE, RANGES, rangeOf, type Dated, type HomeMetrics, type Interval, type Range } from "../metrics.js";
import { Loading } from "../parts.js";
import { currentMode, href, params, setParams } from "../url.js";
import { FailedPayments } from "./FailedPayments.js";
import "../home.css";

type Chart = (typeof CHARTS)[number];

const percent = (v: number) => `${(v * 100).toFixed(1)} %`;

function formatterOf(chart: Chart, currency: string): (v: number) => string {
  if (chart.unit === "ratio") return percent;
  if (chart.unit === "count") return (v) => Math.round(v).toLocaleString("en");
  return (v) => formatMoney(Math.round(v), currency);
}

function periodLabel(iso: string, interval: Interval): string {
  return interval === "year" ? iso.slice(0, 4) : interval === "month" ? iso.slice(0, 7) : iso.slice(0, 10);
}

/** What a churn rate of the range is (docs/metrics.md): the mean of its periods' rates, each over its window. */
const perWindow = (interval: Interval) => (interval === "day" ? "per 30 days" : `per ${interval}`);

function whatItIs(chart: Chart, interval: Interval): string {
  if (chart.kind === "flow") return "in the range";
  if (chart.kind === "distinct") return "in the range, each counted once";
  if (chart.kind === "ratio") return `${perWindow(interval)}, on average`;
  return "at the range's end";
}

/** More is better, except what is lost: a change reads good or bad by its direction and the figure. */
const lossy = (chart: Chart) => chart.slug === "churned_subscriptions" || chart.slug === "churn_rate";

function Change({ chart, now, before }: { chart: Chart; now: number; before: number | undefined }) {
  if (before === undefined) return null;
  const change = changeOf(now, before);
  const text = change === null ? "new" : change === 0 ? "no change" : `${change > 0 ? "+" : "−"}${(Math.abs(change) * 100).toFixed(1)} %`;
  const tone = change === null || change === 0 ? "flat" : (change > 0) !== lossy(chart) ? "good" : "bad";
  return (
    <span className={`change ${tone}`} data-testid={`${chart.slug}-change`}>
      {text}
    </span>
  );
}

function Metric({ chart, data, currency }: { chart: Chart; data: HomeMetrics; currency: string }) {
  const format = useMemo(() => formatterOf(chart, currency), [chart, currency]);
  const { current, previous } = data;
  const series: Series = useMemo(
    () => ({
      times: current.periods.map((p) => Date.parse(p.timestamp) / 1000),
      values: current.periods.map((p) => p[chart.slug] ?? 0),
      previous: previous ? current.periods.map((_, i) => previous.periods[i]?.[chart.slug] ?? null) : undefined,
    }),
    [current, previous, chart],
  );
  const now = current.totals[chart.slug] ?? 0;
  const before = previous ? (previous.totals[chart.slug] ?? 0) : undefined;
  const id = `metric-${chart.slug}`;
  return (
    <section className="metric" aria-labelledby={id}>
      <h2 id={id}>{chart.title}</h2>
      <p className="metric-figure">
        <span className="metric-value" data-testid={chart.slug}>
          {format(now)}
        </span>{" "}
        <Change chart={chart} now={now} before={before} />
      </p>
      <p className="hint">
        {whatItIs(chart, current.interval)}
        {before !== undefined && (
          <>
            {" · before: "}
            <span data-testid={`${chart.slug}-previous`}>{format(before)}</span>
          </>
        )}
      </p>
      <figure>
        <LineChart series={series} format={format} label={chart.title} whole={chart.unit !== "ratio"} />
        <figcaption className="visually-hidden">
          {chart.title} by {current.interval}
          {previous ? ", the period before dashed" : ""}; the numbers are in the table below.
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
                {previous && (
                  <th scope="col" className="num">
                    Before
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {current.periods.map((p, i) => (
                <tr key={p.timestamp}>
                  <td>{periodLabel(p.timestamp, current.interval)}</td>
                  <td className="num">{format(series.values[i] ?? 0)}</td>
                  {previous && <td className="num">{series.previous?.[i] == null ? "—" : format(series.previous[i])}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}

/** The presets as links, a custom range as a form (both kept in the address, to share and reload). */
function RangePicker({ range, dates, compare }: { range: Range; dates?: Dated; compare: boolean }) {
  const org = params().get("org");
  const keep = { compare: compare ? undefined : "off" };
  return (
    <div className="range-picker">
      <nav aria-label="Range" className="ranges">
        <ul>
          {RANGES.map((r) => (
            <li key={r.id}>
              <a href={href("/", { range: r.id, ...keep })} aria-current={r.id === range.id ? "true" : undefined}>
                {r.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action="/" className="custom-range" aria-label="Custom range" key={`${dates?.start}-${dates?.end}`}>
        {org && <input type="hidden" name="org" value={org} />}
        <input type="hidden" name="mode" value={currentMode()} />
        <input type="hidden" name="range" value="custom" />
        {!compare && <input type="hidden" name="compare" value="off" />}
        <label>
          From <input type="date" name="from" required min={MIN_DATE} defaultValue={dates?.start} />
        </label>
        <label>
          To <input type="date" name="to" required min={MIN_DATE} defaultValue={dates?.end} />
        </label>
        <button type="submit" aria-current={range.id === "custom" ? "true" : undefined}>
          Show
        </button>
      </form>
    </div>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function InvoiceDetailsWarning({ details }: { details: { address: unknown; tax_id: string | null } | undefined }) {
  if (details?.address && details.tax_id) return null;
  return (
    <p className="warning" role="note">
      Your invoices lack your {!details?.address ? "address" : "tax id"}
      {!details?.address && !details?.tax_id ? " and tax id" : ""}: <a href={href("/settings/legal")}>add your legal details</a>.
    </p>
  );
}

export function Dashboard() {
  const { scope, mode } = useSeller();
  const asked = params();
  const range = rangeOf(asked.get("range"), asked.get("from"), asked.get("to"));
  const [comparing, setCompare] = useState(asked.get("compare") !== "off");
  // all time starts at the organization's first day: there is no period before it to compare with
  const comparable = range.id !== "all";
  const compare = comparing && comparable;
  const key = `${range.id}:${range.from ?? ""}:${range.to ?? ""}`;
  const metrics = useLoad(() => loadMetrics(scope, range), key);
  const loaded = metrics.data;
  // the period before is asked once the range's figures are in (the first paint waits on one metrics query)
  const previous = useLoad(
    () => (compare && loaded ? loadPrevious(scope, range, loaded) : Promise.resolve({ ok: true as const, data: undefined })),
    `${key}:${compare && loaded ? "before" : "none"}`,
  );
  const org = useLoad(
    () => v1<{ default_presentment_currency?: string | null; invoice_details?: { address: unknown; tax_id: string | null } }>(scope, "GET", `/organizations/${scope.organizationId}`),
    "org",
  );
  const currency = org.data?.default_presentment_currency ?? "usd";
  const data: HomeMetrics | undefined = metrics.data && { ...metrics.data, previous: compare ? previous.data : undefined };
  const empty = data && data.current.totals.revenue === 0 && data.current.totals.active_subscriptions === 0;
  return (
    <>
      {org.data && <InvoiceDetailsWarning details={org.data.invoice_details} />}
      <div className="home-toolbar">
        <RangePicker range={range} dates={data?.current} compare={comparing} />
        <div className="toolbar-end">
          {comparable && (
            <label className="toggle">
              <input
                type="checkbox"
                checked={compare}
                onChange={(e) => {
                  setCompare(e.target.checked);
                  setParams({ compare: e.target.checked ? undefined : "off" });
                }}
              />{" "}
              Compare with the period before
            </label>
          )}
          <button type="button" disabled={!data} onClick={() => data && download(`till-metrics-${data.current.start}-${data.current.end}.csv`, csvOf(data))}>
            Export CSV
          </button>
        </div>
      </div>
      {data && (
        <p className="hint" data-testid="range-dates">
          <span data-testid="range-current">
            {data.current.start} to {data.current.end}
          </span>
          {data.previous && (
            <>
              {", compared with "}
              <span data-testid="range-previous">
                {data.previous.start} to {data.previous.end}
              </span>
            </>
          )}
          {!comparable && " (from your first day: nothing before it to compare with)"}
          <span data-testid="range-zone"> · days in {data.zone}</span>
          {mode === "sandbox" && <> · sandbox clock: {data.today}</>}
        </p>
      )}
      <Loading loading={metrics.loading} error={metrics.error ?? previous.error} />
      {empty && (
        <p className="hint">
          Nothing sold {mode === "sandbox" ? "in the sandbox " : ""}in this range yet. <a href={href("/products/new")}>Create a product</a> and share its checkout link.
        </p>
      )}
      {data && (
        <div className="metrics">
          {CHARTS.map((c) => (
            <Metric key={c.slug} chart={c} data={data} currency={currency} />
          ))}
        </div>
      )}
      {data && <FailedPayments />}
    </>
  );
}
