// A list's filter by product (the orders', the checkout links'): a select of the side's products by name that
// shows the one the address names as chosen, even past the first page of them.
import { SelectField } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { useProductsById } from "../products-by-id.js";
import type { Product } from "../wire.js";

/** How many products the select offers (the list route's most); a chosen one past them is added. */
const OFFERED = 100;

export function ProductFilter({ value, onChange }: { value: string | undefined; onChange: (id: string | undefined) => void }) {
  const { scope } = useSeller();
  const products = useLoad(() => v1<ListPage<Product>>(scope, "GET", "/products/", { query: { limit: OFFERED, sorting: "name" } }), "products");
  const listed = products.data?.items ?? [];
  const chosen = useProductsById(value && products.data && !listed.some((p) => p.id === value) ? [value] : []);
  const extra = value ? chosen.data?.get(value) : undefined;
  return (
    <SelectField
      label="Product" value={value ?? ""} placeholder="Any product" onChange={(e) => onChange(e.target.value || undefined)}
      options={[...listed, ...(extra ? [extra] : [])].map((p) => ({ value: p.id, label: p.name }))}
    />
  );
}
