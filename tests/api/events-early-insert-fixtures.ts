// The set-up the early-INSERT tests of POST /v1/events/ingest share (events-early-insert*.test.ts): a server of
// the file's own on a fresh database, a seller and its key, batches sent and rows read back, meters kept with
// their rollups ready, and the counts of the early and usual inserts.
import { afterAll, beforeAll, expect } from "vitest";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../server/db/client.js";
import { ingestCounters } from "../../server/billing/events/ingest/index.js";
import { rebuildMeterRollups } from "../../server/billing/events/service.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

export interface Row {
  name: string;
  timestamp: Date;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  parent_id: string | null;
  metadata: Record<string, unknown>;
  source: string;
}

/** Starts the file's server on a fresh database in beforeAll (both closed in afterAll); fields are there after. */
export function earlyInsertFixture() {
  const fx = {} as { database: Awaited<ReturnType<typeof freshDatabase>>; server: TestServer; seller: Seller; key: string };

  beforeAll(async () => {
    fx.database = await freshDatabase();
    fx.server = await startServer({}, { database: fx.database });
    fx.seller = await createSeller(fx.server, "early");
    fx.key = await fx.seller.createKey();
  });
  afterAll(async () => {
    await fx.server?.close();
    await fx.database?.close();
  });

  async function ingest(body: unknown) {
    const res = await fetch(`${fx.server.url}/v1/events/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${fx.key}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async function stored(name: string): Promise<Row[]> {
    return rowsOf<Row>(
      fx.server.database.db,
      sql`SELECT name, timestamp, customer_id, external_customer_id, external_id, parent_id, metadata, source
          FROM event WHERE organization_id = ${fx.seller.organizationId} AND name = ${name} ORDER BY created_at, external_id`,
    );
  }

  /** A meter over the events named `eventName`, its rollups ready (rebuilt as the worker would). */
  async function keptMeter(name: string, eventName: string, aggregation: Record<string, string>): Promise<{ id: string }> {
    const res = await fetch(`${fx.server.url}/v1/meters/`, {
      method: "POST",
      headers: { authorization: `Bearer ${fx.key}`, "content-type": "application/json" },
      body: JSON.stringify({ name, filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] }, aggregation }),
    });
    expect(res.status).toBe(201);
    const meter = (await res.json()) as { id: string };
    for (let i = 0; i < 50; i++) await rebuildMeterRollups(fx.server.database.db, fx.seller.organizationId, meter.id);
    return meter;
  }

  return Object.assign(fx, { ingest, stored, keptMeter });
}

export const unique = (p: string) => `${p}_${Math.random().toString(36).slice(2, 10)}`;
/** The counts after the server has settled a batch (a rollback is not waited for by the answer). */
export type Counters = ReturnType<typeof ingestCounters>;
export const earlyInsertCounts = (): Counters["early"] => ingestCounters().early;
export const usualInsertCounts = (): Counters["usual"] => ingestCounters().usual;
export async function counts(): Promise<Counters["early"]> {
  let c = earlyInsertCounts();
  for (let i = 0; i < 100 && c.started !== c.committed + c.rolledBack + c.failed; i++) {
    await new Promise((r) => setTimeout(r, 20));
    c = earlyInsertCounts();
  }
  return c;
}
/** How a batch changed the counts: on PGlite nothing is started early. */
export async function delta(send: () => Promise<unknown>) {
  const before = await counts();
  await send();
  const after = await counts();
  return {
    started: after.started - before.started,
    committed: after.committed - before.committed,
    rolledBack: after.rolledBack - before.rolledBack,
    failed: after.failed - before.failed,
  };
}
/** One early INSERT started and ended `how`, on PostgreSQL; none on PGlite (it runs on the server's thread). */
export const early = (how: "committed" | "rolledBack" | "failed") =>
  usingPostgres ? { started: 1, committed: 0, rolledBack: 0, failed: 0, [how]: 1 } : { started: 0, committed: 0, rolledBack: 0, failed: 0 };
