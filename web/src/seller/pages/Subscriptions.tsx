// /subscriptions: the side's subscriptions, a page at a time; `active=1` narrows to those running, `customer_id`
// and `product_id` in the address to one customer's or one product's (the customer page links here).
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { day, Loading, money, Pager, Table } from "../parts.js";
import { href, pageParam, params } from "../url.js";
import type { Subscription } from "../wire.js";

const LIMIT = 20;

export function Subscriptions() {
  const { scope, mode } = useSeller();
  const page = pageParam();
  const active = params().get("active") === "1";
  const customer = params().get("customer_id") ?? undefined;
  const product = params().get("product_id") ?? undefined;
  const list = useLoad(
    () =>
      v1<ListPage<Subscription>>(scope, "GET", "/subscriptions/", {
        query: { page, limit: LIMIT, active: active ? true : undefined, customer_id: customer, product_id: product, sorting: "-started_at" },
      }),
    `${page}|${active}|${customer}|${product}`,
  );
  return (
    <Layout title="Subscriptions">
      {(customer || product) && (
        <p>
          Showing one {customer ? "customer's" : "product's"} subscriptions. <a href={href("/subscriptions", { active: active ? 1 : undefined })}>All subscriptions</a>
        </p>
      )}
      <div className="toolbar">
        <a href={href("/subscriptions", { active: active ? undefined : 1, customer_id: customer, product_id: product })}>{active ? "Show all" : "Show active only"}</a>
      </div>
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Subscriptions"
            rows={list.data.items}
            empty={`No subscriptions yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
            columns={[
              { label: "Product", cell: (s) => <a href={href(`/subscriptions/${s.id}`)}>{s.product.name}</a> },
              { label: "Customer", cell: (s) => s.customer.email ?? "—" },
              { label: "Status", cell: (s) => `${s.status.replace(/_/g, " ")}${s.cancel_at_period_end ? ", ends at period end" : ""}` },
              { label: "Renews", cell: (s) => (s.ended_at ? "—" : day(s.current_period_end)) },
              { label: "Amount", cell: (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`, numeric: true },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </Layout>
  );
}
