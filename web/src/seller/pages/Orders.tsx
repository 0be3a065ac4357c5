// /orders: the side's orders, newest first unless a column asks another order (the server sorts), a page at a
// time; found by a customer's email or name, filtered by status and product (and by customer: the customer page
// links here with `customer_id`). Its refunds and its disputes are the section's two other views (`view`). An
// empty side says where orders come from, on the page and from a terminal.
import { SelectField } from "../../ui.js";
import type { Result } from "../../api.js";
import { v1, type ListPage, type Scope } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { copyText } from "../kit/copy.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { ProductFilter } from "../kit/ProductFilter.js";
import { RowActions } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, money, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import type { Customer, Order } from "../wire.js";
import { orderStatus } from "../words.js";
import { Disputes, Refunds } from "./OrderLists.js";
import "../sales.css";

const LIMIT = 20;
const DEFAULT_SORT = "-created_at";
/** How many customers a search by customer looks among (the list's customer_id filter takes them all). */
const CUSTOMER_MATCHES = 100;
const STATUSES = ["pending", "paid", "partially_refunded", "refunded", "void"];

export const orderName = (o: Order) => o.product?.name ?? o.items[0]?.label ?? "Order";

const COLUMNS: Array<DataColumn<Order>> = [
  { id: "date", sortKey: "created_at", label: "Date", cell: (o) => <a href={href(`/orders/${o.id}`)}>{day(o.created_at)}</a> },
  { id: "product", sortKey: "product", label: "Product", cell: (o) => orderName(o) },
  { id: "customer", sortKey: "customer", label: "Customer", cell: (o) => o.customer.email ?? "—" },
  { id: "status", sortKey: "status", label: "Status", cell: (o) => orderStatus(o.status) },
  { id: "invoice", sortKey: "invoice_number", label: "Invoice", cell: (o) => o.invoice_number ?? "—" },
  { id: "total", sortKey: "amount", label: "Total", cell: (o) => money(o.total_amount, o.currency), numeric: true },
];

interface Filter {
  page: number;
  status?: string;
  customer?: string;
  product?: string;
  /** A customer's email or name: the orders of the customers it matches. */
  who: string;
  sorting: string;
}

const noMatch: ListPage<Order> = { items: [], pagination: { total_count: 0, max_page: 1 } };

async function load(scope: Scope, f: Filter): Promise<Result<ListPage<Order>>> {
  let customers: string[] | undefined = f.customer ? [f.customer] : undefined;
  if (f.who) {
    const found = await v1<ListPage<Customer>>(scope, "GET", "/customers/", { query: { query: f.who, limit: CUSTOMER_MATCHES } });
    if (!found.ok) return found;
    customers = found.data.items.map((c) => c.id).filter((id) => !f.customer || id === f.customer);
    if (customers.length === 0) return { ok: true, data: noMatch };
  }
  return v1<ListPage<Order>>(scope, "GET", "/orders/", {
    query: { page: f.page, limit: LIMIT, status: f.status, customer_id: customers, product_id: f.product, sorting: f.sorting },
  });
}

/** The section's three views: the orders, their refunds, their disputes. */
function Views({ view }: { view: string }) {
  const views: Array<[string, string]> = [["orders", "Orders"], ["refunds", "Refunds"], ["disputes", "Disputes"]];
  return (
    <nav aria-label="View" className="ranges">
      <ul>
        {views.map(([v, label]) => (
          <li key={v}>
            <a href={href("/orders", { view: v === "orders" ? undefined : v })} aria-current={v === view ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Filters({ f, here }: { f: Filter; here: Record<string, string | number | undefined> }) {
  const go = (change: Record<string, string | undefined>) => window.location.assign(href("/orders", { ...here, page: undefined, ...change }));
  return (
    <div className="filters" role="group" aria-label="Filters">
      <SelectField
        label="Status" value={f.status ?? ""} placeholder="Any status" onChange={(e) => go({ status: e.target.value || undefined })}
        options={STATUSES.map((s) => ({ value: s, label: orderStatus(s) }))}
      />
      <ProductFilter value={f.product} onChange={(id) => go({ product_id: id })} />
    </div>
  );
}

function OrderList() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const p = params();
  const f: Filter = {
    page: pageParam(),
    status: STATUSES.find((s) => s === p.get("status")),
    customer: p.get("customer_id") ?? undefined,
    product: p.get("product_id") ?? undefined,
    who: p.get("query") ?? "",
    sorting: p.get("sorting") ?? DEFAULT_SORT,
  };
  const list = useLoad(() => load(scope, f), JSON.stringify(f));
  const here = {
    status: f.status,
    customer_id: f.customer,
    product_id: f.product,
    query: f.who || undefined,
    sorting: f.sorting === DEFAULT_SORT ? undefined : f.sorting,
  };
  const copyId = async (o: Order) => toast((await copyText(o.id)) ? "Copied the order's id." : `The order's id: ${o.id}`);
  const filtered = f.status || f.customer || f.product || f.who;
  const empty = !filtered && list.data?.items.length === 0;
  return (
    <>
      {f.customer && (
        <p>
          Showing one customer's orders. <a href={href("/orders", { ...here, customer_id: undefined })}>All customers' orders</a>
        </p>
      )}
      <ListToolbar path="/orders" here={here} search={{ id: "order-search", label: "Search by customer email or name", value: f.who }}>
        <Filters f={f} here={here} />
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      {list.data && empty && (
        <Empty
          title={`No orders yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command="till checkout-links create --product <product id>"
          action={
            <a className="button" href={href("/checkout-links")}>
              Share a checkout link
            </a>
          }
        >
          An order is made by each purchase and each renewal of a subscription
          {mode === "sandbox" ? "; pay a checkout link with the test card 4242 4242 4242 4242 to see one here" : ""}.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No order matches.</p>
          ) : (
            <DataTable
              caption="Orders"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={f.sorting}
              onSort={(s) => window.location.assign(href("/orders", { ...here, sorting: s }))}
              actions={(o) => (
                <RowActions
                  name={`${orderName(o)} of ${o.customer.email ?? o.customer_id}, ${day(o.created_at)}`}
                  items={[
                    { label: "Open", href: href(`/orders/${o.id}`) },
                    { label: "The customer", href: href(`/customers/${o.customer_id}`) },
                    { label: "Copy id", onSelect: () => void copyId(o) },
                  ]}
                />
              )}
            />
          )}
          <Pager page={f.page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </>
  );
}

export function Orders() {
  const asked = params().get("view");
  const view = asked === "refunds" || asked === "disputes" ? asked : "orders";
  return (
    <Layout title={view === "orders" ? "Orders" : view === "refunds" ? "Refunds" : "Disputes"}>
      <Views view={view} />
      {view === "orders" ? <OrderList /> : view === "refunds" ? <Refunds /> : <Disputes />}
    </Layout>
  );
}
