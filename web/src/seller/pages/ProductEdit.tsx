// /products/new and /products/<id>: a product's name, description and prices (every one listed; a new price
// replaces the static one, which the API archives, and keeps the others: seller/prices.ts), its benefits, and
// archiving it. A role that may not change products reads only.
import { useState, type FormEvent } from "react";
import { minorDigits } from "../../../../shared/money.js";
import { Field, SelectField, Status, TextAreaField, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Facts, Loading, ReadOnly } from "../parts.js";
import { href } from "../url.js";
import { pricePlan, pricesUpdate, priceDescription } from "../prices.js";
import { isMeteredKind } from "../../kinds.js";
import type { Product } from "../wire.js";
import { ProductBenefits } from "./ProductBenefits.js";

type Said = { tone: Tone; text: string } | undefined;

/** "19.99" in usd → 1999; null when it is not an amount. */
export function toMinor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = /^\s*(\d+)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m) return null;
  const fraction = (m[2] ?? "").padEnd(digits, "0");
  if (fraction.length > digits) return null;
  return Number(m[1]) * 10 ** digits + Number(fraction || "0");
}

/** 1999 in usd → "19.99", the amount field's text. */
const majorOf = (minor: number, currency: string) => (minor / 10 ** minorDigits(currency)).toFixed(minorDigits(currency));

/** The price the form describes, in the API's create shape. */
function priceOf(form: FormData): Record<string, unknown> | string {
  const kind = String(form.get("price_kind"));
  const currency = String(form.get("currency") || "usd").toLowerCase();
  if (kind === "free") return { amount_type: "free" };
  const amount = toMinor(String(form.get("amount") ?? ""), currency);
  if (amount === null) return "Write the amount as a number, e.g. 19.99.";
  if (kind === "custom") return { amount_type: "custom", price_currency: currency, minimum_amount: amount };
  return { amount_type: "fixed", price_currency: currency, price_amount: amount };
}

