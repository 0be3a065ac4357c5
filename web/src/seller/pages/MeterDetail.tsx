// /meters/<id>: a meter's usage over the last 30 days by day (GET …/quantities), as a chart with its total and
// its days as a table. Its own chunk: the chart library loads only here and on the home.
import { useMemo } from "react";
import { v1 } from "../api.js";
import { LineChart } from "../Chart.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { browserZone } from "../metrics.js";
import { Loading } from "../parts.js";
import { href } from "../url.js";
import type { Meter } from "./Meters.js";

interface Quantities {
  quantities: Array<{ timestamp: string; quantity: number }>;
  total: number;
}

const DAYS = 30;
const count = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

export function MeterDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const meter = useLoad(() => v1<Meter>(scope, "GET", `/meters/${id}`), id);
  const usage = useLoad(() => {
    const end = new Date();
    const start = new Date(end.getTime() - (DAYS - 1) * 86_400_000);
    start.setUTCHours(0, 0, 0, 0);
    return v1<Quantities>(scope, "GET", `/meters/${id}/quantities`, {
      query: { start_timestamp: start.toISOString(), end_timestamp: end.toISOString(), interval: "day", timezone: browserZone() },
    });
  }, id);
  const series = useMemo(
    () => ({ times: (usage.data?.quantities ?? []).map((q) => Date.parse(q.timestamp) / 1000), values: (usage.data?.quantities ?? []).map((q) => q.quantity) }),
    [usage.data],
  );
  return (
    <Layout title={meter.data?.name ?? "Meter"}>
      <p>
        <a href={href("/meters")}>All meters</a>
      </p>
      <Loading loading={meter.loading || usage.loading} error={meter.error ?? usage.error} />
      {usage.data && (
        <section className="metric" aria-labelledby="usage-h">
          <h2 id="usage-h">Usage, last {DAYS} days</h2>
          <p className="metric-value" data-testid="meter-total">
            {count(usage.data.total)}
          </p>
          <figure>
            <LineChart series={series} format={count} label="Usage" whole={false} />
            <figcaption className="visually-hidden">Usage by day; the numbers are in the table below.</figcaption>
          </figure>
          <details>
            <summary>Usage by day</summary>
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Usage by day">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col" className="num">
                      Usage
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {usage.data.quantities.map((q) => (
                    <tr key={q.timestamp}>
                      <td>{q.timestamp.slice(0, 10)}</td>
                      <td className="num">{count(q.quantity)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </section>
      )}
    </Layout>
  );
}
