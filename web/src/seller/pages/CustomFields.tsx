// /custom-fields: the questions a checkout may ask (a company name, a seat count, a choice…), a page at a time,
// searchable, filtered by type and sorted by the server; each row's actions in a menu (deleting asks once more).
// A product asks those attached to it (the product editor). An empty list says how to start, here and from a
// terminal. The form is its own page (CustomFieldForm).
import { useState } from "react";
import "../catalog.css";
import { SelectField, Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { ListToolbar } from "../kit/ListToolbar.js";
import { useFlash } from "../kit/flash.js";
import { RowActions, type RowAction } from "../kit/RowActions.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager } from "../parts.js";
import { useToast } from "../Toasts.js";
import { href, pageParam, params } from "../url.js";

export interface CustomField {
  id: string;
  type: string;
  slug: string;
  name: string;
  created_at: string;
  properties: Record<string, unknown>;
}

export const TYPES = [
  { value: "text", label: "Text" },
  { value: "number", label: "Number" },
  { value: "date", label: "Date" },
  { value: "checkbox", label: "Checkbox" },
  { value: "select", label: "Choice among options" },
];

const DELETE_BODY = "Checkouts stop asking it; the answers already given stay on their orders.";
const LIMIT = 20;
const DEFAULT_SORT = "slug";

const COLUMNS: Array<DataColumn<CustomField>> = [
  { id: "name", sortKey: "name", label: "Name", cell: (c) => <a href={href(`/custom-fields/${c.id}`)}>{c.name}</a> },
  { id: "slug", sortKey: "slug", label: "Slug", cell: (c) => <code>{c.slug}</code> },
  { id: "type", sortKey: "type", label: "Type", cell: (c) => TYPES.find((t) => t.value === c.type)?.label ?? c.type },
  { id: "created", sortKey: "created_at", label: "Created", cell: (c) => day(c.created_at) },
];

export function CustomFields() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("custom_fields");
  const page = pageParam();
  const query = params().get("query") ?? "";
  const type = params().get("type") ?? "";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const list = useLoad(
    () => v1<ListPage<CustomField>>(scope, "GET", "/custom-fields/", { query: { page, limit: LIMIT, query, sorting, type: type || undefined } }),
    `${page}|${query}|${type}|${sorting}`,
  );
  const [deleting, setDeleting] = useState<CustomField | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  useFlash({ created: "Created the custom field.", saved: "Saved the custom field." });
  const here = { query: query || undefined, type: type || undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const remove = async (c: CustomField) => {
    const r = await v1<unknown>(scope, "DELETE", `/custom-fields/${c.id}`);
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(`Deleted ${c.name}.`);
    list.reload();
  };
  const actions = (c: CustomField): RowAction[] =>
    mayWrite
      ? [
          { label: "Edit", href: href(`/custom-fields/${c.id}`) },
          { label: "Delete…", danger: true, onSelect: () => setDeleting(c) },
        ]
      : [{ label: "Open", href: href(`/custom-fields/${c.id}`) }];
  const create = mayWrite ? (
    <a className="button primary" href={href("/custom-fields/new")}>
      New custom field
    </a>
  ) : undefined;
  const empty = !query && !type && list.data?.items.length === 0;
  return (
    <Layout title="Custom fields" action={create}>
      <ListToolbar path="/custom-fields" here={here} search={{ id: "cf-search", label: "Search custom fields", value: query }}>
        <div className="filters" role="group" aria-label="Filters">
          <SelectField
            label="Type" value={type} placeholder="Any type" options={TYPES}
            onChange={(e) => window.location.assign(href("/custom-fields", { ...here, page: undefined, type: e.target.value || undefined }))}
          />
        </div>
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && (
        <Empty
          title={`No custom fields yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command="till custom-fields create text --name Company --max-length 100"
          action={
            mayWrite && (
              <a className="button" href={href("/custom-fields/new")}>
                Create your first custom field
              </a>
            )
          }
        >
          A custom field is a question the checkout asks (a company name, a seat count, a choice); attach it to a product in the product editor.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No custom field matches.</p>
          ) : (
            <DataTable
              caption="Custom fields"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/custom-fields", { ...here, sorting: s }))}
              actions={(c) => <RowActions name={c.name} items={actions(c)} />}
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
