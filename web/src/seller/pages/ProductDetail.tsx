// /products/<id>: a product as a seller checks it — its billing, every active price as it reads (the usage
// prices after the one a buyer picks), the add-ons it offers, its benefits, its sales a click away, and archiving
// it (asked once more) or restoring it. Editing is its own page (the header's action).
import { useEffect, useState } from "react";
import { Status } from "../../ui.js";
import { isMeteredKind } from "../../kinds.js";
import { v1 } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { Layout } from "../Layout.js";
import { day, Facts, Loading, ReadOnly } from "../parts.js";
import { priceDescription } from "../prices.js";
import { useToast } from "../Toasts.js";
import { href, params } from "../url.js";
import type { Price, Product } from "../wire.js";
import { AddOnsList } from "./ProductAddOns.js";
import { ProductBenefits } from "./ProductBenefits.js";

/** The price a buyer chooses first, then what usage adds to it. */
export const activePrices = (product: Product): Price[] =>
  product.prices.filter((p) => !p.is_archived).sort((a, b) => Number(isMeteredKind(a.amount_type)) - Number(isMeteredKind(b.amount_type)));

/** "every month", "every 2 days"… or "once". */
export function billingOf(product: Product): string {
  const every = product.recurring_interval;
  if (!every) return "once";
  const count = product.recurring_interval_count ?? 1;
  return count > 1 ? `every ${count} ${every}s` : `every ${every}`;
}

export const ARCHIVED_SAID = "Archived: new checkouts can no longer sell it.";

/** Archives a product on the API; says what happened as a toast (or the error). */
export async function archiveProduct(scope: ReturnType<typeof useSeller>["scope"], product: Product, archived: boolean): Promise<Product | string> {
  const r = await v1<Product>(scope, "PATCH", `/products/${product.id}`, { body: { is_archived: archived } });
  return r.ok ? r.data : r.error.message;
}

function Archive({ product, onSaved }: { product: Product; onSaved: (p: Product) => void }) {
  const { scope } = useSeller();
  const toast = useToast();
  const [error, setError] = useState<string | undefined>(undefined);
  const act = async (archived: boolean) => {
    const r = await archiveProduct(scope, product, archived);
    if (typeof r === "string") return setError(r);
    setError(undefined);
    toast(r.is_archived ? ARCHIVED_SAID : `Restored ${r.name}.`);
    onSaved(r);
  };
  return (
    <section aria-labelledby="archive-h" className="danger-zone">
      <h2 id="archive-h">{product.is_archived ? "Archived" : "Archive"}</h2>
      {product.is_archived ? (
        <>
          <p>New checkouts cannot sell it. Restoring it puts it back on sale.</p>
          <button type="button" onClick={() => void act(false)}>
            Restore the product
          </button>
        </>
      ) : (
        <>
          <p>Stop selling it: new checkouts can no longer sell it; subscribers keep their subscriptions.</p>
          <Confirm
            trigger="Archive the product"
            title={`Archive ${product.name}?`}
            body="New checkouts can no longer sell it. Subscriptions to it keep renewing, and you can restore it at any time."
            confirm="Yes, archive it"
            cancel="Keep it on sale"
            onConfirm={() => act(true)}
          />
        </>
      )}
      <Status tone="error">{error}</Status>
    </section>
  );
}

export function ProductDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("products");
  const loaded = useLoad(() => v1<Product>(scope, "GET", `/products/${id}`), id);
  const [saved, setSaved] = useState<Product | null>(null);
  const product = saved ?? loaded.data ?? null;
  const name = product?.name;
  useEffect(() => {
    // the editor's "saved" and "created": said once, then gone from the address
    const p = params();
    if (!name || !(p.has("saved") || p.has("created"))) return;
    toast(p.has("created") ? `Created ${name}.` : `Saved ${name}.`);
    p.delete("saved");
    p.delete("created");
    window.history.replaceState(null, "", `${window.location.pathname}?${p.toString()}`);
  }, [name, toast]);
  const back = { href: href("/products"), label: "Products" };
  if (!product) {
    return (
      <Layout title="Product" back={back}>
        <Loading loading={loaded.loading} error={loaded.error} />
      </Layout>
    );
  }
  const edit = mayWrite ? (
    <a className="button primary" href={href(`/products/${product.id}/edit`)}>
      Edit product
    </a>
  ) : undefined;
  const prices = activePrices(product);
  return (
    <Layout title={product.name} back={back} action={edit}>
      {product.description && <p className="lead">{product.description}</p>}
      <Facts
        items={[
          ["Id", <code key="id">{product.id}</code>],
          ["Billing", billingOf(product)],
          ["Status", product.is_archived ? "archived" : "active"],
          ["Created", day(product.created_at)],
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
      <section aria-labelledby="prices-h">
        <h2 id="prices-h">Prices</h2>
        <ul aria-labelledby="prices-h" data-testid="prices-now" className="price-list">
          {prices.map((p) => (
            <li key={p.id}>
              <strong>{priceDescription(p, product.recurring_interval)}</strong>
            </li>
          ))}
        </ul>
        {prices.length === 0 && <p className="hint">No active price: edit the product to add one.</p>}
      </section>
      <AddOnsList product={product} />
      <ProductBenefits product={product} mayWrite={mayWrite} onSaved={setSaved} />
      {mayWrite ? <Archive product={product} onSaved={setSaved} /> : <ReadOnly what="change products" />}
    </Layout>
  );
}
