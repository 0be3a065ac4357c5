// A checkout link's form, new or changed: the products it sells (one or more, in the order the buyer sees
// them), its label, a discount it applies, the page after payment, whether buyers may type a discount code and
// whether the billing address is asked. Saving opens the link's page.
import { useState, type FormEvent } from "react";
import "../catalog.css";
import { CheckboxField, Field, Status } from "../../ui.js";
import { v1 } from "../api.js";
import { Chooser } from "../Chooser.js";
import { useSeller } from "../context.js";
import { href } from "../url.js";
import type { Product } from "../wire.js";
import type { CheckoutLink } from "./CheckoutLinks.js";
import type { Discount } from "./Discounts.js";

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim() || null;

function ProductsChosen({ chosen, onChange }: { chosen: Array<{ id: string; name: string }>; onChange: (next: Array<{ id: string; name: string }>) => void }) {
  const { scope } = useSeller();
  const add = async (id: string) => {
    if (!id || chosen.some((p) => p.id === id)) return;
    const r = await v1<Product>(scope, "GET", `/products/${id}`);
    if (r.ok) onChange([...chosen, { id: r.data.id, name: r.data.name }]);
  };
  return (
    <fieldset>
      <legend>Sells</legend>
      {chosen.length === 0 ? (
        <p className="hint">No product yet: choose one below.</p>
      ) : (
        <ul className="chosen-list" aria-label="Products the link sells">
          {chosen.map((p) => (
            <li key={p.id}>
              {p.name}{" "}
              <button type="button" className="link" aria-label={`Remove ${p.name}`} onClick={() => onChange(chosen.filter((x) => x.id !== p.id))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <Chooser<Product>
        label="Add a product"
        name="add_product"
        path="/products/"
        filters={{ is_archived: false }}
        describe={(p) => p.name}
        exclude={chosen.map((p) => p.id)}
        placeholder="Choose a product"
        onChange={(id) => void add(id)}
      />
    </fieldset>
  );
}

export function CheckoutLinkForm({ link }: { link: CheckoutLink | null }) {
  const { scope } = useSeller();
  const [chosen, setChosen] = useState<Array<{ id: string; name: string }>>(link?.products.map((p) => ({ id: p.id, name: p.name })) ?? []);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (chosen.length === 0) return setError("Choose the product the link sells.");
    const f = new FormData(e.currentTarget);
    const body: Record<string, unknown> = {
      products: chosen.map((p) => p.id),
      label: text(f, "label"),
      success_url: text(f, "success_url"),
      allow_discount_codes: f.get("allow_discount_codes") === "on",
      require_billing_address: f.get("require_billing_address") === "on",
    };
    const discount = text(f, "discount");
    if (discount === "none") body.discount_id = null;
    else if (discount) body.discount_id = discount;
    if (!link) body.payment_processor = "stripe";
    setBusy(true);
    const r = link
      ? await v1<CheckoutLink>(scope, "PATCH", `/checkout-links/${link.id}`, { body })
      : await v1<CheckoutLink>(scope, "POST", "/checkout-links/", { body });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    window.location.assign(href(`/checkout-links/${r.data.id}`, link ? { saved: 1 } : { created: 1 }));
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={link ? "Edit the checkout link" : "New checkout link"} className="form-page">
      <section className="form-section" aria-labelledby="link-products-h">
        <h2 id="link-products-h">Products</h2>
        <ProductsChosen chosen={chosen} onChange={setChosen} />
      </section>
      <section className="form-section" aria-labelledby="link-about-h">
        <h2 id="link-about-h">Checkout</h2>
        <Field label="Label" name="label" optional maxLength={256} defaultValue={link?.label ?? ""} hint="Yours only, to tell links apart (e.g. Newsletter, Twitter bio)." />
        <Chooser<Discount>
          label="Discount applied"
          name="discount"
          path="/discounts/"
          describe={(d) => d.name}
          placeholder={link ? `Keep: ${link.discount?.name ?? "none"}` : "None"}
          extra={link?.discount ? [{ value: "none", label: "No discount" }] : []}
        />
        <Field label="After payment, go to" name="success_url" type="url" optional defaultValue={link?.success_url ?? ""} placeholder="https://example.com/thanks" />
        <CheckboxField label="Buyers may enter a discount code" name="allow_discount_codes" defaultChecked={link?.allow_discount_codes ?? true} />
        <CheckboxField label="Ask for the billing address" name="require_billing_address" defaultChecked={link?.require_billing_address ?? false} />
      </section>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {link ? "Save changes" : "Create checkout link"}
        </button>
        <a href={href(link ? `/checkout-links/${link.id}` : "/checkout-links")}>Cancel</a>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (busy ? "Saving…" : null)}</Status>
    </form>
  );
}
