// A base product's add-ons (till's own `add_on_ids`): the products its subscriptions may add, each renewing with
// them. The editor's section chooses them (sent with the product only when changed; which products may be one —
// the same interval, not archived, not offering add-ons itself — is the server's rule, and its 422 is shown at
// the add-on it names); the product's page lists them with their prices.
import { useState } from "react";
import { Status } from "../../ui.js";
import type { ApiError } from "../../api.js";
import { Chooser } from "../Chooser.js";
import { Loading, money } from "../parts.js";
import { useProductsById } from "../products-by-id.js";
import { href } from "../url.js";
import { priceLabel, type Product } from "../wire.js";

/** "Storage ($5.00 / month)": a product as a chooser or a list names it. */
export const describeAddOn = (p: Product) => `${p.name} (${priceLabel(p.prices.find((x) => !x.is_archived), p.recurring_interval, money)})`;

/** Whether the editor's list differs from the product's: only a change is sent (an untouched one is not checked). */
export const addOnsChanged = (ids: string[], before: string[] | undefined) => ids.join(",") !== (before ?? []).join(",");

/**
 * The server's refusals of `add_on_ids` (422 `detail` at body.add_on_ids[.i]), each naming the product it is about;
 * empty when the error is not about the add-ons.
 */
export function addOnErrors(error: ApiError, ids: string[], names: Map<string, Product> | undefined): string[] {
  return (error.fields ?? []).flatMap((f) => {
    const m = /^add_on_ids(?:\.(\d+))?$/.exec(f.path);
    if (!m) return [];
    const id = m[1] === undefined ? undefined : ids[Number(m[1])];
    return [id ? `${names?.get(id)?.name ?? id}: ${f.message}` : f.message];
  });
}

export interface AddOnsFieldProps {
  /** The product edited (null: a new one). */
  productId: string | null;
  ids: string[];
  set: (ids: string[]) => void;
  /** The save's error: its refusals of the add-ons are said at the section. */
  error: ApiError | null;
}

/** The editor's section: the chosen add-ons, each removable, and a chooser of one more. */
export function AddOnsField({ productId, ids, set, error }: AddOnsFieldProps) {
  const products = useProductsById(ids);
  const errors = error ? addOnErrors(error, ids, products.data) : [];
  const [pick, setPick] = useState("");
  const add = () => {
    if (pick && !ids.includes(pick)) set([...ids, pick]);
    setPick("");
  };
  return (
    <section className="form-section" aria-labelledby="add-ons-h">
      <h2 id="add-ons-h">Add-ons</h2>
      <p className="hint">Products a subscriber can add to this one; each renews with it, so it needs the same billing period.</p>
      {ids.length === 0 ? (
        <p className="hint">No add-ons offered.</p>
      ) : (
        <ul className="media-list" aria-label="Add-ons offered">
          {ids.map((id) => {
            const p = products.data?.get(id);
            const name = p?.name ?? id;
            return (
              <li key={id}>
                <span>{p ? describeAddOn(p) : name}</span>
                <button type="button" className="link danger" aria-label={`Remove the add-on ${name}`} onClick={() => set(ids.filter((x) => x !== id))}>
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <Chooser<Product>
        label="Add-on to offer" name="add_on" path="/products/" placeholder="Choose a product"
        filters={{ is_recurring: true, is_archived: false }} exclude={[...(productId ? [productId] : []), ...ids]}
        describe={describeAddOn} onChange={setPick}
      />
      <div>
        <button type="button" disabled={!pick} onClick={add}>
          Offer this add-on
        </button>
      </div>
      <Status tone="error">{errors.length ? errors.join(" ") : undefined}</Status>
    </section>
  );
}

/** The product's page: the add-ons it offers, each a link to its page. */
export function AddOnsList({ product }: { product: Product }) {
  const ids = product.add_on_ids ?? [];
  const products = useProductsById(ids);
  if (!product.recurring_interval) return null;
  return (
    <section aria-labelledby="add-ons-h">
      <h2 id="add-ons-h">Add-ons</h2>
      {ids.length === 0 ? (
        <p className="hint">No add-ons: edit the product to offer some on its subscriptions.</p>
      ) : (
        <>
          <Loading loading={products.loading} error={products.error} />
          <ul aria-labelledby="add-ons-h" data-testid="add-ons" className="price-list">
            {ids.map((id) => {
              const p = products.data?.get(id);
              return <li key={id}>{p ? <a href={href(`/products/${id}`)}>{describeAddOn(p)}</a> : <code>{id}</code>}</li>;
            })}
          </ul>
        </>
      )}
    </section>
  );
}
