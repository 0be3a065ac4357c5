// A chooser of one of the side's products (or customers, benefits…): a search box that asks the server (the list
// route's `query` filter) and a select of the first matches, so an organization with thousands of them still
// finds the one it means without the page loading them all.
import { useEffect, useState } from "react";
import { Field, SelectField } from "../ui.js";
import { v1, type ListPage, type Query } from "./api.js";
import { useSeller } from "./context.js";
import { useLoad } from "./hooks.js";

const SHOWN = 20;

export interface ChooserProps<T> {
  label: string;
  /** The select's form name. */
  name: string;
  /** The /v1 list route, e.g. "/products/". */
  path: string;
  /** Filters every search keeps (is_archived: false, …). */
  filters?: Query;
  describe: (item: T) => string;
  /** Ids not to offer (the one already chosen). */
  exclude?: string[];
  placeholder?: string;
  /** Choices offered before the matches ("No discount"). */
  extra?: Array<{ value: string; label: string }>;
  onChange?: (id: string) => void;
}

/** The search box's text, asked of the server a moment after the last key. */
export function useDebounced(value: string, ms = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export function Chooser<T extends { id: string }>({ label, name, path, filters = {}, describe, exclude = [], placeholder, extra = [], onChange }: ChooserProps<T>) {
  const { scope } = useSeller();
  const [typed, setTyped] = useState("");
  const search = useDebounced(typed.trim());
  const found = useLoad(() => v1<ListPage<T>>(scope, "GET", path, { query: { ...filters, query: search, limit: SHOWN } }), `${path}|${JSON.stringify(filters)}|${search}`);
  const items = (found.data?.items ?? []).filter((i) => !exclude.includes(i.id));
  const total = found.data?.pagination.total_count ?? 0;
  const hint = found.error ?? (total > SHOWN
    ? `The first ${SHOWN} of ${total} matches: type more of the name to narrow them.`
    : found.loading ? "Searching…" : `${total} ${total === 1 ? "match" : "matches"}.`);
  return (
    <div className="chooser">
      <Field label={`Search: ${label.toLowerCase()}`} type="search" optional value={typed} onChange={(e) => setTyped(e.target.value)} hint={hint} autoComplete="off" />
      <SelectField label={label} name={name} placeholder={placeholder} onChange={(e) => onChange?.(e.target.value)} options={[...extra, ...items.map((i) => ({ value: i.id, label: describe(i) }))]} />
    </div>
  );
}
