// Durability of webhook delivery with several workers on one PostgreSQL database: leases taken with
// FOR UPDATE SKIP LOCKED mean no attempt is made twice, and a worker killed mid-burst loses nothing — its leases
// expire and another worker delivers what it had claimed (same webhook-id), with a log that matches.
// PostgreSQL only: PGlite is a single in-process connection, so two workers cannot race on it.
import { randomUUID } from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/db/client.js";
import { webhookDelivery, webhookEvent } from "../../server/db/schema/index.js";
import { enqueue } from "../../server/db/outbox.js";
import { createWorker, type Worker, type WorkerOptions } from "../../server/jobs/worker.js";
import { usingPostgres } from "../helpers/db.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

const EVENTS = 300;

describe.skipIf(!usingPostgres)("webhook workers on one PostgreSQL database (skipped on PGlite: one connection, no race)", () => {
  let server: TestServer;
  let seller: Seller;
  let receiver: Receiver;
  let organization: Record<string, unknown>;
  const opened: Database[] = [];
  const workers: Worker[] = [];

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    // the server's own worker is not started: the workers below are the only ones
    server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
    seller = await createSeller(server, "durable");
    organization = (await (await fetch(`${server.url}/v1/organizations/${seller.organizationId}`, {
      headers: { authorization: `Bearer ${seller.token}` },
    })).json()) as Record<string, unknown>;
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    for (const d of opened) await d.close().catch(() => {});
    await server?.close();
    await receiver?.stop();
  });

  /** A worker with its own connection pool, like another process or replica. */
  async function worker(options: Partial<WorkerOptions>): Promise<{ worker: Worker; database: Database }> {
    const url = (server.database as Database & { url?: string }).url;
    if (!url) throw new Error("no database url");
    const database = await openDatabase({ url, max: 4 });
    opened.push(database);
    const w = createWorker({ database, mailer: { transport: "smtp", send: async () => {} }, config: { webhooks: { allowPrivate: true } }, options });
    workers.push(w);
    return { worker: w, database };
  }

  async function burst(n: number): Promise<void> {
    for (let i = 0; i < n; i += 50) {
      await server.database.db.transaction(async (tx) => {
        await enqueue(
          tx,
          Array.from({ length: Math.min(50, n - i) }, () => ({
            type: "organization.updated" as const,
            organizationId: seller.organizationId,
            data: organization,
          })),
        );
      });
    }
  }

  const idsSeen = (path: string) => {
    const seen = new Map<string, number>();
    for (const h of receiver.at(path)) seen.set(h.headers["webhook-id"]!, (seen.get(h.headers["webhook-id"]!) ?? 0) + 1);
    return seen;
  };

  async function endpoint(path: string): Promise<string> {
    const e = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["organization.updated"] });
    return e.id;
  }

  async function disable(id: string) {
    await seller.sdk.webhooks.updateWebhookEndpoint({ id, webhookEndpointUpdate: { enabled: false } });
  }

  it(`two workers deliver ${EVENTS} events with no attempt made twice`, async () => {
    const path = `/two-workers-${randomUUID()}`; // a path of its own per attempt (CI's --retry)
    const id = await endpoint(path);
    const a = await worker({ concurrency: 8, pollIntervalMs: 50 });
    const b = await worker({ concurrency: 8, pollIntervalMs: 50 });
    await a.worker.start();
    await b.worker.start();
    await burst(EVENTS);
    await receiver.until((hits) => hits.filter((h) => h.path === path).length >= EVENTS, 60_000);
    const deliveries = await eventually(async () => {
      const [row] = await server.database.db.select({ n: count() }).from(webhookDelivery).where(eq(webhookDelivery.endpointId, id));
      return row!.n === EVENTS && row!.n;
    }, 30_000);
    await a.worker.stop();
    await b.worker.stop();

    const seen = idsSeen(path);
    expect(seen.size).toBe(EVENTS);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(deliveries).toBe(EVENTS);
    // both took part
    expect(a.worker.attempted).toBeGreaterThan(0);
    expect(b.worker.attempted).toBeGreaterThan(0);
    expect(a.worker.attempted + b.worker.attempted).toBe(EVENTS);
    const events = await server.database.db.select().from(webhookEvent).where(eq(webhookEvent.endpointId, id));
    expect(events).toHaveLength(EVENTS);
    expect(events.every((e) => e.attempts === 1 && e.succeeded === true && e.nextAttemptAt === null && e.lockedBy === null)).toBe(true);
    await disable(id);
  });

  it("a worker killed mid-burst loses nothing: another delivers what it held, and the log matches", async () => {
    const path = `/killed-${randomUUID()}`;
    const id = await endpoint(path);
    // slow answers, so that the kill finds attempts in flight
    receiver.answer(path, ...Array.from({ length: EVENTS }, () => ({ status: 200, delayMs: 40 })));
    // a lease well above an attempt's time on a loaded machine: an attempt that outlives its lease is made again
    // by design (logged twice), which this test does not look for (a lease of 1.5 s did on a CI at a load of 10);
    // the same for the timeout: an attempt timed out after the receiver saw it is made again, a duplicate the kill
    // did not cause (a 1 s timeout did at a load of 15)
    const victim = await worker({ concurrency: 16, pollIntervalMs: 50, leaseMs: 5_000, timeoutMs: 4_000 });
    await victim.worker.start();
    await burst(EVENTS);
    await receiver.until((hits) => hits.filter((h) => h.path === path).length >= 60, 30_000);
    await victim.worker.kill();
    await victim.database.close();
    const heldAtKill = await server.database.db
      .select({ n: count() })
      .from(webhookEvent)
      .where(sql`${webhookEvent.endpointId} = ${id} AND ${webhookEvent.lockedUntil} > now()`);
    expect(receiver.at(path).length).toBeLessThan(EVENTS);

    const heir = await worker({ concurrency: 16, pollIntervalMs: 50 });
    await heir.worker.start();
    await eventually(async () => {
      const rows = await server.database.db.select().from(webhookEvent).where(eq(webhookEvent.endpointId, id));
      return rows.length === EVENTS && rows.every((e) => e.succeeded === true && e.lockedBy === null);
    }, 60_000);
    await heir.worker.stop();

    const seen = idsSeen(path);
    const events = await server.database.db.select().from(webhookEvent).where(eq(webhookEvent.endpointId, id));
    // every webhook-id arrived at least once
    expect(seen.size).toBe(EVENTS);
    for (const e of events) expect(seen.get(e.id)).toBeGreaterThanOrEqual(1);
    // the log: exactly one successful attempt per event; no logged attempt the receiver did not see
    const log = await server.database.db.select().from(webhookDelivery).where(eq(webhookDelivery.endpointId, id));
    const okPerEvent = new Map<string, number>();
    const loggedPerEvent = new Map<string, number>();
    for (const d of log) {
      loggedPerEvent.set(d.eventId, (loggedPerEvent.get(d.eventId) ?? 0) + 1);
      if (d.succeeded) okPerEvent.set(d.eventId, (okPerEvent.get(d.eventId) ?? 0) + 1);
    }
    expect(okPerEvent.size).toBe(EVENTS);
    expect([...okPerEvent.values()].every((n) => n === 1)).toBe(true);
    for (const e of events) {
      expect(loggedPerEvent.get(e.id)).toBe(e.attempts);
      expect(seen.get(e.id)).toBeGreaterThanOrEqual(loggedPerEvent.get(e.id)!);
    }
    // only what the dead worker held (in flight or unrecorded) could arrive twice
    const duplicates = [...seen.values()].reduce((a, n) => a + n - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(heldAtKill[0]!.n);
    expect(heldAtKill[0]!.n).toBeGreaterThan(0);
    expect(victim.worker.attempted + heir.worker.attempted).toBe(EVENTS + duplicates);
    await disable(id);
  });
});
