// Events have no foreign key to organization (migration 0037: the key's check per row was an eighth of a
// 1,000-event batch's INSERT). Triggers keep what the key did: an organization's events go with it, and a row
// naming an organization that does not exist is refused, with the key's SQLSTATE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../server/db/client.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

async function ingest(key: string, events: unknown[]): Promise<void> {
  const res = await fetch(`${server.url}/v1/events/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ events }),
  });
  expect(res.status).toBe(200);
}

async function eventCount(organizationId: string): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(server.database.db, sql`SELECT count(*)::int AS n FROM event WHERE organization_id = ${organizationId}`);
  return row!.n;
}

/** The SQLSTATE a statement failed with (drizzle wraps the driver's error in `cause` on some drivers). */
async function failure(statement: Promise<unknown>): Promise<string | undefined> {
  try {
    await statement;
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    return e.code ?? e.cause?.code;
  }
  return undefined;
}

const batch = (tag: string) => Array.from({ length: 20 }, (_, i) => ({ name: "api.call", external_customer_id: "c", external_id: `${tag}-${i}` }));

describe("events and their organization", () => {
  it("deletes an organization's events with it, and no one else's", async () => {
    const gone: Seller = await createSeller(server, "events-gone");
    const kept: Seller = await createSeller(server, "events-kept");
    await ingest(await gone.createKey(), batch("gone"));
    await ingest(await kept.createKey(), batch("kept"));
    expect(await eventCount(gone.organizationId)).toBe(20);
    const deleted = await gone.client.post("/api/auth/organization/delete", { organizationId: gone.organizationId });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await eventCount(gone.organizationId)).toBe(0);
    expect(await eventCount(kept.organizationId)).toBe(20);
  });

  it("refuses a row naming an organization that does not exist, inserted or moved, as the foreign key did", async () => {
    const seller = await createSeller(server, "events-check");
    await ingest(await seller.createKey(), batch("check"));
    const db = server.database.db;
    const nowhere = randomUUID();
    expect(
      await failure(
        db.execute(sql`INSERT INTO event (id, organization_id, name, timestamp, metadata) VALUES (gen_random_uuid(), ${nowhere}, 'x', now(), '{}')`),
      ),
    ).toBe("23503");
    // one good organization and one missing in the same statement: nothing is inserted
    expect(
      await failure(
        db.execute(sql`INSERT INTO event (id, organization_id, name, timestamp, metadata)
                       VALUES (gen_random_uuid(), ${seller.organizationId}, 'x', now(), '{}'), (gen_random_uuid(), ${nowhere}, 'x', now(), '{}')`),
      ),
    ).toBe("23503");
    expect(await failure(db.execute(sql`UPDATE event SET organization_id = ${nowhere} WHERE organization_id = ${seller.organizationId}`))).toBe("23503");
    expect(await eventCount(seller.organizationId)).toBe(20);
    expect(await eventCount(nowhere)).toBe(0);
  });
});
