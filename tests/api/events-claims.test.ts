// Each external_id's claim names the event that holds it (migration 0070): the ingest keeps the events whose
// claims it took, system events likewise, a parent named by its external_id is found through the claim, and the
// event table has no index of its own on external_id. On a database upgraded with events already stored, the
// claims are filled in (the columns may have been added, and some filled, by hand before).
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rowsOf, type Database } from "../../server/db/client.js";
import { recordSystemEvents } from "../../server/billing/events/service.js";
import { insertEventsWithRollups } from "../../server/billing/events/rollups.js";
import { migrationsBefore, rolledBack, upgradedDatabase } from "../helpers/db.js";

let database: Database | undefined;
afterAll(async () => {
  await database?.close();
});

const org = randomUUID();
const ingest = (rows: Array<Record<string, unknown>>) =>
  database!.db.transaction((tx) => insertEventsWithRollups(tx, org, { text: JSON.stringify(rows), now: sql`now()` }));
/** Every claim of the organization with the event it names (null when none is found), by external_id. */
const claims = async () =>
  new Map(
    (
      await rowsOf<{ external_id: string; event_id: string | null; found: string | null; found_external_id: string | null }>(
        database!.db,
        sql`SELECT c.external_id, c.event_id::text, e.id::text AS found, e.external_id AS found_external_id
          FROM event_external_id c LEFT JOIN event e ON e.id = c.event_id AND e.timestamp = c.event_timestamp
          WHERE c.organization_id = ${org}::uuid`,
      )
    ).map((r) => [r.external_id, r]),
  );
/**
 * What the ingest's statement makes of a batch naming parents (`resolve`: as the early INSERT sends it): the
 * places of events whose parent it did not find, and each event's parent as inserted, by metadata `n`; rolled
 * back.
 */
function parentsOf(organizationId: string, rows: Array<Record<string, unknown>>) {
  return rolledBack(database!.db, async (tx) => {
    const { missingParents } = await insertEventsWithRollups(tx, organizationId, { text: JSON.stringify(rows), now: sql`now()`, resolve: true });
    const linked = await rowsOf<{ parent_id: string | null }>(
      tx,
      sql`SELECT parent_id::text FROM event WHERE organization_id = ${organizationId}::uuid AND name = 'probe' ORDER BY (metadata->>'n')::int`,
    );
    return { missing: missingParents, linked: linked.map((r) => r.parent_id) };
  });
}
const eventOf = async (externalId: string) =>
  (await rowsOf<{ id: string; metadata: Record<string, unknown> }>(database!.db, sql`SELECT id::text, metadata FROM event WHERE organization_id = ${org}::uuid AND external_id = ${externalId}`));

