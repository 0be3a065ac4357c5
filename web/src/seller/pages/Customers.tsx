// /customers: the side's customers, newest first unless a column asks another order (the server sorts),
// searchable by email, name or external id, a page at a time; each row's actions in a menu. An empty list says
// where customers come from, on the page and from a terminal.
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { copyText } from "../kit/copy.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { RowActions } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import type { Customer } from "../wire.js";

const LIMIT = 20;
const DEFAULT_SORT = "-created_at";

const COLUMNS: Array<DataColumn<Customer>> = [
  { id: "email", sortKey: "email", label: "Email", cell: (c) => <a href={href(`/customers/${c.id}`)}>{c.email}</a> },
  { id: "name", sortKey: "name", label: "Name", cell: (c) => c.name ?? "—" },
  { id: "since", sortKey: "created_at", label: "Since", cell: (c) => day(c.created_at) },
];

export function Customers() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const page = pageParam();
  const query = params().get("query") ?? "";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const list = useLoad(
    () => v1<ListPage<Customer>>(scope, "GET", "/customers/", { query: { page, limit: LIMIT, query, sorting } }),
    `${page}|${query}|${sorting}`,
  );
  const here = { query: query || undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const copyId = async (c: Customer) => {
    // where the browser will not copy, the toast shows the id to select by hand
    toast((await copyText(c.id)) ? `Copied the id of ${c.email}.` : `The id of ${c.email}: ${c.id}`);
  };
  const empty = !query && list.data?.items.length === 0;
  return (
    <Layout title="Customers">
      <ListToolbar path="/customers" here={here} search={{ id: "customer-search", label: "Search by email or name", value: query }} />
      <Loading loading={list.loading} error={list.error} />
      {list.data && empty && (
        <Empty
          title={`No customers yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command="till customers create --email ada@example.com --name Ada"
          action={
            <a className="button" href={href("/checkout-links")}>
              Share a checkout link
            </a>
          }
        >
          A customer is made by their first checkout, or by you ahead of it (to give them a price, a trial or a benefit). Their orders,
          subscriptions, benefits and usage then show on their page.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No customer matches “{query}”.</p>
          ) : (
            <DataTable
              caption="Customers"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/customers", { ...here, sorting: s }))}
              actions={(c) => (
                <RowActions
                  name={c.email}
                  items={[
                    { label: "Open", href: href(`/customers/${c.id}`) },
                    { label: "Copy id", onSelect: () => void copyId(c) },
                  ]}
                />
              )}
            />
          )}
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
    </Layout>
  );
}
