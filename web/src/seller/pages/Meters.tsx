// /meters: the side's meters a page at a time, searchable, sorted by the server, archived ones on request; each
// row's actions in a menu (archiving asks once more). An empty list says how to start, on the page and from a
// terminal. The form (with its filter builder) is its own page (MeterForm); a meter's page has its chart.
import { useState } from "react";
import { Status } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
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
import { ARCHIVE_METER_BODY, archiveMeter, measures, type Meter } from "./meter-parts.js";

export type { Meter } from "./meter-parts.js";

const LIMIT = 20;
const DEFAULT_SORT = "name";

const COLUMNS: Array<DataColumn<Meter>> = [
  { id: "name", sortKey: "name", label: "Name", cell: (m) => <a href={href(`/meters/${m.id}`)}>{m.name}</a> },
  { id: "counts", label: "Counts", cell: measures },
  { id: "status", label: "Status", cell: (m) => (m.archived_at ? "archived" : "active") },
  { id: "created", sortKey: "created_at", label: "Created", cell: (m) => day(m.created_at) },
];

export function Meters() {
  const { scope, mode } = useSeller();
  const toast = useToast();
  const mayWrite = useMayWrite("meters");
  const page = pageParam();
  const query = params().get("query") ?? "";
  const archived = params().get("archived") === "1";
  const sorting = params().get("sorting") ?? DEFAULT_SORT;
  const list = useLoad(
    () => v1<ListPage<Meter>>(scope, "GET", "/meters/", { query: { page, limit: LIMIT, query, sorting, is_archived: archived ? undefined : false } }),
    `${page}|${query}|${archived}|${sorting}`,
  );
  const [archiving, setArchiving] = useState<Meter | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const here = { query: query || undefined, archived: archived ? 1 : undefined, sorting: sorting === DEFAULT_SORT ? undefined : sorting };
  const setArchived = async (m: Meter, on: boolean) => {
    const r = await archiveMeter(scope, m, on);
    if (typeof r === "string") return setError(r);
    setError(undefined);
    toast(on ? `Archived ${m.name}.` : `Restored ${m.name}.`);
    list.reload();
  };
  const actions = (m: Meter): RowAction[] => [
    { label: "Open", href: href(`/meters/${m.id}`) },
    ...(mayWrite
      ? [
          { label: "Edit", href: href(`/meters/${m.id}/edit`) },
          m.archived_at ? { label: "Restore", onSelect: () => void setArchived(m, false) } : { label: "Archive…", danger: true, onSelect: () => setArchiving(m) },
        ]
      : []),
  ];
  const create = mayWrite ? (
    <a className="button primary" href={href("/meters/new")}>
      New meter
    </a>
  ) : undefined;
  const empty = !query && !archived && list.data?.items.length === 0;
  return (
    <Layout title="Meters" action={create}>
      <ListToolbar path="/meters" here={here} search={{ id: "meter-search", label: "Search meters", value: query }}>
        <a href={href("/meters", { ...here, archived: archived ? undefined : 1 })}>{archived ? "Hide archived" : "Show archived"}</a>
      </ListToolbar>
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {list.data && empty && (
        <Empty
          title={`No meters yet${mode === "sandbox" ? " in the sandbox" : ""}.`}
          command='till meters create "API calls" --event-name api_call --count'
          action={
            mayWrite && (
              <a className="button" href={href("/meters/new")}>
                Create your first meter
              </a>
            )
          }
        >
          A meter counts the usage events your app sends (by their name and properties) for usage-based prices and credits.
        </Empty>
      )}
      {list.data && !empty && (
        <>
          {list.data.items.length === 0 ? (
            <p className="hint">No meter matches{query ? ` “${query}”` : ""}.</p>
          ) : (
            <DataTable
              caption="Meters"
              rows={list.data.items}
              columns={COLUMNS}
              sorting={sorting}
              onSort={(s) => window.location.assign(href("/meters", { ...here, sorting: s }))}
              actions={(m) => <RowActions name={m.name} items={actions(m)} />}
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
          body={ARCHIVE_METER_BODY}
          confirm="Yes, archive it"
          cancel="Keep it"
          onConfirm={() => setArchived(archiving, true)}
        />
      )}
    </Layout>
  );
}
