// A product's benefits: what buying it grants, chosen among the organization's benefits (POST …/benefits). The
// boxes are the product's benefits and the first matches of a search the server answers, so an organization with
// many benefits never loads them all; the ticks survive a new search. A benefit of any type is made here (and
// attached at once) or changed in place (BenefitForm); unticking one and saving detaches it.
import { lazy, Suspense, useState, type FormEvent } from "react";
import { Field, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useDebounced } from "../Chooser.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Empty } from "../kit/Empty.js";
import { useToast } from "../Toasts.js";
import type { Benefit, Product } from "../wire.js";
import { benefitType } from "../words.js";
import type { BenefitFull } from "./BenefitForm.js";

// the benefit form (its types' fields, the uploader) loads when a benefit is made or changed
const BenefitForm = lazy(() => import("./BenefitForm.js").then((m) => ({ default: m.BenefitForm })));

const SHOWN = 20;

function BenefitBox({ b, checked, onChange, onEdit }: { b: Benefit; checked: boolean; onChange: (on: boolean) => void; onEdit: () => void }) {
  return (
    <div className="field checkbox">
      <input id={`benefit-${b.id}`} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={`benefit-${b.id}`}>
        {b.description} <span className="hint">({benefitType(b.type)})</span>
      </label>{" "}
      <button type="button" className="link" onClick={onEdit} aria-label={`Edit ${b.description}`}>
        Edit
      </button>
    </div>
  );
}

export function ProductBenefits({ product, mayWrite, onSaved }: { product: Product; mayWrite: boolean; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [editing, setEditing] = useState<BenefitFull | "new" | null>(null);
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  const [chosen, setChosen] = useState<Map<string, Benefit>>(() => new Map(product.benefits.map((b) => [b.id, b])));
  const [typed, setTyped] = useState("");
  const search = useDebounced(typed.trim());
  const found = useLoad(() => v1<ListPage<Benefit>>(scope, "GET", "/benefits/", { query: { query: search, limit: SHOWN } }), `benefits|${search}`);
  const total = found.data?.pagination.total_count ?? 0;
  const shown = [...chosen.values(), ...(found.data?.items ?? []).filter((b) => !chosen.has(b.id))];
  const tick = (b: Benefit, on: boolean) =>
    setChosen((m) => {
      const next = new Map(m);
      if (on) next.set(b.id, b);
      else next.delete(b.id);
      return next;
    });
  async function save(ids: string[], told: string) {
    const r = await v1<Product>(scope, "POST", `/products/${product.id}/benefits`, { body: { benefits: ids } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid(undefined);
    toast(told.replace("{n}", String(r.data.benefits.length)));
    setChosen(new Map(r.data.benefits.map((b) => [b.id, b])));
    onSaved(r.data);
  }
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    await save([...chosen.keys()], "Benefits saved ({n}).");
  }
  async function edit(b: Benefit) {
    const r = await v1<BenefitFull>(scope, "GET", `/benefits/${b.id}`);
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setEditing(r.data);
  }
  async function done(b: BenefitFull) {
    const made = editing === "new";
    setEditing(null);
    if (made) await save([...chosen.keys(), b.id], `Created ${b.description} and attached it.`);
    else {
      toast(`Saved ${b.description}.`);
      found.reload();
      if (chosen.has(b.id)) setChosen((m) => new Map(m).set(b.id, b));
    }
  }
  const form = editing && (
    <Suspense fallback={<Status>Loading…</Status>}>
      <BenefitForm benefit={editing === "new" ? null : editing} onDone={(b) => void done(b)} onCancel={() => setEditing(null)} />
    </Suspense>
  );
  const create = mayWrite && !editing && (
    <button type="button" onClick={() => setEditing("new")}>
      New benefit
    </button>
  );
  const none = !search && total === 0 && product.benefits.length === 0 && !found.loading;
  return (
    <section aria-labelledby="benefits-h">
      <h2 id="benefits-h">Benefits</h2>
      {none && !editing ? (
        <Empty
          title="No benefits yet."
          command='till benefits create license_keys --description "License key" --prefix ACME --activations 3'
          action={
            mayWrite && (
              <button type="button" onClick={() => setEditing("new")}>
                Create the first benefit
              </button>
            )
          }
        >
          A benefit is what buying grants: license keys, files to download, GitHub or Discord access, meter credits, a feature flag, or a note.
        </Empty>
      ) : none ? null : mayWrite ? (
        <form onSubmit={(e) => void onSubmit(e)} aria-label="Benefits">
          <Field
            label="Search: benefits"
            type="search"
            optional
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoComplete="off"
            hint={found.error ?? (total > SHOWN ? `The first ${SHOWN} of ${total} benefits: type more to narrow them.` : null)}
          />
          <fieldset>
            <legend>Granted with this product</legend>
            {shown.map((b) => (
              <BenefitBox key={b.id} b={b} checked={chosen.has(b.id)} onChange={(on) => tick(b, on)} onEdit={() => void edit(b)} />
            ))}
          </fieldset>
          <div className="form-actions">
            <button type="submit">Save benefits</button>
            {create}
          </div>
        </form>
      ) : (
        <ul>
          {product.benefits.map((b) => (
            <li key={b.id}>
              {b.description} ({benefitType(b.type)})
            </li>
          ))}
        </ul>
      )}
      {form}
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}
