// Pieces the seller pages share: a list's table (scrollable on a phone, reachable by keyboard), its pager (server
// pages, the page number in the address), money and dates as people read them, and an action's status line.
import type { ReactNode } from "react";
import { formatMoney } from "../../../shared/money.js";
import { Status } from "../ui.js";
import { href, params } from "./url.js";

export const money = (minor: number | null | undefined, currency: string | null | undefined) =>
  minor === null || minor === undefined ? "—" : formatMoney(minor, currency ?? "usd");

export const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "—");

export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
  /** Numbers align right. */
  numeric?: boolean;
}

/** A list as a table with a caption. On a phone each row becomes a card of "label: value" lines (seller.css); the
 *  roles are explicit so the table stays a table to assistive technology when CSS changes its display. */
export function Table<T extends { id: string }>({ caption, rows, columns, empty }: { caption: string; rows: T[]; columns: Column<T>[]; empty: ReactNode }) {
  if (rows.length === 0) return <p className="hint">{empty}</p>;
  return (
    <div className="table-wrap cards" tabIndex={0} role="region" aria-label={caption}>
      <table role="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c) => (
              <th key={c.label} scope="col" role="columnheader" className={c.numeric ? "num" : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr key={row.id} role="row">
              {columns.map((c) => (
                <td key={c.label} role="cell" data-label={c.label} className={c.numeric ? "num" : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / next links over the server's pages, keeping the address's other parameters. A page with two lists
 *  names the second one's page parameter (`param`) and its navigation (`label`). */
export function Pager({ page, maxPage, total, param = "page", label = "Pages" }: { page: number; maxPage: number; total: number; param?: string; label?: string }) {
  const here = Object.fromEntries(params());
  const to = (n: number) => href(window.location.pathname, { ...here, [param]: n });
  return (
    <nav className="pager" aria-label={label}>
      <span>
        Page {Math.min(page, Math.max(maxPage, 1))} of {Math.max(maxPage, 1)} · {total} in all
      </span>
      {page > 1 ? <a href={to(page - 1)}>Previous page</a> : null}
      {page < maxPage ? <a href={to(page + 1)}>Next page</a> : null}
    </nav>
  );
}

/** The loading line, or the API's error, of a page's data. */
export function Loading({ loading, error }: { loading: boolean; error: string | undefined }) {
  if (error) return <Status tone="error">{error}</Status>;
  return <Status>{loading ? "Loading…" : null}</Status>;
}

/** A definition list of facts about one thing. */
export function Facts({ items }: { items: Array<[string, ReactNode]> }) {
  return (
    <dl className="facts">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The words a role that may not change something reads instead of the button. */
export function ReadOnly({ what }: { what: string }) {
  return <p className="hint">Your role in this organization may not {what}.</p>;
}
