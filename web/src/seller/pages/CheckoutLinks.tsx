// /checkout-links: the side's shareable checkout links a page at a time, sorted by the server and filtered by
// the product they sell; each row's actions in a menu (copying its URL, deleting it after asking once more). An
// empty list says how to start, on the page and from a terminal. The form is its own page (CheckoutLinkForm).
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
import { ProductFilter } from "../kit/ProductFilter.js";
import { useFlash } from "../kit/flash.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";
import type { Product } from "../wire.js";
import "../catalog.css";

export interface CheckoutLink {
  id: string;
  url: string;
  label: string | null;
  created_at: string;
  products: Product[];
  success_url: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount: { id: string; name: string; type: string; basis_points?: number; amount?: number; currency?: string; duration: string } | null;
}

export const linkName = (l: CheckoutLink) => l.label ?? l.products.map((p) => p.name).join(", ");
export const DELETE_LINK_BODY = "Its URL stops working at once; checkouts already opened from it go on.";

/** Deletes a link; the API's message when it refuses. */
export async function deleteLink(scope: ReturnType<typeof useSeller>["scope"], l: CheckoutLink): Promise<string | null> {
  const r = await v1<unknown>(scope, "DELETE", `/checkout-links/${l.id}`);
  return r.ok ? null : r.error.message;
}

/** Copies the link's URL and says so. */
export async function copyUrl(l: CheckoutLink, toast: (t: string) => void): Promise<void> {
  toast((await copyText(l.url)) ? "Copied the link's URL." : "The browser refused to copy.");
}

const LIMIT = 20;
const DEFAULT_SORT = "-created_at";

const COLUMNS: Array<DataColumn<CheckoutLink>> = [
  { id: "label", sortKey: "label", label: "Link", cell: (l) => <a href={href(`/checkout-links/${l.id}`)}>{linkName(l)}</a> },
  { id: "products", label: "Sells", cell: (l) => l.products.map((p) => p.name).join(", ") },
  { id: "discount", label: "Discount", cell: (l) => l.discount?.name ?? "—" },
  { id: "url", label: "URL", cell: (l) => <code className="url-cell" title={l.url}>{l.url.replace(/^https?:\/\//, "")}</code> },
  { id: "created", sortKey: "created_at", label: "Created", cell: (l) => day(l.created_at) },
];

export function CheckoutLinks() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("checkout_links");
  const page = pageParam();
  const product = params().get("product_id") ?? "";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const list = useLoad(
    () => v1<ListPage<CheckoutLink>>(scope, "GET", "/checkout-links/", { query: { page, limit: LIMIT, sorting, product_id: product || undefined } }),
    `${page}|${sorting}|${product}`,
  );
  const [deleting, setDeleting] = useState<CheckoutLink | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  useFlash({ deleted: "Deleted the checkout link." });
  const here = { product_id: product || undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const remove = async (l: CheckoutLink) => {
    const failed = await deleteLink(scope, l);
    if (failed) return setError(failed);
    setError(undefined);
    toast(`Deleted ${linkName(l)}.`);
    list.reload();
  };
  const actions = (l: CheckoutLink): RowAction[] => [
    { label: "Open", href: href(`/checkout-links/${l.id}`) },
    { label: "Copy URL", onSelect: () => void copyUrl(l, toast) },
    ...(mayWrite ? [{ label: "Edit", href: href(`/checkout-links/${l.id}/edit`) }, { label: "Delete…", danger: true, onSelect: () => setDeleting(l) }] : []),
  ];
  const create = mayWrite ? (
    <a className="button primary" href={href("/checkout-links/new")}>
      New checkout link
    </a>
  ) : undefined;
  const empty = !product && list.data?.items.length === 0;
  return (
    <Layout title="Checkout links" action={create}>
      <ListToolbar path="/checkout-links" here={here}>
        <div className="filters" role="group" aria-label="Filters">
          <ProductFilter value={product || undefined} onChange={(id) => window.location.assign(href("/checkout-links", { ...here, page: undefined, product_id: id }))} />
        </div>
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && (
        <Empty
          title={`No checkout links yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command="till checkout-links create --product <product id>"
          action={
            mayWrite && (
              <a className="button" href={href("/checkout-links/new")}>
                Create your first checkout link
              </a>
            )
          }
        >
          A checkout link is a URL to share — in an email, on your site, in a bio — that opens a checkout for one or more of your products.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No checkout link sells this product.</p>
          ) : (
            <DataTable
              caption="Checkout links"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/checkout-links", { ...here, sorting: s }))}
              actions={(l) => <RowActions name={linkName(l)} items={actions(l)} />}
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
          title={`Delete ${linkName(deleting)}?`}
          body={DELETE_LINK_BODY}
          confirm="Yes, delete it"
          cancel="Keep it"
          onConfirm={() => remove(deleting)}
        />
      )}
    </Layout>
  );
}
