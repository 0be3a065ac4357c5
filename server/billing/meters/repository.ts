// SQL for meters. Every function takes the caller's organization id and filters by it.
import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../../db/client.js";
import { meter } from "../../db/schema/index.js";

export async function existingMeterIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: meter.id })
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), inArray(meter.id, ids)));
  return rows.map((r) => r.id);
}

export async function findMetersByIds(db: Queryable, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(meter)
    .where(and(eq(meter.organizationId, organizationId), inArray(meter.id, ids)));
}
