// A subscription's items: its base product and its add-ons (till's `items`), each with its quantity, price and what
// it adds per period — listed on the subscription's page, and edited in the change dialog (SubscriptionChange.tsx):
// a held add-on's quantity changed or removed, one of the add-ons the base product offers added with a quantity.
import { CheckboxField, Field, SelectField } from "../../ui.js";
import { addOnFieldNames, heldAddOns } from "../add-on-changes.js";
import { money, Table } from "../parts.js";
import { useProductsById } from "../products-by-id.js";
import { href } from "../url.js";
import { priceLabel, type Product, type Subscription } from "../wire.js";

interface Row {
  id: string;
  productId: string;
  name: string;
  kind: "Plan" | "Add-on";
  quantity: number;
  price: string;
  amount: number;
}

/** Whether the subscription's product offers add-ons, or the subscription holds some. */
export const hasAddOns = (sub: Subscription) => (sub.product.add_on_ids?.length ?? 0) > 0 || heldAddOns(sub).length > 0;

/** The base product's row, then each add-on's; the base's amount is the subscription's less its add-ons'. */
function rowsOf(sub: Subscription): Row[] {
  const items = sub.items ?? [];
  const addOnPrices = new Set(items.map((i) => i.price?.id));
  const basePrice = (sub.prices ?? []).find((p) => !addOnPrices.has(p.id));
  const base: Row = {
    id: sub.product_id,
    productId: sub.product_id,
    name: sub.product.name,
    kind: "Plan",
    quantity: sub.seats ?? 1,
    price: basePrice ? priceLabel(basePrice, sub.recurring_interval, money) : "—",
    amount: sub.amount - items.reduce((sum, i) => sum + i.amount, 0),
  };
  return [
    base,
    ...items.map((i): Row => ({
      id: i.id,
      productId: i.product_id,
      name: i.product?.name ?? i.product_id,
      kind: "Add-on",
      quantity: i.quantity,
      price: i.price ? priceLabel(i.price, sub.recurring_interval, money) : "—",
      amount: i.amount,
    })),
  ];
}

/** The subscription's page: what it bills each period, item by item. */
export function SubscriptionItems({ sub }: { sub: Subscription }) {
  const c = sub.currency;
  return (
    <section aria-labelledby="items-h">
      <h2 id="items-h">Items</h2>
      <Table<Row>
        caption="The subscription's items"
        rows={rowsOf(sub)}
        empty="No items."
        columns={[
          { label: "Product", cell: (r) => <a href={href(`/products/${r.productId}`)}>{r.name}</a> },
          { label: "Kind", cell: (r) => r.kind },
          { label: "Quantity", cell: (r) => String(r.quantity), numeric: true },
          { label: "Price", cell: (r) => r.price },
          { label: "Per period", cell: (r) => money(r.amount, c), numeric: true },
        ]}
      />
    </section>
  );
}

/** "Storage × 3, Support": the add-ons a scheduled change writes, or "no add-ons". */
export function describeAddOns(items: Array<{ product_id: string; quantity: number }>, names: Map<string, Product> | undefined): string {
  if (items.length === 0) return "no add-ons";
  return items.map((i) => `${names?.get(i.product_id)?.name ?? "an add-on"}${i.quantity > 1 ? ` × ${i.quantity}` : ""}`).join(", ");
}

/** The change dialog's add-ons: each held one's quantity and removal, and one more of those the product offers. */
export function AddOnFields({ sub }: { sub: Subscription }) {
  const held = heldAddOns(sub);
  const offered = sub.product.add_on_ids ?? [];
  const products = useProductsById([...offered, ...held.map((h) => h.product_id)]);
  const name = (id: string) => products.data?.get(id)?.name ?? sub.items?.find((i) => i.product_id === id)?.product?.name ?? "the add-on";
  const addable = offered.filter((id) => !held.some((h) => h.product_id === id));
  return (
    <fieldset>
      <legend>Add-ons</legend>
      {sub.pending_update?.items && <p className="hint">As they will be from {sub.pending_update.applies_at.slice(0, 10)} (a scheduled change).</p>}
      {held.length === 0 && <p className="hint">No add-ons yet.</p>}
      {held.map((h) => (
        <div key={h.product_id} className="row-fields">
          <Field label={`Quantity of ${name(h.product_id)}`} name={addOnFieldNames.quantity(h.product_id)} inputMode="numeric" defaultValue={String(h.quantity)} />
          <CheckboxField label={`Remove ${name(h.product_id)}`} name={addOnFieldNames.remove(h.product_id)} />
        </div>
      ))}
      {addable.length > 0 && (
        <div className="row-fields">
          <SelectField
            label="Add an add-on" name={addOnFieldNames.added} placeholder="None"
            options={addable.map((id) => {
              const p = products.data?.get(id);
              const price = p?.prices.find((x) => !x.is_archived && x.price_currency === sub.currency) ?? p?.prices.find((x) => !x.is_archived);
              return { value: id, label: p ? `${p.name} (${priceLabel(price, p.recurring_interval, money)})` : id };
            })}
          />
          <Field label="Its quantity" name={addOnFieldNames.addedQuantity} inputMode="numeric" defaultValue="1" />
        </div>
      )}
    </fieldset>
  );
}
