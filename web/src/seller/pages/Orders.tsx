// /orders: the side's orders, newest first, a page at a time; `customer_id` and `product_id` in the address
// narrow them (the customer page links here).
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, money, Pager, Table } from "../parts.js";
import { href, pageParam, params } from "../url.js";
import type { Order } from "../wire.js";

const LIMIT = 20;

export function Orders() {
  const { scope, mode } = useSeller();
  const page = pageParam();
  const customer = params().get("customer_id") ?? undefined;
  const product = params().get("product_id") ?? undefined;
  const list = useLoad(
    () => v1<ListPage<Order>>(scope, "GET", "/orders/", { query: { page, limit: LIMIT, customer_id: customer, product_id: product, sorting: "-created_at" } }),
    `${page}|${customer}|${product}`,
  );
  return (
    <Layout title="Orders">
      {(customer || product) && (
        <p>
          Showing one {customer ? "customer's" : "product's"} orders. <a href={href("/orders")}>All orders</a>
        </p>
      )}
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Orders"
            rows={list.data.items}
            empty={`No orders yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
            columns={[
              { label: "Date", cell: (o) => <a href={href(`/orders/${o.id}`)}>{day(o.created_at)}</a> },
              { label: "Product", cell: (o) => o.product?.name ?? o.items[0]?.label ?? "—" },
              { label: "Customer", cell: (o) => o.customer.email ?? "—" },
              { label: "Status", cell: (o) => o.status.replace(/_/g, " ") },
              { label: "Total", cell: (o) => money(o.total_amount, o.currency), numeric: true },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </Layout>
  );
}
