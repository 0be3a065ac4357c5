// The import page's sections: a run's counts per kind and action, its blocked items with their reasons, every item
// filtered by kind and action a page at a time, the earlier runs, and a button that asks once more.
import { useState, type ReactNode } from "react";
import { IMPORT_ACTIONS, IMPORT_KINDS, type ImportItemWire } from "../../../../shared/stripe-import.js";
import { ACTION_WORDS, accountWords, actionsSeen, countRows, KIND_PLURAL, statusWords } from "../../../../shared/stripe-import-plan.js";
import { SelectField } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Loading, Pager, Table } from "../parts.js";
import { href, pageParam, params } from "../url.js";
import type { Run } from "./stripe-import-data.js";

export const IMPORT_PATH = "/settings/import-stripe";

/** A time to the minute (UTC, as the API gives it): several runs a day stay apart. */
export const minute = (iso: string) => `${iso.replace("T", " ").slice(0, 16)} UTC`;

const withIds = (items: ImportItemWire[]) => items.map((i) => ({ ...i, id: `${i.kind}:${i.stripe_id}` }));

export function Counts({ run }: { run: Run }) {
  const actions = actionsSeen(run.counts);
  const rows = countRows(run.counts).map((r) => ({ ...r, id: r.kind }));
  return (
    <Table
      caption="What the import does, per kind"
      rows={rows}
      empty="Nothing read from Stripe yet."
      columns={[
        { label: "Kind", cell: (r) => KIND_PLURAL[r.kind] },
        ...actions.map((a) => ({ label: ACTION_WORDS[a], cell: (r: (typeof rows)[number]) => String(r.by[a]), numeric: true })),
        { label: "Total", cell: (r) => String(r.total), numeric: true },
      ]}
    />
  );
}

const BLOCKED_SHOWN = 100;

/** The blocked items (the first hundred; the list below pages through all of them). */
export function Blocked({ run }: { run: Run }) {
  const { scope } = useSeller();
  const list = useLoad(
    () => v1<ListPage<ImportItemWire>>(scope, "GET", `/stripe/imports/${run.id}/items`, { query: { action: "blocked", limit: BLOCKED_SHOWN, page: 1 } }),
    `${run.id}|${run.status}`,
  );
  return (
    <section aria-labelledby="blocked-h">
      <h2 id="blocked-h">Blocked ({run.blocked})</h2>
      <p className="hint">These cannot be imported as they are: change each at Stripe as its reason says, then start a dry run again.</p>
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <Table
          caption="Blocked items"
          rows={withIds(list.data.items)}
          empty="None."
          columns={[
            { label: "Kind", cell: (i) => i.kind },
            { label: "Stripe", cell: (i) => <code>{i.stripe_id}</code> },
            { label: "Label", cell: (i) => i.label },
            { label: "Reason", cell: (i) => i.reason ?? "—" },
          ]}
        />
      )}
      {list.data && list.data.pagination.total_count > BLOCKED_SHOWN && <p className="hint">The first {BLOCKED_SHOWN} are shown: filter the items below by “blocked” for all of them.</p>}
    </section>
  );
}

const LIMIT = 20;

/** Every item of the run, filtered by kind and action (in the address, as the other lists' filters). */
export function Items({ run }: { run: Run }) {
  const { scope } = useSeller();
  const page = pageParam();
  const kind = params().get("kind") ?? "";
  const action = params().get("action") ?? "";
  const list = useLoad(
    () => v1<ListPage<ImportItemWire>>(scope, "GET", `/stripe/imports/${run.id}/items`, { query: { page, limit: LIMIT, kind, action } }),
    `${run.id}|${run.status}|${page}|${kind}|${action}`,
  );
  const go = (changes: { kind?: string; action?: string }) => window.location.assign(href(IMPORT_PATH, { run: run.id, kind, action, ...changes }));
  return (
    <section aria-labelledby="items-h">
      <h2 id="items-h">Items</h2>
      <div className="toolbar">
        <SelectField
          label="Kind" value={kind} placeholder="All kinds" onChange={(e) => go({ kind: e.target.value })}
          options={IMPORT_KINDS.map((k) => ({ value: k, label: KIND_PLURAL[k] }))}
        />
        <SelectField
          label="Action" value={action} placeholder="All actions" onChange={(e) => go({ action: e.target.value })}
          options={IMPORT_ACTIONS.map((a) => ({ value: a, label: ACTION_WORDS[a] }))}
        />
      </div>
      <Loading loading={list.loading} error={list.error} />
      {list.data && (
        <>
          <Table
            caption="Items of the import"
            rows={withIds(list.data.items)}
            empty="No item matches."
            columns={[
              { label: "Kind", cell: (i) => i.kind },
              { label: "Stripe", cell: (i) => <code>{i.stripe_id}</code> },
              { label: "Label", cell: (i) => i.label },
              { label: "Action", cell: (i) => ACTION_WORDS[i.action] },
              { label: "Becomes or why", cell: (i) => i.reason ?? i.becomes ?? "—" },
            ]}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} label="Pages of items" />
        </>
      )}
    </section>
  );
}

/** The organization's runs, newest first, each a link to its plan. */
export function Runs({ runs, shown }: { runs: Run[]; shown: string | undefined }) {
  return (
    <section aria-labelledby="runs-h">
      <h2 id="runs-h">Runs</h2>
      <Table
        caption="Import runs"
        rows={runs}
        empty="No import yet."
        columns={[
          { label: "Started", cell: (r) => (r.id === shown ? <strong>{minute(r.created_at)} (shown)</strong> : <a href={href(IMPORT_PATH, { run: r.id })}>{minute(r.created_at)}</a>) },
          { label: "Run", cell: (r) => (r.dry_run ? "dry run" : "import") },
          { label: "Account", cell: (r) => accountWords(r) },
          { label: "Status", cell: (r) => statusWords(r) },
          { label: "Blocked", cell: (r) => String(r.blocked), numeric: true },
        ]}
      />
    </section>
  );
}

/** A button that asks once more (a second button, no browser dialog, as DeleteButton does). */
export function ConfirmButton({ label, question, yes, tone, onYes }: { label: string; question: ReactNode; yes: string; tone: "primary" | "danger"; onYes: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={tone} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="stack">
      <p>{question}</p>
      <div className="actions">
        <button type="button" className={tone} disabled={busy} onClick={() => void (setBusy(true), onYes().finally(() => setBusy(false)))}>
          {yes}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Not now
        </button>
      </div>
    </div>
  );
}
