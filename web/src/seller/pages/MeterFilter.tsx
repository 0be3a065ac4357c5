// The meter filter builder: the API's grammar (shared/meter-filter.ts) as a form — a group joins its conditions
// with "all of" (and) or "any of" (or), a condition compares an event's property with a value, and a group may
// hold groups, to the API's depth. Beside it, how many ingested events the filter matches now, asked of
// GET /v1/events/?filter=… (the same list `till events list --filter` reads) a moment after the last change.
import { useMemo } from "react";
import type { Filter, FilterClause, FilterOperator } from "../../../../shared/meter-filter.js";
import { v1, type ListPage } from "../api.js";
import { useDebounced } from "../Chooser.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";

export interface ClauseDraft {
  key: string;
  property: string;
  operator: FilterOperator;
  value: string;
}
export interface GroupDraft {
  key: string;
  conjunction: "and" | "or";
  clauses: Array<ClauseDraft | GroupDraft>;
}

const OPERATORS: Array<{ value: FilterOperator; label: string }> = [
  { value: "eq", label: "is" },
  { value: "ne", label: "is not" },
  { value: "gt", label: "is more than" },
  { value: "gte", label: "is at least" },
  { value: "lt", label: "is less than" },
  { value: "lte", label: "is at most" },
  { value: "like", label: "contains" },
  { value: "not_like", label: "does not contain" },
];

/** The API's deepest nesting (shared/meter-filter.ts FILTER_MAX_DEPTH; a value import there brings zod along). */
const MAX_DEPTH = 5;

let counter = 0;
const key = () => `k${++counter}`;
const isGroup = (c: ClauseDraft | GroupDraft): c is GroupDraft => "conjunction" in c;

export const blankClause = (property = "", value = ""): ClauseDraft => ({ key: key(), property, operator: "eq", value });
export const blankGroup = (clauses: Array<ClauseDraft | GroupDraft> = [blankClause()]): GroupDraft => ({ key: key(), conjunction: "and", clauses });

/** A number stays a number (the API compares numbers as numbers), true/false a boolean, anything else a string. */
const valueOf = (raw: string): string | number | boolean =>
  /^-?\d{1,10}$/.test(raw) && Math.abs(Number(raw)) <= 2_147_483_647 ? Number(raw) : raw === "true" ? true : raw === "false" ? false : raw;

/** The API's filter; conditions without a property are left out (a row not filled in yet). */
export function filterOf(g: GroupDraft): Filter {
  const clauses: Filter["clauses"] = [];
  for (const c of g.clauses) {
    if (isGroup(c)) {
      const inner = filterOf(c);
      if (inner.clauses.length > 0) clauses.push(inner);
    } else if (c.property.trim()) clauses.push({ property: c.property.trim(), operator: c.operator, value: valueOf(c.value.trim()) });
  }
  return { conjunction: g.conjunction, clauses };
}

/** A meter's filter as the form holds it. */
export function draftOf(f: Filter): GroupDraft {
  return {
    key: key(),
    conjunction: f.conjunction,
    clauses: f.clauses.map((c) =>
      "conjunction" in c ? draftOf(c) : { key: key(), property: (c as FilterClause).property, operator: (c as FilterClause).operator, value: String((c as FilterClause).value) },
    ),
  };
}

