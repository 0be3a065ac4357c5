// The toolbar every list page has: a search box (the address's `query`), the section's own filters beside it, and
// which side the list shows with a link to the same list on the other one. A search or a filter starts again at
// page 1 and keeps the rest of the address (`here`), so a list is always what its address says.
import { useState, type FormEvent, type ReactNode } from "react";
import { useSeller } from "../context.js";
import { href } from "../url.js";

export type Here = Record<string, string | number | undefined>;

export interface ListSearch {
  /** The input's id (unique on the page). */
  id: string;
  label: string;
  value: string;
}

export function ListToolbar({ path, here, search, children }: { path: string; here: Here; search?: ListSearch; children?: ReactNode }) {
  const { mode } = useSeller();
  const [text, setText] = useState(search?.value ?? "");
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    window.location.assign(href(path, { ...here, page: undefined, query: text || undefined }));
  };
  const other = mode === "sandbox" ? "live" : "sandbox";
  return (
    <div className="toolbar">
      {search && (
        <form role="search" onSubmit={onSearch} className="search">
          <label htmlFor={search.id}>{search.label}</label>
          <input id={search.id} type="search" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit">Search</button>
        </form>
      )}
      {children}
      <p className="list-side">
        <span className={`side-mark ${mode}`}>{mode === "sandbox" ? "Sandbox" : "Live"}</span>{" "}
        <a href={href(path, {}, { mode: other })}>Show {other}</a>
      </p>
    </div>
  );
}
