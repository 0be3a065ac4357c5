// The rows of imports: runs (leased by the worker while queued or under way), their plans' items, the links from
// the processor's ids to till's rows, and subscriptions' hand-overs (leased while pending or handing back).
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { rowsOf, type Db, type Queryable } from "../../db/client.js";
import { billingImport, billingImportItem, billingImportLink, customer, subscriptionHandover } from "../../db/schema/index.js";
import type { Existing, PlanItem } from "./plan.js";
import { linkKey } from "./plan.js";

export type ImportRow = typeof billingImport.$inferSelect;
export type HandoverRow = typeof subscriptionHandover.$inferSelect;

export async function insertRun(db: Queryable, values: { organizationId: string; processor: string; dryRun: boolean }): Promise<ImportRow> {
  const [row] = await db.insert(billingImport).values({ ...values, status: "queued" }).returning();
  if (!row) throw new Error("import insert returned nothing");
  return row;
}

export async function findRun(db: Queryable, organizationId: string, id: string): Promise<ImportRow | undefined> {
  const [row] = await db.select().from(billingImport).where(and(eq(billingImport.organizationId, organizationId), eq(billingImport.id, id))).limit(1);
  return row;
}

export async function listRuns(db: Queryable, organizationId: string, page: number, limit: number): Promise<{ rows: ImportRow[]; total: number }> {
  const where = eq(billingImport.organizationId, organizationId);
  const [rows, [total]] = await Promise.all([
    db.select().from(billingImport).where(where).orderBy(desc(billingImport.createdAt), desc(billingImport.id)).limit(limit).offset((page - 1) * limit),
    db.select({ n: count() }).from(billingImport).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Leases runs the worker has to take up (queued, or left under way by a worker that died). */
export async function claimRuns(db: Db, limit: number, leaseMs: number, token: string): Promise<ImportRow[]> {
  return db.transaction(async (tx) => {
    const ids = await rowsOf<{ id: string }>(
      tx,
      sql`SELECT id FROM ${billingImport} WHERE status IN ('queued', 'reading', 'importing') AND (locked_until IS NULL OR locked_until < now())
        ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
    if (ids.length === 0) return [];
    return tx.update(billingImport).set({ lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`, lockedBy: token })
      .where(inArray(billingImport.id, ids.map((r) => r.id))).returning();
  });
}

/** Updates a run the lease holder holds (false: the lease was lost). */
export async function updateRun(db: Queryable, id: string, token: string | null, patch: Partial<typeof billingImport.$inferInsert>): Promise<boolean> {
  const held = token === null ? eq(billingImport.id, id) : and(eq(billingImport.id, id), eq(billingImport.lockedBy, token));
  return (await db.update(billingImport).set(patch).where(held).returning({ id: billingImport.id })).length > 0;
}

export async function replaceItems(db: Queryable, importId: string, organizationId: string, items: PlanItem[]): Promise<void> {
  await db.delete(billingImportItem).where(eq(billingImportItem.importId, importId));
  for (let i = 0; i < items.length; i += 1000) {
    await db.insert(billingImportItem).values(items.slice(i, i + 1000).map((item, j) => ({ importId, organizationId, position: i + j, ...item })));
  }
}

export async function listItems(db: Queryable, importId: string, filter: { kinds: string[]; actions: string[] }, page: number, limit: number) {
  const where = and(
    eq(billingImportItem.importId, importId),
    filter.kinds.length ? inArray(billingImportItem.kind, filter.kinds) : undefined,
    filter.actions.length ? inArray(billingImportItem.action, filter.actions) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db.select().from(billingImportItem).where(where).orderBy(asc(billingImportItem.position)).limit(limit).offset((page - 1) * limit),
    db.select({ n: count() }).from(billingImportItem).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function setItem(db: Queryable, importId: string, kind: string, sourceId: string, patch: { action: string; tillId?: string | null; reason?: string | null }) {
  await db.update(billingImportItem).set(patch)
    .where(and(eq(billingImportItem.importId, importId), eq(billingImportItem.kind, kind), eq(billingImportItem.sourceId, sourceId)));
}

/** The counts of a run's items now (after hand-overs moved some). */
export async function itemCounts(db: Queryable, importId: string): Promise<Array<{ kind: string; action: string; n: number }>> {
  return db.select({ kind: billingImportItem.kind, action: billingImportItem.action, n: count() }).from(billingImportItem)
    .where(eq(billingImportItem.importId, importId)).groupBy(billingImportItem.kind, billingImportItem.action);
}

export async function writeLink(db: Queryable, organizationId: string, processor: string, kind: string, sourceId: string, tillId: string, digest: string): Promise<void> {
  await db.insert(billingImportLink).values({ organizationId, processor, kind, sourceId, tillId, digest })
    .onConflictDoUpdate({ target: [billingImportLink.organizationId, billingImportLink.processor, billingImportLink.kind, billingImportLink.sourceId], set: { tillId, digest } });
}

export async function linkedSourceIds(db: Queryable, organizationId: string, processor: string, kind: string): Promise<ReadonlySet<string>> {
  const rows = await db.select({ id: billingImportLink.sourceId }).from(billingImportLink)
    .where(and(eq(billingImportLink.organizationId, organizationId), eq(billingImportLink.processor, processor), eq(billingImportLink.kind, kind)));
  return new Set(rows.map((r) => r.id));
}

/** till's ids of the processor's objects named by `keys` (`kind|source id`), as linked by the imports. */
export async function linkedTillIds(db: Queryable, organizationId: string, processor: string, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await db.select().from(billingImportLink).where(and(
    eq(billingImportLink.organizationId, organizationId), eq(billingImportLink.processor, processor),
    inArray(sql`${billingImportLink.kind} || '|' || ${billingImportLink.sourceId}`, keys),
  ));
  return new Map(rows.map((r) => [linkKey(r.kind, r.sourceId), r.tillId]));
}

/** What earlier runs of the organization left, for planning. */
export async function existingOf(db: Queryable, organizationId: string, processor: string): Promise<Existing> {
  const [links, emails, handovers] = await Promise.all([
    db.select().from(billingImportLink).where(and(eq(billingImportLink.organizationId, organizationId), eq(billingImportLink.processor, processor))),
    db.select({ id: customer.id, email: customer.email }).from(customer).where(and(eq(customer.organizationId, organizationId), sql`${customer.deletedAt} IS NULL`)),
    db.select().from(subscriptionHandover).where(and(
      eq(subscriptionHandover.organizationId, organizationId), eq(subscriptionHandover.processor, processor),
      inArray(subscriptionHandover.state, ["pending", "moved", "handing_back"]),
    )),
  ]);
  return {
    links: new Map(links.map((l) => [linkKey(l.kind, l.sourceId), { tillId: l.tillId, digest: l.digest }])),
    emails: new Map(emails.map((e) => [e.email.toLowerCase(), e.id])),
    handovers: new Map(handovers.map((h) => [h.sourceSubscriptionId, { subscriptionId: h.subscriptionId, state: h.state }])),
  };
}

export async function insertHandover(db: Queryable, values: typeof subscriptionHandover.$inferInsert): Promise<void> {
  await db.insert(subscriptionHandover).values(values);
}

/** The run's hand-overs, locked until the transaction ends (a hand-over settling meanwhile waits for it). */
export async function lockHandoversOfRun(tx: Queryable, importId: string): Promise<HandoverRow[]> {
  return tx.select().from(subscriptionHandover).where(eq(subscriptionHandover.importId, importId)).orderBy(asc(subscriptionHandover.subscriptionId)).for("update");
}

/** Leases hand-overs due now (pending, or handing back). */
export async function claimHandovers(db: Db, limit: number, leaseMs: number, token: string): Promise<HandoverRow[]> {
  return db.transaction(async (tx) => {
    const ids = await rowsOf<{ subscription_id: string }>(
      tx,
      sql`SELECT subscription_id FROM ${subscriptionHandover} WHERE state IN ('pending', 'handing_back') AND next_attempt_at IS NOT NULL
        AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    );
    if (ids.length === 0) return [];
    return tx.update(subscriptionHandover).set({ lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`, lockedBy: token })
      .where(inArray(subscriptionHandover.subscriptionId, ids.map((r) => r.subscription_id))).returning();
  });
}

/** Updates a hand-over its lease holder holds (or anyone, with `token` null); false when not held. */
export async function updateHandover(
  db: Queryable, subscriptionId: string, token: string | null, patch: Partial<typeof subscriptionHandover.$inferInsert>, state?: string,
): Promise<boolean> {
  const held = and(
    eq(subscriptionHandover.subscriptionId, subscriptionId),
    token === null ? undefined : eq(subscriptionHandover.lockedBy, token),
    state === undefined ? undefined : eq(subscriptionHandover.state, state),
  );
  return (await db.update(subscriptionHandover).set(patch).where(held).returning({ id: subscriptionHandover.subscriptionId })).length > 0;
}

/**
 * The hand-overs an undo of the run gives back: its own, and those of earlier runs whose subscriptions it lists (a
 * rerun continues what they moved), each taken over by the run (locked: a hand-over job holding one waits).
 */
export async function handoversToUndo(tx: Queryable, organizationId: string, importId: string): Promise<HandoverRow[]> {
  const taken = await rowsOf<{ subscription_id: string }>(tx, sql`UPDATE ${subscriptionHandover} h SET import_id = ${importId}
    WHERE h.organization_id = ${organizationId} AND h.state IN ('pending', 'moved')
      AND (h.import_id = ${importId} OR h.source_subscription_id IN (
        SELECT i.source_id FROM ${billingImportItem} i WHERE i.import_id = ${importId} AND i.kind = 'subscription'))
    RETURNING h.subscription_id`);
  if (taken.length === 0) return [];
  return tx.select().from(subscriptionHandover).where(inArray(subscriptionHandover.subscriptionId, taken.map((t) => t.subscription_id)));
}

/** Runs whose hand-overs are all settled move on: moving → succeeded, undoing → undone. */
export async function settleRuns(db: Queryable, importIds: string[]): Promise<void> {
  if (importIds.length === 0) return;
  await db.execute(sql`UPDATE ${billingImport} r SET status = CASE r.status WHEN 'moving' THEN 'succeeded' ELSE 'undone' END, finished_at = now()
    WHERE r.id IN (${sql.join(importIds.map((id) => sql`${id}::uuid`), sql`, `)}) AND r.status IN ('moving', 'undoing')
      AND NOT EXISTS (SELECT 1 FROM ${subscriptionHandover} h WHERE h.import_id = r.id AND h.state IN ('pending', 'handing_back')
        AND (r.status = 'undoing' OR h.state = 'pending'))`);
}
