// /products: the catalog of the organization's side, a page at a time, searchable, archived ones on request.
import { useState, type FormEvent } from "react";
import { v1, type ListPage } from "../api.js";
import { useSeller, useMayWrite } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading, money, Pager, Table } from "../parts.js";
import { href, pageParam, params } from "../url.js";
import { priceLabel, type Product } from "../wire.js";

const LIMIT = 20;

export function Products() {
  const { scope, mode } = useSeller();
  const mayWrite = useMayWrite("products");
  const page = pageParam();
  const query = params().get("query") ?? "";
  const archived = params().get("archived") === "1";
  const list = useLoad(
    () => v1<ListPage<Product>>(scope, "GET", "/products/", { query: { page, limit: LIMIT, query, is_archived: archived ? undefined : false, sorting: "-created_at" } }),
    `${page}|${query}|${archived}`,
  );
  const [search, setSearch] = useState(query);
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    window.location.assign(href("/products", { query: search, archived: archived ? 1 : undefined }));
  };
  return (
    <Layout title="Products">
      <div className="toolbar">
        <form role="search" onSubmit={onSearch} className="search">
          <label htmlFor="product-search">Search products</label>
          <input id="product-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <button type="submit">Search</button>
        </form>
        <a href={href("/products", { query, archived: archived ? undefined : 1 })}>{archived ? "Hide archived" : "Show archived"}</a>
        {mayWrite && (
          <a className="button primary" href={href("/products/new")}>
            New product
          </a>
        )}
      </div>
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Products"
            rows={list.data.items}
            empty={query ? `No product matches “${query}”.` : `No products yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
            columns={[
              { label: "Name", cell: (p) => <a href={href(`/products/${p.id}`)}>{p.name}</a> },
              { label: "Price", cell: (p) => priceLabel(p.prices.find((x) => !x.is_archived), p.recurring_interval, money) },
              { label: "Benefits", cell: (p) => String(p.benefits.length), numeric: true },
              { label: "Status", cell: (p) => (p.is_archived ? "archived" : "active") },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </Layout>
  );
}
