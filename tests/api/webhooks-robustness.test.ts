// Webhook robustness: organization.updated from better-auth's organization update, the retention cleanup of the
// outbox and the delivery log (old finished rows go, recent and pending ones stay), and a disabled endpoint logged
// by its origin only.
import { randomUUID } from "node:crypto";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { outbox, webhookDelivery, webhookEvent } from "../../server/db/schema/index.js";
import { cleanupOnce, createCleanup } from "../../server/jobs/cleanup.js";
import type { MailMessage } from "../../server/mail/mailer.js";
import { enqueue } from "../../server/db/outbox.js";
import { createWorker, type Worker } from "../../server/jobs/worker.js";
import { eventually, Receiver } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;
let receiver: Receiver;
let worker: Worker;
const logged: string[] = [];
const mails: MailMessage[] = [];

const db = () => server.database.db;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  // the server's own worker stays off: this one keeps what it logs
  worker = createWorker({
    database: server.database,
    mailer: { transport: "smtp", send: async (m) => void mails.push(m) },
    config: { webhooks: { allowPrivate: true } },
    log: { info: (m) => logged.push(m), warn: (m) => logged.push(m), error: (_e, m) => logged.push(m ?? "") },
    options: { pollIntervalMs: 100 },
  });
  await worker.start();
  seller = await createSeller(server, "robust");
  other = await createSeller(server, "robust-other");
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await receiver?.stop();
});

const outboxCount = async (organizationId: string, type: string) =>
  (await db().select({ n: count() }).from(outbox).where(and(eq(outbox.organizationId, organizationId), eq(outbox.type, type))))[0]!.n;

