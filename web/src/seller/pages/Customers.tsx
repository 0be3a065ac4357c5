// /customers: the side's customers, newest first, searchable by email or name, a page at a time.
import { useState, type FormEvent } from "react";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, Table } from "../parts.js";
import { href, pageParam, params } from "../url.js";
import type { Customer } from "../wire.js";

const LIMIT = 20;

export function Customers() {
  const { scope, mode } = useSeller();
  const page = pageParam();
  const query = params().get("query") ?? "";
  const list = useLoad(() => v1<ListPage<Customer>>(scope, "GET", "/customers/", { query: { page, limit: LIMIT, query, sorting: "-created_at" } }), `${page}|${query}`);
  const [search, setSearch] = useState(query);
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    window.location.assign(href("/customers", { query: search }));
  };
  return (
    <Layout title="Customers">
      <div className="toolbar">
        <form role="search" onSubmit={onSearch} className="search">
          <label htmlFor="customer-search">Search by email or name</label>
          <input id="customer-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          <button type="submit">Search</button>
        </form>
      </div>
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Customers"
            rows={list.data.items}
            empty={query ? `No customer matches “${query}”.` : `No customers yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
            columns={[
              { label: "Email", cell: (c) => <a href={href(`/customers/${c.id}`)}>{c.email}</a> },
              { label: "Name", cell: (c) => c.name ?? "—" },
              { label: "Since", cell: (c) => day(c.created_at) },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </Layout>
  );
}
