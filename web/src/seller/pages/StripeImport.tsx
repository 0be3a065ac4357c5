// /settings/import-stripe: the Stripe Billing business of the account connected on this side, imported as
// `till import stripe` does (docs/migrate-from-stripe.md). A dry run first; its status while it runs; the plan (counts
// per kind and action, the blocked items, every item); Import, asked once more, when nothing blocks; Undo, asked once
// more, of an import that moved subscriptions. The run shown is the address's `run`, else the newest.
import { useState } from "react";
import { Status, type Tone } from "../../ui.js";
import { isSettled } from "../../../../shared/stripe-import.js";
import { accountWords, asideWords, progressOf, statusWords, subscriptionsToMove } from "../../../../shared/stripe-import-plan.js";
import { v1, type ListPage } from "../api.js";
import { useMayWrite, useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Facts, Loading, ReadOnly } from "../parts.js";
import { href, params } from "../url.js";
import { mayImport, mayUndo, startRun, undoRun, useImportRun, type Run } from "./stripe-import-data.js";
import { Blocked, ConfirmButton, Counts, IMPORT_PATH, Items, minute, Runs } from "./StripeImportParts.js";

type Said = { tone: Tone; text: string } | undefined;

/** The shown run: what it read, where it stands, and what comes next. */
function Plan({ run }: { run: Run }) {
  const settled = isSettled(run.status);
  const aside = asideWords(run.counts);
  return (
    <section aria-labelledby="plan-h">
      <h2 id="plan-h">{run.dry_run ? "Dry run" : "Import"} of {accountWords(run)}</h2>
      <Facts
        items={[
          ["Status", settled ? statusWords(run) : `${run.status.replace(/_/g, " ")} (this page follows it)`],
          ["Started", minute(run.created_at)],
          ["Requests to Stripe", `${run.requests.sent} (${run.requests.throttled} throttled, at most ${run.requests.limit} a second)`],
        ]}
      />
      <Status>{settled ? null : progressOf(run)}</Status>
      <Counts run={run} />
      {aside && settled && <p className="hint">{aside}: filter the items below by action to see them and why.</p>}
    </section>
  );
}

/** What the member may do with the shown run: start a dry run, import a clean one, undo an import. */
function Actions({ run, onStarted }: { run: Run | undefined; onStarted: (run: Run) => void }) {
  const { scope } = useSeller();
  const [said, setSaid] = useState<Said>(undefined);
  const running = run !== undefined && !isSettled(run.status);
  async function start(dryRun: boolean) {
    setSaid({ tone: "info", text: dryRun ? "Starting a dry run…" : "Starting the import…" });
    const r = await startRun(scope, dryRun);
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid(undefined);
    onStarted(r.data);
  }
  async function undo(id: string) {
    const r = await undoRun(scope, id);
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    onStarted(r.data);
  }
  const moving = run ? subscriptionsToMove(run.counts) : 0;
  return (
    <section aria-labelledby="actions-h">
      <h2 id="actions-h">Next</h2>
      {running && <p className="hint">The run goes on at the server: this page follows it, and may be left and opened again.</p>}
      {run?.dry_run && run.status === "planned" && run.blocked > 0 && <p>Nothing is imported while items block: fix them at Stripe, then start a dry run again.</p>}
      <div className="actions">
        {!running && (
          <button type="button" className={run && mayImport(run) ? undefined : "primary"} onClick={() => void start(true)}>
            {run ? "Start a new dry run" : "Start a dry run"}
          </button>
        )}
        {run && mayImport(run) && (
          <ConfirmButton
            label="Import" tone="primary" yes="Yes, import now" onYes={() => start(false)}
            question={
              `The catalog, discounts, customers and meters are created in till, and ${moving} subscription(s) handed over: ` +
              "till renews each from the end of its Stripe period, charging the same payment method, and Stripe's ends then."
            }
          />
        )}
        {run && mayUndo(run) && (
          <ConfirmButton
            label="Undo this import" tone="danger" yes="Yes, hand them back" onYes={() => undo(run.id)}
            question="The subscriptions of this import that have not renewed in till yet go back to Stripe, which bills them again. The catalog and customers stay in till."
          />
        )}
      </div>
      <Status tone={said?.tone}>{said?.text}</Status>
    </section>
  );
}

interface Connection {
  connected: boolean;
}

export function StripeImport() {
  const { scope } = useSeller();
  const mayWrite = useMayWrite("organizations");
  const connection = useLoad(() => v1<Connection>(scope, "GET", "/stripe/connection"), "stripe");
  const runs = useLoad(() => v1<ListPage<Run>>(scope, "GET", "/stripe/imports", { query: { page: 1, limit: 20 } }), "runs");
  const shownId = params().get("run") ?? runs.data?.items[0]?.id;
  const shown = useImportRun(scope, shownId);
  const run = shown.run?.id === shownId ? shown.run : undefined;
  const settled = run !== undefined && isSettled(run.status);
  const show = (started: Run) => window.location.assign(href(IMPORT_PATH, { run: started.id }));
  return (
    <Layout title="Import from Stripe">
      <p>
        Brings the Stripe Billing business of the connected account into till: products and prices, coupons and promotion codes, customers,
        meters, and the live subscriptions, which till renews from the end of their current Stripe period.{" "}
        <a href={href("/settings/payments")}>Back to payments</a>
      </p>
      <Loading loading={connection.loading || runs.loading} error={connection.error ?? runs.error ?? shown.error} />
      {connection.data && !connection.data.connected && (
        <p className="warning" role="note">
          No Stripe account is connected on this side: connect one in <a href={href("/settings/payments")}>Settings · Payments</a> first.
        </p>
      )}
      {run && <Plan run={run} />}
      {connection.data?.connected && (mayWrite ? <Actions run={run} onStarted={show} /> : <ReadOnly what="import from Stripe" />)}
      {run && settled && run.blocked > 0 && <Blocked run={run} />}
      {run && settled && <Items run={run} />}
      {/* the shown run as it is now, not as the list was read */}
      {runs.data && runs.data.items.length > 0 && <Runs runs={runs.data.items.map((r) => (r.id === run?.id ? run : r))} shown={shownId} />}
    </Layout>
  );
}
