// Products read by their ids (the list route's `id` filter), for a page that holds ids and shows names: a base
// product's add-ons, a subscription's add-ons and the ones a scheduled change writes. One request per set of ids.
import { v1, type ListPage } from "./api.js";
import { useSeller } from "./context.js";
import { useLoad, type Loaded } from "./hooks.js";
import type { Product } from "./wire.js";

/** The products of `ids` (none asked when empty), by id. */
export function useProductsById(ids: string[]): Loaded<Map<string, Product>> {
  const { scope } = useSeller();
  const unique = [...new Set(ids)].sort();
  return useLoad(async () => {
    if (unique.length === 0) return { ok: true as const, data: new Map<string, Product>() };
    const r = await v1<ListPage<Product>>(scope, "GET", "/products/", { query: { id: unique, limit: 100 } });
    return r.ok ? { ok: true as const, data: new Map(r.data.items.map((p) => [p.id, p])) } : r;
  }, unique.join(","));
}
