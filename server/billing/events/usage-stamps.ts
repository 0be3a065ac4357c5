// A customer's usage of a meter, reused while it cannot have changed. Triggers on the rollups count each statement
// that changed a (meter, customer) pair's rollups (meter_usage_stamp, migration 0086); a rebuild raises the
// meter's rollup version. A read that saw a stamp (version and count) reads the same quantity as every other read
// of that range at that stamp, whichever process made it: so a total read with its stamp, in one statement, is
// kept here, and a caller that read the stamp again (the entitlement check's first statement) and finds it the
// same takes the total without reading the rollups. Only totals through complete rollups of a meter whose
// aggregation is not `unique` (a distinct value already seen changes no rollup row, so no count) are kept.
import type { Queryable } from "../../db/client.js";
import { rollupTotalsStamped, type RollupTotalItem } from "./rollup-reads.js";

/** Totals kept, by item (oldest first: the first dropped past the limit). */
const LIMIT = 10_000;
const known = new Map<string, { stamp: string; total: number }>();

export interface StampedTotalItem extends RollupTotalItem {
  /** the stamp the caller read for this customer and meter; undefined: none read, the total is read */
  stamp?: string | null | undefined;
}

const keyOf = (organizationId: string, item: RollupTotalItem, customer: { id: string; externalId: string | null }) =>
  JSON.stringify([organizationId, item.meter.id, item.meter.filter, item.meter.aggregation, customer.id, customer.externalId, item.range ?? null]);

function remember(key: string, stamp: string, total: number): void {
  known.delete(key);
  if (known.size >= LIMIT) {
    const oldest = known.keys().next();
    if (!oldest.done) known.delete(oldest.value);
  }
  known.set(key, { stamp, total });
}

/**
 * Reads of one total in flight (readAhead), by key: a caller needing that total meanwhile waits for the read and
 * takes it when its stamp is the caller's, instead of reading it again.
 */
const inFlight = new Map<string, Promise<void>>();
/** The last item read per (organization, customer id, meter id), without its stamp: what readAhead sends again. */
const lastItems = new Map<string, RollupTotalItem & { stampOf: { id: string; externalId: string | null } }>();
const lastKey = (organizationId: string, customerId: string, meterId: string) => `${organizationId}/${customerId.toLowerCase()}/${meterId.toLowerCase()}`;

/**
 * Sends now, on `db`, the read of the customer's total of the meter that was last read for them (the same item: its
 * meter's definition, its range), with its stamp, and keeps what it answers: for a caller that will need that total
 * after a statement it has already sent (a hold: its facts, whose stamp says which total is needed), so the read
 * travels with that statement instead of a round trip after it. Nothing is sent when no total of theirs was read in
 * this process; a read whose item or stamp is not the one needed then is simply not used.
 */
export function readAhead(db: Queryable, organizationId: string, customerId: string, meterId: string): void {
  const item = lastItems.get(lastKey(organizationId, customerId, meterId));
  if (!item) return;
  const key = keyOf(organizationId, item, item.stampOf);
  if (inFlight.has(key)) return;
  const read = rollupTotalsStamped(db, organizationId, [item]).then(
    ([r]) => {
      if (r && r.stamp !== null) remember(key, r.stamp, r.total);
    },
    // the statement's own failure fails the transaction it was sent in: its caller hears it there
    () => undefined,
  );
  inFlight.set(key, read);
  void read.finally(() => {
    if (inFlight.get(key) === read) inFlight.delete(key);
  });
}

function rememberItem(organizationId: string, item: RollupTotalItem & { stampOf: { id: string; externalId: string | null } }): void {
  const key = lastKey(organizationId, item.stampOf.id, item.meter.id);
  lastItems.delete(key);
  if (lastItems.size >= LIMIT) {
    const oldest = lastItems.keys().next();
    if (!oldest.done) lastItems.delete(oldest.value);
  }
  lastItems.set(key, item);
}

/**
 * rollupTotals, with each item whose caller read a stamp answered from a total read before at that same stamp
 * when there is one; the others read in one statement with their stamps, and kept.
 */
export async function cachedRollupTotals(db: Queryable, organizationId: string, items: StampedTotalItem[]): Promise<number[]> {
  const out = items.map(() => 0);
  const keys = items.map((item) =>
    item.stamp !== undefined && item.stampOf && item.meter.aggregation.func !== "unique" ? keyOf(organizationId, item, item.stampOf) : null,
  );
  // a read ahead of one of these totals: its answer first
  const ahead = keys.flatMap((key) => (key && inFlight.has(key) ? [inFlight.get(key)] : []));
  if (ahead.length > 0) await Promise.all(ahead);
  const misses: number[] = [];
  items.forEach((item, i) => {
    const key = keys[i];
    const hit = key && typeof item.stamp === "string" ? known.get(key) : undefined;
    if (hit && hit.stamp === item.stamp) out[i] = hit.total;
    else misses.push(i);
  });
  if (misses.length === 0) return out;
  // the items without the stamp the caller read: the statement is kept built by its items (rollup-reads.ts), and a
  // stamp that moves with every write would build it anew each time
  const read = await rollupTotalsStamped(
    db,
    organizationId,
    misses.map((i) => {
      const item = items[i] as StampedTotalItem;
      const stampOf = keys[i] ? item.stampOf : undefined;
      const read = { meter: item.meter, selection: item.selection, range: item.range, stampOf };
      if (stampOf && item.meter.id) rememberItem(organizationId, { ...read, stampOf });
      return read;
    }),
  );
  misses.forEach((i, n) => {
    const r = read[n];
    if (!r) return;
    out[i] = r.total;
    const key = keys[i];
    if (key && r.stamp !== null) remember(key, r.stamp, r.total);
  });
  return out;
}

/** How many totals are kept (tests). */
export const keptUsageTotals = (): number => known.size;
