// A meter's form, new or changed: its name, which events it counts (the filter builder, with the live count of
// the events it matches) and how (count them, or sum / max / min / average / distinct values of a property), as
// `till meters create` and POST /v1/meters/ take them. The API checks the filter; its 422 is shown as it says.
// Saving opens the meter's page.
import { useState, type FormEvent } from "react";
import "../catalog.css";
import { Field, SelectField, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import type { Meter } from "./meter-parts.js";
import { blankClause, blankGroup, draftOf, FilterBuilder, filterOf, type GroupDraft } from "./MeterFilter.js";

const FUNCTIONS = [
  { value: "sum", label: "Sum of a property" },
  { value: "max", label: "Largest value of a property" },
  { value: "min", label: "Smallest value of a property" },
  { value: "avg", label: "Average of a property" },
  { value: "unique", label: "Distinct values of a property" },
];

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim();

export function MeterForm({ meter }: { meter: Meter | null }) {
  const { scope } = useSeller();
  const [filter, setFilter] = useState<GroupDraft>(() => (meter ? draftOf(meter.filter) : blankGroup([blankClause("name")])));
  const [func, setFunc] = useState(meter?.aggregation.func === "count" ? "" : (meter?.aggregation.func ?? ""));
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const made = filterOf(filter);
    if (made.clauses.length === 0) return setError("Add a condition: a meter counts the events its filter matches (e.g. name is api.call).");
    const aggregation = func ? { func, property: text(f, "property") } : { func: "count" };
    setBusy(true);
    const body = { name: text(f, "name"), filter: made, aggregation };
    const r = meter ? await v1<Meter>(scope, "PATCH", `/meters/${meter.id}`, { body }) : await v1<Meter>(scope, "POST", "/meters/", { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    window.location.assign(href(`/meters/${r.data.id}`, meter ? { saved: 1 } : { created: 1 }));
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={meter ? "Edit the meter" : "New meter"} className="form-page">
      <section className="form-section" aria-labelledby="meter-about-h">
        <h2 id="meter-about-h">About</h2>
        <Field label="Name" name="name" required maxLength={100} defaultValue={meter?.name ?? ""} hint="What the customer sees, e.g. API calls." />
      </section>
      <section className="form-section" aria-labelledby="meter-filter-h">
        <h2 id="meter-filter-h">Which events it counts</h2>
        <p className="hint">
          A property is <code>name</code>, <code>source</code>, <code>timestamp</code> or <code>metadata.&lt;key&gt;</code>; a value of digits
          compares as a number.
        </p>
        <FilterBuilder value={filter} onChange={setFilter} />
      </section>
      <section className="form-section" aria-labelledby="meter-agg-h">
        <h2 id="meter-agg-h">How it measures them</h2>
        <div className="row-fields">
          <SelectField label="Counts" name="func" value={func} onChange={(e) => setFunc(e.target.value)} placeholder="The number of events" options={FUNCTIONS} />
          {func && <Field label="Of the property" name="property" required defaultValue={meter?.aggregation.property ?? ""} placeholder="metadata.tokens" />}
        </div>
      </section>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {meter ? "Save changes" : "Create meter"}
        </button>
        <a href={href(meter ? `/meters/${meter.id}` : "/meters")}>Cancel</a>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}

export function MeterEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("meters");
  const loaded = useLoad(() => (id ? v1<Meter>(scope, "GET", `/meters/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const back = id ? { href: href(`/meters/${id}`), label: loaded.data?.name ?? "The meter" } : { href: href("/meters"), label: "Meters" };
  if (id && !loaded.data) {
    return (
      <Layout title="Edit the meter" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={loaded.data ? `Edit ${loaded.data.name}` : "New meter"} back={back}>
      {mayWrite ? <MeterForm meter={loaded.data ?? null} /> : <ReadOnly what="change meters" />}
    </Layout>
  );
}
