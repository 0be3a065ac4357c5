// /products: the catalog of the organization's side, a page at a time, searchable, filtered by how a product bills
// (`pricing`) and sortable (the server sorts), archived ones on request; each row's actions in a menu (archiving
// asks once more). An empty catalog says how to start, on the page and from a terminal.
import { useState } from "react";
import { v1, type ListPage } from "../api.js";
import { useSeller, useMayWrite } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import type { Product } from "../wire.js";
import { priceDescription, pricingFilterOf, PRICING_FILTERS } from "../prices.js";
import { SelectField, Status } from "../../ui.js";
import { activePrices, archiveProduct } from "./ProductDetail.js";

const LIMIT = 20;
const DEFAULT_SORT = "-created_at";

/** The price a buyer picks first, in words ("per seat, from $10.00 / month"). */
function describeFirst(p: Product): string {
  const first = activePrices(p)[0];
  return first ? priceDescription(first, p.recurring_interval) : "no price";
}

const COLUMNS: Array<DataColumn<Product>> = [
  { id: "name", sortKey: "name", label: "Name", cell: (p) => <a href={href(`/products/${p.id}`)}>{p.name}</a> },
  { id: "price", sortKey: "price_amount", label: "Price", cell: (p) => describeFirst(p) },
  { id: "prices", label: "Prices", cell: (p) => String(activePrices(p).length), numeric: true },
  { id: "benefits", label: "Benefits", cell: (p) => String(p.benefits.length), numeric: true },
  { id: "status", label: "Status", cell: (p) => (p.is_archived ? "archived" : "active") },
  { id: "created", sortKey: "created_at", label: "Created", cell: (p) => day(p.created_at) },
];

export function Products() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("products");
  const page = pageParam();
  const query = params().get("query") ?? "";
  const archived = params().get("archived") === "1";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const pricing = pricingFilterOf(params().get("pricing"));
  const list = useLoad(
    () =>
      v1<ListPage<Product>>(scope, "GET", "/products/", {
        query: { page, limit: LIMIT, query, is_archived: archived ? undefined : false, sorting, ...pricing?.query },
      }),
    `${page}|${query}|${archived}|${sorting}|${pricing?.value ?? ""}`,
  );
  const [archiving, setArchiving] = useState<Product | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const here = { query: query || undefined, pricing: pricing?.value, archived: archived ? 1 : undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const setArchived = async (p: Product, on: boolean) => {
    const r = await archiveProduct(scope, p, on);
    if (typeof r === "string") return setError(r);
    setError(undefined);
    toast(on ? `Archived ${p.name}: new checkouts can no longer sell it.` : `Restored ${p.name}.`);
    list.reload();
  };
  const actions = (p: Product): RowAction[] => [
    { label: "Open", href: href(`/products/${p.id}`) },
    ...(mayWrite
      ? [
          { label: "Edit", href: href(`/products/${p.id}/edit`) },
          p.is_archived ? { label: "Restore", onSelect: () => void setArchived(p, false) } : { label: "Archive…", danger: true, onSelect: () => setArchiving(p) },
        ]
      : []),
  ];
  const newProduct = mayWrite ? (
    <a className="button primary" href={href("/products/new")}>
      New product
    </a>
  ) : undefined;
  const empty = !query && !pricing && list.data?.items.length === 0;
  return (
    <Layout title="Products" action={newProduct}>
      <ListToolbar path="/products" here={here} search={{ id: "product-search", label: "Search products", value: query }}>
        <div className="filters" role="group" aria-label="Filters">
          <SelectField
            label="Pricing" value={pricing?.value ?? ""} placeholder="Any pricing"
            onChange={(e) => window.location.assign(href("/products", { ...here, page: undefined, pricing: e.target.value || undefined }))}
            options={PRICING_FILTERS.map((f) => ({ value: f.value, label: f.label }))}
          />
        </div>
        <a className="toggle" href={href("/products", { ...here, archived: archived ? undefined : 1 })}>{archived ? "Hide archived" : "Show archived"}</a>
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && (
        <Empty title={`No products yet${mode === "sandbox" ? " in the sandbox" : ""}.`} command='till products create "Pro" --price 1999 --recurring month'
          action={
            mayWrite && (
              <a className="button" href={href("/products/new")}>
                Create your first product
              </a>
            )
          }
        >
          A product is what customers buy: one price or several (fixed, pay what you want, free, per seat, or usage of a meter), billed once or
          on a schedule, with benefits granted on purchase.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">{query ? `No product matches “${query}”${pricing ? " with this pricing" : ""}.` : "No product is priced this way."}</p>
          ) : (
            <DataTable
              caption="Products"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/products", { ...here, sorting: s }))}
              actions={(p) => <RowActions name={p.name} items={actions(p)} />}
            />
          )}
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {archiving && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setArchiving(null)}
          title={`Archive ${archiving.name}?`}
          body="New checkouts can no longer sell it. Subscriptions to it keep renewing, and you can restore it at any time."
          confirm="Yes, archive it"
          cancel="Keep it on sale"
          onConfirm={() => setArchived(archiving, true)}
        />
      )}
    </Layout>
  );
}