describe("external_id claims", () => {
  it("are filled in on upgrade, then name the event holding each key, which parents are found through", async () => {
    database = await upgradedDatabase(migrationsBefore("_event_claim_holds_event"), async (db) => {
      await db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${org}::uuid, 'Old', ${`old-${org}`}, now())`);
      // as the ingest of that time stored them: the key claimed, then the event
      await db.execute(sql`WITH keys AS (INSERT INTO event_external_id (organization_id, external_id)
          SELECT ${org}::uuid, 'old-' || g FROM generate_series(1, 50) g RETURNING external_id)
        INSERT INTO event (organization_id, name, timestamp, external_id)
        SELECT ${org}::uuid, 'api.call', '2025-03-01T00:00:00Z'::timestamptz + (substr(external_id, 5)::int || ' days')::interval, external_id FROM keys`);
      // a claim whose event is gone (its month dropped by the retention)
      await db.execute(sql`INSERT INTO event_external_id (organization_id, external_id) VALUES (${org}::uuid, 'gone')`);
      // the columns added by hand before the upgrade, one claim filled (docs/scaling.md): the migration fills the rest
      await db.execute(sql`ALTER TABLE event_external_id ADD COLUMN event_id uuid, ADD COLUMN event_timestamp timestamptz`);
      await db.execute(sql`UPDATE event_external_id c SET event_id = e.id, event_timestamp = e.timestamp FROM event e
        WHERE c.external_id = 'old-1' AND e.organization_id = c.organization_id AND e.external_id = c.external_id`);
    });
    const indexes = await rowsOf<{ name: string }>(database.db, sql`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'event'`);
    expect(indexes.map((i) => i.name)).not.toContain("event_org_external_idx");

    let claimed = await claims();
    expect(claimed.size).toBe(51);
    for (let g = 1; g <= 50; g++) expect(claimed.get(`old-${g}`)).toMatchObject({ event_id: expect.any(String), found_external_id: `old-${g}` });
    expect(claimed.get("gone")).toMatchObject({ event_id: null, found: null });

    // parents by external_id through the claims, by id (in any case) from the events; a key whose event is
    // gone finds nothing, nor another organization's key
    const old7 = (await eventOf("old-7"))[0]!;
    const old3 = (await eventOf("old-3"))[0]!;
    const probe = (n: number, parent: string) => ({ name: "probe", parent_id: parent, metadata: { n } });
    expect(await parentsOf(org, [probe(0, "old-3"), probe(1, old7.id.toUpperCase()), probe(2, "gone"), probe(3, "nobody")])).toEqual({
      missing: [2, 3],
      linked: [old3.id, old7.id, null, null],
    });
    const other = randomUUID();
    await database.db.execute(sql`INSERT INTO organization (id, name, slug, created_at) VALUES (${other}::uuid, 'Other', ${`other-${other}`}, now())`);
    expect(await parentsOf(other, [probe(0, "old-3")])).toEqual({ missing: [0], linked: [null] });

    // a batch: the first event of each external_id is stored and named by its claim; keys stored before, and
    // the one whose event is gone, are duplicates
    const inserted = await ingest([
      { name: "api.call", external_id: "new-1", metadata: { n: 1 } },
      { name: "api.call", external_id: "new-1", metadata: { n: 2 } },
      { name: "api.call", external_id: "old-3" },
      { name: "api.call", external_id: "gone" },
      { name: "api.call", metadata: { n: 3 } },
      { name: "api.call", external_id: "new-2", timestamp: "2025-06-01T00:00:00Z" },
    ]);
    expect(inserted).toEqual({ inserted: 3, missingParents: [] });
    const new1 = await eventOf("new-1");
    expect(new1).toHaveLength(1);
    expect(new1[0]!.metadata).toEqual({ n: 1 });
    claimed = await claims();
    expect(claimed.get("new-1")).toMatchObject({ event_id: new1[0]!.id, found: new1[0]!.id });
    expect(claimed.get("new-2")).toMatchObject({ found_external_id: "new-2" });
    expect((await parentsOf(org, [probe(0, "new-2")])).linked).toEqual([(await eventOf("new-2"))[0]!.id]);

    // system events: once per key, the one inserted named by its claim
    const at = new Date("2025-07-01T00:00:00Z");
    const system = (onceKey: string, n: number) => ({ organizationId: org, name: "system.thing", customerId: null, timestamp: at, metadata: { n }, onceKey });
    await database.db.transaction((tx) => recordSystemEvents(tx, [system("sys-1", 1), system("sys-1", 2), system("sys-2", 3)]));
    await database.db.transaction((tx) => recordSystemEvents(tx, [system("sys-2", 4)]));
    const sys = [...(await eventOf("sys-1")), ...(await eventOf("sys-2"))];
    expect(sys).toHaveLength(2);
    expect(sys[1]!.metadata).toEqual({ n: 3 });
    claimed = await claims();
    expect(sys.map((e) => e.id)).toEqual([claimed.get("sys-1")!.found, claimed.get("sys-2")!.found]);
  }, 180_000);
});