describe("organization.updated from POST /api/auth/organization/update", () => {
  it("is delivered, accepted by both SDKs' validateEvent, with the organization as /v1 shows it", async () => {
    const path = "/org-auth";
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${path}`, format: "raw", events: ["organization.updated"] });
    const slug = `renamed-${Date.now().toString(36)}`;
    const res = await seller.client.post("/api/auth/organization/update", {
      organizationId: seller.organizationId,
      data: { name: "Renamed through auth", slug, logo: "https://example.com/logo.png", metadata: { tier: "gold" } },
    });
    expect(res.status).toBe(200);

    const [hit] = await receiver.until((hits) => hits.filter((h) => h.path === path).length >= 1 && hits.filter((h) => h.path === path));
    const event = validateEvent(hit!.body, hit!.headers, endpoint.secret);
    const event049 = validateEvent049(hit!.body, hit!.headers, endpoint.secret);
    expect(event.type).toBe("organization.updated");
    expect(event049.type).toBe("organization.updated");
    const viaV1 = await seller.sdk.organizations.get({ id: seller.organizationId });
    expect(event.type === "organization.updated" && event.data).toMatchObject({
      id: seller.organizationId,
      name: "Renamed through auth",
      slug,
      avatarUrl: "https://example.com/logo.png",
    });
    expect(event.type === "organization.updated" && event.data).toEqual(viaV1);
  });

  it("records nothing for an update better-auth refuses, and one event per update on either path", async () => {
    const before = await outboxCount(seller.organizationId, "organization.updated");
    const taken = await seller.client.post("/api/auth/organization/update", {
      organizationId: seller.organizationId,
      data: { slug: other.slug },
    });
    expect(taken.status).toBe(400);
    const foreign = await seller.client.post("/api/auth/organization/update", { organizationId: other.organizationId, data: { name: "Hijacked" } });
    expect(foreign.status).toBeGreaterThanOrEqual(400);
    expect(await outboxCount(seller.organizationId, "organization.updated")).toBe(before);
    expect(await outboxCount(other.organizationId, "organization.updated")).toBe(0);

    const ok = await seller.client.post("/api/auth/organization/update", { organizationId: seller.organizationId, data: { name: "Auth again" } });
    expect(ok.status).toBe(200);
    expect(await outboxCount(seller.organizationId, "organization.updated")).toBe(before + 1);
    await seller.sdk.organizations.update({ id: seller.organizationId, organizationUpdate: { name: "Through v1" } });
    expect(await outboxCount(seller.organizationId, "organization.updated")).toBe(before + 2);
  });
});

describe("a disabled endpoint in the worker's log and the owners' mail subject", () => {
  it("is named by its origin, never its path or query (they may carry tokens)", async () => {
    const path = "/gone-hook/s3cr3t-path";
    receiver.answer(path, 410);
    const endpoint = await seller.sdk.webhooks.createWebhookEndpoint({
      url: `${receiver.url}${path}?token=s3cr3t-token`,
      format: "raw",
      events: ["customer.deleted"],
    });
    const customer = await seller.sdk.customers.create({ email: `gone-${randomUUID()}@example.com` });
    await seller.sdk.customers.delete({ id: customer.id });
    const line = await eventually(async () => logged.find((l) => l.includes(endpoint.id)), 10_000);
    expect(line).toContain(`(${receiver.url})`);
    expect(line).toContain("disabled (gone)");
    expect(line).not.toContain("s3cr3t");
    expect(line).not.toContain("/gone-hook");
    // the owners' mail names the whole URL in its body only: its subject travels further (mail and dev logs)
    const mail = await eventually(async () => mails.find((m) => m.text.includes(endpoint.id)));
    expect(mail.subject).toBe(`Webhook endpoint disabled: ${receiver.url}`);
    expect(mail.text).toContain(`${receiver.url}${path}?token=s3cr3t-token`);
  });
});

describe("retention cleanup", () => {
  const DAY = "interval '1 day'";

  it("TILL_WEBHOOK_RETENTION_DAYS defaults to 30 and is at least 1", () => {
    expect(loadConfig({}).webhooks.retentionDays).toBe(30);
    expect(loadConfig({ TILL_WEBHOOK_RETENTION_DAYS: "7" }).webhooks.retentionDays).toBe(7);
    expect(() => loadConfig({ TILL_WEBHOOK_RETENTION_DAYS: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ TILL_WEBHOOK_RETENTION_DAYS: "soon" })).toThrow(ConfigError);
  });

  it("deletes old processed outbox rows, finished events and their deliveries in bounded batches; keeps recent, pending and leased work", async () => {
    const okPath = "/retention-ok";
    const failPath = "/retention-fail";
    receiver.answer(failPath, 500, 500);
    const ok = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${okPath}`, format: "raw", events: ["customer.created"] });
    const failing = await seller.sdk.webhooks.createWebhookEndpoint({ url: `${receiver.url}${failPath}`, format: "raw", events: ["customer.updated"] });
    const customers: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++) customers.push(await seller.sdk.customers.create({ email: `kept-${i}-${randomUUID()}@example.com` }));
    await seller.sdk.customers.update({ id: customers[0]!.id, customerUpdate: { name: "Pending" } });
    await seller.sdk.customers.update({ id: customers[1]!.id, customerUpdate: { name: "Leased" } });

    const eventsOf = (endpointId: string) => db().select().from(webhookEvent).where(eq(webhookEvent.endpointId, endpointId)).orderBy(webhookEvent.createdAt);
    const [e1, e2, e3] = await eventually(async () => {
      const rows = await eventsOf(ok.id);
      return rows.length === 3 && rows.every((r) => r.succeeded) && rows;
    });
    const [f1, f2] = await eventually(async () => {
      const rows = await eventsOf(failing.id);
      return rows.length === 2 && rows.every((r) => r.attempts === 1) && rows;
    });
    await worker.stop();

    const old = sql`now() - 40 * ${sql.raw(DAY)}`;
    const all = [e1!, e2!, e3!, f1!, f2!].map((e) => e.id);
    await db().update(webhookDelivery).set({ createdAt: old }).where(inArray(webhookDelivery.eventId, all));
    // e1, e2: finished long ago; e3: created long ago but changed recently (a redelivery): its old delivery goes, it
    // stays
    await db().update(webhookEvent).set({ createdAt: old, modifiedAt: old }).where(inArray(webhookEvent.id, [e1!.id, e2!.id]));
    await db().update(webhookEvent).set({ createdAt: old, modifiedAt: sql`now()` }).where(eq(webhookEvent.id, e3!.id));
    // f1 pending (its retry is due tomorrow), f2 leased by a worker: both old, both stay with their deliveries
    await db().update(webhookEvent).set({ createdAt: old, modifiedAt: old, nextAttemptAt: sql`now() + ${sql.raw(DAY)}` }).where(eq(webhookEvent.id, f1!.id));
    await db()
      .update(webhookEvent)
      .set({ createdAt: old, modifiedAt: old, lockedUntil: sql`now() + interval '1 hour'`, lockedBy: randomUUID() })
      .where(eq(webhookEvent.id, f2!.id));
    // the outbox rows of e1 and e2 were processed long ago; an old row not yet processed stays
    await db().update(outbox).set({ createdAt: old, processedAt: old }).where(inArray(outbox.id, [e1!.outboxId!, e2!.outboxId!]));
    await db().transaction((tx) =>
      enqueue(tx, { type: "customer.updated", organizationId: seller.organizationId, data: { id: customers[2]!.id } }),
    );
    const [unprocessed] = await db()
      .update(outbox)
      .set({ createdAt: old, availableAt: sql`now() + ${sql.raw(DAY)}` })
      .where(and(eq(outbox.organizationId, seller.organizationId), sql`${outbox.processedAt} IS NULL`))
      .returning({ id: outbox.id });
    const outboxBefore = (await db().select({ n: count() }).from(outbox))[0]!.n;

    const before = new Date(Date.now() - 30 * 24 * 3600_000);
    // bounded: one batch of one row per table at most
    expect(await cleanupOnce(db(), before, { batchSize: 1, maxBatches: 1 })).toEqual({ deliveries: 1, events: 1, outbox: 1, idempotencyKeys: 0 });
    await cleanupOnce(db(), before, { batchSize: 1, maxBatches: 100 });
    expect(await cleanupOnce(db(), before, { batchSize: 1, maxBatches: 100 })).toEqual({ deliveries: 0, events: 0, outbox: 0, idempotencyKeys: 0 });

    const left = await db().select().from(webhookEvent).where(inArray(webhookEvent.id, all));
    expect(left.map((e) => e.id).sort()).toEqual([e3!.id, f1!.id, f2!.id].sort());
    const deliveriesLeft = await db().select().from(webhookDelivery).where(inArray(webhookDelivery.eventId, all));
    expect(deliveriesLeft.map((d) => d.eventId).sort()).toEqual([f1!.id, f2!.id].sort());
    const outboxLeft = await db().select({ id: outbox.id }).from(outbox).where(inArray(outbox.id, [e1!.outboxId!, e2!.outboxId!, e3!.outboxId!, unprocessed!.id]));
    expect(outboxLeft.map((o) => o.id).sort()).toEqual([e3!.outboxId!, unprocessed!.id].sort());
    expect((await db().select({ n: count() }).from(outbox))[0]!.n).toBe(outboxBefore - 2);
    // pending and leased work is untouched
    const [pending, leased] = [left.find((e) => e.id === f1!.id)!, left.find((e) => e.id === f2!.id)!];
    expect(pending.nextAttemptAt).not.toBeNull();
    expect(leased.lockedBy).not.toBeNull();

    // the schedule: a pass soon after start with the configured retention
    await db().update(webhookEvent).set({ modifiedAt: sql`now() - 2 * ${sql.raw(DAY)}` }).where(eq(webhookEvent.id, e3!.id));
    const lines: string[] = [];
    const cleanup = createCleanup({ database: server.database, retentionDays: 1, firstRunMs: 0, log: { info: (m) => lines.push(m), error: (_e, m) => lines.push(m ?? "") } });
    cleanup.start();
    await eventually(async () => (await db().select().from(webhookEvent).where(eq(webhookEvent.id, e3!.id))).length === 0);
    await cleanup.stop();
    expect(lines.some((l) => /retention removed \d+ outbox rows, 1 events, 0 deliveries/.test(l))).toBe(true);
    expect(await db().select({ id: webhookEvent.id }).from(webhookEvent).where(inArray(webhookEvent.id, [f1!.id, f2!.id]))).toHaveLength(2);
  });
});