function Clause({ c, name, onChange, onRemove }: { c: ClauseDraft; name: string; onChange: (c: ClauseDraft) => void; onRemove: () => void }) {
  return (
    <fieldset className="filter-clause">
      <legend className="visually-hidden">{name}</legend>
      <div className="field">
        <label htmlFor={`${c.key}-property`}>Property</label>
        <input id={`${c.key}-property`} value={c.property} list="filter-properties" autoComplete="off" onChange={(e) => onChange({ ...c, property: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor={`${c.key}-operator`}>Condition</label>
        <select id={`${c.key}-operator`} value={c.operator} onChange={(e) => onChange({ ...c, operator: e.target.value as FilterOperator })}>
          {OPERATORS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${c.key}-value`}>Value</label>
        <input id={`${c.key}-value`} value={c.value} autoComplete="off" onChange={(e) => onChange({ ...c, value: e.target.value })} />
      </div>
      <button type="button" className="link danger" onClick={onRemove} aria-label={`Remove ${name.toLowerCase()}`}>
        Remove
      </button>
    </fieldset>
  );
}

function Group({ g, name, depth, onChange, onRemove }: { g: GroupDraft; name: string; depth: number; onChange: (g: GroupDraft) => void; onRemove?: () => void }) {
  const set = (i: number, next: ClauseDraft | GroupDraft) => onChange({ ...g, clauses: g.clauses.map((c, j) => (j === i ? next : c)) });
  const remove = (i: number) => onChange({ ...g, clauses: g.clauses.filter((_, j) => j !== i) });
  return (
    <fieldset className="filter-group">
      <legend>{name}</legend>
      <div className="field">
        <label htmlFor={`${g.key}-conjunction`}>Events match</label>
        <select id={`${g.key}-conjunction`} value={g.conjunction} onChange={(e) => onChange({ ...g, conjunction: e.target.value === "or" ? "or" : "and" })}>
          <option value="and">all of these conditions (and)</option>
          <option value="or">any of these conditions (or)</option>
        </select>
      </div>
      {g.clauses.map((c, i) =>
        isGroup(c) ? (
          <Group key={c.key} g={c} name={`${name}, group ${i + 1}`} depth={depth + 1} onChange={(n) => set(i, n)} onRemove={() => remove(i)} />
        ) : (
          <Clause key={c.key} c={c} name={`${name}, condition ${i + 1}`} onChange={(n) => set(i, n)} onRemove={() => remove(i)} />
        ),
      )}
      <div className="filter-actions">
        <button type="button" onClick={() => onChange({ ...g, clauses: [...g.clauses, blankClause()] })}>
          Add a condition{depth > 1 ? ` to ${name.toLowerCase()}` : ""}
        </button>
        {depth < MAX_DEPTH && (
          <button type="button" onClick={() => onChange({ ...g, clauses: [...g.clauses, blankGroup()] })}>
            Add a group{depth > 1 ? ` to ${name.toLowerCase()}` : ""}
          </button>
        )}
        {onRemove && (
          <button type="button" className="link danger" onClick={onRemove}>
            Remove {name.toLowerCase()}
          </button>
        )}
      </div>
    </fieldset>
  );
}

/** How many events the filter matches now (all time), or why it cannot be counted yet. */
function LiveCount({ filter }: { filter: Filter }) {
  const { scope } = useSeller();
  const text = useDebounced(JSON.stringify(filter), 400);
  const counted = useLoad(
    () =>
      filter.clauses.length === 0
        ? Promise.resolve({ ok: true as const, data: null })
        : v1<ListPage<unknown>>(scope, "GET", "/events/", { query: { filter: text, limit: 1 } }),
    text,
  );
  const total = counted.data?.pagination.total_count;
  const said = counted.error
    ? `Not counted: ${counted.error}`
    : filter.clauses.length === 0
      ? "Add a condition to count the events it matches."
      : counted.loading || total === undefined
        ? "Counting…"
        : `${total} ${total === 1 ? "event matches" : "events match"} this filter now.`;
  return (
    <p className="live-count" role="status" aria-live="polite" data-testid="live-count">
      {said}
    </p>
  );
}

export function FilterBuilder({ value, onChange }: { value: GroupDraft; onChange: (g: GroupDraft) => void }) {
  const filter = useMemo(() => filterOf(value), [value]);
  return (
    <div className="filter-builder">
      <datalist id="filter-properties">
        <option value="name">The event&apos;s name</option>
        <option value="source">user or system</option>
        <option value="timestamp">Epoch seconds</option>
        <option value="metadata.">A metadata key</option>
      </datalist>
      <Group g={value} name="Filter" depth={1} onChange={onChange} />
      <LiveCount filter={filter} />
    </div>
  );
}
