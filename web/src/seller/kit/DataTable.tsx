// A list as a table (TanStack Table's model, our markup): a caption, sortable columns whose order the server
// applies (the list is the server's pages, so sorting one page in the browser would lie), the sort in the
// address, and a row's actions in a menu. On a phone each row becomes a card of "label: value" lines
// (seller.css); roles are explicit so the table stays a table when CSS changes its display.
import { rowSortingFeature, tableFeatures, useTable, type ColumnDef, type SortingState } from "@tanstack/react-table";
import { useMemo, type ReactNode } from "react";

const features = tableFeatures({ rowSortingFeature });

export interface DataColumn<T> {
  id: string;
  label: string;
  cell: (row: T) => ReactNode;
  /** The server's sort key for this column; a column without one does not sort. */
  sortKey?: string;
  numeric?: boolean;
}

/** "-created_at" ⇄ [{ id: "created_at", desc: true }] (the API's `sorting` parameter). */
export const sortingOf = (param: string): SortingState => (param ? [{ id: param.replace(/^-/, ""), desc: param.startsWith("-") }] : []);
export const paramOf = (s: SortingState): string => (s[0] ? `${s[0].desc ? "-" : ""}${s[0].id}` : "");

function SortButton({ label, sorted, onClick }: { label: string; sorted: false | "asc" | "desc"; onClick: () => void }) {
  const next = sorted === "asc" ? "descending" : "ascending";
  return (
    <button type="button" className="sort" onClick={onClick} aria-label={`${label}: sort ${next}`}>
      {label}
      <span aria-hidden="true" className="sort-mark">
        {sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : " ↕"}
      </span>
    </button>
  );
}

export function DataTable<T extends { id: string }>(props: {
  caption: string;
  rows: T[];
  columns: Array<DataColumn<T>>;
  /** The API's sorting parameter now, and what to do when a column asks another. */
  sorting?: string;
  onSort?: (sorting: string) => void;
  /** The last column: a row's actions (RowActions). */
  actions?: (row: T) => ReactNode;
}) {
  const { caption, rows, columns, sorting = "", onSort, actions } = props;
  const defs = useMemo<Array<ColumnDef<typeof features, T>>>(
    () => columns.map((c) => ({ id: c.sortKey ?? c.id, header: c.label, accessorFn: (row: T) => row.id, enableSorting: Boolean(c.sortKey && onSort) })),
    [columns, onSort],
  );
  const state = useMemo(() => ({ sorting: sortingOf(sorting) }), [sorting]);
  const table = useTable({
    features,
    columns: defs,
    data: rows,
    getRowId: (row: T) => row.id,
    manualSorting: true,
    enableMultiSort: false,
    enableSortingRemoval: false,
    state,
    onSortingChange: (updater) => {
      const next = typeof updater === "function" ? updater(state.sorting) : updater;
      onSort?.(paramOf(next));
    },
  });
  const byId = new Map(columns.map((c) => [c.sortKey ?? c.id, c]));
  return (
    <div className="table-wrap cards" tabIndex={0} role="region" aria-label={caption}>
      <table role="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead role="rowgroup">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} role="row">
              {group.headers.map((h) => {
                const c = byId.get(h.column.id);
                const sorted = h.column.getIsSorted();
                return (
                  <th
                    key={h.id}
                    scope="col"
                    role="columnheader"
                    className={c?.numeric ? "num" : undefined}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  >
                    {h.column.getCanSort() ? <SortButton label={c?.label ?? ""} sorted={sorted} onClick={() => h.column.toggleSorting(sorted === "asc")} /> : c?.label}
                  </th>
                );
              })}
              {actions && (
                <th scope="col" role="columnheader" className="actions-col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          ))}
        </thead>
        <tbody role="rowgroup">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} role="row">
              {row.getAllCells().map((cell) => {
                const c = byId.get(cell.column.id);
                return (
                  <td key={cell.id} role="cell" data-label={c?.label} className={c?.numeric ? "num" : undefined}>
                    {c?.cell(row.original)}
                  </td>
                );
              })}
              {actions && (
                <td role="cell" className="actions-col">
                  {actions(row.original)}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
