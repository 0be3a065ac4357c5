// /meters/<id>: a meter's usage over the last 30 days by day (GET …/quantities), as a chart with its total and
// its days as a table; what it counts in words, its edit page as the header's action, archiving it after asking
// once more. Its own chunk: the chart library loads only here and on the home.
import { useMemo, useState } from "react";
import type { Filter } from "../../../../shared/meter-filter.js";
import { Status } from "../../ui.js";
import { v1 } from "../api.js";
import { LineChart } from "../Chart.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { browserZone } from "../metrics.js";
import { Confirm } from "../kit/Confirm.js";
import { useFlash } from "../kit/flash.js";
import { Facts, Loading } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href } from "../url.js";
import { ARCHIVE_METER_BODY, archiveMeter, measures, type Meter } from "./meter-parts.js";

const SAYS: Record<string, string> = { eq: "is", ne: "is not", gt: ">", gte: "≥", lt: "<", lte: "≤", like: "contains", not_like: "does not contain" };

/** A filter in words: "name is api.call and (metadata.tier is pro or …)". */
export function filterWords(f: Filter, top = true): string {
  const parts = f.clauses.map((c) => ("conjunction" in c ? filterWords(c, false) : `${c.property} ${SAYS[c.operator] ?? c.operator} ${JSON.stringify(c.value)}`));
  const joined = parts.join(` ${f.conjunction} `);
  return top || parts.length < 2 ? joined : `(${joined})`;
}

function Archive({ meter, onSaved }: { meter: Meter; onSaved: (m: Meter) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const act = async (on: boolean) => {
    const r = await archiveMeter(scope, meter, on);
    if (typeof r === "string") return setError(r);
    toast(on ? `Archived ${meter.name}.` : `Restored ${meter.name}.`);
    onSaved(r);
  };
  return (
    <section aria-labelledby="archive-h" className="danger-zone">
      <h2 id="archive-h">{meter.archived_at ? "Archived" : "Archive"}</h2>
      {meter.archived_at ? (
        <button type="button" onClick={() => void act(false)}>
          Restore the meter
        </button>
      ) : (
        <>
          <p>{ARCHIVE_METER_BODY}</p>
          <Confirm trigger="Archive the meter" title={`Archive ${meter.name}?`} body={ARCHIVE_METER_BODY} confirm="Yes, archive it" cancel="Keep it" onConfirm={() => act(true)} />
        </>
      )}
      <Status tone="error">{error}</Status>
    </section>
  );
}

interface Quantities {
  quantities: Array<{ timestamp: string; quantity: number }>;
  total: number;
}

const DAYS = 30;
const count = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

export function MeterDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("meters");
  const meter = useLoad(() => v1<Meter>(scope, "GET", `/meters/${id}`), id);
  const [saved, setSaved] = useState<Meter | null>(null);
  const m = saved ?? meter.data;
  useFlash({ created: `Created ${m?.name ?? "the meter"}.`, saved: `Saved ${m?.name ?? "the meter"}.` }, Boolean(m));
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
    <Layout
      title={m?.name ?? "Meter"}
      back={{ href: href("/meters"), label: "Meters" }}
      action={
        mayWrite && m ? (
          <a className="button primary" href={href(`/meters/${m.id}/edit`)}>
            Edit meter
          </a>
        ) : undefined
      }
    >
      <Loading loading={meter.loading || usage.loading} error={meter.error ?? usage.error} />
      {m && (
        <Facts
          items={[
            ["Counts", measures(m)],
            ["Of events where", <code key="f">{filterWords(m.filter)}</code>],
            ["Status", m.archived_at ? "archived" : "active"],
            ["Id", <code key="id">{m.id}</code>],
          ]}
        />
      )}
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
      {m && mayWrite && <Archive meter={m} onSaved={setSaved} />}
    </Layout>
  );
}
