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
 * rollupTotals, with each item whose caller read a stamp answered from a total read before at that same stamp
 * when there is one; the others read in one statement with their stamps, and kept.
 */
export async function cachedRollupTotals(db: Queryable, organizationId: string, items: StampedTotalItem[]): Promise<number[]> {
  const out = items.map(() => 0);
  const keys = items.map((item) =>
    item.stamp !== undefined && item.stampOf && item.meter.aggregation.func !== "unique" ? keyOf(organizationId, item, item.stampOf) : null,
  );
  const misses: number[] = [];
  items.forEach((item, i) => {
    const key = keys[i];
    const hit = key && typeof item.stamp === "string" ? known.get(key) : undefined;
    if (hit && hit.stamp === item.stamp) out[i] = hit.total;
    else misses.push(i);
  });
  if (misses.length === 0) return out;
  const read = await rollupTotalsStamped(
    db,
    organizationId,
    misses.map((i) => ({ ...(items[i] as StampedTotalItem), stampOf: keys[i] ? items[i]?.stampOf : undefined })),
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