function ProductForm({ product, onSaved }: { product: Product | null; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  const [busy, setBusy] = useState(false);
  const plan = product ? pricePlan(product) : null;
  const current = plan?.replaced;
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const body: Record<string, unknown> = { name: String(form.get("name") ?? "").trim(), description: String(form.get("description") ?? "").trim() || null };
    const changePrice = !product || form.get("change_price") === "on";
    if (changePrice) {
      const price = priceOf(form);
      if (typeof price === "string") return setSaid({ tone: "error", text: price });
      body.prices = plan ? pricesUpdate(plan, price) : [price];
    }
    if (!product) {
      const interval = String(form.get("interval") || "");
      body.recurring_interval = interval || null;
    }
    setBusy(true);
    setSaid({ tone: "info", text: "Saving…" });
    const r = product ? await v1<Product>(scope, "PATCH", `/products/${product.id}`, { body }) : await v1<Product>(scope, "POST", "/products/", { body });
    setBusy(false);
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `Saved ${r.data.name}.` });
    onSaved(r.data);
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={product ? "Edit the product" : "New product"} className="stack">
      <Field label="Name" name="name" required minLength={3} maxLength={64} defaultValue={product?.name ?? ""} />
      <TextAreaField label="Description" name="description" optional defaultValue={product?.description ?? ""} rows={3} />
      {!product && (
        <SelectField
          label="Billing"
          name="interval"
          placeholder="Once (one-time purchase)"
          options={[
            { value: "month", label: "Every month" },
            { value: "year", label: "Every year" },
          ]}
        />
      )}
      {product && <PricesNow product={product} />}
      {plan?.refusal ? (
        <p className="hint">{plan.refusal}</p>
      ) : (
        <fieldset>
          <legend>{product ? "New price" : "Price"}</legend>
          {product && (
            <div className="field checkbox">
              <input id="change_price" name="change_price" type="checkbox" />
              <label htmlFor="change_price">
                Replace the price (the current one is archived; subscriptions keep theirs{plan && plan.kept.length > 0 && current ? "; the other prices listed stay" : ""})
              </label>
            </div>
          )}
          <SelectField
            label="Kind"
            name="price_kind"
            placeholder="Fixed amount"
            options={[
              { value: "custom", label: "Pay what you want (minimum)" },
              { value: "free", label: "Free" },
            ]}
          />
          <Field
            label="Amount" name="amount" inputMode="decimal" hint="In the currency's units, e.g. 19.99."
            defaultValue={current?.price_amount ? majorOf(current.price_amount, current.price_currency ?? "usd") : ""}
          />
          <Field label="Currency" name="currency" defaultValue={current?.price_currency ?? "usd"} maxLength={3} minLength={3} />
        </fieldset>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {product ? "Save changes" : "Create product"}
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}

/** Every active price of the product, the ones the form does not edit (usage, other currencies) included. */
function PricesNow({ product }: { product: Product }) {
  // the price a buyer chooses first, then what usage adds to it
  const usage = (p: Product["prices"][number]) => Number(isMeteredKind(p.amount_type));
  const active = product.prices.filter((p) => !p.is_archived).sort((a, b) => usage(a) - usage(b));
  if (active.length <= 1) {
    return (
      <p>
        Price now: <strong>{active[0] ? priceDescription(active[0], product.recurring_interval) : "no price"}</strong>
      </p>
    );
  }
  return (
    <div>
      <p id="prices-now">Prices now:</p>
      <ul aria-labelledby="prices-now" data-testid="prices-now">
        {active.map((p) => (
          <li key={p.id}>
            <strong>{priceDescription(p, product.recurring_interval)}</strong>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Archive({ product, onSaved }: { product: Product; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  async function toggle() {
    const r = await v1<Product>(scope, "PATCH", `/products/${product.id}`, { body: { is_archived: !product.is_archived } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: r.data.is_archived ? "Archived: new checkouts can no longer sell it." : "Restored." });
    onSaved(r.data);
  }
  return (
    <section aria-labelledby="archive-h">
      <h2 id="archive-h">{product.is_archived ? "Archived" : "Archive"}</h2>
      <button type="button" className={product.is_archived ? undefined : "danger"} onClick={() => void toggle()}>
        {product.is_archived ? "Restore the product" : "Archive the product"}
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}

export function ProductEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("products");
  const loaded = useLoad(() => (id ? v1<Product>(scope, "GET", `/products/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const [saved, setSaved] = useState<Product | null>(null);
  const product = saved ?? loaded.data ?? null;
  const onSaved = (p: Product) => {
    if (!id) window.location.assign(href(`/products/${p.id}`, { created: 1 }));
    else setSaved(p);
  };
  if (id && !product) return <Layout title="Product"><Loading loading={loaded.loading} error={loaded.error} /></Layout>;
  return (
    <Layout title={product ? product.name : "New product"}>
      <p>
        <a href={href("/products")}>All products</a>
      </p>
      {product && (
        <Facts
          items={[
            ["Id", <code key="id">{product.id}</code>],
            ["Billing", product.recurring_interval ? `every ${product.recurring_interval}` : "once"],
            ["Status", product.is_archived ? "archived" : "active"],
            [
              "Sales",
              <span key="sales">
                <a href={href("/orders", { product_id: product.id })}>its orders</a>
                {product.recurring_interval && (
                  <>
                    {", "}
                    <a href={href("/subscriptions", { product_id: product.id })}>its subscriptions</a>
                  </>
                )}
              </span>,
            ],
          ]}
        />
      )}
      {mayWrite ? <ProductForm product={product} onSaved={onSaved} /> : <ReadOnly what="change products" />}
      {product && <ProductBenefits product={product} mayWrite={mayWrite} onSaved={onSaved} />}
      {product && mayWrite && <Archive product={product} onSaved={onSaved} />}
    </Layout>
  );
}
