// /subscriptions: the side's subscriptions, newest first unless a column asks another order (the server sorts),
// a page at a time; filtered to the running or the ending ones, to one customer's or one product's (the customer
// and product pages link here), or found by a customer's email or name. A row's menu opens it or cancels it at
// the period's end (asked once more; the customer keeps access until then) or takes that back.
import { useState } from "react";
import { Status } from "../../ui.js";
import type { Result } from "../../api.js";
import { v1, type ListPage, type Scope } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, money, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import type { Customer, Subscription } from "../wire.js";
import { subscriptionStatus } from "../words.js";

const LIMIT = 20;
const DEFAULT_SORT = "-started_at";
/** How many customers a search by customer looks among (the list's customer_id filter takes them all). */
const CUSTOMER_MATCHES = 100;

type Show = "all" | "active" | "canceling";
const SHOWS: Array<[Show, string]> = [["all", "All"], ["active", "Active"], ["canceling", "Ending at period end"]];

const COLUMNS: Array<DataColumn<Subscription>> = [
  { id: "product", sortKey: "product", label: "Product", cell: (s) => <a href={href(`/subscriptions/${s.id}`)}>{s.product.name}</a> },
  { id: "customer", sortKey: "customer", label: "Customer", cell: (s) => s.customer.email ?? "—" },
  { id: "status", sortKey: "status", label: "Status", cell: (s) => `${subscriptionStatus(s.status)}${s.cancel_at_period_end ? ", ends at period end" : ""}` },
  { id: "renews", sortKey: "current_period_end", label: "Renews", cell: (s) => (s.ended_at ? "—" : day(s.current_period_end)) },
  { id: "amount", sortKey: "amount", label: "Amount", cell: (s) => `${money(s.amount, s.currency)} / ${s.recurring_interval}`, numeric: true },
  { id: "started", sortKey: "started_at", label: "Started", cell: (s) => day(s.started_at ?? s.created_at) },
];

interface Filter {
  page: number;
  show: Show;
  customer?: string;
  product?: string;
  /** A customer's email or name: the subscriptions of the customers it matches. */
  who: string;
  sorting: string;
}

const noMatch: ListPage<Subscription> = { items: [], pagination: { total_count: 0, max_page: 1 } };

async function load(scope: Scope, f: Filter): Promise<Result<ListPage<Subscription>>> {
  let customers: string[] | undefined = f.customer ? [f.customer] : undefined;
  if (f.who) {
    const found = await v1<ListPage<Customer>>(scope, "GET", "/customers/", { query: { query: f.who, limit: CUSTOMER_MATCHES } });
    if (!found.ok) return found;
    customers = found.data.items.map((c) => c.id).filter((id) => !f.customer || id === f.customer);
    if (customers.length === 0) return { ok: true, data: noMatch };
  }
  return v1<ListPage<Subscription>>(scope, "GET", "/subscriptions/", {
    query: {
      page: f.page,
      limit: LIMIT,
      active: f.show === "active" ? true : undefined,
      cancel_at_period_end: f.show === "canceling" ? true : undefined,
      customer_id: customers,
      product_id: f.product,
      sorting: f.sorting,
    },
  });
}

/** No subscription on this side yet: where they come from, and the link that starts one. */
function NoSubscriptions({ sandbox }: { sandbox: boolean }) {
  return (
    <Empty
      title={`No subscriptions yet${sandbox ? " in the sandbox" : ""}.`}
      command="till checkout-links create --product <product id>"
      action={
        <a className="button" href={href("/checkout-links")}>
          Create a checkout link
        </a>
      }
    >
      A subscription starts when a customer buys a recurring product: share a checkout link to one of your products
      {sandbox ? ", and pay it with the test card 4242 4242 4242 4242 to see one here" : ""}.
    </Empty>
  );
}

export function Subscriptions() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("subscriptions");
  const p = params();
  const asked = p.get("show") ?? (p.get("active") === "1" ? "active" : "all");
  const f: Filter = {
    page: pageParam(),
    show: SHOWS.some(([s]) => s === asked) ? (asked as Show) : "all",
    customer: p.get("customer_id") ?? undefined,
    product: p.get("product_id") ?? undefined,
    who: p.get("query") ?? "",
    sorting: p.get("sorting") ?? DEFAULT_SORT,
  };
  const list = useLoad(() => load(scope, f), JSON.stringify(f));
  const [canceling, setCanceling] = useState<Subscription | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const here = {
    show: f.show === "all" ? undefined : f.show,
    customer_id: f.customer,
    product_id: f.product,
    query: f.who || undefined,
    sorting: f.sorting === DEFAULT_SORT ? undefined : f.sorting,
  };
  const setCancel = async (s: Subscription, on: boolean) => {
    const r = await v1<Subscription>(scope, "PATCH", `/subscriptions/${s.id}`, { body: { cancel_at_period_end: on } });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    const whose = `${s.customer.email ?? "the customer"}'s ${s.product.name}`;
    toast(on ? `Canceled ${whose}: it ends on ${day(r.data.current_period_end)}.` : `${whose} renews again.`);
    list.reload();
  };
  const actions = (s: Subscription): RowAction[] => [
    { label: "Open", href: href(`/subscriptions/${s.id}`) },
    ...(mayWrite && !s.ended_at
      ? [
          s.cancel_at_period_end
            ? { label: "Keep it renewing", onSelect: () => void setCancel(s, false) }
            : { label: "Cancel at period end…", danger: true, onSelect: () => setCanceling(s) },
        ]
      : []),
  ];
  const filtered = f.show !== "all" || f.customer || f.product || f.who;
  const empty = !filtered && list.data?.items.length === 0;
  return (
    <Layout title="Subscriptions">
      {(f.customer || f.product) && (
        <p>
          Showing one {f.customer ? "customer's" : "product's"} subscriptions. <a href={href("/subscriptions", { ...here, customer_id: undefined, product_id: undefined })}>All subscriptions</a>
        </p>
      )}
      <ListToolbar path="/subscriptions" here={here} search={{ id: "subscription-search", label: "Search by customer email or name", value: f.who }}>
        <nav aria-label="Show" className="ranges">
          <ul>
            {SHOWS.map(([s, label]) => (
              <li key={s}>
                <a href={href("/subscriptions", { ...here, show: s === "all" ? undefined : s })} aria-current={s === f.show ? "true" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && <NoSubscriptions sandbox={mode === "sandbox"} />}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No subscription matches.</p>
          ) : (
            <DataTable
              caption="Subscriptions"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={f.sorting}
              onSort={(s) => window.location.assign(href("/subscriptions", { ...here, sorting: s }))}
              actions={(s) => <RowActions name={`${s.product.name} of ${s.customer.email ?? s.customer_id}`} items={actions(s)} />}
            />
          )}
          <Pager page={f.page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {canceling && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setCanceling(null)}
          title={`Cancel ${canceling.product.name} at the period's end?`}
          body={`${canceling.customer.email ?? "The customer"} keeps access until ${day(canceling.current_period_end)}; it then ends and is not billed again. You can take this back until then.`}
          confirm="Yes, cancel at period end"
          cancel="Keep it renewing"
          onConfirm={() => setCancel(canceling, true)}
        />
      )}
    </Layout>
  );
}
