// Imports of the organization's Stripe Billing business (till's own routes under /v1/stripe/imports): start one (a dry
// run, or for real), read its state and its plan, undo one. The worker does the work (run.ts, handover.ts).
import type { Db, Queryable } from "../../db/client.js";
import { IMPORT_KINDS } from "../../../shared/stripe-import.js";
import type { ImportAction, ImportCounts, ImportItemWire, ImportItemsPage, ImportKind, ImportStatus, StripeImportWire } from "../../../shared/stripe-import.js";
import { notFound } from "../errors.js";
import { updateSubscription } from "../subscription-changes/lifecycle.js";
import { findSubscription, writeSubscription } from "../subscriptions/service.js";
import { importInProgress, importNotUndoable } from "./errors.js";
import * as repo from "./repository.js";

export const IMPORT_NOT_FOUND = "Import not found";

async function toWire(db: Queryable, row: repo.ImportRow): Promise<StripeImportWire> {
  const counts = Object.fromEntries(IMPORT_KINDS.map((k) => [k, {}])) as ImportCounts;
  let blocked = 0;
  for (const c of await repo.itemCounts(db, row.id)) {
    const kind = counts[c.kind as ImportKind];
    if (!kind) continue;
    kind[c.action as ImportAction] = c.n;
    if (c.action === "blocked") blocked += c.n;
  }
  return {
    id: row.id,
    object: "stripe_import",
    status: row.status as ImportStatus,
    dry_run: row.dryRun,
    account: row.accountId !== null ? { id: row.accountId, livemode: row.livemode === true } : null,
    counts,
    blocked,
    read: row.read,
    requests: row.requests,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

/** Queues a run; one at a time per organization (409 while another is under way). */
export async function startImport(db: Db, organizationId: string, processor: string, dryRun: boolean): Promise<StripeImportWire> {
  try {
    return await db.transaction(async (tx) => toWire(tx, await repo.insertRun(tx, { organizationId, processor, dryRun })));
  } catch (err) {
    // the unique index of runs under way
    if (/billing_import_running_uq/.test(String((err as { cause?: unknown }).cause ?? err))) throw importInProgress();
    throw err;
  }
}

export async function getImport(db: Queryable, organizationId: string, id: string): Promise<StripeImportWire> {
  const row = await repo.findRun(db, organizationId, id);
  if (!row) throw notFound(IMPORT_NOT_FOUND);
  return toWire(db, row);
}

export async function listImports(db: Queryable, organizationId: string, page: number, limit: number) {
  const { rows, total } = await repo.listRuns(db, organizationId, page, limit);
  return { items: await Promise.all(rows.map((r) => toWire(db, r))), pagination: { total_count: total, max_page: Math.max(1, Math.ceil(total / limit)) } };
}

export async function listImportItems(db: Queryable, organizationId: string, id: string, filter: { kinds: string[]; actions: string[] }, page: number, limit: number): Promise<ImportItemsPage> {
  if (!(await repo.findRun(db, organizationId, id))) throw notFound(IMPORT_NOT_FOUND);
  const { rows, total } = await repo.listItems(db, id, filter, page, limit);
  const items: ImportItemWire[] = rows.map((r) => ({
    kind: r.kind as ImportKind, stripe_id: r.sourceId, label: r.label, action: r.action as ImportAction, becomes: r.becomes, till_id: r.tillId, reason: r.reason,
  }));
  return { items, pagination: { total_count: total, max_page: Math.max(1, Math.ceil(total / limit)) } };
}

/**
 * Gives the run's subscriptions back to the processor: each one till has not renewed yet is revoked in till now (its
 * benefits with it) in the transaction that asks the worker to hand it back, so till never renews it again; one
 * already renewed by till stays till's. A hand-over still pending is called off the same way.
 */
export async function undoImport(db: Db, organizationId: string, id: string, baseURL: string): Promise<StripeImportWire> {
  const run = await repo.findRun(db, organizationId, id);
  if (!run) throw notFound(IMPORT_NOT_FOUND);
  if (run.dryRun || !["moving", "succeeded", "failed"].includes(run.status)) throw importNotUndoable(run.dryRun ? "A dry run moved nothing." : `The import is ${run.status}.`);
  await db.transaction(async (tx) => {
    if (!(await repo.updateRun(tx, run.id, null, { status: "undoing", finishedAt: null }))) throw notFound(IMPORT_NOT_FOUND);
    for (const h of await repo.handoversToUndo(tx, organizationId, run.id)) {
      const sub = await findSubscription(tx, organizationId, h.subscriptionId);
      if (sub && sub.currentPeriodEnd.getTime() > h.sourcePeriodEnd.getTime()) {
        await repo.setItem(tx, run.id, "subscription", h.sourceSubscriptionId, { action: "moved", reason: "till renewed it already: it stays till's." });
        continue;
      }
      if (sub?.status === "incomplete") await writeSubscription(tx, organizationId, sub.id, { status: "incomplete_expired", endedAt: new Date(), modifiedAt: new Date() });
      else if (sub && h.state === "moved" && !["canceled", "incomplete_expired"].includes(sub.status)) {
        await updateSubscription(tx, organizationId, sub.id, { kind: "revoke" }, baseURL);
      }
      await repo.updateHandover(tx, h.subscriptionId, null, { state: "handing_back", nextAttemptAt: new Date(), attempts: 0 });
    }
  });
  await repo.settleRuns(db, [run.id]);
  return getImport(db, organizationId, id);
}

/** The processor's ids of the customers imported into the organization. */
export const importedProcessorCustomers = (db: Queryable, organizationId: string, processor: string) => repo.linkedSourceIds(db, organizationId, processor, "customer");
