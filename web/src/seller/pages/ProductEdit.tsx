// /products/new and /products/<id>/edit: a product's name, description, billing and every price, each of any
// kind the API takes (seller/price-drafts.ts). An untouched price is kept by id; a changed one replaces it; a
// price of a kind this page cannot edit is kept, never dropped; a subscription product's add-ons are chosen in
// their section (ProductAddOns.tsx). Saving opens the product's page.
import { useState } from "react";
import { useFieldArray, useForm, useWatch } from "react-hook-form";
import type { ApiError } from "../../api.js";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading, ReadOnly } from "../parts.js";
import { blankDraft, draftOf, INTERVALS, pricesOf } from "../price-drafts.js";
import { priceDescription } from "../prices.js";
import { href } from "../url.js";
import type { Product } from "../wire.js";
import { PriceFields, type Meter, type ProductFormValues } from "./PriceFields.js";
import { addOnErrors, addOnsChanged, AddOnsField } from "./ProductAddOns.js";
import { billingOf } from "./ProductDetail.js";
import { extrasBody, extrasOf, ProductExtras, type ProductMore } from "./ProductExtras.js";

const INTERVAL_LABEL: Record<(typeof INTERVALS)[number], string> = { day: "Every day", week: "Every week", month: "Every month", year: "Every year" };

function valuesOf(product: Product | null): ProductFormValues {
  return {
    name: product?.name ?? "",
    description: product?.description ?? "",
    interval: product?.recurring_interval ?? "",
    intervalCount: String(product?.recurring_interval_count ?? 1),
    prices: product ? product.prices.filter((p) => !p.is_archived).map((p) => draftOf(p, priceDescription(p, product.recurring_interval))) : [blankDraft()],
  };
}

function ProductForm({ product }: { product: ProductMore | null }) {
  const { scope } = useSeller();
  const [error, setError] = useState<string | undefined>(undefined);
  const [refused, setRefused] = useState<ApiError | null>(null);
  const [addOns, setAddOns] = useState<string[]>(product?.add_on_ids ?? []);
  const meters = useLoad(() => v1<ListPage<Meter>>(scope, "GET", "/meters/", { query: { limit: 100 } }), "meters");
  const { register, control, handleSubmit, setValue, formState } = useForm<ProductFormValues>({ defaultValues: valuesOf(product) });
  const prices = useFieldArray({ control, name: "prices" });
  const interval = useWatch({ control, name: "interval" });
  const [extras, setExtras] = useState(() => extrasOf(product));
  const recurring = Boolean(product ? product.recurring_interval : interval);
  const onSubmit = handleSubmit(async (v) => {
    setError(undefined);
    setRefused(null);
    const made = pricesOf(v.prices);
    if ("error" in made) return setError(made.error);
    if (made.prices.length === 0) return setError("A product needs at least one price: add one.");
    const body: Record<string, unknown> = { name: v.name.trim(), description: v.description.trim() || null, prices: made.prices, ...extrasBody(extras, recurring) };
    if (recurring && addOnsChanged(addOns, product?.add_on_ids)) body.add_on_ids = addOns;
    if (!product) {
      body.recurring_interval = v.interval || null;
      if (v.interval) body.recurring_interval_count = Number(v.intervalCount) || 1;
    }
    const r = product ? await v1<Product>(scope, "PATCH", `/products/${product.id}`, { body }) : await v1<Product>(scope, "POST", "/products/", { body });
    if (!r.ok) {
      setRefused(r.error);
      // the add-ons' refusals are said at their section, by name
      return setError(addOnErrors(r.error, addOns, undefined).length ? "Not saved: see the add-ons." : r.error.message);
    }
    window.location.assign(href(`/products/${r.data.id}`, { saved: product ? 1 : undefined, created: product ? undefined : 1 }));
  });
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label={product ? "Edit the product" : "New product"} className="form-page">
      <section className="form-section" aria-labelledby="about-h">
        <h2 id="about-h">About</h2>
        <div className="field">
          <label htmlFor="product-name">Name</label>
          <input id="product-name" required minLength={3} maxLength={64} autoComplete="off" {...register("name", { required: true })} />
        </div>
        <div className="field">
          <label htmlFor="product-description">
            Description <span className="optional">(optional)</span>
          </label>
          <textarea id="product-description" rows={3} {...register("description")} />
        </div>
      </section>
      <section className="form-section" aria-labelledby="billing-h">
        <h2 id="billing-h">Schedule</h2>
        {product ? (
          <p>
            {product.recurring_interval ? `Renews ${billingOf(product)}.` : "A one-time purchase."}{" "}
            <span className="hint">The billing period is fixed once a product is made.</span>
          </p>
        ) : (
          <div className="row-fields">
            <div className="field">
              <label htmlFor="product-interval">Billing</label>
              <select id="product-interval" {...register("interval")}>
                <option value="">Once (one-time purchase)</option>
                {INTERVALS.map((i) => (
                  <option key={i} value={i}>
                    {INTERVAL_LABEL[i]}
                  </option>
                ))}
              </select>
            </div>
            {interval && (
              <div className="field">
                <label htmlFor="product-interval-count">Periods per renewal</label>
                <input id="product-interval-count" type="number" min={1} max={999} {...register("intervalCount")} />
              </div>
            )}
          </div>
        )}
      </section>
      <section className="form-section" aria-labelledby="prices-h">
        <h2 id="prices-h">Prices</h2>
        <p className="hint">One price per currency, plus any number of usage prices on a subscription.</p>
        {prices.fields.map((f, i) => (
          <PriceFields
            key={f.id}
            index={i}
            control={control}
            register={register}
            setValue={setValue}
            meters={meters.data?.items ?? []}
            recurring={recurring}
            onRemove={() => prices.remove(i)}
          />
        ))}
        <button type="button" onClick={() => prices.append(blankDraft(prices.fields.length > 0 ? "eur" : "usd"))}>
          Add a price
        </button>
      </section>
      {recurring && <AddOnsField productId={product?.id ?? null} ids={addOns} set={setAddOns} error={refused} />}
      <ProductExtras x={extras} set={setExtras} recurring={recurring} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          {product ? "Save changes" : "Create product"}
        </button>
        <a href={href(product ? `/products/${product.id}` : "/products")}>Cancel</a>
      </div>
      <Status tone={error ? "error" : "info"}>{error ?? (formState.isSubmitting ? "Saving…" : null)}</Status>
    </form>
  );
}

export function ProductEdit({ id }: { id: string | null }) {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("products");
  const loaded = useLoad(() => (id ? v1<Product>(scope, "GET", `/products/${id}`) : Promise.resolve({ ok: true as const, data: null })), id ?? "new");
  const back = id ? { href: href(`/products/${id}`), label: loaded.data?.name ?? "The product" } : { href: href("/products"), label: "Products" };
  if (id && !loaded.data) {
    return (
      <Layout title="Edit the product" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  return (
    <Layout title={loaded.data ? `Edit ${loaded.data.name}` : "New product"} back={back}>
      {mayWrite ? <ProductForm product={loaded.data ?? null} /> : <ReadOnly what="change products" />}
    </Layout>
  );
}
