// A product's benefits: what buying it grants, chosen among the organization's benefits (POST …/benefits). The
// boxes are the product's benefits and the first matches of a search the server answers, so an organization with
// many benefits never loads them all; the ticks survive a new search.
import { useState, type FormEvent } from "react";
import { Field, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useDebounced } from "../Chooser.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import type { Benefit, Product } from "../wire.js";

const SHOWN = 20;

function BenefitBox({ b, checked, onChange }: { b: Benefit; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <div className="field checkbox">
      <input id={`benefit-${b.id}`} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={`benefit-${b.id}`}>
        {b.description} <span className="hint">({b.type.replace(/_/g, " ")})</span>
      </label>
    </div>
  );
}

export function ProductBenefits({ product, mayWrite, onSaved }: { product: Product; mayWrite: boolean; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
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
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const r = await v1<Product>(scope, "POST", `/products/${product.id}/benefits`, { body: { benefits: [...chosen.keys()] } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Benefits saved (${r.data.benefits.length}).` });
    onSaved(r.data);
  }
  const none = !search && total === 0 && product.benefits.length === 0 && !found.loading;
  return (
    <section aria-labelledby="benefits-h">
      <h2 id="benefits-h">Benefits</h2>
      {none ? (
        <p className="hint">
          The organization has no benefits yet: <code>till benefits create</code> makes license keys, downloads, Discord or GitHub access.
        </p>
      ) : mayWrite ? (
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
              <BenefitBox key={b.id} b={b} checked={chosen.has(b.id)} onChange={(on) => tick(b, on)} />
            ))}
          </fieldset>
          <button type="submit">Save benefits</button>
        </form>
      ) : (
        <ul>
          {product.benefits.map((b) => (
            <li key={b.id}>
              {b.description} ({b.type})
            </li>
          ))}
        </ul>
      )}
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}
