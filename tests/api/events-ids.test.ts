// Event ids are time-ordered UUIDs (version 7, RFC 9562; migration 0038): whichever way a batch is stored (the
// early INSERT from the body's text on PostgreSQL, the usual path that assigns ids in the server for parents in
// the batch) and for a row inserted without an id (the column's default). Their first 48 bits are the
// milliseconds they were made at, so a later batch's ids sort after an earlier one's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../server/db/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;

beforeAll(async () => {
  server = await startServer();
  seller = await createSeller(server, "event-ids");
});
afterAll(async () => server?.close());

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

async function idsOf(name: string): Promise<Array<{ id: string; external_id: string | null; parent_id: string | null }>> {
  return rowsOf(
    server.database.db,
    sql`SELECT id::text AS id, external_id, parent_id::text AS parent_id FROM event
        WHERE organization_id = ${seller.organizationId} AND name = ${name} ORDER BY external_id`,
  );
}

function expectMadeBetween(ids: string[], before: number, after: number): void {
  for (const id of ids) {
    expect(id).toMatch(V7);
    // the database's clock and the test's may differ by a little
    expect(msOf(id)).toBeGreaterThanOrEqual(before - 2_000);
    expect(msOf(id)).toBeLessThanOrEqual(after + 2_000);
  }
}

describe("event ids", () => {
  it("are version 7 and ordered by time, for a batch stored as sent", async () => {
    const before = Date.now();
    const first = Array.from({ length: 20 }, (_, i) => ({ name: "ids.plain", external_customer_id: "c1", external_id: `a-${String(i).padStart(2, "0")}` }));
    await seller.sdk.events.ingest({ events: first.map((e) => ({ name: e.name, externalCustomerId: e.external_customer_id, externalId: e.external_id })) });
    await new Promise((r) => setTimeout(r, 5));
    const second = Array.from({ length: 20 }, (_, i) => ({ name: "ids.plain", externalCustomerId: "c1", externalId: `b-${String(i).padStart(2, "0")}` }));
    await seller.sdk.events.ingest({ events: second });
    const rows = await idsOf("ids.plain");
    expect(rows).toHaveLength(40);
    expectMadeBetween(rows.map((r) => r.id), before, Date.now());
    const firstIds = rows.filter((r) => r.external_id!.startsWith("a-")).map((r) => r.id);
    const secondIds = rows.filter((r) => r.external_id!.startsWith("b-")).map((r) => r.id);
    expect(firstIds.every((a) => secondIds.every((b) => a < b))).toBe(true);
  });

  it("are version 7 when the server assigns them (a customer id, a parent in the batch)", async () => {
    const customer = await seller.sdk.customers.create({ email: `ids-${Date.now()}@example.com` });
    const before = Date.now();
    await seller.sdk.events.ingest({
      events: [
        { name: "ids.usual", customerId: customer.id, externalId: "p" },
        { name: "ids.usual", customerId: customer.id, externalId: "q", parentId: "p" },
      ],
    });
    const rows = await idsOf("ids.usual");
    expect(rows).toHaveLength(2);
    expectMadeBetween(rows.map((r) => r.id), before, Date.now());
    expect(rows[1]!.parent_id).toBe(rows[0]!.id);
  });

  it("are version 7 by the column's default", async () => {
    const before = Date.now();
    await server.database.db.execute(
      sql`INSERT INTO event (organization_id, name, timestamp) VALUES (${seller.organizationId}::uuid, 'ids.default', now())`,
    );
    const rows = await idsOf("ids.default");
    expectMadeBetween(rows.map((r) => r.id), before, Date.now());
  });
});
