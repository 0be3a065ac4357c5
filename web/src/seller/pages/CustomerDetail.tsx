// /customers/<id>: one customer with their state (active subscriptions, granted benefits, meters), their latest
// orders and subscriptions (each links to the full list, narrowed to them) and their benefit grants, a page at a
// time (`grants_page` in the address); its id copied from the page's header.
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { copyText } from "../kit/copy.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { RowActions } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { useToast } from "../Toasts.js";
import { day, Facts, Loading, money, Pager, Table } from "../parts.js";
import { href, pageParam } from "../url.js";
import type { BenefitGrant, CustomerState, Order, Subscription } from "../wire.js";

const RECENT = 10;

const SUB_COLUMNS: Array<DataColumn<Subscription>> = [
  { id: "product", label: "Product", cell: (s) => <a href={href(`/subscriptions/${s.id}`)}>{s.product.name}</a> },
  { id: "status", label: "Status", cell: (s) => `${s.status.replace(/_/g, " ")}${s.cancel_at_period_end ? ", ends at period end" : ""}` },
  { id: "amount", label: "Amount", cell: (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`, numeric: true },
  { id: "renews", label: "Renews", cell: (s) => (s.ended_at ? "—" : day(s.current_period_end)) },
];

function Lists({ id }: { id: string }) {
  const { scope } = useSeller();
  const orders = useLoad(() => v1<ListPage<Order>>(scope, "GET", "/orders/", { query: { customer_id: id, limit: RECENT, sorting: "-created_at" } }), `o${id}`);
  const subs = useLoad(() => v1<ListPage<Subscription>>(scope, "GET", "/subscriptions/", { query: { customer_id: id, limit: RECENT } }), `s${id}`);
  const grantsPage = pageParam("grants_page");
  const grants = useLoad(
    () => v1<ListPage<BenefitGrant>>(scope, "GET", "/benefit-grants/", { query: { customer_id: id, limit: RECENT, page: grantsPage } }),
    `g${id}|${grantsPage}`,
  );
  return (
    <>
      <section aria-labelledby="orders-h">
        <h2 id="orders-h">Orders</h2>
        <Loading loading={orders.loading} error={orders.error} />
        {orders.data && (
          <Table
            caption="The customer's orders"
            rows={orders.data.items}
            empty="No orders."
            columns={[
              { label: "Date", cell: (o) => <a href={href(`/orders/${o.id}`)}>{day(o.created_at)}</a> },
              { label: "Product", cell: (o) => o.product?.name ?? "—" },
              { label: "Status", cell: (o) => o.status.replace(/_/g, " ") },
              { label: "Total", cell: (o) => money(o.total_amount, o.currency), numeric: true },
            ]}
          />
        )}
        {orders.data && orders.data.pagination.total_count > RECENT && <a href={href("/orders", { customer_id: id })}>All {orders.data.pagination.total_count} orders</a>}
      </section>
      <section aria-labelledby="subs-h">
        <h2 id="subs-h">Subscriptions</h2>
        <Loading loading={subs.loading} error={subs.error} />
        {subs.data && subs.data.items.length === 0 && <p className="hint">No subscriptions.</p>}
        {subs.data && subs.data.items.length > 0 && (
          <DataTable
            caption="The customer's subscriptions"
            rows={subs.data.items}
            columns={SUB_COLUMNS}
            actions={(s) => <RowActions name={s.product.name} items={[{ label: "Open", href: href(`/subscriptions/${s.id}`) }]} />}
          />
        )}
        {subs.data && subs.data.pagination.total_count > RECENT && (
          <a href={href("/subscriptions", { customer_id: id })}>All {subs.data.pagination.total_count} subscriptions</a>
        )}
      </section>
      <section aria-labelledby="grants-h">
        <h2 id="grants-h">Benefit grants</h2>
        <Loading loading={grants.loading} error={grants.error} />
        {grants.data && (
          <Table
            caption="The customer's benefit grants"
            rows={grants.data.items}
            empty="No benefits granted."
            columns={[
              { label: "Benefit", cell: (g) => g.benefit.description },
              { label: "Type", cell: (g) => g.benefit.type.replace(/_/g, " ") },
              { label: "State", cell: (g) => (g.is_revoked ? `revoked ${day(g.revoked_at)}` : g.is_granted ? `granted ${day(g.granted_at)}` : "pending") },
            ]}
          />
        )}
        {grants.data && grants.data.pagination.max_page > 1 && (
          <Pager page={grantsPage} maxPage={grants.data.pagination.max_page} total={grants.data.pagination.total_count} param="grants_page" label="Pages of benefit grants" />
        )}
      </section>
    </>
  );
}

export function CustomerDetail({ id }: { id: string }) {
  const { scope } = useSeller();
  const state = useLoad(() => v1<CustomerState>(scope, "GET", `/customers/${id}/state`), id);
  const toast = useToast();
  const c = state.data;
  const copyId = async () => toast((await copyText(id)) ? "Copied the customer's id." : `The customer's id: ${id}`);
  const copy = (
    <button type="button" onClick={() => void copyId()}>
      Copy id
    </button>
  );
  return (
    <Layout title={c ? c.email : "Customer"} back={{ href: href("/customers"), label: "All customers" }} action={copy}>
      <Loading loading={state.loading} error={state.error} />
      {c && (
        <>
          <Facts
            items={[
              ["Name", c.name ?? "—"],
              ["Customer since", day(c.created_at)],
              ["External id", c.external_id ?? "—"],
              ["Active subscriptions", String(c.active_subscriptions.length)],
              ["Granted benefits", String(c.granted_benefits.length)],
              ["Meters", c.active_meters.length ? c.active_meters.map((m) => `${m.consumed_units} used, ${m.balance} left`).join("; ") : "none"],
            ]}
          />
          <Lists id={id} />
        </>
      )}
    </Layout>
  );
}
