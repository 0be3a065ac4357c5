// A product's benefits: what buying it grants, chosen among the organization's benefits (POST …/benefits).
import { useState, type FormEvent } from "react";
import { Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import type { Benefit, Product } from "../wire.js";

export function ProductBenefits({ product, all, mayWrite, onSaved }: { product: Product; all: Benefit[]; mayWrite: boolean; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  const has = new Set(product.benefits.map((b) => b.id));
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const chosen = new FormData(e.currentTarget).getAll("benefit").map(String);
    const r = await v1<Product>(scope, "POST", `/products/${product.id}/benefits`, { body: { benefits: chosen } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Benefits saved (${r.data.benefits.length}).` });
    onSaved(r.data);
  }
  return (
    <section aria-labelledby="benefits-h">
      <h2 id="benefits-h">Benefits</h2>
      {all.length === 0 && product.benefits.length === 0 ? (
        <p className="hint">
          The organization has no benefits yet: <code>till benefits create</code> makes license keys, downloads, Discord or GitHub access.
        </p>
      ) : mayWrite ? (
        <form onSubmit={(e) => void onSubmit(e)} aria-label="Benefits">
          <fieldset>
            <legend>Granted with this product</legend>
            {all.map((b) => (
              <div className="field checkbox" key={b.id}>
                <input id={`benefit-${b.id}`} type="checkbox" name="benefit" value={b.id} defaultChecked={has.has(b.id)} />
                <label htmlFor={`benefit-${b.id}`}>
                  {b.description} <span className="hint">({b.type.replace(/_/g, " ")})</span>
                </label>
              </div>
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
