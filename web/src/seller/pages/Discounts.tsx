// /discounts: the side's discounts a page at a time, searchable by name or code and sorted by the server; each
// row's actions in a menu (copying its code, deleting it after asking once more). An empty list says how to
// start, on the page and from a terminal. The form is its own page (DiscountEdit).
import { useState } from "react";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { copyText } from "../kit/copy.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { useFlash } from "../kit/flash.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, money, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";

export interface Discount {
  id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  amount?: number;
  currency?: string;
  basis_points?: number;
  duration: string;
  duration_in_months?: number | null;
  redemptions_count: number;
  max_redemptions: number | null;
  starts_at?: string | null;
  ends_at?: string | null;
  created_at: string;
}

export const off = (d: Discount) => (d.type === "percentage" ? `${(d.basis_points ?? 0) / 100} %` : money(d.amount ?? 0, d.currency ?? "usd"));
export const lasts = (d: Discount) => (d.duration === "repeating" ? `${d.duration_in_months ?? "?"} months` : d.duration);
export const used = (d: Discount) => `${d.redemptions_count}${d.max_redemptions ? ` of ${d.max_redemptions}` : ""}`;

/** Deletes a discount; the API's message when it refuses. */
export async function deleteDiscount(scope: ReturnType<typeof useSeller>["scope"], d: Discount): Promise<string | null> {
  const r = await v1<unknown>(scope, "DELETE", `/discounts/${d.id}`);
  return r.ok ? null : r.error.message;
}

export const DELETE_BODY = "New checkouts can no longer use it. Checkouts and subscriptions that already have it keep it.";

const LIMIT = 20;
const DEFAULT_SORT = "-created_at";

const COLUMNS: Array<DataColumn<Discount>> = [
  { id: "name", sortKey: "name", label: "Name", cell: (d) => <a href={href(`/discounts/${d.id}`)}>{d.name}</a> },
  { id: "code", sortKey: "code", label: "Code", cell: (d) => (d.code ? <code>{d.code}</code> : "—") },
  { id: "off", label: "Off", cell: off, numeric: true },
  { id: "applies", label: "Applies", cell: lasts },
  { id: "used", sortKey: "redemptions_count", label: "Used", cell: used, numeric: true },
  { id: "ends", sortKey: "ends_at", label: "Ends", cell: (d) => (d.ends_at ? day(d.ends_at) : "never") },
  { id: "created", sortKey: "created_at", label: "Created", cell: (d) => day(d.created_at) },
];

export function Discounts() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("discounts");
  const page = pageParam();
  const query = params().get("query") ?? "";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const list = useLoad(() => v1<ListPage<Discount>>(scope, "GET", "/discounts/", { query: { page, limit: LIMIT, query, sorting } }), `${page}|${query}|${sorting}`);
  const [deleting, setDeleting] = useState<Discount | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  useFlash({ deleted: "Deleted the discount." });
  const here = { query: query || undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const remove = async (d: Discount) => {
    const failed = await deleteDiscount(scope, d);
    if (failed) return setError(failed);
    setError(undefined);
    toast(`Deleted ${d.name}.`);
    list.reload();
  };
  const copy = async (d: Discount) => toast((await copyText(d.code ?? "")) ? `Copied the code ${d.code ?? ""}.` : "The browser refused to copy.");
  const actions = (d: Discount): RowAction[] => [
    { label: "Open", href: href(`/discounts/${d.id}`) },
    ...(d.code ? [{ label: "Copy code", onSelect: () => void copy(d) }] : []),
    ...(mayWrite ? [{ label: "Edit", href: href(`/discounts/${d.id}/edit`) }, { label: "Delete…", danger: true, onSelect: () => setDeleting(d) }] : []),
  ];
  const create = mayWrite ? (
    <a className="button primary" href={href("/discounts/new")}>
      New discount
    </a>
  ) : undefined;
  const empty = !query && list.data?.items.length === 0;
  return (
    <Layout title="Discounts" action={create}>
      <ListToolbar path="/discounts" here={here} search={{ id: "discount-search", label: "Search by name or code", value: query }} />
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && (
        <Empty
          title={`No discounts yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command='till discounts create "Launch" --percent 25 --code LAUNCH25'
          action={
            mayWrite && (
              <a className="button" href={href("/discounts/new")}>
                Create your first discount
              </a>
            )
          }
        >
          A discount takes a percentage or an amount off a checkout, once or for some months of a subscription; buyers type its code, or a
          checkout link applies it.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No discount matches “{query}”.</p>
          ) : (
            <DataTable
              caption="Discounts"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/discounts", { ...here, sorting: s }))}
              actions={(d) => <RowActions name={d.name} items={actions(d)} />}
            />
          )}
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {deleting && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setDeleting(null)}
          title={`Delete ${deleting.name}?`}
          body={DELETE_BODY}
          confirm="Yes, delete it"
          cancel="Keep it"
          onConfirm={() => remove(deleting)}
        />
      )}
    </Layout>
  );
}
